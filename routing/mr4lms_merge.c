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
 * whose bound beats the best so far.  Ties go to the lower tree id.
 * The pessimistic shortcut is used when more than prm.pessimistic_trees
 * trees exist (0 = auto: 64 per available color). */
#include "routing/mr4lms.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lb_job {
	struct mc_ctx *c;
	struct mr4lms *m;
	float *lb;
	float *side;	/* tree-side sum */
	uint32_t *cnt;	/* tree member switches */
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
	j->lb[i] = (float)(sum + j->m->nmsw * dmin) / (float)(j->m->nmsw + n);
}

/* Exact formula (1) for tree i. */
static float tree_exact(struct lb_job *j, uint32_t i)
{
	const struct mc_ctx *c = j->c;
	const struct mc_tree *t = &c->trees[i];
	const struct mr4lms *m = j->m;
	uint8_t *best = c->scr[0].worst;
	uint32_t gsum = 0;

	memset(best, 255, m->nmsw);
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		const struct mc_tnode *nd = &t->nodes[k];
		if (!(nd->members[0] | nd->members[1] | nd->members[2] | nd->members[3]))
			continue;
		for (uint32_t x = 0; x < m->nmsw; x++) {
			uint8_t d = mc_hops(c, nd->sw, m->msw[x]);
			best[x] = d < best[x] ? d : best[x];
		}
	}
	for (uint32_t x = 0; x < m->nmsw; x++)
		gsum += best[x];
	return (j->side[i] + (float)gsum) / (float)(m->nmsw + j->cnt[i]);
}

static uint32_t nearest_tree(struct mc_ctx *c, struct mr4lms *m)
{
	uint32_t n = c->n_trees, best = MC_NONE;
	float bd = INFINITY;
	struct lb_job j = { .c = c, .m = m };

	j.lb = malloc(n * sizeof(float));
	j.side = malloc(n * sizeof(float));
	j.cnt = malloc(n * sizeof(uint32_t));
	if (!j.lb || !j.side || !j.cnt)
		goto out;
	/* dmin[s] = distance from switch s to the group */
	memset(m->dmin, 255, c->n_sw);
	for (uint32_t x = 0; x < m->nmsw; x++) {
		const uint8_t *row = c->h->d + (size_t)m->msw[x] * c->n_sw;
		for (uint32_t s = 0; s < c->n_sw; s++)
			m->dmin[s] = row[s] < m->dmin[s] ? row[s] : m->dmin[s];
	}
	pool_for(c->pool, n, tree_bound, &j);
	for (uint32_t i = 0; i < n; i++)
		if (j.lb[i] < bd || (best == MC_NONE && j.lb[i] < INFINITY)) {
			/* candidate: its bound beats the best exact value */
			float d = tree_exact(&j, i);
			if (d < bd || best == MC_NONE) {
				bd = d;
				best = i;
			}
		}
out:
	free(j.lb);
	free(j.side);
	free(j.cnt);
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

	if (c->live_trees > limit) {
		if ((color = emptiest_color(c)) == MC_NONE)
			return -ENOSPC;
		c->st.pessimistic++;
		return mc_vmcg_route(c, color, NULL, 0, g, false,
				     c->prm.merge == MC_MERGE_EXTEND);
	}
	if ((tid = nearest_tree(c, m)) == MC_NONE)
		return -ENOSPC;
	return mc_vmcg_route(c, c->trees[tid].color, &tid, 1, g, false,
			     c->prm.merge == MC_MERGE_EXTEND);
}
