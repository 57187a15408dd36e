/* The layered engine's first pass over a destination's tree: growing it
 * from the destination switch outwards, nearest switches first.
 *
 * Each switch x of a tree knows, for the tree path from x to the
 * destination, the layers in which that path is legal (up* then down*)
 * and those in which it only descends.  Joining x to a neighbour y that
 * is already in the tree gives x
 *   legal(x) = (up(x->y) & legal(y)) | (~up(x->y) & down(y))
 *   down(x)  = ~up(x->y) & down(y)
 * (a climb keeps what y allows, a descent needs y's path to descend all
 * the way).  x takes, among its neighbours one hop closer, one with a
 * non-empty legal(x): the one leaving the most layers open to the
 * switches that will join behind x, then the least loaded path (the
 * CA-to-CA routes of every tree so far on each of its links, as DFSSSP
 * and Nue weigh paths).  The loads only break ties here: the second
 * pass (layered_balance.c) balances with exact weights within what this
 * pass leaves legal.  A switch with no such neighbour joins later
 * through any tree neighbour, on a longer path; what cannot join at all
 * is left to layered_repair.c. */
#include "routing/unicast/layered.h"

/* Switches in increasing hop distance from d (counting sort of d's row
 * of the hop table; unreachable ones last). */
static void bfs_order(struct lay_trees *t, uint32_t d)
{
	uint32_t n = t->g->n, cnt[257] = {0}, sum = 0;
	const uint8_t *row = t->h->d + (size_t)d * n;

	for (uint32_t x = 0; x < n; x++)
		cnt[row[x]]++;
	for (unsigned v = 0; v < 256; v++) {
		uint32_t c = cnt[v];
		cnt[v] = sum;
		sum += c;
	}
	for (uint32_t x = 0; x < n; x++)
		t->bfs[cnt[row[x]]++] = x;
}

/* Bits set in a layer mask (no popcnt instruction in the baseline ISA). */
static inline int pop16(uint16_t v)
{
	v = (uint16_t)(v - ((v >> 1) & 0x5555));
	v = (uint16_t)((v & 0x3333) + ((v >> 2) & 0x3333));
	v = (uint16_t)((v + (v >> 4)) & 0x0F0F);
	return (v + (v >> 8)) & 0x1F;
}

struct choice {
	uint32_t k; /* index into the switch graph's links, UINT32_MAX none */
	uint16_t legal, down, dist;
	uint32_t load;
	int open;
};

/* Is c a better way to join than best? */
static bool better(const struct choice *c, const struct choice *best)
{
	if (best->k == UINT32_MAX)
		return true;
	if (c->dist != best->dist)
		return c->dist < best->dist;
	if (c->open != best->open)
		return c->open > best->open;
	return c->load < best->load;
}

/* Joining through link k to its peer y (in the tree): false when that
 * leaves no layer legal. */
static bool via(const struct lay_trees *t, uint32_t k, struct choice *c)
{
	uint32_t y = t->e[k].peer;
	uint16_t u = t->e[k].up;

	c->legal = (uint16_t)((u & t->nd[y].legal) | (~u & t->nd[y].down));
	if (!c->legal)
		return false;
	c->down = (uint16_t)(~u & t->nd[y].down);
	c->k = k;
	c->dist = (uint16_t)(t->nd[y].dist + 1);
	c->load = lay_sum(t->e[k].load, t->nd[y].pcost);
	c->open = pop16(c->down) + pop16(c->legal);
	return true;
}

/* The best way for x to join the tree through a neighbour already in it;
 * with closer, only through neighbours one hop closer by the hop table. */
static struct choice best_join(const struct lay_trees *t, uint32_t x,
			       const uint8_t *row, bool closer)
{
	const struct sw_graph *g = t->g;
	struct choice best = {.k = UINT32_MAX};

	for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
		uint32_t y = t->e[k].peer;
		struct choice c;

		if ((closer && row[y] + 1 != row[x]) ||
		    t->nd[y].dist == LAY_D_INF || !via(t, k, &c))
			continue;
		if (better(&c, &best))
			best = c;
	}
	return best;
}

static void join(struct lay_trees *t, uint32_t x, const struct choice *c)
{
	t->nd[x].dist = c->dist;
	t->nd[x].pcost = c->load;
	t->nd[x].legal = c->legal;
	t->nd[x].down = c->down;
	t->nd[x].nk = c->k;
	t->att[t->n_att++] = x;
	t->req[x] = LAY_NO_REQ;
	t->cnt[x] = t->g->hosts[x];
}

/* Switches left out of the shortest-path pass join through any tree
 * neighbour, shortest resulting path first.  Returns how many could
 * not join (left in pend[]). */
static uint32_t join_pending(struct lay_trees *t, uint32_t np,
			     const uint8_t *row)
{
	while (np) {
		uint16_t least = LAY_D_INF;
		uint32_t kept = 0;
		for (uint32_t i = 0; i < np; i++) {
			struct choice c = best_join(t, t->pend[i], row, false);
			if (c.k != UINT32_MAX && c.dist < least)
				least = c.dist;
		}
		if (least == LAY_D_INF)
			return np;
		for (uint32_t i = 0; i < np; i++) {
			uint32_t x = t->pend[i];
			struct choice c = best_join(t, x, row, false);
			if (c.k != UINT32_MAX && c.dist == least) {
				join(t, x, &c);
			} else {
				t->pend[kept++] = x;
			}
		}
		np = kept;
	}
	return 0;
}

uint32_t lay_grow(struct lay_trees *t, uint32_t d)
{
	uint32_t n = t->g->n, np = 0;
	const uint8_t *row = t->h->d + (size_t)d * n;

	t->row = row;
	for (uint32_t x = 0; x < n; x++)
		t->nd[x].dist = LAY_D_INF;
	t->n_att = 0;
	t->nd[d].dist = 0;
	t->nd[d].pcost = 0;
	t->nd[d].legal = t->nd[d].down = t->all;
	t->att[t->n_att++] = d;
	t->req[d] = LAY_NO_REQ;
	t->cnt[d] = t->g->hosts[d];
	bfs_order(t, d);
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = t->bfs[i];
		struct choice c;
		if (row[x] == HOPS_INF)
			break;
		c = best_join(t, x, row, true);
		if (c.k != UINT32_MAX)
			join(t, x, &c);
		else
			t->pend[np++] = x;
	}
	t->by_dist = np == 0;
	return join_pending(t, np, row);
}

/* Joining x through its old next hop (link k of the old column), when
 * that neighbour is in the tree, one hop closer and leaves x a legal
 * layer: the entry then need not change. */
static struct choice via_old(const struct lay_trees *t, uint32_t x, uint32_t k,
			     const uint8_t *row)
{
	struct choice c = {.k = UINT32_MAX};
	uint32_t y = k == UINT32_MAX ? 0 : t->e[k].peer;

	if (k == UINT32_MAX || t->nd[y].dist == LAY_D_INF ||
	    row[y] + 1 != row[x] || !via(t, k, &c))
		c.k = UINT32_MAX;
	return c;
}

uint32_t lay_regrow(struct lay_trees *t, uint32_t d, const uint8_t *col)
{
	const struct ucast_layers *ly = t->ly;
	uint32_t n = t->g->n, np = 0;
	const uint8_t *row = t->h->d + (size_t)d * n;

	t->row = row;
	bfs_order(t, d);
	for (uint32_t i = 1; i < n; i++) {
		uint32_t x = t->bfs[i], k = UINT32_MAX;
		struct choice c;
		if (row[x] == HOPS_INF)
			break;
		if (t->nd[x].dist != LAY_D_INF)
			continue; /* kept */
		if (col[x] < ly->port_base[x + 1] - ly->port_base[x])
			k = t->kof[ly->port_base[x] + col[x]];
		c = via_old(t, x, k, row);
		if (c.k == UINT32_MAX)
			c = best_join(t, x, row, true);
		if (c.k != UINT32_MAX)
			join(t, x, &c);
		else
			t->pend[np++] = x;
	}
	t->by_dist = false; /* att[]: the kept switches, then the joined */
	return join_pending(t, np, row);
}
