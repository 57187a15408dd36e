/* up/down routing internals shared by updown_roots.c (root choice),
 * updown_dir.c (link directions), updown_paths.c (LFTs) and updown.c (the
 * engine).  Exposed so unit tests can check each step on its own. */
#ifndef IBSM_UPDOWN_H
#define IBSM_UPDOWN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"

/* Switch graph in compressed form: the switch-to-switch links of switch s
 * are adj[start[s] .. start[s+1]), each with the local port and the peer's
 * switch index.  Host (CA/router) ports are counted in hosts[s]. */
struct sw_graph {
	uint32_t n;
	uint32_t *start;	/* [n + 1] */
	uint32_t *peer;		/* [start[n]] peer switch index */
	uint8_t *port;		/* [start[n]] local port number */
	uint32_t *hosts;	/* [n] linked CA/router ports */
};

int sw_graph_build(const struct fabric *f, struct sw_graph *g);
void sw_graph_free(struct sw_graph *g);

/* Roots: the configured ones (GUID strings "0x..." or node descriptions),
 * or the automatic choice described at the top of updown_roots.c.  Fills
 * res->roots / res->n_roots (switch nodes, sorted by GUID).  0, or negative
 * errno with res->error set (unknown name, not a switch, no switches). */
int updown_pick_roots(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_params *prm, struct ucast_result *res);

/* Directions.  order[s] is a label, a permutation of 0..n-1: the link
 * a-b is "up" from a iff order[b] < order[a].  A total order makes the
 * orientation acyclic by construction; updown_check_dag() proves it from
 * the links anyway.  BFS: labels by (rank from the roots, GUID); DFS:
 * roots first, then DFS visit order with Sancho-Robles heuristics.
 * Switches no root reaches become extra roots (lowest GUID first).
 * rank (optional, [n]) receives the BFS rank. */
int updown_order_bfs(const struct fabric *f, const struct sw_graph *g,
		     struct ib_node *const *roots, uint32_t n_roots,
		     uint32_t *order, uint32_t *rank);
int updown_order_dfs(const struct fabric *f, const struct sw_graph *g,
		     const struct hops *h, struct ib_node *const *roots,
		     uint32_t n_roots, uint32_t *order);
/* 0 if the "up" orientation of every switch link is acyclic, else -ELOOP. */
int updown_check_dag(const struct sw_graph *g, const uint32_t *order);

static inline bool updown_is_up(const uint32_t *order, uint32_t from,
				uint32_t to)
{
	return order[to] < order[from];
}

/* Fills every switch's LFT (LIDs 0..max_lid) with shortest legal
 * up/down next hops, least loaded among equals.  With rank (BFS ranks,
 * may be NULL), a link between switches of the same rank is only used
 * going down: that is the rule ibdmchk -u checks (it calls any move that
 * does not lower the rank "down"), so its verdict and ours agree.
 * 0 or -ENOMEM. */
int updown_fill_lfts(struct fabric *f, const struct sw_graph *g,
		     struct pool *pool, const uint32_t *order,
		     const uint32_t *rank);

/* The candidate ports updown_fill_lfts() chooses among, for port groups:
 * for each batch of destination switches [first, first + count) calls
 * fn with mask[(s * batch + b) * W ...] the legal shortest next-hop ports
 * of switch s towards switch first + b (W 64-bit words per mask, bit p =
 * port p; empty at the destination itself; batch >= count is the row
 * stride, switch-major as the LFT fill reads them).  Every path that
 * follows these sets is up* then down*.  0 or -ENOMEM. */
typedef void (*updown_cand_fn)(void *ctx, uint32_t first, uint32_t count,
			       const uint64_t *mask, uint32_t W,
			       uint32_t batch);
int updown_candidates(const struct fabric *f, const struct sw_graph *g,
		      struct pool *pool, const uint32_t *order,
		      const uint32_t *rank, updown_cand_fn fn, void *ctx);

/* updn-roots.dump is written by dump_write_roots() (lib/dump.h) from
 * ucast_result.roots. */

#endif
