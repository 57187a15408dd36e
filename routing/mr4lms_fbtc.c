/* MR4LMS FBTC, "first build then color" (Algorithm 1): the candidate
 * roots are the switches with the smallest worst-case hop count to the
 * members (so every tree has the lowest height), sorted by load (groups
 * whose trees hold the switch); for each, a bottom-up tree is built along
 * min-hop next hops and given the first color free on all its switches;
 * the next root is tried when none is.  A root whose color entries are all
 * taken is skipped without building. */
#include "routing/mr4lms.h"

#include <errno.h>

static bool switch_full(const struct mc_ctx *c, uint32_t sw)
{
	uint32_t limit = c->color_limit, words = (limit + 63) / 64;

	if (words > c->cwords)
		return false;
	for (uint32_t w = 0; w < words; w++) {
		uint64_t used = c->busy[(size_t)sw * c->cwords + w];
		uint64_t all = (w == words - 1 && limit % 64)
				       ? (1ull << (limit % 64)) - 1
				       : ~0ull;
		if ((used & all) != all)
			return false;
	}
	return true;
}

int mr4lms_fbtc(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint32_t nr = mc_optimal_roots(c, m->msw, m->nmsw, m->roots, NULL);
	struct mc_tree *t;
	int rc;

	if (!nr)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	for (uint32_t i = 0; i < nr; i++) {
		uint32_t color;
		if (switch_full(c, m->roots[i]))
			continue;
		mc_tree_reset(t);
		rc = mc_build_bottom_up(c, m->roots[i], g->members,
					g->n_members, t);
		if (rc < 0)
			goto fail;
		if ((color = mc_color_first_free(c, t)) == MC_NONE)
			continue;
		if ((rc = mc_tree_commit(c, t, color, g)) < 0)
			goto fail;
		return 0;
	}
	rc = -ENOSPC;
fail:
	mc_tree_free(c, t);
	return rc;
}
