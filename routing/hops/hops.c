/* Min-hop tables: see hops.h.  The BFS runs 64 sources at once over a
 * compact adjacency (CSR) of distinct switch neighbours: per switch one
 * 64-bit word says which of the 64 BFS waves have reached it, and a level
 * is one pass pulling the neighbours' frontier words.  A 2,000-switch
 * fat tree is then 32 batches of about 6 passes over 80,000 edges.  Each
 * batch writes only its own 64 rows, so the parallel-for shares no
 * mutable state. */
#include "routing/hops/hops.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct csr {
	uint32_t *off; /* [n + 1] */
	uint32_t *adj; /* distinct neighbour switches */
};

struct bfs_job {
	struct hops *h;
	const struct csr *g;
	uint64_t **scratch; /* per worker: vis, front, next (3 n words) */
};

static void csr_free(struct csr *g)
{
	free(g->off);
	free(g->adj);
}

static int csr_build(const struct fabric *f, struct csr *g)
{
	uint32_t n = f->n_switches, k = 0, total = 0;

	for (uint32_t s = 0; s < n; s++)
		total += f->switches[s]->nports;
	g->off = malloc((n + 1) * sizeof(*g->off));
	g->adj = malloc((total + 1) * sizeof(*g->adj));
	if (!g->off || !g->adj)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		const struct ib_node *sw = f->switches[s];
		g->off[s] = k;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			uint32_t t, i;
			if (!r || r->node->type != IB_NODE_SWITCH)
				continue;
			t = (uint32_t)r->node->sw_idx;
			for (i = g->off[s]; i < k && g->adj[i] != t; i++)
				;
			if (i == k && t != s)
				g->adj[k++] = t;
		}
	}
	g->off[n] = k;
	return 0;
}

/* One batch: sources 64 * b .. 64 * b + 63. */
static void bfs_batch(void *arg, size_t b, unsigned worker)
{
	struct bfs_job *j = arg;
	uint32_t n = j->h->n, first = (uint32_t)b * 64;
	uint32_t cnt = n - first < 64 ? n - first : 64;
	uint64_t *vis = j->scratch[worker], *front = vis + n, *next = front + n;
	const uint32_t *off = j->g->off, *adj = j->g->adj;
	uint8_t *rows = j->h->d + (size_t)first * n;
	uint64_t any = 1;

	memset(rows, HOPS_INF, (size_t)cnt * n);
	memset(vis, 0, 2 * (size_t)n * sizeof(*vis));
	for (uint32_t i = 0; i < cnt; i++) {
		vis[first + i] = front[first + i] = 1ULL << i;
		rows[(size_t)i * n + first + i] = 0;
	}
	for (unsigned level = 1; any && level < HOPS_INF; level++) {
		any = 0;
		for (uint32_t v = 0; v < n; v++) {
			uint64_t x = 0;
			for (uint32_t e = off[v]; e < off[v + 1]; e++)
				x |= front[adj[e]];
			x &= ~vis[v];
			next[v] = x;
			any |= x;
			vis[v] |= x;
			while (x) {
				unsigned i = (unsigned)__builtin_ctzll(x);
				rows[(size_t)i * n + v] = (uint8_t)level;
				x &= x - 1;
			}
		}
		uint64_t *t = front;
		front = next;
		next = t;
	}
}

int hops_compute(const struct fabric *f, struct hops *h, struct pool *pool)
{
	uint32_t n = f->n_switches;
	unsigned nw = pool_threads(pool);
	struct csr g = {0};
	struct bfs_job j = {.h = h, .g = &g};
	int rc = 0;

	free(h->d);
	h->n = n;
	h->d = malloc(n ? (size_t)n * n : 1);
	j.scratch = calloc(nw, sizeof(*j.scratch));
	if (!h->d || !j.scratch || csr_build(f, &g) < 0) {
		rc = -ENOMEM;
		goto out;
	}
	for (unsigned w = 0; w < nw; w++)
		if (!(j.scratch[w] = malloc((3 * (size_t)n + 1) * 8))) {
			rc = -ENOMEM;
			goto out;
		}
	pool_for(pool, (n + 63) / 64, bfs_batch, &j);
out:
	if (j.scratch)
		for (unsigned w = 0; w < nw; w++)
			free(j.scratch[w]);
	free(j.scratch);
	csr_free(&g);
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
		uint8_t d =
		    hops_sw(h, (uint32_t)sw->sw_idx, (uint32_t)r->node->sw_idx);
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
