/* The layered engine's second pass over a tree: balancing with exact
 * weights.  Growing a tree nearest first (layered_tree.c) fixes which
 * layers each switch's path allows before anyone knows how many sources
 * will come through it.  This pass goes farthest first, when the number
 * of sources behind a switch is final, and moves the switch to the
 * neighbour one hop closer whose path is least loaded, as far as every
 * source behind it keeps a legal layer.
 *
 * What a source needs at a switch is a pair (U, D): the layers in which
 * its path so far has only climbed (U) and those in which it has turned
 * down (D); a source starts with (all, none).  Crossing a link that
 * climbs in layers M turns (U, D) into (U & M, (U | D) & ~M), and the
 * source stays legal through neighbour y when y's path allows one of
 * them: (U' & legal(y)) | (D' & down(y)) != 0.  A pair holding fewer
 * layers in both parts is harder to serve, so a switch keeps one pair
 * for all the sources behind it: the intersection of its children's
 * (its own sources, (all, none), are served whenever any child's pair
 * is, since down(y) is inside legal(y)).  That may reject a link that
 * would have served every source, never accept one that serves not all.
 * The switch's current next hop always serves it: each child checked
 * its pair against this switch's current masks, and those come from
 * that next hop; so every source ends with a legal layer.  A repair's
 * mended tree moves only the switches that joined again (t->mov): the
 * others keep their LFT entries. */
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

#define NO_REQ UINT32_MAX /* no child yet */

static inline uint32_t move(uint32_t p, uint16_t m)
{
	uint16_t u = (uint16_t)(p >> 16), d = (uint16_t)p;

	return (uint32_t)(u & m) << 16 | (uint16_t)((u | d) & ~m);
}

static inline bool serves(const struct lay_trees *t, uint32_t req, uint16_t m,
			  uint32_t y)
{
	uint32_t p = move(req, m);

	return ((p >> 16) & t->nd[y].legal) | (p & t->nd[y].down);
}

/* The least loaded path through a serving neighbour one hop closer; the
 * current next hop when none is less loaded. */
static uint32_t choose(const struct lay_trees *t, uint32_t x, uint32_t req)
{
	const struct sw_graph *g = t->g;
	uint32_t best = t->nd[x].nk;
	uint32_t bl = lay_sum(t->e[best].load, t->nd[t->e[best].peer].pcost);
	uint16_t dx = t->nd[x].dist;

	for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
		uint32_t y = t->e[k].peer, l;
		/* a cheap first filter: a tree path is no shorter than the
		 * hop table's, so a neighbour whose tree path is one hop
		 * shorter than x's is closer than dist(x) by the table */
		if (t->row[y] + 1u > dx)
			continue;
		l = lay_sum(t->e[k].load, t->nd[y].pcost);
		if (l >= bl || t->nd[y].dist + 1u != dx ||
		    !serves(t, req, t->e[k].up, y))
			continue;
		best = k;
		bl = l;
	}
	return best;
}

/* Tree switches farthest first into far[], when att[] is not in order
 * of distance. */
static void far_first(struct lay_trees *t)
{
	uint32_t n = t->n_att, maxd = 0, *cnt = t->bucket;

	for (uint32_t i = 0; i < n; i++)
		if (t->nd[t->att[i]].dist > maxd)
			maxd = t->nd[t->att[i]].dist;
	memset(cnt, 0, (maxd + 2u) * sizeof(*cnt));
	for (uint32_t i = 0; i < n; i++)
		cnt[maxd - t->nd[t->att[i]].dist + 1]++;
	for (uint32_t v = 0; v <= maxd; v++)
		cnt[v + 1] += cnt[v];
	for (uint32_t i = 0; i < n; i++)
		t->far[cnt[maxd - t->nd[t->att[i]].dist]++] = t->att[i];
}

void lay_balance(struct lay_trees *t, uint32_t d, bool weigh)
{
	const uint32_t *far = t->far;

	if (t->by_dist) /* att[] backwards is farthest first */
		far = NULL;
	else
		far_first(t);
	for (uint32_t i = 0; i < t->n_att; i++) {
		uint32_t x = far ? far[i] : t->att[t->n_att - 1 - i], y;
		uint32_t req = t->req[x];
		if (x == d)
			continue;
		if (req == NO_REQ)
			req = (uint32_t)t->all << 16;
		if (!t->mov || t->mov[x])
			t->nd[x].nk = choose(t, x, req);
		y = lay_parent(t, x);
		t->req[y] &= move(req, t->e[t->nd[x].nk].up);
		t->cnt[y] += t->cnt[x];
		if (weigh)
			t->e[t->nd[x].nk].load += t->cnt[x];
	}
}
