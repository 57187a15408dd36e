/* The layered engine's trees, one per destination LID, destination
 * switch by destination switch: the tree grown for the switch with the
 * loads of every tree so far (layered_grow.c, mended by layered_repair.c
 * where needed) is where each of its CA LIDs' trees starts, balanced
 * (layered_balance.c) with the loads as they are then, so the hosts of
 * one switch take different paths; the switch's own LID keeps the grown
 * tree (it carries no CA-to-CA traffic).  Then a second round takes each
 * CA LID's tree off the loads and balances it again from where it was
 * (docs/design.md §5.3).
 *
 * Trees go one after the other because each one's choices depend on the
 * loads the earlier ones left.  Destination switches go in LID order and
 * their columns are kept LID-major for a batch of them, then copied into
 * the LFTs: LIDs are given in BFS order, so a batch's LIDs lie in a few
 * short ranges and each LFT cache line is written about once per batch
 * (a 12,000-switch torus has 432 MB of LFTs). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

#define BATCH_LIDS 512
/* Rounds of taking each CA LID's tree off and balancing it again with the
 * final loads of all the others: one cut the busiest link by a fifth on
 * the family set measured (docs/design.md §5.3), for twice the time; a
 * second gains a few percent for as much time again. */
#define LAY_ROUNDS 1

/* Destination LIDs by switch: dlid[first[t] .. first[t + 1]) are the
 * LIDs delivered at switch t, CA LIDs first (every port's base LID, then
 * every port's second LID, ...), the switch's own LID last; dport[] is
 * the port of t that delivers each (0 for t's own LID). */
struct dests {
	uint32_t *order; /* switch indexes by LID */
	uint32_t *first;
	uint16_t *dlid;
	uint8_t *dport;
};

/* The CA LIDs of switch s in the order above, then its own; returns
 * how many (into dlid/dport when not NULL). */
static uint32_t switch_lids(const struct ib_node *sw, uint16_t *dlid,
			    uint8_t *dport)
{
	uint32_t k = 0;

	for (uint32_t l = 0; l < 128; l++) {
		bool more = false;
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			if (!r || node_is_switch(r->node) || !r->lid ||
			    l >= 1u << r->lmc)
				continue;
			if (dlid) {
				dlid[k] = (uint16_t)(r->lid + l);
				dport[k] = (uint8_t)p;
			}
			k++;
			more |= l + 1 < 1u << r->lmc;
		}
		if (!more)
			break;
	}
	if (sw->ports[0].lid) {
		if (dlid) {
			dlid[k] = sw->ports[0].lid;
			dport[k] = 0;
		}
		k++;
	}
	return k;
}

static int dests_build(const struct fabric *f, struct dests *d)
{
	uint32_t n = f->n_switches, k = 0;

	d->order = malloc((n + 1) * sizeof(*d->order));
	d->first = malloc((n + 1) * sizeof(*d->first));
	if (!d->order || !d->first)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		d->order[s] = s;
		d->first[s] = k;
		k += switch_lids(f->switches[s], NULL, NULL);
	}
	d->first[n] = k;
	d->dlid = malloc((k + 1) * sizeof(*d->dlid));
	d->dport = malloc(k + 1);
	if (!d->dlid || !d->dport)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++)
		switch_lids(f->switches[s], d->dlid + d->first[s],
			    d->dport + d->first[s]);
	qsort_r(d->order, n, sizeof(*d->order), ucast_cmp_switch_lid,
		(void *)f);
	return 0;
}

static void dests_free(struct dests *d)
{
	free(d->order);
	free(d->first);
	free(d->dlid);
	free(d->dport);
}

/* The column of one LID from the current tree into col. */
static void take_column(const struct lay_trees *t, uint32_t d, uint8_t dport,
			uint8_t *col)
{
	memset(col, LFT_NO_PORT, t->g->n);
	for (uint32_t i = 1; i < t->n_att; i++)
		col[t->att[i]] = lay_port(t, t->att[i]);
	col[d] = dport;
}

/* The tree grown for d (mended where it did not reach every switch). */
static void scaffold(struct lay_trees *t, uint32_t d)
{
	uint32_t stuck = lay_grow(t, d);

	/* every path a shortest one: balancing keeps distances, so the
	 * second round knows each tree's depths from the hop table */
	t->shortest[d] = !stuck && t->by_dist;
	if (stuck)
		lay_repair(t, d, stuck);
}

static void save_nk(struct lay_trees *t)
{
	for (uint32_t i = 0; i < t->n_att; i++)
		t->snk[t->att[i]] = t->nd[t->att[i]].nk;
}

/* The first grown tree's next hops again (every tree of d has the same
 * switches). */
static void restore_nk(struct lay_trees *t)
{
	for (uint32_t i = 0; i < t->n_att; i++) {
		uint32_t x = t->att[i];
		t->nd[x].nk = t->snk[x];
		t->req[x] = LAY_NO_REQ;
		t->cnt[x] = t->g->hosts[x];
	}
}

/* Hops from x to d along the links ok[] (memoised in odepth[]; a switch
 * whose path breaks or loops gets LAY_D_INF). */
static void old_depth(struct lay_trees *t, uint32_t d, uint32_t x)
{
	uint32_t top = 0;
	uint16_t dep = LAY_D_INF;

	while (t->odepth[x] == LAY_D_INF - 1 && t->ok[x] != UINT32_MAX) {
		t->odepth[x] = LAY_D_INF - 2; /* on the stack */
		t->pend[top++] = x;
		x = t->e[t->ok[x]].peer;
	}
	if (t->odepth[x] == LAY_D_INF - 1)
		t->odepth[x] = LAY_D_INF; /* no link out: the path breaks */
	if (t->odepth[x] < LAY_D_INF - 2)
		dep = t->odepth[x];
	while (top) {
		dep = dep == LAY_D_INF ? dep : (uint16_t)(dep + 1);
		t->odepth[t->pend[--top]] = dep;
	}
}

/* Counts the tree of LID column col (destination switch d): ok[] its
 * links, odepth[] its path lengths, far[0, n_old) its switches but d
 * farthest first, cnt[] the CA sources behind each.  With shortest[d]
 * the depths are the hop table's.  False when a switch that reaches d in
 * the graph has no way along col (a link of the tree was lost). */
static bool count_tree(struct lay_trees *t, uint32_t d, const uint8_t *col)
{
	const struct ucast_layers *ly = t->ly;
	uint32_t n = t->g->n, maxd = 0, *cnt = t->bucket;
	const uint8_t *row = t->h->d + (size_t)d * n;
	bool whole = true;

	for (uint32_t x = 0; x < n; x++) {
		uint8_t p = col[x];
		t->ok[x] = x != d && p < ly->port_base[x + 1] - ly->port_base[x]
			       ? t->kof[ly->port_base[x] + p]
			       : UINT32_MAX;
		t->odepth[x] = LAY_D_INF - 1; /* not known yet */
		t->cnt[x] = t->g->hosts[x];
	}
	t->odepth[d] = 0;
	for (uint32_t x = 0; x < n; x++) {
		if (t->shortest[d])
			t->odepth[x] = t->ok[x] != UINT32_MAX || x == d
					   ? row[x]
					   : LAY_D_INF;
		else
			old_depth(t, d, x);
		if (t->odepth[x] != LAY_D_INF && t->odepth[x] > maxd)
			maxd = t->odepth[x];
		whole &= t->odepth[x] != LAY_D_INF || row[x] == HOPS_INF;
	}
	memset(cnt, 0, (maxd + 2u) * sizeof(*cnt));
	for (uint32_t x = 0; x < n; x++)
		if (t->odepth[x] != LAY_D_INF)
			cnt[maxd - t->odepth[x] + 1]++;
	for (uint32_t v = 0; v <= maxd; v++)
		cnt[v + 1] += cnt[v];
	for (uint32_t x = 0; x < n; x++)
		if (t->odepth[x] != LAY_D_INF)
			t->far[cnt[maxd - t->odepth[x]]++] = x;
	/* every switch but d: the buckets of depth maxd .. 1 */
	t->n_old = maxd ? cnt[maxd - 1] : 0;
	for (uint32_t i = 0; i < t->n_old; i++) {
		uint32_t x = t->far[i];
		t->cnt[t->e[t->ok[x]].peer] += t->cnt[x];
	}
	return whole;
}

/* The tree count_tree() counted onto the links' loads (add), or off. */
static void tree_loads(struct lay_trees *t, bool add)
{
	for (uint32_t i = 0; i < t->n_old; i++) {
		uint32_t x = t->far[i];
		if (add)
			t->e[t->ok[x]].load += t->cnt[x];
		else
			t->e[t->ok[x]].load -= t->cnt[x];
	}
}

/* Takes the loads of the tree in col (an LFT column for a CA LID of d)
 * off the links, for routing that LID again: each switch's sources are
 * pushed along the column farthest switches first. */
static void unload(struct lay_trees *t, uint32_t d, const uint8_t *col)
{
	count_tree(t, d, col);
	tree_loads(t, false);
}

/* The tree just taken off (ok[], far[] from unload()) becomes the tree
 * to balance again: its masks, distances and path loads are computed
 * along it, parents first.  Growing afresh would cost as much as the
 * balancing and, measured, balances worse: the first round's tree is
 * already spread, a fresh one starts from the grower's tie rules. */
static void rebuild(struct lay_trees *t, uint32_t d)
{
	uint32_t n = t->g->n;

	for (uint32_t x = 0; x < n; x++)
		t->nd[x].dist = LAY_D_INF;
	t->row = t->h->d + (size_t)d * n;
	t->n_att = 0;
	t->att[t->n_att++] = d;
	t->nd[d] = (struct lay_node){.legal = t->all, .down = t->all};
	t->by_dist = true; /* far[] backwards: distances never fall */
	for (uint32_t x = 0; x < n; x++) {
		t->req[x] = LAY_NO_REQ;
		t->cnt[x] = t->g->hosts[x];
	}
	for (uint32_t i = t->n_old; i-- > 0;) {
		uint32_t x = t->far[i], k = t->ok[x], y = t->e[k].peer;
		uint16_t u = t->e[k].up;
		struct lay_node *p = &t->nd[y];
		t->att[t->n_att++] = x;
		t->nd[x] = (struct lay_node){
		    .pcost = lay_sum(t->e[k].load, p->pcost),
		    .nk = k,
		    .dist = (uint16_t)(p->dist + 1),
		    .legal = (uint16_t)((u & p->legal) | (~u & p->down)),
		    .down = (uint16_t)(~u & p->down)};
	}
}

/* One LID of destination switch d into its column: a CA LID gets a tree
 * grown and balanced with the loads as they are now (on a second round,
 * after its own first tree's loads were taken off); the switch's own
 * LID the first grown tree, unchanged on a second round. */
static void route_lid(struct lay_trees *t, const struct dests *ds, uint32_t d,
		      uint32_t i, bool again, uint8_t *col)
{
	bool ca = ds->dport[i] != 0, first = i == ds->first[d];

	if (again && !ca)
		return;
	if (again) {
		unload(t, d, col);
		rebuild(t, d);
	} else if (first) {
		scaffold(t, d);
		save_nk(t);
	} else {
		restore_nk(t);
	}
	if (ca)
		lay_balance(t, d, true);
	take_column(t, d, ds->dport[i], col);
}

/* The batch's LFT columns out of the LFTs (for a second round) or into
 * them. */
static void columns(struct lay_trees *t, bool in)
{
	uint32_t n = t->g->n, nc = t->n_col;
	const uint16_t *lid = t->col_lid;
	uint8_t *col = t->col;

	for (uint32_t x = 0; x < n; x++) {
		uint8_t *lft = t->f->switches[x]->lft;
		for (uint32_t k = 0; k < nc; k++) {
			if (in)
				col[(size_t)k * n + x] = lft[lid[k]];
			else
				lft[lid[k]] = col[(size_t)k * n + x];
		}
	}
}

/* The LIDs of destination switches order[a, b) into col_lid[]. */
static void batch_lids(struct lay_trees *t, const struct dests *ds, uint32_t a,
		       uint32_t b)
{
	t->n_col = 0;
	for (uint32_t j = a; j < b; j++) {
		uint32_t d = ds->order[j];
		for (uint32_t i = ds->first[d]; i < ds->first[d + 1]; i++)
			t->col_lid[t->n_col++] = ds->dlid[i];
	}
}

/* The destination switches order[a, b): their LIDs fit one batch. */
typedef void (*batch_fn)(struct lay_trees *t, const struct dests *ds,
			 uint32_t a, uint32_t b, void *ctx);

static void route_batch(struct lay_trees *t, const struct dests *ds, uint32_t a,
			uint32_t b, void *ctx)
{
	bool again = *(const bool *)ctx;
	uint32_t n = t->g->n;

	batch_lids(t, ds, a, b);
	if (again)
		columns(t, true);
	t->n_col = 0;
	for (uint32_t j = a; j < b; j++) {
		uint32_t d = ds->order[j];
		for (uint32_t i = ds->first[d]; i < ds->first[d + 1]; i++)
			route_lid(t, ds, d, i, again,
				  t->col + (size_t)t->n_col++ * n);
	}
	columns(t, false);
}

/* Every destination switch, in batches whose LIDs' columns fit col[]. */
static void each_batch(struct lay_trees *t, const struct dests *ds,
		       batch_fn fn, void *ctx)
{
	uint32_t n = t->g->n, a = 0, lids = 0;

	for (uint32_t j = 0; j < n; j++) {
		uint32_t d = ds->order[j], k = ds->first[d + 1] - ds->first[d];
		if (j > a && lids + k > t->col_cap) {
			fn(t, ds, a, j, ctx);
			a = j;
			lids = 0;
		}
		lids += k;
	}
	fn(t, ds, a, n, ctx);
}

/* Per switch graph link its climb mask; per (switch, port) its link. */
static int link_tables(struct lay_trees *t)
{
	const struct sw_graph *g = t->g;
	const struct ucast_layers *ly = t->ly;

	t->e = calloc(g->start[g->n] + 1, sizeof(*t->e));
	t->kof = malloc((ly->port_base[g->n] + 1) * sizeof(*t->kof));
	if (!t->e || !t->kof)
		return -ENOMEM;
	memset(t->kof, 0xFF, (ly->port_base[g->n] + 1) * sizeof(*t->kof));
	for (uint32_t x = 0; x < g->n; x++)
		for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
			t->e[k].peer = (uint16_t)g->peer[k];
			t->e[k].up = ly->up[ly->port_base[x] + g->port[k]];
			t->kof[ly->port_base[x] + g->port[k]] = k;
		}
	return 0;
}

static int trees_alloc(struct lay_trees *t, const struct dests *ds)
{
	uint32_t n = t->g->n + 1;
	uint32_t *const *bufs[] = {&t->bfs,    &t->att, &t->far,    &t->pend,
				   &t->lorder, &t->req, &t->bucket, &t->snk,
				   &t->fnk,    &t->ok};
	uint8_t *const *bytes[] = {&t->forced, &t->escaped, &t->shortest};

	for (size_t i = 0; i < sizeof(bufs) / sizeof(*bufs); i++)
		if (!(*(uint32_t **)bufs[i] = malloc(n * sizeof(uint32_t))))
			return -ENOMEM;
	for (size_t i = 0; i < sizeof(bytes) / sizeof(*bytes); i++)
		if (!(*(uint8_t **)bytes[i] = malloc(n)))
			return -ENOMEM;
	t->col_cap = BATCH_LIDS;
	for (uint32_t x = 0; x < t->g->n; x++)
		if (ds->first[x + 1] - ds->first[x] > t->col_cap)
			t->col_cap = ds->first[x + 1] - ds->first[x];
	t->kids = malloc(2 * n * sizeof(*t->kids));
	t->ddown = malloc(n * sizeof(*t->ddown));
	t->fdist = malloc(n * sizeof(*t->fdist));
	t->odepth = malloc(n * sizeof(*t->odepth));
	t->cnt = malloc(n * sizeof(*t->cnt));
	t->nd = malloc(n * sizeof(*t->nd));
	t->col = malloc((size_t)t->col_cap * n);
	t->col_lid = malloc(t->col_cap * sizeof(*t->col_lid));
	if (!t->kids || !t->ddown || !t->fdist || !t->odepth || !t->cnt ||
	    !t->nd || !t->col || !t->col_lid)
		return -ENOMEM;
	return link_tables(t);
}

static void trees_free(struct lay_trees *t)
{
	void *all[] = {t->bfs,	   t->att,    t->far,	  t->pend,    t->lorder,
		       t->req,	   t->bucket, t->snk,	  t->fnk,     t->forced,
		       t->escaped, t->kids,   t->ddown,	  t->fdist,   t->e,
		       t->cnt,	   t->nd,     t->col,	  t->col_lid, t->kof,
		       t->ok,	   t->odepth, t->shortest};

	for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
		free(all[i]);
}

static int reserve_lfts(struct fabric *f)
{
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		if (node_lft_reserve(sw, f->max_lid) < 0)
			return -ENOMEM;
		memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	}
	return 0;
}

int layers_route(struct fabric *f, const struct sw_graph *g,
		 const struct hops *h, struct ucast_layers *ly)
{
	struct lay_trees t = {.f = f, .g = g, .h = h, .ly = ly};
	struct dests ds = {0};
	int rc = -ENOMEM;

	t.all = (uint16_t)((1u << ly->n_layers) - 1);
	if (dests_build(f, &ds) < 0 || trees_alloc(&t, &ds) < 0 ||
	    reserve_lfts(f) < 0)
		goto out;
	for (unsigned r = 0; r <= LAY_ROUNDS; r++) {
		bool again = r > 0;
		each_batch(&t, &ds, route_batch, &again);
	}
	rc = 0;
out:
	dests_free(&ds);
	trees_free(&t);
	return rc;
}

/* ---- repair: keep every tree a failure left whole ---- */

/* The SLs of LID's tree in col from every switch: one more than the
 * highest, or 0 when a switch that reaches d has no legal layer. */
static unsigned tree_sls(struct lay_trees *t, uint16_t lid, const uint8_t *col,
			 uint32_t d, struct layers_sl_scratch *sc, int8_t *sl)
{
	uint32_t n = t->g->n;
	const uint8_t *row = t->h->d + (size_t)d * n;
	unsigned top = 1;

	layers_lid_sl(t->ly, t->f, lid, col, sc, sl);
	for (uint32_t x = 0; x < n; x++) {
		if (row[x] == HOPS_INF)
			continue;
		if (sl[x] < 0)
			return 0;
		if ((unsigned)sl[x] + 1 > top)
			top = (unsigned)sl[x] + 1;
	}
	return top;
}

/* One LID's column into the LFTs, and the SL check of the tree: every
 * switch that reaches d must have a legal layer. */
static bool put_column(struct lay_trees *t, uint16_t lid, const uint8_t *col,
		       struct layers_sl_scratch *sc, int8_t *sl, uint32_t d)
{
	unsigned top;

	for (uint32_t x = 0; x < t->g->n; x++)
		t->f->switches[x]->lft[lid] = col[x];
	top = tree_sls(t, lid, col, d, sc, sl);
	if (top > t->ly->used)
		t->ly->used = (uint8_t)top;
	return top > 0;
}

/* After a layer was oriented afresh a kept path may be legal in no layer
 * any more: such switches (and so everyone behind them, whose masks
 * derive from theirs) join again instead. */
static void drop_illegal(struct lay_trees *t)
{
	uint32_t k = 1;

	if (!t->ly->reoriented)
		return;
	for (uint32_t i = 1; i < t->n_att; i++) {
		uint32_t x = t->att[i];
		if (t->nd[x].legal)
			t->att[k++] = x;
		else
			t->nd[x].dist = LAY_D_INF;
	}
	t->n_att = k;
}

/* A broken tree mended: the switches whose paths are whole keep them,
 * the others join nearest first as in growing (mended by the escape
 * paths where they cannot) and a CA LID's are balanced with the loads of
 * all the other trees, which the tree then adds to; its old entries stay
 * wherever they still lead, so few LFT blocks change. */
static void regrow(struct lay_trees *t, uint32_t d, uint16_t lid, uint8_t dport)
{
	uint32_t n = t->g->n, stuck;
	uint8_t *col = t->col;

	for (uint32_t x = 0; x < n; x++)
		col[x] = t->f->switches[x]->lft[lid];
	count_tree(t, d, col);
	rebuild(t, d);
	drop_illegal(t);
	stuck = lay_regrow(t, d, col);
	if (stuck)
		lay_repair(t, d, stuck);
	/* balancing moves only the switches whose entry changed anyway */
	for (uint32_t x = 0; x < n; x++)
		t->mov[x] = x != d && t->nd[x].dist != LAY_D_INF &&
			    col[x] != lay_port(t, x);
	if (dport)
		lay_balance(t, d, true);
}

/* Pass 1: every LID's tree counted from the LFTs, batch by batch; the
 * whole CA trees' loads added, the broken LIDs (a link lost, or after a
 * layer was oriented afresh a path no longer legal) listed (index into
 * ds). */
struct keep_pass {
	uint32_t *broken, nb;
	struct layers_sl_scratch *sc;
	int8_t *sl;
};

static void keep_batch(struct lay_trees *t, const struct dests *ds, uint32_t a,
		       uint32_t b, void *ctx)
{
	struct keep_pass *kp = ctx;
	uint32_t n = t->g->n;

	batch_lids(t, ds, a, b);
	columns(t, true);
	t->n_col = 0;
	for (uint32_t j = a; j < b; j++) {
		uint32_t d = ds->order[j];
		for (uint32_t i = ds->first[d]; i < ds->first[d + 1]; i++) {
			const uint8_t *col = t->col + (size_t)t->n_col++ * n;
			if (!count_tree(t, d, col) ||
			    (t->ly->reoriented &&
			     !tree_sls(t, ds->dlid[i], col, d, kp->sc, kp->sl)))
				kp->broken[kp->nb++] = i;
			else if (ds->dport[i])
				tree_loads(t, true);
		}
	}
}

int layers_route_keep(struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct ucast_layers *ly,
		      uint32_t *rerouted)
{
	struct lay_trees t = {.f = f, .g = g, .h = h, .ly = ly};
	struct dests ds = {0};
	struct layers_sl_scratch sc = {0};
	struct keep_pass kp;
	uint32_t *broken = NULL, *sw_of = NULL, nb = 0;
	int8_t *sl = NULL;
	int rc = -ENOMEM;

	t.all = (uint16_t)((1u << ly->n_layers) - 1);
	if (dests_build(f, &ds) < 0 || trees_alloc(&t, &ds) < 0 ||
	    layers_sl_scratch_init(&sc, g->n) < 0)
		goto out;
	broken = malloc((ds.first[g->n] + 1) * sizeof(*broken));
	sw_of = malloc((ds.first[g->n] + 1) * sizeof(*sw_of));
	sl = malloc(g->n + 1);
	t.mov = malloc(g->n + 1);
	if (!broken || !sw_of || !sl || !t.mov)
		goto out;
	for (uint32_t s = 0; s < f->n_switches; s++)
		if (node_lft_reserve(f->switches[s], f->max_lid) < 0)
			goto out;
	for (uint32_t d = 0; d < g->n; d++)
		for (uint32_t i = ds.first[d]; i < ds.first[d + 1]; i++)
			sw_of[i] = d;
	memset(t.shortest, 0, g->n);
	kp = (struct keep_pass){broken, 0, &sc, sl};
	each_batch(&t, &ds, keep_batch, &kp);
	nb = kp.nb;
	rc = 0;
	for (uint32_t b = 0; b < nb && rc == 0; b++) {
		uint32_t i = broken[b], d = sw_of[i];
		regrow(&t, d, ds.dlid[i], ds.dport[i]);
		take_column(&t, d, ds.dport[i], t.col);
		if (!put_column(&t, ds.dlid[i], t.col, &sc, sl, d))
			rc = -EDEADLK;
	}
	*rerouted = nb;
out:
	free(broken);
	free(sw_of);
	free(sl);
	free(t.mov);
	layers_sl_scratch_free(&sc);
	dests_free(&ds);
	trees_free(&t);
	return rc;
}
