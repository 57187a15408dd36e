/* Min-hop tables: switch-to-switch hop distances, one byte each (docs/design.md
 * §3), computed by a BFS from every switch in parallel.  Per-port and host
 * distances are derived, never stored: a host is its switch + 1; leaving
 * switch s by port p towards switch t costs 1 + hops(peer(s,p), t). */
#ifndef IBSM_HOPS_H
#define IBSM_HOPS_H

#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"

#define HOPS_INF 0xFF

struct hops {
	uint32_t n; /* number of switches (fabric.n_switches at compute time) */
	uint8_t *d; /* n * n, d[a * n + b] = hops from switch a to switch b */
};

/* Computes the table for f's switches; pool may be NULL.  0 or -ENOMEM. */
int hops_compute(const struct fabric *f, struct hops *h, struct pool *pool);
void hops_free(struct hops *h);

static inline uint8_t hops_sw(const struct hops *h, uint32_t a, uint32_t b)
{
	return h->d[(size_t)a * h->n + b];
}

/* Hops from switch sw to node dst (a switch: the table; a CA/router: its
 * nearest attached switch + 1; HOPS_INF if unreachable).  For a CA with
 * several linked ports this is the minimum over them. */
uint8_t hops_to_node(const struct fabric *f, const struct hops *h,
		     const struct ib_node *sw, const struct ib_node *dst);
/* Hops from switch sw to the switch or CA port `dst`, when leaving sw by
 * port pn (1 + distance from the peer); HOPS_INF if no path that way. */
uint8_t hops_via_port(const struct fabric *f, const struct hops *h,
		      const struct ib_node *sw, uint8_t pn,
		      const struct ib_port *dst);

/* Hop counts for the fdbs dump (lib/dump.h dump_hops_fn); ctx is a
 * struct hops_fdbs_ctx.  Returns the hops from sw to lid via port and sets
 * *best to the least over sw's ports (both HOPS_INF when unreachable). */
struct hops_fdbs_ctx {
	const struct fabric *f;
	const struct hops *h;
};
uint8_t hops_fdbs_cb(void *ctx, const struct ib_node *sw, uint16_t lid,
		     uint8_t port, uint8_t *best);

#endif
