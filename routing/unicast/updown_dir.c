/* Up/down link directions as a total order of the switches (a label per
 * switch; "up" is towards the lower label), so every assignment is a DAG
 * orientation.  BFS: Autonet's rule (rank from the roots, ties by GUID).
 * DFS: Sancho, Robles and Duato's DFS spanning tree with their node
 * selection heuristics, which on irregular fabrics leaves more minimal
 * paths legal.  updown_check_dag() verifies acyclicity from the links. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "routing/unicast/updown.h"

struct rank_key {
	uint32_t rank;
	uint64_t guid;
	uint32_t s;
};

/* A switch no root reaches becomes a root of its own component. */
static void warn_orphan(const struct fabric *f, uint32_t s)
{
	log_warn("updown: switch 0x%016llx (%s) is not reachable from any "
		 "root; it becomes a root of its own component",
		 (unsigned long long)f->switches[s]->guid, f->switches[s]->desc);
}

static int cmp_rank(const void *a, const void *b)
{
	const struct rank_key *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Lowest-GUID switch with rank[s] == UINT32_MAX, or UINT32_MAX. */
static uint32_t lowest_unranked(const struct fabric *f, uint32_t n,
				const uint32_t *rank)
{
	uint32_t best = UINT32_MAX;

	for (uint32_t s = 0; s < n; s++)
		if (rank[s] == UINT32_MAX &&
		    (best == UINT32_MAX ||
		     f->switches[s]->guid < f->switches[best]->guid))
			best = s;
	return best;
}

static void bfs_ranks(const struct fabric *f, const struct sw_graph *g,
		      struct ib_node *const *roots, uint32_t n_roots,
		      uint32_t *rank, uint32_t *q)
{
	uint32_t head = 0, tail = 0;

	for (uint32_t s = 0; s < g->n; s++)
		rank[s] = UINT32_MAX;
	for (uint32_t i = 0; i < n_roots; i++) {
		uint32_t r = (uint32_t)roots[i]->sw_idx;
		if (rank[r] == UINT32_MAX) {
			rank[r] = 0;
			q[tail++] = r;
		}
	}
	for (;;) {
		while (head < tail) {
			uint32_t s = q[head++];
			for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++)
				if (rank[g->peer[k]] == UINT32_MAX) {
					rank[g->peer[k]] = rank[s] + 1;
					q[tail++] = g->peer[k];
				}
		}
		uint32_t extra = lowest_unranked(f, g->n, rank);
		if (extra == UINT32_MAX)
			break;
		warn_orphan(f, extra);
		rank[extra] = 0;
		q[tail++] = extra;
	}
}

int updown_order_bfs(const struct fabric *f, const struct sw_graph *g,
		     struct ib_node *const *roots, uint32_t n_roots,
		     uint32_t *order, uint32_t *rank_out)
{
	uint32_t n = g->n;
	uint32_t *rank = malloc((n + 1) * sizeof(*rank));
	uint32_t *q = malloc((n + 1) * sizeof(*q));
	struct rank_key *keys = malloc((n + 1) * sizeof(*keys));
	int rc = -ENOMEM;

	if (!rank || !q || !keys)
		goto out;
	bfs_ranks(f, g, roots, n_roots, rank, q);
	for (uint32_t s = 0; s < n; s++)
		keys[s] = (struct rank_key){ rank[s], f->switches[s]->guid, s };
	qsort(keys, n, sizeof(*keys), cmp_rank);
	for (uint32_t i = 0; i < n; i++)
		order[keys[i].s] = i;
	if (rank_out)
		memcpy(rank_out, rank, n * sizeof(*rank));
	rc = 0;
out:
	free(rank);
	free(q);
	free(keys);
	return rc;
}

struct dfs_state {
	const struct fabric *f;
	const struct sw_graph *g;
	uint32_t *order;	/* UINT32_MAX = not visited */
	uint32_t *vis_links;	/* links to visited switches */
	uint64_t *sumd;		/* total hop distance to all switches */
	uint32_t *stack, sp, next_label;
};

static void dfs_visit(struct dfs_state *d, uint32_t s)
{
	d->order[s] = d->next_label++;
	d->stack[d->sp++] = s;
	for (uint32_t k = d->g->start[s]; k < d->g->start[s + 1]; k++)
		d->vis_links[d->g->peer[k]]++;
}

/* Sancho-Robles node selection: most links into the visited part, then
 * smallest average distance to the others, then lowest GUID. */
static bool dfs_better(const struct dfs_state *d, uint32_t a, uint32_t b)
{
	if (d->vis_links[a] != d->vis_links[b])
		return d->vis_links[a] > d->vis_links[b];
	if (d->sumd[a] != d->sumd[b])
		return d->sumd[a] < d->sumd[b];
	return d->f->switches[a]->guid < d->f->switches[b]->guid;
}

static void dfs_run(struct dfs_state *d)
{
	while (d->sp) {
		uint32_t u = d->stack[d->sp - 1], best = UINT32_MAX;
		for (uint32_t k = d->g->start[u]; k < d->g->start[u + 1]; k++) {
			uint32_t v = d->g->peer[k];
			if (d->order[v] == UINT32_MAX &&
			    (best == UINT32_MAX || dfs_better(d, v, best)))
				best = v;
		}
		if (best == UINT32_MAX)
			d->sp--;
		else
			dfs_visit(d, best);
	}
}

static void sum_dist(const struct hops *h, uint32_t n, uint64_t *sumd)
{
	for (uint32_t s = 0; s < n; s++) {
		uint64_t t = 0;
		if (h && h->n == n)
			for (uint32_t o = 0; o < n; o++)
				t += hops_sw(h, s, o);
		sumd[s] = t;
	}
}

int updown_order_dfs(const struct fabric *f, const struct sw_graph *g,
		     const struct hops *h, struct ib_node *const *roots,
		     uint32_t n_roots, uint32_t *order)
{
	uint32_t n = g->n;
	struct dfs_state d = { .f = f, .g = g, .order = order };
	int rc = -ENOMEM;

	d.vis_links = calloc(n + 1, sizeof(*d.vis_links));
	d.sumd = malloc((n + 1) * sizeof(*d.sumd));
	d.stack = malloc((n + 1) * sizeof(*d.stack));
	if (!d.vis_links || !d.sumd || !d.stack)
		goto out;
	sum_dist(h, n, d.sumd);
	for (uint32_t s = 0; s < n; s++)
		order[s] = UINT32_MAX;
	/* All roots come first, so links between roots and their
	 * neighbours point up to the roots; DFS starts from the first. */
	for (uint32_t i = 0; i < n_roots; i++)
		if (order[roots[i]->sw_idx] == UINT32_MAX)
			dfs_visit(&d, (uint32_t)roots[i]->sw_idx);
	for (uint32_t i = 0; i < d.sp / 2; i++) {
		uint32_t t = d.stack[i];
		d.stack[i] = d.stack[d.sp - 1 - i];
		d.stack[d.sp - 1 - i] = t;
	}
	for (;;) {
		dfs_run(&d);
		uint32_t extra = lowest_unranked(f, n, order);
		if (extra == UINT32_MAX)
			break;
		warn_orphan(f, extra);
		dfs_visit(&d, extra);
	}
	rc = 0;
out:
	free(d.vis_links);
	free(d.sumd);
	free(d.stack);
	return rc;
}

int updown_check_dag(const struct sw_graph *g, const uint32_t *order)
{
	uint32_t n = g->n, head = 0, tail = 0;
	uint32_t *indeg = calloc(n + 1, sizeof(*indeg));
	uint32_t *q = malloc((n + 1) * sizeof(*q));
	int rc = -ENOMEM;

	if (!indeg || !q)
		goto out;
	/* edge a -> b for every link that is up from a */
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t k = g->start[a]; k < g->start[a + 1]; k++) {
			uint32_t b = g->peer[k];
			if (b == a || order[a] == order[b])
				goto cyclic; /* self link or no direction */
			if (updown_is_up(order, a, b))
				indeg[b]++;
		}
	for (uint32_t s = 0; s < n; s++)
		if (!indeg[s])
			q[tail++] = s;
	while (head < tail) {
		uint32_t a = q[head++];
		for (uint32_t k = g->start[a]; k < g->start[a + 1]; k++) {
			uint32_t b = g->peer[k];
			if (updown_is_up(order, a, b) && --indeg[b] == 0)
				q[tail++] = b;
		}
	}
	rc = tail == n ? 0 : -ELOOP;
	goto out;
cyclic:
	rc = -ELOOP;
out:
	free(indeg);
	free(q);
	return rc;
}
