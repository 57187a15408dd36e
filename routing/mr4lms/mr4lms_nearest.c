/* MR4LMS's own merge targets (Algorithm 4 step 1), used by mr4lms_merge.c
 * only when no color lets the new group join the trees it meets without
 * pulling in others: the existing tree nearest to the new group by the
 * paper's formula (1) — the mean, over the members of both, of each
 * member's shortest distance to the other group (optimistic step) — or,
 * when trees are many, the color holding the fewest groups (the paper's
 * pessimistic shortcut).
 *
 * Readings: a tree's "members" are the members of all groups on it;
 * distances are taken between member switches (each distinct switch
 * counted once; CA-to-CA distance is the switch distance + 2 for every
 * pair, which does not change the order).  To avoid the exact O(|g||t|)
 * formula on every tree, a lower bound (the tree side exactly, the group
 * side as |g| times the smallest distance from the tree to the group) is
 * computed for all trees in parallel, and the exact value only for trees
 * whose bound beats the best so far, in increasing order of the bound.
 * The group side of the bound uses the triangle inequality through the
 * tree's root: d(x, tree) >= d(x, root) - (height - 1).  Ties (equal
 * distance) go to the tree with fewer groups, then the lower id. */
#include "routing/mr4lms/mr4lms_priv.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lb_job {
	struct mc_ctx *c;
	struct mr4lms *m;
	float *lb;
	float *side;	 /* tree-side sum */
	uint32_t *cnt;	 /* tree member switches */
	uint8_t *dmin_t; /* smallest distance from the tree to the group */
	uint32_t *ys;	 /* [n_sw] member switches of the tree being summed */
	uint32_t tag;	 /* bfs_to_set marks */
};

static void tree_bound(void *arg, size_t i, unsigned worker)
{
	struct lb_job *j = arg;
	struct mc_tree *t = &j->c->trees[i];
	uint32_t sum = 0, n = 0, dmin = 255;
	const uint32_t *ms;

	(void)worker;
	j->lb[i] = INFINITY;
	if (!t->live || t->color == MC_NONE || !t->n_groups ||
	    !(ms = mc_tree_msw(t, &n)) || !n)
		return;
	for (uint32_t k = 0; k < n; k++) {
		uint32_t d = j->m->dmin[ms[k]];
		sum += d;
		dmin = d < dmin ? d : dmin;
	}
	/* Group side: member x is at least d(x, root) - r from the tree's
	 * member switches (triangle inequality, r = the deepest member switch,
	 * height - 1), and at least dmin. */
	const uint8_t *rrow = j->c->h->d + (size_t)t->root * j->c->n_sw;
	int r = t->height > 0 ? t->height - 1 : 0;
	uint32_t gside = 0;
	for (uint32_t x = 0; x < j->m->nmsw; x++) {
		int d = (int)rrow[j->m->msw[x]] - r;
		gside += d > (int)dmin ? (uint32_t)d : dmin;
	}
	j->side[i] = (float)sum;
	j->cnt[i] = n;
	j->dmin_t[i] = (uint8_t)dmin;
	j->lb[i] = (float)(sum + gside) / (float)(j->m->nmsw + n);
}

/* Exact formula (1) for tree i, or INFINITY as soon as it is sure to
 * exceed limit: each group member switch not yet summed adds at least the
 * tree's smallest distance to the group (dmin of the bound pass). */
/* Distance from switch x to the nearest switch stamped `tag` in key[]:
 * a BFS from x that stops at the first level holding one (big trees). */
static uint8_t bfs_to_set(struct mc_ctx *c, struct mc_scratch *s, uint32_t x,
			  uint64_t tag)
{
	uint32_t head = 0, tail = 0;

	if (s->key[x] == tag)
		return 0;
	s = mc_scratch_get(c, 0);
	s->queue[tail++] = x;
	mc_mark(s, x);
	s->dist[x] = 0;
	while (head < tail) {
		uint32_t u = s->queue[head++];
		for (uint32_t e = c->adj.off[u]; e < c->adj.off[u + 1]; e++) {
			uint32_t v = c->adj.peer[e];
			if (mc_seen(s, v))
				continue;
			if (s->key[v] == tag)
				return (uint8_t)(s->dist[u] + 1);
			mc_mark(s, v);
			s->dist[v] = s->dist[u] + 1;
			s->queue[tail++] = v;
		}
	}
	return 255;
}

#define MC_EXACT_BFS 64 /* member switches above which bfs_to_set is used */

static float tree_exact(struct lb_job *j, uint32_t i, float limit)
{
	struct mc_ctx *c = j->c;
	const struct mr4lms *m = j->m;
	struct mc_scratch *s = &c->scr[0];
	uint32_t ny = 0, gsum = 0;
	const uint32_t *ys = mc_tree_msw(&c->trees[i], &ny);
	float denom = (float)(m->nmsw + j->cnt[i]);
	float budget = limit * denom - j->side[i];
	uint64_t tag = ((uint64_t)++j->tag << 32) | 0xffffffffu;

	if (!ys)
		return INFINITY;
	if (ny > MC_EXACT_BFS)
		for (uint32_t y = 0; y < ny; y++)
			s->key[ys[y]] = tag;
	for (uint32_t x = 0; x < m->nmsw; x++) {
		const uint8_t *row = c->h->d + (size_t)m->msw[x] * c->n_sw;
		uint8_t best = 255;
		if (ny > MC_EXACT_BFS)
			best = bfs_to_set(c, s, m->msw[x], tag);
		else
			for (uint32_t y = 0; y < ny && best > j->dmin_t[i]; y++)
				best = row[ys[y]] < best ? row[ys[y]] : best;
		gsum += best;
		if ((float)gsum + (float)(m->nmsw - x - 1) * j->dmin_t[i] >
		    budget + 1e-4f)
			return INFINITY;
	}
	return (j->side[i] + (float)gsum) / denom;
}

/* Tie-break between trees at the same distance: fewer groups (so merges
 * spread over trees and colors instead of piling on one), then lower id. */
static bool fewer(const struct mc_ctx *c, uint32_t a, uint32_t b)
{
	uint32_t ga = c->trees[a].n_groups, gb = c->trees[b].n_groups;
	return ga < gb || (ga == gb && a < b);
}

static const float *lb_sort; /* event loop thread only */

static int cmp_lb(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	float fx = lb_sort[x], fy = lb_sort[y];

	if (fx != fy)
		return fx < fy ? -1 : 1;
	return x < y ? -1 : x > y;
}

uint32_t mr4lms_nearest_tree(struct mc_ctx *c, struct mr4lms *m)
{
	uint32_t n = c->n_trees, best = MC_NONE;
	float bd = INFINITY;
	struct lb_job j = {.c = c, .m = m};

	j.lb = malloc(n * sizeof(float));
	j.side = malloc(n * sizeof(float));
	j.cnt = malloc(n * sizeof(uint32_t));
	j.dmin_t = malloc(n + 1);
	j.ys = malloc((c->n_sw + 1) * sizeof(uint32_t));
	if (!j.lb || !j.side || !j.cnt || !j.dmin_t || !j.ys)
		goto out;
	/* dmin[s] = distance from switch s to the group */
	memset(m->dmin, 255, c->n_sw);
	for (uint32_t x = 0; x < m->nmsw; x++)
		mc_row_min(m->dmin, c->h->d + (size_t)m->msw[x] * c->n_sw,
			   c->n_sw);
	pool_for(c->pool, n, tree_bound, &j);
	/* Exact values in increasing order of the bound: the first ones set
	 * a small best distance that prunes the rest. */
	uint32_t *ord = malloc(n * sizeof(uint32_t)), no = 0;
	if (!ord)
		goto out;
	for (uint32_t i = 0; i < n; i++)
		if (j.lb[i] < INFINITY)
			ord[no++] = i;
	lb_sort = j.lb;
	qsort(ord, no, sizeof(*ord), cmp_lb);
	for (uint32_t k = 0; k < no; k++) {
		uint32_t i = ord[k];
		if (best != MC_NONE && j.lb[i] > bd + 1e-6f)
			break;
		float d = tree_exact(&j, i, best == MC_NONE ? INFINITY : bd);
		if (best == MC_NONE || d < bd - 1e-6f ||
		    (d <= bd + 1e-6f && fewer(c, i, best))) {
			bd = best == MC_NONE || d < bd ? d : bd;
			best = i;
		}
	}
	free(ord);
out:
	free(j.lb);
	free(j.side);
	free(j.cnt);
	free(j.dmin_t);
	free(j.ys);
	return best;
}

uint32_t mr4lms_emptiest_color(const struct mc_ctx *c)
{
	uint32_t best = MC_NONE;

	for (uint32_t col = 0; col < c->color_limit && col < c->owner_cap;
	     col++) {
		if (!c->color_trees[col])
			continue;
		if (best == MC_NONE ||
		    c->color_groups[col] < c->color_groups[best])
			best = col;
	}
	return best;
}
