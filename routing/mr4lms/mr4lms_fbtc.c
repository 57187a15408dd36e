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
 * FBTC_ROOTS colorable roots are built with FULB's tie rule (equally
 * loaded next hops by the load of the link they go on over) and the one
 * whose tree leaves the lowest peak is kept (ties: the lower color, then
 * the load order).  The load order of roots only counts groups per
 * switch, not the links a tree takes: on the dragonfly (81x27x12) the
 * first root put max EFI at 67 against SSSP-MC's 54, the best of 16 at
 * 19, and the TaihuLight model's 128x32x40 went from 182 to its lower
 * bound 128 (docs/benchmarks.md).  Groups that raise no peak cost one
 * build, ties by port as before: FULB's rule for every tree spreads them
 * over more paths and takes more colors (bl8704 64x16x34, 4 processes per
 * host: 308 instead of 194). */
#define FBTC_ROOTS 16
#include "routing/mr4lms/mr4lms_priv.h"

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

struct pick {
	uint32_t root; /* index in m->roots, MC_NONE: none colors */
	bool onward;   /* built with FULB's tie rule */
	uint32_t peak, color;
};

/* Builds root i's tree into t; 1 with its color and peak when it can be
 * colored, 0 when not, -errno. */
static int try_root(struct mc_ctx *c, struct mr4lms *m, struct mc_group *g,
		    uint32_t i, bool onward, struct mc_tree *t, struct pick *p)
{
	int rc;

	if (switch_full(c, m->roots[i]))
		return 0;
	mc_tree_reset(t);
	if ((rc = mc_build_bottom_up(c, m->roots[i], g->members, g->n_members,
				     onward, t)) < 0)
		return rc;
	if ((p->color = mc_color_first_free(c, t)) == MC_NONE)
		return 0;
	p->root = i;
	p->onward = onward;
	p->peak = mc_tree_peak(c, t);
	return 1;
}

/* The paper's root: the first that colors, its tree built with ties by
 * port.  If that tree would raise the highest EFI reached, up to
 * FBTC_ROOTS colorable roots are tried with FULB's tie rule too and the
 * lowest peak kept (ties: lower color, then the load order). */
static int pick_root(struct mc_ctx *c, struct mr4lms *m, struct mc_group *g,
		     uint32_t nr, struct mc_tree *t, struct pick *best)
{
	struct pick p;
	uint32_t i = 0, got = 0;
	int rc = 0;

	best->root = MC_NONE;
	while (i < nr && (rc = try_root(c, m, g, i, false, t, best)) == 0)
		i++;
	if (rc <= 0 || best->peak <= c->efi_high)
		return rc;
	for (; i < nr && got < FBTC_ROOTS; i++) {
		if ((rc = try_root(c, m, g, i, true, t, &p)) < 0)
			return rc;
		if (rc == 0)
			continue;
		got++;
		if (p.peak < best->peak ||
		    (p.peak == best->peak && p.color < best->color))
			*best = p;
	}
	return 1;
}

int mr4lms_fbtc(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint32_t nr = mc_optimal_roots(c, m->msw, m->nmsw, m->roots, NULL);
	struct pick p;
	struct mc_tree *t;
	int rc;

	if (!nr)
		return -EHOSTUNREACH;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	if ((rc = pick_root(c, m, g, nr, t, &p)) <= 0) {
		rc = rc < 0 ? rc : -ENOSPC;
		goto fail;
	}
	/* rebuilt: t holds the last tree tried, and a build is cheap */
	mc_tree_reset(t);
	if ((rc = mc_build_bottom_up(c, m->roots[p.root], g->members,
				     g->n_members, p.onward, t)) < 0 ||
	    (rc = mc_tree_commit(c, t, mc_color_first_free(c, t), g)) < 0)
		goto fail;
	return 0;
fail:
	mc_tree_free(c, t);
	return rc;
}
