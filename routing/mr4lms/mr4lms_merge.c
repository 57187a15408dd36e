/* MR4LMS merging (Algorithm 4): where a group goes when no color admits a
 * lowest tree of its own.  The merge keeps every existing group's color
 * (hence MLID) and the old trees' links (extend mode); what it decides is
 * the color, i.e. which existing trees the new group shares.
 *
 * How the merge decides:
 * 1. Candidates, one per color (all colors scanned in parallel): the trees
 *    of that color on the group's member switches.  A color none of whose
 *    trees touches the group is no candidate (using it would be a new,
 *    taller tree, not a merge), except as an extension (below).  The
 *    candidate is a "cover" when one tree already holds every member
 *    switch (the group only adds its ports), otherwise a "join" of those
 *    trees and the group's other switches.  A color free on every member
 *    switch gives an "extension" candidate when one tree of it is next to
 *    every member switch: that tree is extended one hop down to them (the
 *    tree with fewest groups if several are).
 * 2. Each candidate is priced by the link loads the merge would leave:
 *    every link of a tree in the candidate gains the groups of the others
 *    and the new group; a member port not yet on one gains them all; a
 *    member switch where the color is free gains them on its least loaded
 *    link at least (its branch is not built yet).  The price is first the
 *    highest EFI so made (the bottleneck), then the growth of the sum of
 *    squared EFIs (so a loaded link pays more for the same groups than an
 *    idle one, and a big tree more than a small one), then the groups
 *    sharing the result, then the color.  An extension's new links are
 *    priced as the least loaded link from the tree to each member switch.
 * 3. The cheapest candidate that holds is taken: a cover always, a join
 *    or an extension only if the group and its trees are connected in
 *    G_color (free switches and the candidate's own trees), so it pulls in
 *    no other tree.  Extensions are candidates only without a forecast
 *    (the daemon, a planner run with IBSM_MC_NO_FORECAST): there they
 *    are what the last shape to arrive needs (below); under the offline
 *    planner's forecast early sharing already keeps trees for it, and
 *    extensions moved its max EFI both ways (3-level pruned trees at MFT
 *    128: p3th-b 192 -> 168, p3bl-c 50 -> 51, th40960 175 -> 200; p3th
 *    34x34x34 at MFT 32: 236 -> 268), so it does without them.
 *    It is routed by mc_vmcg_route (cover: the ports are added; join: the
 *    old trees joined whole along shortest, least loaded G_color paths,
 *    mcast_attach.c; extension: the members joined to the tree).
 *    Candidates are priced in increasing order of a lower bound of their
 *    peak (the groups they would share, the member ports, each tree's
 *    last known max load) and the search stops when the bound passes the
 *    best peak found; the trees' link loads are cached between changes
 *    (mc_tree_load).
 * 4. Only when no candidate holds does the paper's own step run: the
 *    nearest tree by formula (1) (or, with many trees, the emptiest color)
 *    plus every tree a temporary bottom-up tree meets (mr4lms_nearest.c,
 *    mcast_merge.c absorb_blockers).
 *
 * Why not the paper's formula (1) first: it measures distance, not load.
 * On 3-level pruned fat trees one merge that absorbs the trees met by a
 * temporary tree makes a tree over most leaves; formula (1) then finds it
 * at distance ~0 from every later group and each one is attached to it as
 * a subset: 1,033 groups on one tree and max EFI 1,050 against 72 with no
 * limit on the 8,704-host tree at MFT 128 (docs/benchmarks.md).  Pricing
 * by the loads spreads groups of one shape over the trees that already
 * hold their switches, which on a fat tree costs little more EFI than
 * separate trees would.  Why extensions: in arrival order (the daemon)
 * the last shape to come finds every color of its switches taken by the
 * trees of earlier shapes (the z-lines of 128x32x40 after the y-lines
 * have filled the leaves, and their middles' colors); every cover or join
 * open to it is then a tree over most leaves that all later groups pile
 * onto (p3th-b: 4 trees of ~550 groups, max EFI 2,217), while the tree of
 * a free color at the next switch up (a z-line of a neighbouring y)
 * brings its groups to the member switches only (max EFI 180; p3th 240 ->
 * 67, the TaihuLight model th40960 1,911 -> 504).  Whether such trees
 * exist when the colors run out is decided earlier: by early sharing
 * (mr4lms_share.c) and, offline, by the order the planner routes the
 * groups in (tools/ibsmroute). */
#include "routing/mr4lms/mr4lms_priv.h"

#include <errno.h>
#include <stdlib.h>

struct mcand {
	uint32_t color;
	uint32_t groups; /* groups sharing the merged tree */
	uint32_t peak;	 /* highest EFI on the links priced */
	uint64_t added;	 /* EFI added over all links */
	uint32_t ntrees; /* trees of the color on the member switches */
	uint32_t lb;	 /* lower bound of peak before the trees are priced */
	uint32_t ext;	 /* no tree of the color on the member switches: the
			  * one next to all of them, extended, or MC_NONE */
	bool cover;	 /* one tree holds every member switch */
};

struct scan {
	struct mc_ctx *c;
	struct mr4lms *m;
	struct mc_group *g;
	uint32_t base; /* trees of color col are marked base + col */
	struct mcand *cand;
};

/* The trees of color col on the member switches into own[]; marks them
 * with mark and returns how many; *missing gets the member switches where
 * the color is free. */
static uint32_t color_trees(struct scan *s, uint32_t col, uint32_t mark,
			    uint32_t *own, uint32_t *missing)
{
	struct mc_ctx *c = s->c;
	uint32_t n = 0;

	*missing = 0;
	for (uint32_t k = 0; k < s->m->nmsw; k++) {
		uint32_t o = mc_color_owner(c, s->m->msw[k], col);
		if (o == MC_NONE)
			(*missing)++;
		else if (c->trees[o].mark != mark) {
			c->trees[o].mark = mark;
			own[n++] = o;
		}
	}
	return n;
}

/* What a link at EFI e pays for gaining d groups: the growth of e^2, so
 * a loaded link pays more for the same groups than an idle one. */
static inline uint64_t sq(uint64_t e, uint64_t d)
{
	return 2 * e * d + d * d;
}

/* The color is free on every member switch: a tree of the color next to
 * every one of them (the one with fewest groups), to be extended one hop
 * down to them, or MC_NONE.  This is the merge a group needs whose
 * switches have no tree of a free color left (in arrival order, the last
 * shape to come to switches that others have filled): the trees of the
 * colors in use there would each bring their groups to the whole of the
 * joined result, an extended neighbour brings its own only to the group's
 * switches. */
static uint32_t next_tree(const struct mc_ctx *c, const struct mr4lms *m,
			  uint32_t col)
{
	enum { SEEN = 8 };
	uint32_t tree[SEEN], cnt[SEEN], ns = 0, best = MC_NONE;

	for (uint32_t k = 0; k < m->nmsw; k++) {
		uint32_t sw = m->msw[k], seen = 0;
		for (uint32_t e = c->adj.off[sw]; e < c->adj.off[sw + 1]; e++) {
			uint32_t o = mc_color_owner(c, c->adj.peer[e], col), j;
			if (o == MC_NONE)
				continue;
			for (j = 0; j < ns && tree[j] != o; j++)
				;
			if (j == ns) {
				if (k || ns == SEEN)
					continue; /* not next to the first */
				tree[ns] = o;
				cnt[ns++] = 0;
			}
			if (cnt[j] == k && !(seen >> j & 1)) {
				seen |= 1u << j;
				cnt[j]++;
			}
		}
	}
	for (uint32_t j = 0; j < ns; j++)
		if (cnt[j] == m->nmsw &&
		    (best == MC_NONE ||
		     c->trees[tree[j]].n_groups < c->trees[best].n_groups))
			best = tree[j];
	return best;
}

/* Raises the price by the links extending tree t down to the member
 * switches (next to it): each gains every group of the merged tree; the
 * least loaded link from t to the switch is the one taken. */
static void price_ext(const struct mc_ctx *c, const struct mr4lms *m,
		      uint32_t t, struct mcand *k)
{
	for (uint32_t i = 0; i < m->nmsw; i++) {
		uint32_t sw = m->msw[i], best = UINT32_MAX;
		for (uint32_t e = c->adj.off[sw]; e < c->adj.off[sw + 1]; e++) {
			uint32_t p = c->adj.peer[e], l;
			if (mc_color_owner(c, p, k->color) != t)
				continue;
			l = c->efi[c->port_base[p] + c->adj.rport[e]];
			best = l < best ? l : best;
		}
		if (best + k->groups > k->peak)
			k->peak = best + k->groups;
		k->added += sq(best, k->groups);
	}
}

/* Raises the price by tree t's links, each gaining `gain` groups (its
 * link loads are cached in t between changes, mc_tree_load). */
static void price_tree(const struct mc_ctx *c, struct mc_tree *t, uint32_t gain,
		       struct mcand *k)
{
	uint32_t max, ports;
	uint64_t sum;

	mc_tree_load(c, t, &max, &sum, &ports);
	if (max + gain > k->peak)
		k->peak = max + gain;
	k->added += 2 * (uint64_t)gain * sum + (uint64_t)gain * gain * ports;
}

/* Raises the price by the new group's member ports no tree of the
 * candidate carries yet: each gains every group of the merged tree. */
static void price_members(const struct mc_ctx *c, const struct mc_group *g,
			  uint32_t mark, struct mcand *k)
{
	for (uint32_t i = 0; i < g->n_members; i++) {
		const struct ib_port *r = g->members[i]->remote;
		uint32_t sw = (uint32_t)r->node->sw_idx;
		uint32_t o = mc_color_owner(c, sw, k->color);
		const struct mc_tnode *n;
		if (o != MC_NONE && c->trees[o].mark == mark &&
		    (n = mc_tree_node(&c->trees[o], sw)) &&
		    mc_mask_test(n->mask, r->num))
			continue;
		uint32_t e = c->efi[c->port_base[sw] + r->num] + k->groups;
		k->peak = e > k->peak ? e : k->peak;
		k->added += sq(e - k->groups, k->groups);
	}
}

/* Raises the price by the member switches where the color is free: each
 * must be joined by one of its switch links at least, which gains every
 * group of the merged tree; the least loaded one is the bound taken. */
static void price_branches(const struct mc_ctx *c, const struct mr4lms *m,
			   struct mcand *k)
{
	for (uint32_t i = 0; i < m->nmsw; i++) {
		uint32_t sw = m->msw[i], best = UINT32_MAX;
		if (mc_color_owner(c, sw, k->color) != MC_NONE)
			continue;
		for (uint32_t e = c->adj.off[sw]; e < c->adj.off[sw + 1]; e++) {
			uint32_t l = c->efi[c->port_base[sw] + c->adj.port[e]];
			best = l < best ? l : best;
		}
		if (best == UINT32_MAX)
			continue;
		if (best + k->groups > k->peak)
			k->peak = best + k->groups;
		k->added += sq(best, k->groups);
	}
}

/* First pass, all colors in parallel: the candidate's trees, groups and
 * the cheap part of its price (member ports, branches); `lb` bounds the
 * peak from below: every port of the merged tree carries all its groups,
 * and each tree's links carry at least their last known load. */
static void scan_color(void *arg, size_t i, unsigned worker)
{
	struct scan *s = arg;
	struct mc_ctx *c = s->c;
	struct mcand *k = &s->cand[i];
	uint32_t *own = s->m->wroots[worker < c->n_scr ? worker : 0];
	uint32_t missing, n = color_trees(s, (uint32_t)i, s->base + (uint32_t)i,
					  own, &missing);

	*k = (struct mcand){
	    .color = (uint32_t)i, .ntrees = n, .groups = 1, .ext = MC_NONE};
	if (!n) {
		/* extensions: only without a forecast (see cheapest) */
		if (c->forecast ||
		    (k->ext = next_tree(c, s->m, (uint32_t)i)) == MC_NONE)
			return;
		c->trees[k->ext].mark = s->base + (uint32_t)i;
		own[n++] = k->ext;
		k->ntrees = 1;
	}
	for (uint32_t j = 0; j < n; j++)
		k->groups += c->trees[own[j]].n_groups;
	price_members(c, s->g, s->base + (uint32_t)i, k);
	if (k->ext != MC_NONE)
		price_ext(c, s->m, k->ext, k);
	else if (missing)
		price_branches(c, s->m, k);
	k->cover = n == 1 && !missing;
	k->lb = k->peak > k->groups ? k->peak : k->groups;
	for (uint32_t j = 0; j < n; j++) {
		/* a tree's last known max load: links only gain groups while
		 * groups are added and merges extend, so it still bounds the
		 * peak from below then (after deletes it is only a guess) */
		const struct mc_tree *t = &c->trees[own[j]];
		uint32_t e = t->lmax + k->groups - t->n_groups;
		if (t->lstamp && e > k->lb)
			k->lb = e;
	}
}

/* The candidate's trees into own[], marked with mark; their count. */
static uint32_t cand_trees(struct scan *s, const struct mcand *k, uint32_t mark,
			   uint32_t *own)
{
	uint32_t missing;

	if (k->ext == MC_NONE)
		return color_trees(s, k->color, mark, own, &missing);
	s->c->trees[k->ext].mark = mark;
	own[0] = k->ext;
	return 1;
}

/* Does the candidate hold: a cover, or the member switches connected in
 * G_color with its trees (an extended tree: with its root too)? */
static bool holds(struct mc_ctx *c, struct mr4lms *m, const struct mcand *k,
		  uint32_t mark)
{
	uint32_t n = m->nmsw;

	if (k->cover)
		return true;
	if (k->ext != MC_NONE)
		m->msw[n++] = c->trees[k->ext].root; /* msw has n_sw + 1 */
	return mc_gc_connected(c, 0, k->color, mark, m->msw, n);
}

static int cmp_price(const struct mcand *x, const struct mcand *y)
{
	if (x->peak != y->peak)
		return x->peak < y->peak ? -1 : 1;
	if (x->added != y->added)
		return x->added < y->added ? -1 : 1;
	if (x->groups != y->groups)
		return x->groups < y->groups ? -1 : 1;
	return x->color < y->color ? -1 : x->color > y->color;
}

static int cmp_lb(const void *a, const void *b)
{
	const struct mcand *x = a, *y = b;

	if (x->lb != y->lb)
		return x->lb < y->lb ? -1 : 1;
	return cmp_price(x, y);
}

/* In increasing order of the bound, the candidates of one kind (joins
 * and covers, or extensions): the trees' links priced (their loads are
 * cached), a candidate kept if it beats *best and holds (a cover, or
 * connected in G_color with its trees), until the bound passes the best
 * peak. */
static void cheapest_of(struct scan *s, uint32_t nk, bool ext,
			struct mcand **best)
{
	struct mc_ctx *c = s->c;
	uint32_t n, mark, *own = s->m->wroots[0];

	for (uint32_t i = 0; i < nk; i++) {
		struct mcand *k = &s->cand[i];
		if (*best && k->lb > (*best)->peak)
			break;
		if ((k->ext != MC_NONE) != ext)
			continue;
		mark = ++c->mark_gen;
		n = cand_trees(s, k, mark, own);
		for (uint32_t j = 0; j < n; j++)
			price_tree(c, &c->trees[own[j]],
				   k->groups - c->trees[own[j]].n_groups, k);
		if (*best && cmp_price(k, *best) >= 0)
			continue;
		if (holds(c, s->m, k, mark))
			*best = k;
	}
}

/* Second pass: the cheapest join or cover, or without a forecast (the
 * daemon) the cheapest of those and the extensions.  The trees of the
 * chosen color go to own[]; returns their count, 0 if none holds. */
static uint32_t cheapest(struct scan *s, uint32_t nk, uint32_t *own,
			 uint32_t *color)
{
	struct mcand *best = NULL;

	cheapest_of(s, nk, false, &best);
	if (!s->c->forecast) /* both kinds priced: the cheaper wins */
		cheapest_of(s, nk, true, &best);
	if (!best)
		return 0;
	*color = best->color;
	s->c->st.extends += best->ext != MC_NONE;
	return cand_trees(s, best, ++s->c->mark_gen, own);
}

/* Routes g into the cheapest candidate that pulls in no other tree.
 * -ENOSPC when none holds. */
static int merge_cheapest(struct mc_ctx *c, struct mr4lms *m,
			  struct mc_group *g)
{
	uint32_t ncol =
	    c->color_limit < c->owner_cap ? c->color_limit : c->owner_cap;
	struct scan s = {.c = c, .m = m, .g = g};
	uint32_t nk = 0, n, color = MC_NONE, *own = m->wroots[0];
	int rc = -ENOSPC;

	if (!ncol)
		return -ENOSPC;
	if (!(s.cand = malloc(ncol * sizeof(*s.cand))))
		return -ENOMEM;
	s.base = c->mark_gen + 1;
	c->mark_gen += ncol + 1; /* later marks stay above the scan's */
	pool_for(c->pool, ncol, scan_color, &s);
	for (uint32_t i = 0; i < ncol; i++)
		if (s.cand[i].ntrees)
			s.cand[nk++] = s.cand[i];
	qsort(s.cand, nk, sizeof(*s.cand), cmp_lb);
	if ((n = cheapest(&s, nk, own, &color)))
		rc = mc_vmcg_route(c, color, own, n, g, false,
				   c->prm.merge == MC_MERGE_EXTEND);
	free(s.cand);
	return rc;
}

int mr4lms_merge(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint64_t limit = c->prm.pessimistic_trees ? c->prm.pessimistic_trees
						  : 32ull * c->color_limit;
	uint32_t tid, color;
	int rc;

	c->st.merges++;
	if ((rc = merge_cheapest(c, m, g)) != -ENOSPC)
		return rc;
	if (c->live_trees > limit) {
		if ((color = mr4lms_emptiest_color(c)) == MC_NONE)
			return -ENOSPC;
		c->st.pessimistic++;
		return mc_vmcg_route(c, color, NULL, 0, g, false,
				     c->prm.merge == MC_MERGE_EXTEND);
	}
	if ((tid = mr4lms_nearest_tree(c, m)) == MC_NONE)
		return -ENOSPC;
	return mc_vmcg_route(c, c->trees[tid].color, &tid, 1, g, false,
			     c->prm.merge == MC_MERGE_EXTEND);
}
