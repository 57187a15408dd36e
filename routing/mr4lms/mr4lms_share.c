/* Early sharing: where more trees are still to come through a switch
 * than it has free colors, not every group can have a tree of its own
 * there, and the groups that come last would have to merge with trees of
 * other shapes (with no color left anywhere on their switches, a join of
 * dozens of foreign trees: the collapse of docs/benchmarks.md).  So a
 * group whose member switches are exactly those of an existing tree
 * shares it while the tree holds fewer groups than the pressure asks for:
 * with R trees to come and F colors free on the most pressed switch of the
 * tree, trees there must carry R / F groups on average, and a tree of n
 * groups takes the new one while (n + 1) * F <= R.  Identical member
 * switches mean the shared tree carries no group where it has no member,
 * so the EFI is what separate trees on the same links would give; still,
 * a tree is shared only if its links stay at or below the peak the
 * group's own tree would make, or the forecast's max EFI (the daemon: the
 * highest EFI reached so far, and the member ports the share adds are
 * priced too, share_peak).
 *
 * Which groups share (the planner only): a share frees one color on each
 * switch of the group's tree, so a wide tree's share frees colors on many
 * pressed switches, a narrow one's on few.  On a 3-level pruned tree with
 * 64x16x34 at 4 processes per host a y-line (8 leaves, 1 middle) and a
 * z-line (34 leaves, a middle in each of 8 pods) both press the middles,
 * and with every group asked alike the y-lines shared: a mean TFI of 2.95
 * where the bound (docs/benchmarks.md) is 1.26.  So the forecast also
 * counts the trees to come per switch by width class (number of
 * switches, mc_width_class), and a switch does not press a tree t where
 * the trees to come at least four times as wide could take its whole
 * shortage R - F by sharing, or where no tree of t's own width (within a
 * factor 2) is still to come: t is then spared there, and shares only
 * for switches no wider tree relieves.  The wide trees still share only
 * as their switches' own R / F asks.  Measured at MFT 128 (docs/
 * benchmarks.md): mean TFI 2.95 / 2.53 / 2.11 -> 1.51 / 1.36 / 1.42 on
 * p3bl / p3bl-b / p3bl-c, max EFI 103 / 100 / 50 -> 89 / 76 / 53; the
 * 128x32x40 trees and th40960 route as before (their z-lines are only
 * 2.2-2.5 times as wide as their y-lines).  With trees at least twice as
 * wide sparing, and carrying the whole shortage, p3th-b's mean TFI fell
 * to 1.81 too, but the wide trees piled up to 128 groups on th40960 (max
 * EFI 175 -> 194) and p3th 34x34x34 at Ncolor 32 rose 236 -> 302: a
 * shared tree's groups all reach every host of it, so concentrating the
 * sharing on few trees loads their host links.
 *
 * R: the offline planner's forecast (the trees of the unlimited trial not
 * routed yet, mcast_forecast), or, in the daemon, which cannot know the
 * groups to come, DAEMON_AHEAD (3) trees to come for each tree that holds
 * the switch now.  So the daemon's groups start to share in pairs once
 * 40% of a switch's colors are taken (2 F <= 3 (C - F)).  Why three: the
 * per-switch count F overstates what a wide tree can use, which needs one
 * color free on all its switches at once.  In arrival order on 3-level
 * pruned trees with 64x16x34 at 4 processes per host, a leaf still had 62
 * of 128 colors free when the z-lines came, but no color was free on all
 * 34 leaves of a z-line (the y-lines of leaves in two pods could not use
 * the colors the middles of those pods already held, and took the rest),
 * so all 1,024 z-lines merged with y-line trees: max EFI 331 against 48
 * with no limit.  With one tree to come per tree come (the
 * rule before) nothing was shared there.  Running short costs a collapse
 * (x3.6-7.5); sharing too early costs host links (a host receives every
 * group of each tree it is on).  Over the 26 fabric, pattern and MFT
 * cases of tests/bench/mcast-arrival.sh the geometric mean of max EFI
 * over the unlimited one (shares priced by share_peak) was x2.38 with 1
 * tree to come per tree (x2.46 before share_peak), x2.07 with 1.5, then
 * x1.54 / 1.52 / 1.54 / 1.56 / 1.60 with 2 / 2.5 / 3 / 4 / 5: flat from 2
 * to 4, so the middle is taken (2 left p3bl-b at 180, 4 p3bl-c@64 at
 * 103).  With no MFT limit nothing is shared. */
#include "routing/mr4lms/mr4lms_priv.h"

#include <errno.h>

static uint32_t free_colors(const struct mc_ctx *c, uint32_t sw)
{
	uint32_t used = 0, words = (c->color_limit + 63) / 64;

	for (uint32_t w = 0; w < words && w < c->cwords; w++) {
		uint64_t b = c->busy[(size_t)sw * c->cwords + w];
		if (w == words - 1 && c->color_limit % 64)
			b &= (1ull << (c->color_limit % 64)) - 1;
		used += (uint32_t)__builtin_popcountll(b);
	}
	return c->color_limit - used;
}

/* Width classes (four per doubling, mc_width_class) between a tree and
 * the trees to come that spare it: 8, at least four times as wide; and
 * around it, the trees of its own kind: 3, less than twice as wide or
 * narrow. */
#define SPARE_CLASSES 8
#define LIKE_CLASSES  3

/* The daemon's guess of the trees still to come through a switch, per
 * tree that has come (see the top of the file). */
#define DAEMON_AHEAD 3

/* Is switch sw short of colors for the trees to come, as far as a share
 * of tree t is concerned?  (r, f): the trees to come through it and its
 * free colors.  With the planner's forecast of widths, t is spared where
 * no tree of its kind is still to come (the shortage is the others'), or
 * where the trees to come that are at least four times as wide could
 * absorb the shortage R - F by themselves: a share of one of them frees a
 * color on four times as many switches (on a 3-level pruned tree a
 * z-line's share frees a color on a middle of every pod and on 34 leaves,
 * a y-line's on one middle and 8 leaves), so fewer groups share. */
static bool switch_need(const struct mc_ctx *c, uint32_t sw,
			const struct mc_tree *t, uint64_t *r, uint64_t *f)
{
	uint32_t w = mc_width_class(t->n_nodes), k;
	uint64_t wide = 0, like = 0;
	const uint32_t *h;

	*r = c->forecast ? c->forecast[sw]
			 : DAEMON_AHEAD * (uint64_t)c->sw_load[sw];
	*f = free_colors(c, sw);
	if (*r <= *f)
		return false;
	if (!c->fc_width)
		return true;
	h = c->fc_width + (size_t)sw * MC_FC_WIDTHS;
	for (k = w > LIKE_CLASSES ? w - LIKE_CLASSES : 0;
	     k <= w + LIKE_CLASSES && k < MC_FC_WIDTHS; k++)
		like += h[k];
	for (k = w + SPARE_CLASSES; k < MC_FC_WIDTHS; k++)
		wide += h[k];
	return like && wide < *r - *f;
}

/* Pressure on tree t's switches (those a tree of the same member
 * switches uses) as the pair (r, f) of switch_need with the largest
 * r / f; false when no switch is short of colors for t. */
static bool pressure(const struct mc_ctx *c, const struct mc_tree *t,
		     uint64_t *r, uint64_t *f)
{
	bool any = false;

	*r = 0;
	*f = 1;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		uint64_t ri, fi;
		if (!switch_need(c, t->nodes[i].sw, t, &ri, &fi))
			continue;
		if (!any || ri * *f > *r * fi) {
			*r = ri;
			*f = fi;
		}
		any = true;
	}
	return any;
}

/* Does tree t have exactly the member switches of the group? */
static bool same_switches(struct mc_tree *t, const struct mr4lms *m)
{
	uint32_t n;
	const uint32_t *ms = mc_tree_msw(t, &n);

	if (!ms || n != m->nmsw)
		return false;
	for (uint32_t i = 0; i < m->nmsw; i++) {
		const struct mc_tnode *nd = mc_tree_node(t, m->msw[i]);
		if (!nd || !(nd->members[0] | nd->members[1] | nd->members[2] |
			     nd->members[3]))
			return false;
	}
	return true;
}

/* The peak a tree of the group's own would make: FBTC's first tree
 * (least loaded optimal root, least loaded links), built and dropped. */
static uint32_t own_peak(struct mc_ctx *c, struct mr4lms *m, struct mc_group *g)
{
	uint32_t nr = mc_optimal_roots(c, m->msw, m->nmsw, m->roots, NULL);
	struct mc_tree *t;
	uint32_t peak = 0;

	if (!nr || !(t = mc_tree_new(c)))
		return 0;
	if (mc_build_bottom_up(c, m->roots[0], g->members, g->n_members, false,
			       t) == 0)
		peak = mc_tree_peak(c, t);
	mc_tree_free(c, t);
	return peak;
}

/* The daemon's price of a share: the peak tree t would have with g on it.
 * Its links gain g, and g's member ports it does not reach yet gain every
 * group of t and g; *fresh gets how many those are.  Trees of the same
 * member switches differ in their hosts, and a host link carries every
 * group of each tree it is on: with ties broken by fewer fresh ports, the
 * groups of the same hosts (the processes of one host in a grid pattern)
 * share first, which costs no link anything.  The planner keeps the
 * tree's own peak: measured with the fresh ports priced too, th40960 went
 * 243 -> 208 but p3bl-b 73 -> 75 and p3bl-c 54 -> 56 (docs/benchmarks.md). */
static uint32_t share_peak(const struct mc_ctx *c, const struct mc_tree *t,
			   const struct mc_group *g, uint32_t *fresh)
{
	uint32_t p = mc_tree_peak(c, t);

	*fresh = 0;
	for (uint32_t i = 0; i < g->n_members; i++) {
		const struct ib_port *r = g->members[i]->remote;
		uint32_t sw = (uint32_t)r->node->sw_idx, e;
		const struct mc_tnode *n = mc_tree_node(t, sw);
		if (n && mc_mask_test(n->mask, r->num))
			continue;
		(*fresh)++;
		e = c->efi[c->port_base[sw] + r->num] + t->n_groups + 1;
		p = e > p ? e : p;
	}
	return p;
}

int mr4lms_share(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint32_t best = MC_NONE, top, bpeak = 0, own = UINT32_MAX, bfresh = 0;
	uint64_t r, f;

	if (!m->nmsw || c->color_limit >= MC_MAX_COLORS)
		return -ENOSPC;
	top = c->color_limit < c->owner_cap ? c->color_limit : c->owner_cap;
	for (uint32_t col = 0; col < top; col++) {
		uint32_t t = mc_color_owner(c, m->msw[0], col), p, fr = 0;
		if (t == MC_NONE || !same_switches(&c->trees[t], m) ||
		    !pressure(c, &c->trees[t], &r, &f) ||
		    (uint64_t)(c->trees[t].n_groups + 1) * f > r)
			continue;
		if (own == UINT32_MAX)
			own = own_peak(c, m, g);
		p = c->forecast ? mc_tree_peak(c, &c->trees[t])
				: share_peak(c, &c->trees[t], g, &fr);
		if (p > own &&
		    p > (c->forecast ? c->forecast_peak : c->efi_high))
			continue;
		if (best == MC_NONE || p < bpeak ||
		    (p == bpeak && fr < bfresh) ||
		    (p == bpeak && fr == bfresh &&
		     c->trees[t].n_groups < c->trees[best].n_groups)) {
			best = t;
			bpeak = p;
			bfresh = fr;
		}
	}
	if (best == MC_NONE)
		return -ENOSPC;
	c->st.shares++;
	return mc_vmcg_route(c, c->trees[best].color, &best, 1, g, false,
			     c->prm.merge == MC_MERGE_EXTEND);
}
