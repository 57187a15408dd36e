/* MR4LMS merging (Algorithm 4), choosing what to merge with: the existing
 * tree nearest to the new group by the paper's formula (1) — the mean,
 * over the members of both, of each member's shortest distance to the
 * other group (optimistic step) — or, when trees are many, the color
 * holding the fewest groups (the paper's pessimistic shortcut).  The
 * virtual group is then routed by mc_vmcg_route(), which pulls in every
 * further tree needed for connectivity.
 *
 * Readings: a tree's "members" are the members of all groups on it;
 * distances are taken between member switches (each distinct switch
 * counted once; CA-to-CA distance is the switch distance + 2 for every
 * pair, which does not change the order).  To avoid the exact O(|g||t|)
 * formula on every tree, a lower bound (the tree side exactly, the group
 * side as |g| times the smallest distance from the tree to the group) is
 * computed for all trees in parallel, and the exact value only for trees
 * whose bound beats the best so far.  Ties (equal distance) go to the
 * tree with fewer groups, then the lower id.
 * The pessimistic shortcut is used when more than prm.pessimistic_trees
 * trees exist (0 = auto: 64 per available color). */
#include "routing/mr4lms.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

struct lb_job {
	struct mc_ctx *c;
	struct mr4lms *m;
	float *lb;
	float *side;	/* tree-side sum */
	uint32_t *cnt;	/* tree member switches */
	uint8_t *dmin_t; /* smallest distance from the tree to the group */
};

static void tree_bound(void *arg, size_t i, unsigned worker)
{
	struct lb_job *j = arg;
	const struct mc_tree *t = &j->c->trees[i];
	uint32_t sum = 0, n = 0, dmin = 255;

	(void)worker;
	j->lb[i] = INFINITY;
	if (!t->live || t->color == MC_NONE || !t->n_groups)
		return;
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		const struct mc_tnode *nd = &t->nodes[k];
		if (!(nd->members[0] | nd->members[1] | nd->members[2] | nd->members[3]))
			continue;
		uint32_t d = j->m->dmin[nd->sw];
		sum += d;
		dmin = d < dmin ? d : dmin;
		n++;
	}
	if (!n)
		return;
	j->side[i] = (float)sum;
	j->cnt[i] = n;
	j->dmin_t[i] = (uint8_t)dmin;
	j->lb[i] = (float)(sum + j->m->nmsw * dmin) / (float)(j->m->nmsw + n);
}

/* Exact formula (1) for tree i, or INFINITY as soon as it is sure to
 * exceed limit: each group member switch not yet summed adds at least the
 * tree's smallest distance to the group (dmin of the bound pass). */
static float tree_exact(struct lb_job *j, uint32_t i, float limit)
{
	const struct mc_ctx *c = j->c;
	const struct mc_tree *t = &c->trees[i];
	const struct mr4lms *m = j->m;
	uint32_t *ys = c->scr[0].queue, ny = 0, gsum = 0;
	float denom = (float)(m->nmsw + j->cnt[i]);
	float budget = limit * denom - j->side[i];

	for (uint32_t k = 0; k < t->n_nodes; k++) {
		const struct mc_tnode *nd = &t->nodes[k];
		if (nd->members[0] | nd->members[1] | nd->members[2] | nd->members[3])
			ys[ny++] = nd->sw;
	}
	for (uint32_t x = 0; x < m->nmsw; x++) {
		const uint8_t *row = c->h->d + (size_t)m->msw[x] * c->n_sw;
		uint8_t best = 255;
		for (uint32_t y = 0; y < ny && best > j->dmin_t[i]; y++)
			best = row[ys[y]] < best ? row[ys[y]] : best;
		gsum += best;
		if ((float)gsum + (float)(m->nmsw - x - 1) * j->dmin_t[i] > budget + 1e-4f)
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

static uint32_t nearest_tree(struct mc_ctx *c, struct mr4lms *m)
{
	uint32_t n = c->n_trees, best = MC_NONE;
	float bd = INFINITY;
	struct lb_job j = { .c = c, .m = m };

	j.lb = malloc(n * sizeof(float));
	j.side = malloc(n * sizeof(float));
	j.cnt = malloc(n * sizeof(uint32_t));
	j.dmin_t = malloc(n + 1);
	if (!j.lb || !j.side || !j.cnt || !j.dmin_t)
		goto out;
	/* dmin[s] = distance from switch s to the group */
	memset(m->dmin, 255, c->n_sw);
	for (uint32_t x = 0; x < m->nmsw; x++) {
		const uint8_t *row = c->h->d + (size_t)m->msw[x] * c->n_sw;
		for (uint32_t s = 0; s < c->n_sw; s++)
			m->dmin[s] = row[s] < m->dmin[s] ? row[s] : m->dmin[s];
	}
	pool_for(c->pool, n, tree_bound, &j);
	/* The tree with the smallest bound first, so its exact value prunes
	 * most of the others. */
	uint32_t first = MC_NONE;
	for (uint32_t i = 0; i < n; i++)
		if (j.lb[i] < INFINITY && (first == MC_NONE || j.lb[i] < j.lb[first]))
			first = i;
	if (first == MC_NONE)
		goto out;
	best = first;
	bd = tree_exact(&j, first, INFINITY);
	for (uint32_t i = 0; i < n; i++) {
		if (i == first || !(j.lb[i] <= bd + 1e-6f))
			continue;
		float d = tree_exact(&j, i, bd);
		if (d < bd - 1e-6f || (d <= bd + 1e-6f && fewer(c, i, best))) {
			bd = d < bd ? d : bd;
			best = i;
		}
	}
out:
	free(j.lb);
	free(j.side);
	free(j.cnt);
	free(j.dmin_t);
	return best;
}

static uint32_t emptiest_color(const struct mc_ctx *c)
{
	uint32_t best = MC_NONE;

	for (uint32_t col = 0; col < c->color_limit && col < c->owner_cap; col++) {
		if (!c->color_trees[col])
			continue;
		if (best == MC_NONE || c->color_groups[col] < c->color_groups[best])
			best = col;
	}
	return best;
}

int mr4lms_merge(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint64_t limit = c->prm.pessimistic_trees ? c->prm.pessimistic_trees
						  : 64ull * c->color_limit;
	uint32_t tid, color;

	c->st.merges++;
	if (c->live_trees > limit) {
		if ((color = emptiest_color(c)) == MC_NONE)
			return -ENOSPC;
		c->st.pessimistic++;
		return mc_vmcg_route(c, color, NULL, 0, g, false,
				     c->prm.merge == MC_MERGE_EXTEND);
	}
	if ((tid = nearest_tree(c, m)) == MC_NONE)
		return -ENOSPC;
	if (getenv("MC_DEBUG"))
		fprintf(stderr, "merge g%u (%u sw) into tree %u (%u groups, %u nodes, color %u)\n",
			g->id, m->nmsw, tid, c->trees[tid].n_groups,
			c->trees[tid].n_nodes, c->trees[tid].color);
	return mc_vmcg_route(c, c->trees[tid].color, &tid, 1, g, false,
			     c->prm.merge == MC_MERGE_EXTEND);
}
