/* Fat-tree LFTs from the chains (ftree.h), one switch x at a time in
 * parallel (each switch writes only its own table and counters).
 *
 * For a destination LID d on leaf t, x takes a min-hop port, and among
 * them the one that joins d's chain:
 * - x above t (a down-only path): the chain's switch one level below x
 *   when it is x's neighbour, so v_i sends d to v_{i-1};
 * - otherwise the path climbs to level L = (hops + level(x)) / 2 and
 *   comes down from there: x takes the up link that leads to the chain's
 *   switch at level L (via), so every source meets the chain at the
 *   lowest level it can and follows it down.  Where several up links
 *   lead there (every middle switch of a pod reaches every top of a
 *   pruned tree), the one in the chain's own column at the next level
 *   (its digit) is taken.
 * Where neither applies (a degraded tree: the chain's switch is out of
 * reach, or the chain stops below L) x takes its least loaded min-hop
 * link, counting the routes to hosts it already sends out of each; a LID
 * at offset o > 0 of an LMC range takes its base LID's turned by o
 * (ucast_lmc_pick(), as minhop), skipping links its port's other LIDs
 * take.
 * Switch LIDs go last, to the least loaded min-hop link. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/ftree.h"

struct fill_ws {
	uint64_t *mh;	/* [n * W] min-hop groups of x towards each switch */
	uint8_t *old;	/* keep: x's LFT as it was */
	uint32_t *dl;	/* destinations of one leaf left to fill_levels() */
	uint32_t *pend; /* and to fallback() */
	uint32_t pca[256], pall[256];
	uint32_t gca[FT_MAX_GROUPS + 1], gall[FT_MAX_GROUPS + 1];
	uint8_t pgrp[256];		   /* port -> group index, FT_NONE */
	uint8_t gport1[FT_MAX_GROUPS + 1]; /* a group's first port */
	bool gmulti[FT_MAX_GROUPS + 1];	   /* parallel links */
};

struct fill_job {
	struct fabric *f;
	const struct hops *h;
	const struct ft_tree *t;
	struct ft_plan *p;
	bool keep;
	bool as_is; /* LIDs off their chains keep the table's entries */
	uint32_t W; /* mask words per switch */
	struct fill_ws *ws;
};

static void ws_setup(const struct fill_job *j, struct fill_ws *w, uint32_t x)
{
	const struct ft_tree *t = j->t;
	uint32_t g0 = t->gstart[x], ng = t->gstart[x + 1] - g0;

	memset(w->pca, 0, sizeof(w->pca));
	memset(w->pall, 0, sizeof(w->pall));
	memset(w->gca, 0, sizeof(w->gca));
	memset(w->gall, 0, sizeof(w->gall));
	memset(w->pgrp, FT_NONE, sizeof(w->pgrp));
	for (uint32_t g = 0; g < ng; g++) {
		uint32_t a = t->pstart[g0 + g], b = t->pstart[g0 + g + 1];
		w->gport1[g] = t->gport[a];
		w->gmulti[g] = b - a > 1;
		for (uint32_t k = a; k < b; k++)
			w->pgrp[t->gport[k]] = (uint8_t)g;
	}
}

/* mh[u * W ...]: bit g set when group g of x is on a shortest path to
 * switch u.  One pass over each neighbour's hop row. */
static void minhop_masks(const struct fill_job *j, struct fill_ws *w,
			 uint32_t x)
{
	const struct ft_tree *t = j->t;
	uint32_t n = t->n, W = j->W, g0 = t->gstart[x];
	const uint8_t *rx = j->h->d + (size_t)x * n;

	memset(w->mh, 0, (size_t)n * W * sizeof(uint64_t));
	for (uint32_t g = 0; g < t->gstart[x + 1] - g0; g++) {
		const uint8_t *ry = j->h->d + (size_t)t->gpeer[g0 + g] * n;
		uint64_t bit = 1ull << (g & 63), *m = w->mh + g / 64;
		/* no branch (HOPS_INF + 1 matches no distance), and blocks
		 * of 16, so the compiler vectorizes the common one-word
		 * case at -O2 */
		if (W == 1) {
			uint32_t u = 0;
			for (; u + 16 <= n; u += 16)
				for (unsigned k = 0; k < 16; k++)
					m[u + k] |=
					    bit & -(uint64_t)(ry[u + k] + 1u ==
							      rx[u + k]);
			for (; u < n; u++)
				m[u] |= bit & -(uint64_t)(ry[u] + 1u == rx[u]);
		} else
			for (uint32_t u = 0; u < n; u++)
				m[(size_t)u * W] |=
				    bit & -(uint64_t)(ry[u] + 1u == rx[u]);
	}
}

static inline bool in_mask(const uint64_t *m, unsigned g)
{
	return m[g / 64] >> (g & 63) & 1;
}

static inline void take(struct fill_ws *w, uint8_t port, bool ca)
{
	uint8_t g = w->pgrp[port];

	w->pall[port]++;
	w->pca[port] += ca;
	if (g != FT_NONE) {
		w->gall[g]++;
		w->gca[g] += ca;
	}
}

/* The least loaded port of group g of x (routes to hosts, then all). */
static uint8_t group_port(const struct fill_job *j, const struct fill_ws *w,
			  uint32_t x, unsigned g)
{
	const struct ft_tree *t = j->t;
	uint32_t k = t->pstart[t->gstart[x] + g],
		 end = t->pstart[t->gstart[x] + g + 1];
	uint8_t best = t->gport[k];

	if (end - k == 1)
		return best;
	for (k++; k < end; k++) {
		uint8_t p = t->gport[k];
		if (w->pca[p] < w->pca[best] ||
		    (w->pca[p] == w->pca[best] && w->pall[p] < w->pall[best]))
			best = p;
	}
	return best;
}

/* Up groups of x leading to v: the digit-th of them (mod their number). */
static unsigned ambig_pick(const struct ft_tree *t, uint32_t x, uint32_t v,
			   unsigned digit)
{
	unsigned list[FT_MAX_GROUPS], n = 0;

	for (unsigned g = 0; g < t->nup[x]; g++) {
		uint32_t y = t->gpeer[t->gstart[x] + g];
		if (y == v || ft_via(t, y, v) != FT_NONE)
			list[n++] = g;
	}
	return n ? list[digit % n] : FT_NONE;
}

/* The group of x that joins d's chain (see the file comment), FT_NONE. */
static unsigned follow_chain(const struct fill_job *j, uint32_t x, uint8_t hx,
			     uint32_t d)
{
	const struct ft_tree *t = j->t;
	const struct ft_plan *p = j->p;
	const uint32_t *ch = p->chain + (size_t)d * p->stride;
	unsigned lx = t->level[x], len = p->d[d].len, g, top;

	if (hx == lx) {
		if (!lx || lx - 1 >= len)
			return FT_NONE;
		g = ft_via(t, x, ch[lx - 1]);
		return g != FT_NONE && g >= t->nup[x] ? g : FT_NONE;
	}
	if ((hx + lx) & 1)
		return FT_NONE;
	top = (hx + lx) / 2;
	if (top >= len || top <= lx)
		return FT_NONE;
	g = ft_via(t, x, ch[top]);
	if (g < t->nup[x])
		return g;
	if (g != FT_AMBIG)
		return FT_NONE;
	return ambig_pick(t, x, ch[top],
			  p->digit[(size_t)d * p->stride + lx + 1]);
}

/* The least loaded group of mask m; excl: groups to avoid if possible. */
static unsigned least_group(const struct fill_job *j, const struct fill_ws *w,
			    const uint64_t *m, const uint64_t *excl)
{
	uint64_t best = UINT64_MAX;
	unsigned bg = FT_NONE;

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			unsigned g = wd * 64 + (unsigned)__builtin_ctzll(bits);
			uint64_t key = (uint64_t)w->gca[g] << 32 | w->gall[g];
			if (excl && in_mask(excl, g))
				key |= 1ull << 63;
			if (key < best) {
				best = key;
				bg = g;
			}
		}
	return bg;
}

struct lmc_ctx {
	const struct fill_ws *w;
	const uint8_t *lft;
	const struct ft_dest *e;
	const unsigned *c; /* candidate groups */
};

/* Candidate group i already taken at x by another LID of e's port. */
static bool lmc_taken(void *arg, unsigned i)
{
	const struct lmc_ctx *x = arg;
	const struct ft_dest *e = x->e;

	for (unsigned o = 0; o < 1u << e->lmc; o++) {
		uint8_t port = x->lft[e->base + o];
		if (e->base + o != e->lid && port != LFT_NO_PORT &&
		    x->w->pgrp[port] == x->c[i])
			return true;
	}
	return false;
}

/* Fallback for a host LID: at offset > 0 of an LMC range whose base LID
 * left x by one of the min-hop groups, the one ucast_lmc_pick() turns it
 * by (every offset spread as the base LIDs are); else the least loaded
 * min-hop group, avoiding those the other LIDs of its port take at x. */
static unsigned fallback(const struct fill_job *j, const struct fill_ws *w,
			 uint32_t x, const uint64_t *m, const struct ft_dest *e)
{
	const uint8_t *lft = j->f->switches[x]->lft;
	unsigned c[FT_MAX_GROUPS + 1], n = 0, bi = FT_NONE;
	uint8_t bp = lft[e->base];
	struct lmc_ctx lx = {w, lft, e, c};
	uint64_t excl[4] = {0};

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1) {
			c[n] = wd * 64 + (unsigned)__builtin_ctzll(bits);
			if (e->off && bp != LFT_NO_PORT && w->pgrp[bp] == c[n])
				bi = n;
			n++;
		}
	if (bi != FT_NONE)
		return c[ucast_lmc_pick(n, bi, e->off, lmc_taken, &lx)];
	for (unsigned i = 0; i < n; i++)
		if (lmc_taken(&lx, i))
			excl[c[i] / 64] |= 1ull << (c[i] & 63);
	return least_group(j, w, m, excl);
}

static inline void set_entry(const struct fill_job *j, struct fill_ws *w,
			     uint32_t x, uint16_t lid, unsigned g)
{
	uint8_t port = w->gmulti[g] ? group_port(j, w, x, g) : w->gport1[g];

	j->f->switches[x]->lft[lid] = port;
	take(w, port, true);
}

/* as_is: the entry the table held before this fill.  True if kept. */
static bool keep_entry(struct fill_ws *w, uint8_t *lft, uint16_t lid)
{
	lft[lid] = w->old[lid];
	if (lft[lid] != LFT_NO_PORT)
		take(w, lft[lid], true);
	return lft[lid] != LFT_NO_PORT;
}

static bool port_taken(const uint8_t *lft, const struct ft_dest *e,
		       uint8_t port)
{
	for (unsigned o = 0; o < 1u << e->lmc; o++)
		if (e->base + o != e->lid && lft[e->base + o] == port)
			return true;
	return false;
}

/* as_is, an LID of an LMC range its chain did not place: the up/down
 * fill gave the range's LIDs different links, but a chain may have
 * moved a sibling onto this one's.  Then this one takes a link the
 * up/down fill gave a sibling and no LID of the range takes now: a
 * legal next hop too (every LID of the range goes to the same switch). */
static void unclash(const struct fill_ws *w, uint8_t *lft,
		    const struct ft_dest *e)
{
	if (!port_taken(lft, e, lft[e->lid]))
		return;
	for (unsigned o = 0; o < 1u << e->lmc; o++) {
		uint8_t port = w->old[e->base + o];
		if (port != LFT_NO_PORT && port != lft[e->lid] &&
		    !port_taken(lft, e, port)) {
			lft[e->lid] = port;
			return;
		}
	}
}

/* An entry still on a min-hop link (keep mode). */
static bool still_good(const struct fill_job *j, const struct fill_ws *w,
		       uint32_t x, uint32_t u, uint8_t port)
{
	return port <= j->f->switches[x]->nports && w->pgrp[port] != FT_NONE &&
	       in_mask(w->mh + (size_t)u * j->W, w->pgrp[port]);
}

/* Keep mode: x's old entry for e, if still on a min-hop link (or still
 * to its host on its own leaf). */
static bool old_good(const struct fill_job *j, const struct fill_ws *w,
		     uint32_t x, const struct ft_dest *e)
{
	uint8_t port = w->old[e->lid];

	if (x == e->leaf)
		return port == e->port;
	return port != LFT_NO_PORT && still_good(j, w, x, e->leaf, port);
}

/* What least_group() would give one LID after another, for LIDs that
 * avoid nothing: the candidates of the lowest load in group order, then
 * those of the next load, ...  Costs the candidates per load level
 * rather than per LID (a middle switch sends most of a leaf's LIDs to
 * switches off their chains this way). */
static void fill_levels(const struct fill_job *j, struct fill_ws *w, uint32_t x,
			const uint64_t *m, const uint32_t *dl, uint32_t n)
{
	unsigned c[FT_MAX_GROUPS + 1], nc = 0;
	uint32_t lvl = UINT32_MAX, e = 0;

	for (uint32_t wd = 0; wd < j->W; wd++)
		for (uint64_t bits = m[wd]; bits; bits &= bits - 1)
			c[nc++] = wd * 64 + (unsigned)__builtin_ctzll(bits);
	for (unsigned i = 0; i < nc; i++)
		if (w->gca[c[i]] < lvl)
			lvl = w->gca[c[i]];
	for (; nc && e < n; lvl++)
		for (unsigned i = 0; i < nc && e < n; i++)
			if (w->gca[c[i]] == lvl)
				set_entry(j, w, x, j->p->d[dl[e++]].lid, c[i]);
}

/* The host LIDs of leaf i from switch x (see the file comment): those
 * their chain places, then the others of ports without an LMC range by
 * levels, then the others of LMC ranges one by one (fallback()). */
static void route_leaf(const struct fill_job *j, struct fill_ws *w, uint32_t x,
		       uint32_t i)
{
	const struct ft_plan *p = j->p;
	uint32_t t = p->leaves[i], nb = 0, np = 0;
	uint8_t hx = hops_sw(j->h, x, t);
	const uint64_t *m = w->mh + (size_t)t * j->W;
	uint8_t *lft = j->f->switches[x]->lft;

	if (hx == HOPS_INF)
		return;
	for (uint32_t d = p->dstart[i]; d < p->dstart[i + 1]; d++) {
		const struct ft_dest *e = &p->d[d];
		unsigned g;
		if (j->keep && lft[e->lid] != LFT_NO_PORT)
			continue; /* kept */
		if (x == t) {
			lft[e->lid] = e->port;
			take(w, e->port, true);
			continue;
		}
		g = follow_chain(j, x, hx, d);
		if (g != FT_NONE && in_mask(m, g))
			set_entry(j, w, x, e->lid, g);
		else if (j->keep && old_good(j, w, x, e))
			keep_entry(w, lft, e->lid);
		else if (j->as_is && keep_entry(w, lft, e->lid) && e->lmc)
			w->pend[np++] = d;
		else if (j->as_is)
			continue;
		else if (!e->lmc)
			w->dl[nb++] = d;
		else
			w->pend[np++] = d;
	}
	fill_levels(j, w, x, m, w->dl, nb);
	for (uint32_t k = 0; k < np; k++) {
		const struct ft_dest *e = &p->d[w->pend[k]];
		unsigned g;
		if (j->as_is) {
			unclash(w, lft, e);
			continue;
		}
		g = fallback(j, w, x, m, e);
		if (g != FT_NONE)
			set_entry(j, w, x, e->lid, g);
	}
}

static void route_switch_lids(const struct fill_job *j, struct fill_ws *w,
			      uint32_t x)
{
	const struct fabric *f = j->f;
	uint8_t *lft = f->switches[x]->lft;

	for (uint32_t i = 0; i < f->n_switches; i++) {
		uint32_t u = j->p->sw_by_guid[i];
		uint16_t lid = j->p->sw_lid[i];
		unsigned g;
		uint8_t port;
		if (!lid)
			continue;
		if (u == x) {
			lft[lid] = 0;
			continue;
		}
		if (j->as_is) {
			lft[lid] = w->old[lid];
			if (lft[lid] != LFT_NO_PORT)
				take(w, lft[lid], false);
			continue;
		}
		if (j->keep && still_good(j, w, x, u, w->old[lid])) {
			lft[lid] = w->old[lid];
			take(w, lft[lid], false);
			continue;
		}
		g = least_group(j, w, w->mh + (size_t)u * j->W, NULL);
		if (g == FT_NONE)
			continue;
		port = group_port(j, w, x, g);
		lft[lid] = port;
		take(w, port, false);
	}
}

static void fill_switch(void *arg, size_t s, unsigned worker)
{
	const struct fill_job *j = arg;
	struct fill_ws *w = &j->ws[worker];
	const struct ft_plan *p = j->p;
	struct ib_node *sw = j->f->switches[s];
	uint32_t x = (uint32_t)s;

	ws_setup(j, w, x);
	minhop_masks(j, w, x);
	if (j->keep || j->as_is)
		memcpy(w->old, sw->lft, sw->lft_size);
	memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	/* keep: a destination on its old chain keeps every entry still on
	 * a min-hop link; the others are routed below */
	for (uint32_t d = 0; j->keep && d < p->n; d++)
		if (!p->d[d].moved && old_good(j, w, x, &p->d[d]))
			keep_entry(w, sw->lft, p->d[d].lid);
	for (uint32_t i = 0; i < p->n_leaves; i++)
		route_leaf(j, w, x, i);
	route_switch_lids(j, w, x);
}

static int job_init(struct fill_job *j, unsigned nw)
{
	const struct ft_tree *t = j->t;
	uint32_t maxg = 1, maxl = 1;

	for (uint32_t s = 0; s < t->n; s++) {
		if (t->gstart[s + 1] - t->gstart[s] > maxg)
			maxg = t->gstart[s + 1] - t->gstart[s];
		if (j->f->switches[s]->lft_size > maxl)
			maxl = j->f->switches[s]->lft_size;
	}
	j->W = (maxg + 63) / 64;
	j->ws = calloc(nw, sizeof(*j->ws));
	if (!j->ws)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++) {
		j->ws[i].mh = malloc(((size_t)t->n * j->W + 1) * 8);
		j->ws[i].old = malloc(maxl);
		j->ws[i].dl = malloc((j->p->n + 1) * sizeof(uint32_t));
		j->ws[i].pend = malloc((j->p->n + 1) * sizeof(uint32_t));
		if (!j->ws[i].mh || !j->ws[i].old || !j->ws[i].dl ||
		    !j->ws[i].pend)
			return -ENOMEM;
	}
	return 0;
}

static void job_free(struct fill_job *j, unsigned nw)
{
	for (unsigned i = 0; j->ws && i < nw; i++) {
		free(j->ws[i].mh);
		free(j->ws[i].old);
		free(j->ws[i].dl);
		free(j->ws[i].pend);
	}
	free(j->ws);
}

static int run(struct fill_job *jp, struct pool *pool,
	       void (*fn)(void *, size_t, unsigned))
{
	struct fill_job j = *jp;
	struct fabric *f = j.f;
	unsigned nw = pool_threads(pool);
	int rc = 0;

	for (uint32_t s = 0; rc == 0 && s < f->n_switches; s++)
		rc = node_lft_reserve(f->switches[s], f->max_lid);
	if (rc == 0)
		rc = job_init(&j, nw);
	if (rc == 0)
		pool_for(pool, f->n_switches, fn, &j);
	job_free(&j, nw);
	return rc;
}

int ft_fill(struct fabric *f, const struct hops *h, struct pool *pool,
	    const struct ft_tree *t, const struct ft_plan *p, bool keep,
	    bool as_is)
{
	struct fill_job j = {.f = f,
			     .h = h,
			     .t = t,
			     .p = (struct ft_plan *)p,
			     .keep = keep,
			     .as_is = as_is};

	return run(&j, pool, fill_switch);
}
