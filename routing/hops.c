/* Min-hop tables: see hops.h.  BFS over switch-to-switch links only; each
 * BFS writes its own row, so the parallel-for shares no mutable state. */
#include "routing/hops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct bfs_job {
	const struct fabric *f;
	struct hops *h;
	uint32_t **queues; /* one scratch queue per worker */
};

static void bfs_row(void *arg, size_t src, unsigned worker)
{
	struct bfs_job *j = arg;
	uint32_t n = j->h->n, *q = j->queues[worker], head = 0, tail = 0;
	uint8_t *row = j->h->d + src * n;

	memset(row, HOPS_INF, n);
	row[src] = 0;
	q[tail++] = (uint32_t)src;
	while (head < tail) {
		uint32_t s = q[head++];
		struct ib_node *sw = j->f->switches[s];
		uint8_t nd = row[s] == HOPS_INF - 1 ? row[s] : row[s] + 1;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (!r || r->node->type != IB_NODE_SWITCH)
				continue;
			uint32_t t = (uint32_t)r->node->sw_idx;
			if (row[t] != HOPS_INF)
				continue;
			row[t] = nd;
			q[tail++] = t;
		}
	}
}

int hops_compute(const struct fabric *f, struct hops *h, struct pool *pool)
{
	uint32_t n = f->n_switches;
	unsigned nw = pool_threads(pool);
	struct bfs_job j = { .f = f, .h = h };
	int rc = 0;

	free(h->d);
	h->n = n;
	h->d = malloc(n ? (size_t)n * n : 1);
	j.queues = calloc(nw, sizeof(*j.queues));
	if (!h->d || !j.queues) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned w = 0; w < nw; w++)
		if (!(j.queues[w] = malloc((n ? n : 1) * sizeof(uint32_t)))) {
			rc = -ENOMEM;
			goto out;
		}
	pool_for(pool, n, bfs_row, &j);
out:
	if (j.queues)
		for (unsigned w = 0; w < nw; w++)
			free(j.queues[w]);
	free(j.queues);
	return rc;
}

void hops_free(struct hops *h)
{
	free(h->d);
	h->d = NULL;
	h->n = 0;
}

uint8_t hops_to_node(const struct fabric *f, const struct hops *h,
		     const struct ib_node *sw, const struct ib_node *dst)
{
	uint8_t best = HOPS_INF;

	(void)f;
	if (dst->type == IB_NODE_SWITCH)
		return hops_sw(h, (uint32_t)sw->sw_idx, (uint32_t)dst->sw_idx);
	for (unsigned p = 1; p <= dst->nports; p++) {
		struct ib_port *r = dst->ports[p].remote;
		if (!r || r->node->type != IB_NODE_SWITCH)
			continue;
		uint8_t d = hops_sw(h, (uint32_t)sw->sw_idx,
				    (uint32_t)r->node->sw_idx);
		if (d != HOPS_INF && d + 1 < best)
			best = d + 1;
	}
	return best;
}

uint8_t hops_via_port(const struct fabric *f, const struct hops *h,
		      const struct ib_node *sw, uint8_t pn,
		      const struct ib_port *dst)
{
	struct ib_port *r = sw->ports[pn].remote;
	uint8_t d;

	(void)f;
	if (!r)
		return HOPS_INF;
	if (r->node->type != IB_NODE_SWITCH) /* only the CA port itself */
		return r == dst ? 1 : HOPS_INF;
	if (dst->node->type == IB_NODE_SWITCH) {
		d = hops_sw(h, (uint32_t)r->node->sw_idx,
			    (uint32_t)dst->node->sw_idx);
	} else {
		struct ib_port *a = dst->remote; /* the CA port's switch */
		if (!a || a->node->type != IB_NODE_SWITCH)
			return HOPS_INF;
		d = hops_sw(h, (uint32_t)r->node->sw_idx,
			    (uint32_t)a->node->sw_idx);
		if (d != HOPS_INF)
			d++;
	}
	return d == HOPS_INF || d >= HOPS_INF - 1 ? HOPS_INF : d + 1;
}

uint8_t hops_fdbs_cb(void *ctx, const struct ib_node *sw, uint16_t lid,
		     uint8_t port, uint8_t *best)
{
	const struct hops_fdbs_ctx *c = ctx;
	const struct ib_port *dst = fabric_port_by_lid(c->f, lid);

	*best = HOPS_INF;
	if (!dst)
		return HOPS_INF;
	if (dst == &sw->ports[0]) {
		*best = 0;
		return port == 0 ? 0 : HOPS_INF;
	}
	for (unsigned p = 1; p <= sw->nports; p++) {
		uint8_t d = hops_via_port(c->f, c->h, sw, (uint8_t)p, dst);
		if (d < *best)
			*best = d;
	}
	if (port == 0 || port > sw->nports)
		return HOPS_INF;
	return hops_via_port(c->f, c->h, sw, port, dst);
}
