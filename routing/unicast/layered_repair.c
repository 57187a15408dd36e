/* The layered engine's repair of a tree that did not reach every switch.
 * Growing a tree nearest first (layered_tree.c) can leave a switch with
 * no neighbour through which any layer stays legal.  Such a switch takes
 * instead its path in one layer's up/down tree to the destination (the
 * escape tree: the layer whose root is nearest the destination, built in
 * label order as the updown engine builds its tables, so it reaches
 * every switch).  Switching a path changes the layers of every switch
 * routed through it, so the tree's masks are computed again and any
 * switch left with no legal layer takes its escape path too, until none
 * is left.  The switches on escape paths form a set closed under "next
 * hop", so each of them is legal in the escape layer, and the loop ends
 * (at worst with the whole escape tree). */
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

/* The layer whose root is nearest d (the lowest of equals): its paths to
 * d climb towards a root next to d, so they are nearly the shortest. */
static uint32_t nearest_layer(const struct lay_trees *t, uint32_t d)
{
	uint32_t best = 0;
	uint8_t bd = HOPS_INF;

	for (uint32_t l = 0; l < t->ly->n_layers; l++) {
		uint8_t h = hops_sw(t->h, (uint32_t)t->ly->roots[l]->sw_idx, d);
		if (h < bd) {
			bd = h;
			best = l;
		}
	}
	return best;
}

/* Down-only distances to d (a move down goes to a higher label), by a
 * BFS from d backwards, into ddown[]. */
static void down_dist(struct lay_trees *t, uint32_t d, const uint32_t *o)
{
	const struct sw_graph *g = t->g;
	uint32_t head = 0, tail = 0, *q = t->lorder;

	for (uint32_t x = 0; x < g->n; x++)
		t->ddown[x] = LAY_D_INF;
	t->ddown[d] = 0;
	q[tail++] = d;
	while (head < tail) {
		uint32_t y = q[head++];
		for (uint32_t k = g->start[y]; k < g->start[y + 1]; k++) {
			uint32_t x = g->peer[k];
			if (o[x] < o[y] && t->ddown[x] == LAY_D_INF) {
				t->ddown[x] = (uint16_t)(t->ddown[y] + 1);
				q[tail++] = x;
			}
		}
	}
}

static bool lighter(const struct lay_trees *t, uint32_t x, uint32_t k,
		    uint32_t bk)
{
	(void)x;
	return bk == UINT32_MAX || t->e[k].load < t->e[bk].load;
}

/* Down mode at x: a down neighbour one step closer on a down-only path,
 * the least loaded; it is forced into down mode too. */
static void esc_down(struct lay_trees *t, uint32_t x, const uint32_t *o)
{
	const struct sw_graph *g = t->g;
	uint32_t bk = UINT32_MAX;

	for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
		uint32_t y = g->peer[k];
		if (o[y] > o[x] && t->ddown[y] + 1 == t->ddown[x] &&
		    lighter(t, x, k, bk))
			bk = k;
	}
	t->fnk[x] = bk;
	t->forced[g->peer[bk]] = 1;
	t->fdist[x] = t->ddown[x];
}

/* Up mode at x: the up neighbour (already decided: lower label) whose
 * path is shortest, then least loaded.  false if x has none. */
static bool esc_up(struct lay_trees *t, uint32_t x, const uint32_t *o)
{
	const struct sw_graph *g = t->g;
	uint32_t bk = UINT32_MAX, bd = LAY_D_INF;

	for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
		uint32_t y = g->peer[k], dy = t->fdist[y];
		if (o[y] > o[x] || dy == LAY_D_INF)
			continue;
		if (dy < bd || (dy == bd && lighter(t, x, k, bk))) {
			bd = dy;
			bk = k;
		}
	}
	if (bk == UINT32_MAX)
		return false;
	t->fnk[x] = bk;
	t->fdist[x] = (uint16_t)(bd + 1);
	return true;
}

/* The escape tree to d into fnxt[], fdist[]: a switch descends when an
 * upper neighbour already descends into it or when descending is no
 * longer than climbing. */
static void escape_tree(struct lay_trees *t, uint32_t d)
{
	uint32_t n = t->g->n;
	const uint32_t *o = t->ly->order + (size_t)nearest_layer(t, d) * n;

	down_dist(t, d, o);
	memset(t->forced, 0, n);
	for (uint32_t x = 0; x < n; x++) {
		t->fdist[x] = LAY_D_INF;
		t->lorder[o[x]] = x;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t x = t->lorder[i];
		if (x == d) {
			t->fdist[x] = 0;
			continue;
		}
		bool up = !t->forced[x] && esc_up(t, x, o);
		if (t->ddown[x] != LAY_D_INF &&
		    (!up || t->ddown[x] <= t->fdist[x]))
			esc_down(t, x, o);
	}
}

void lay_tree_order(struct lay_trees *t, uint32_t d)
{
	uint32_t n = t->g->n, *first = t->kids, *list = t->kids + n + 1;
	uint32_t head = 0;

	memset(first, 0, (n + 1) * sizeof(*first));
	for (uint32_t x = 0; x < n; x++)
		if (x != d && t->nd[x].dist != LAY_D_INF)
			first[lay_parent(t, x) + 1]++;
	for (uint32_t x = 0; x < n; x++)
		first[x + 1] += first[x];
	for (uint32_t x = 0; x < n; x++)
		if (x != d && t->nd[x].dist != LAY_D_INF)
			list[first[lay_parent(t, x)]++] = x;
	for (uint32_t x = n; x > 0; x--) /* back to the starts */
		first[x] = first[x - 1];
	first[0] = 0;
	t->n_att = 0;
	t->att[t->n_att++] = d;
	while (head < t->n_att) {
		uint32_t y = t->att[head++];
		t->req[y] = LAY_NO_REQ;
		t->cnt[y] = t->g->hosts[y];
		for (uint32_t i = first[y]; i < first[y + 1]; i++)
			t->att[t->n_att++] = list[i];
	}
	t->by_dist = true; /* BFS over the tree: distances never fall */
}

/* Each tree switch's distance and masks from its parent's (parents
 * first in att[]), as layered_tree.c's join() gives them.  Returns how
 * many switches are left with no legal layer, listed in pend[]. */
static uint32_t masks(struct lay_trees *t)
{
	uint32_t bad = 0;

	t->nd[t->att[0]].legal = t->nd[t->att[0]].down = t->all;
	t->nd[t->att[0]].dist = 0;
	t->nd[t->att[0]].pcost = 0;
	for (uint32_t i = 1; i < t->n_att; i++) {
		uint32_t x = t->att[i], y = lay_parent(t, x);
		uint16_t u = t->e[t->nd[x].nk].up;
		t->nd[x].legal =
		    (uint16_t)((u & t->nd[y].legal) | (~u & t->nd[y].down));
		t->nd[x].down = (uint16_t)(~u & t->nd[y].down);
		t->nd[x].dist = (uint16_t)(t->nd[y].dist + 1);
		t->nd[x].pcost =
		    lay_sum(t->e[t->nd[x].nk].load, t->nd[y].pcost);
		if (!t->nd[x].legal)
			t->pend[bad++] = x;
	}
	return bad;
}

/* x and the rest of its escape path take their escape next hops. */
static void take_escape(struct lay_trees *t, uint32_t d, uint32_t x)
{
	while (x != d && !t->escaped[x] && t->fdist[x] != LAY_D_INF) {
		t->escaped[x] = 1;
		t->nd[x].nk = t->fnk[x];
		t->nd[x].dist = 1; /* in the tree; masks() sets the real one */
		x = t->e[t->fnk[x]].peer;
	}
}

void lay_repair(struct lay_trees *t, uint32_t d, uint32_t stuck)
{
	escape_tree(t, d);
	memset(t->escaped, 0, t->g->n);
	while (stuck) {
		for (uint32_t i = 0; i < stuck; i++)
			take_escape(t, d, t->pend[i]);
		lay_tree_order(t, d);
		stuck = masks(t);
	}
	t->ly->fallback_trees++;
}
