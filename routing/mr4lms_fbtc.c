/* MR4LMS FBTC, "first build then color" (Algorithm 1): the candidate
 * roots are the switches with the smallest worst-case hop count to the
 * members (so every tree has the lowest height), sorted by load (groups
 * whose trees hold the switch); for each, a bottom-up tree is built along
 * min-hop next hops and given the first color free on all its switches;
 * the next root is tried when none is.  A root whose color entries are all
 * taken is skipped without building.
 *
 * Reading (the paper takes the first root that colors): when the first
 * colorable tree would raise the highest EFI any link has reached, up to
 * FBTC_ROOTS colorable roots are built and the one whose tree leaves the
 * lowest peak is kept (ties: the lower color, then the load order).  The
 * load order of roots only counts groups per switch, not the links a tree
 * takes; on the dragonfly (81x27x12) the first root put max EFI at 67
 * against SSSP-MC's 54, the best of 16 at 18 (docs/benchmarks.md).  Groups
 * that raise no peak cost one build, as before. */
#define FBTC_ROOTS 16
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

/* Index in m->roots of the root to use, MC_NONE if no root's tree can be
 * colored; t is scratch. */
static uint32_t pick_root(struct mc_ctx *c, struct mr4lms *m,
			  struct mc_group *g, uint32_t nr, struct mc_tree *t,
			  int *rc)
{
	uint32_t best = MC_NONE, bpeak = UINT32_MAX, bcolor = MC_NONE, got = 0;

	for (uint32_t i = 0; i < nr && got < FBTC_ROOTS; i++) {
		uint32_t color, p;
		if (switch_full(c, m->roots[i]))
			continue;
		mc_tree_reset(t);
		if ((*rc = mc_build_bottom_up(c, m->roots[i], g->members,
					      g->n_members, t)) < 0)
			return MC_NONE;
		if ((color = mc_color_first_free(c, t)) == MC_NONE)
			continue;
		p = mc_tree_peak(c, t);
		if (!got++ && p <= c->efi_high)
			return i; /* raises no peak: the paper's choice */
		if (p < bpeak || (p == bpeak && color < bcolor)) {
			bpeak = p;
			bcolor = color;
			best = i;
		}
	}
	return best;
}

int mr4lms_fbtc(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint32_t nr = mc_optimal_roots(c, m->msw, m->nmsw, m->roots, NULL), r;
	struct mc_tree *t;
	int rc = 0;

	if (!nr)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	if ((r = pick_root(c, m, g, nr, t, &rc)) == MC_NONE) {
		rc = rc < 0 ? rc : -ENOSPC;
		goto fail;
	}
	/* rebuilt: t holds the last tree tried, and a build is cheap */
	mc_tree_reset(t);
	if ((rc = mc_build_bottom_up(c, m->roots[r], g->members, g->n_members,
				     t)) < 0 ||
	    (rc = mc_tree_commit(c, t, mc_color_first_free(c, t), g)) < 0)
		goto fail;
	return 0;
fail:
	mc_tree_free(c, t);
	return rc;
}
