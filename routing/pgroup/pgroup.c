/* Port groups: candidate sets per (switch, destination switch), then per
 * switch the groups and the LID -> group table (see pgroup.h).
 *
 * Every LID delivered by switch d has, at switch s, the candidate set of
 * (s, d): min-hop ports from the hop table, or the up/down engine's legal
 * shortest ports (updown_candidates()).  Each switch interns its distinct
 * multi-port sets (setid[s][d], 0 = one port or none), then weighs the
 * elements (set, static LFT port) by their LIDs and lets pgroup_select()
 * pick the groups.  All work is per switch, so threads never share
 * anything and the result does not depend on their number. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/pgroup/pgroup.h"
#include "routing/unicast/unicast.h"

struct intern {
	struct pg_set *sets; /* id i + 1 */
	uint32_t n, cap;
	uint32_t *slot;	     /* open addressing: id, 0 = empty */
	uint32_t hcap;
	uint32_t last;	     /* id returned last: runs of equal sets */
	int err;
};

struct pg_job {
	const struct fabric *f;
	const struct hops *h;
	const struct pgroup_params *prm;
	struct pgroup_table *t;
	struct pool *pool;
	struct sw_graph g;
	uint32_t n;
	uint16_t *setid;	/* [n * n] */
	struct intern *in;	/* [n] */
	uint32_t *lid_start;	/* [n + 1] LIDs of switch d: lids[start[d]..] */
	uint32_t *lids;
	struct pg_set *wmask;	/* [workers][n] min-hop scratch */
	/* updown batch */
	uint32_t first, count, W, batch;
	const uint64_t *mask;
};

static uint64_t set_hash(const struct pg_set *s)
{
	uint64_t x = s->m[0] * 0x9E3779B97F4A7C15ull;

	for (unsigned w = 1; w < PG_WORDS; w++)
		x = (x ^ s->m[w]) * 0xC2B2AE3D27D4EB4Full;
	return x ^ x >> 29;
}

static int intern_grow(struct intern *in)
{
	uint32_t hcap = in->hcap ? in->hcap * 2 : 16;
	uint32_t *slot = calloc(hcap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (uint32_t id = 1; id <= in->n; id++) {
		uint32_t i = (uint32_t)set_hash(&in->sets[id - 1]) & (hcap - 1);
		while (slot[i])
			i = (i + 1) & (hcap - 1);
		slot[i] = id;
	}
	free(in->slot);
	in->slot = slot;
	in->hcap = hcap;
	return 0;
}

static int intern_push(struct intern *in, const struct pg_set *s)
{
	if (in->n == in->cap) {
		uint32_t cap = in->cap ? in->cap * 2 : 8;
		struct pg_set *v = realloc(in->sets, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		in->sets = v;
		in->cap = cap;
	}
	in->sets[in->n++] = *s;
	return 0;
}

/* The id of set s in this switch's table, added if new; 0 on ENOMEM. */
static uint16_t intern(struct intern *in, const struct pg_set *s)
{
	uint32_t i;

	if (in->last && !memcmp(&in->sets[in->last - 1], s, sizeof(*s)))
		return (uint16_t)in->last;
	if ((in->n + 1) * 2 > in->hcap && intern_grow(in) < 0)
		goto nomem;
	i = (uint32_t)set_hash(s) & (in->hcap - 1);
	for (; in->slot[i]; i = (i + 1) & (in->hcap - 1))
		if (!memcmp(&in->sets[in->slot[i] - 1], s, sizeof(*s)))
			return (uint16_t)(in->last = in->slot[i]);
	if (intern_push(in, s) < 0)
		goto nomem;
	in->slot[i] = in->n;
	return (uint16_t)(in->last = in->n);
nomem:
	in->err = -ENOMEM;
	return 0;
}

/* Min-hop sets of switch s towards every switch: port p (to switch t)
 * is a candidate for d iff hops(t, d) + 1 == hops(s, d) (HOPS_INF + 1
 * never equals a byte).  Switches with ports below 64 (all but the
 * largest) take a one-word loop the compiler vectorises. */
static void minhop_sets(void *arg, size_t si, unsigned worker)
{
	struct pg_job *j = arg;
	uint32_t s = (uint32_t)si, n = j->n;
	struct pg_set *m = j->wmask + (size_t)worker * n;
	uint64_t *m1 = (uint64_t *)m; /* the one-word case: n words */
	const uint8_t *rs = j->h->d + (size_t)s * n;
	bool narrow = j->f->switches[s]->nports < 64;

	memset(m, 0, n * sizeof(*m));
	for (uint32_t k = j->g.start[s]; k < j->g.start[s + 1]; k++) {
		const uint8_t *rt = j->h->d + (size_t)j->g.peer[k] * n;
		unsigned p = j->g.port[k], w = p >> 6;
		uint64_t bit = 1ull << (p & 63);
		if (narrow) {
			for (uint32_t d = 0; d < n; d++)
				m1[d] |= (uint64_t)(rt[d] + 1 == rs[d]) << p;
			continue;
		}
		for (uint32_t d = 0; d < n; d++)
			if (rt[d] + 1 == rs[d])
				m[d].m[w] |= bit;
	}
	for (uint32_t d = 0; d < n; d++) {
		struct pg_set x = { { 0 } };
		if (narrow)
			x.m[0] = m1[d];
		else
			x = m[d];
		if (pg_multi(&x))
			j->setid[(size_t)s * n + d] = intern(&j->in[s], &x);
	}
}

/* One batch of up/down candidate masks, interned by source switch. */
static void updown_sets(void *arg, size_t si, unsigned worker)
{
	struct pg_job *j = arg;
	uint32_t s = (uint32_t)si, n = j->n;

	(void)worker;
	for (uint32_t b = 0; b < j->count; b++) {
		const uint64_t *row = j->mask + ((size_t)s * j->batch + b) * j->W;
		struct pg_set m = { { 0 } };
		for (uint32_t w = 0; w < j->W && w < PG_WORDS; w++)
			m.m[w] = row[w];
		if (pg_multi(&m))
			j->setid[(size_t)s * n + j->first + b] =
			    intern(&j->in[s], &m);
	}
}

static void updown_batch(void *ctx, uint32_t first, uint32_t count,
			 const uint64_t *mask, uint32_t W, uint32_t batch)
{
	struct pg_job *j = ctx;

	j->first = first;
	j->count = count;
	j->mask = mask;
	j->W = W;
	j->batch = batch;
	pool_for(j->pool, j->n, updown_sets, j);
}

/* Per-switch work of the second phase. */
struct sw_work {
	struct pg_elem *el;
	uint32_t n_el, cap_el;
	uint32_t *eidx;	  /* [set * stride + port]: element + 1 */
	uint32_t *lid_el; /* [ft_lim]: element + 1 of each LID */
	int32_t *choice;  /* [n_el] */
	struct pg_set *out;
	uint32_t stride, ft_lim;
	bool fast;	  /* sets <= cap: a LID's group is its set */
	uint64_t *set_wt; /* fast: [n_sets + 1] DLIDs per set id */
};

static int add_elem(struct sw_work *w, uint32_t key, uint32_t set, uint8_t q)
{
	if (w->n_el == w->cap_el) {
		uint32_t cap = w->cap_el ? w->cap_el * 2 : 64;
		struct pg_elem *v = realloc(w->el, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		w->el = v;
		w->cap_el = cap;
	}
	w->el[w->n_el++] = (struct pg_elem){ set, q, 0 };
	w->eidx[key] = w->n_el;
	return 0;
}

/* One multi-path LID l (set id sid, static port q) below ft_lim. */
static int take_lid(struct sw_work *w, struct pgroup_sw *out, uint32_t l,
		    uint16_t sid, uint8_t q)
{
	uint32_t key;

	if (w->fast) {
		out->ft[l] = (uint8_t)sid;
		w->set_wt[sid]++;
		return 0;
	}
	key = (uint32_t)(sid - 1) * w->stride + q;
	if (!w->eidx[key] && add_elem(w, key, sid - 1u, q) < 0)
		return -ENOMEM;
	w->el[w->eidx[key] - 1].weight++;
	w->lid_el[l] = w->eidx[key];
	return 0;
}

/* Walks the LIDs by destination switch: counts the multi-path pairs and
 * hands those the table can hold to take_lid(). */
static int scan_lids(const struct pg_job *j, uint32_t s, struct sw_work *w,
		     struct pgroup_sw *out, uint64_t *mismatch)
{
	const struct ib_node *sw = j->f->switches[s];
	const uint16_t *row = j->setid + (size_t)s * j->n;

	for (uint32_t d = 0; d < j->n; d++) {
		const struct pg_set *set;
		if (d == s || !row[d])
			continue;
		set = &j->in[s].sets[row[d] - 1];
		for (uint32_t i = j->lid_start[d]; i < j->lid_start[d + 1]; i++) {
			uint32_t l = j->lids[i];
			uint8_t q = l < sw->lft_size ? sw->lft[l] : LFT_NO_PORT;
			if (q == LFT_NO_PORT || q > sw->nports)
				continue;
			if (!pg_has(set, q)) {
				(*mismatch)++;
				continue;
			}
			out->multi++;
			if (l < w->ft_lim && take_lid(w, out, l, row[d], q) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

struct gsort {
	uint64_t weight;
	uint32_t idx;
	const struct pg_set *g;
};

static int cmp_group(const void *a, const void *b)
{
	const struct gsort *x = a, *y = b;

	if (x->weight != y->weight)
		return x->weight > y->weight ? -1 : 1;
	for (int k = PG_WORDS - 1; k >= 0; k--)
		if (x->g->m[k] != y->g->m[k])
			return x->g->m[k] < y->g->m[k] ? -1 : 1;
	return 0;
}

/* Ids by DLID count (then mask): id[g] for each of the ng groups (0 =
 * unused, dropped), out->groups filled in id order. */
static int number_groups(const struct pg_set *g, const uint64_t *weight,
			 uint32_t ng, uint32_t *id, struct pgroup_sw *out)
{
	struct gsort *gs = calloc((size_t)ng + 1, sizeof(*gs));

	out->groups = calloc((size_t)ng + 1, sizeof(*out->groups));
	if (!gs || !out->groups) {
		free(gs);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < ng; i++)
		gs[i] = (struct gsort){ weight[i], i, &g[i] };
	qsort(gs, ng, sizeof(*gs), cmp_group);
	for (uint32_t i = 0; i < ng; i++)
		id[i] = 0;
	for (uint32_t i = 0; i < ng && gs[i].weight; i++) {
		out->groups[i] = *gs[i].g;
		id[gs[i].idx] = i + 1;
		out->n_groups = (uint16_t)(i + 1);
		out->covered += gs[i].weight;
	}
	free(gs);
	return 0;
}

/* Sets <= cap: every set is a group; ft holds set ids until renumbered. */
static int finish_fast(const struct pg_job *j, uint32_t s, struct sw_work *w,
		       struct pgroup_sw *out)
{
	uint32_t n = j->in[s].n, id[PG_MAX_GROUPS + 1];
	uint8_t map[256] = { 0 };

	if (number_groups(j->in[s].sets, w->set_wt + 1, n, id, out) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		map[i + 1] = (uint8_t)id[i];
	for (uint32_t l = 0; l < out->ft_size; l++)
		out->ft[l] = map[out->ft[l]];
	return 0;
}

static int finish_select(const struct pg_job *j, uint32_t s, unsigned cap,
			 struct sw_work *w, struct pgroup_sw *out)
{
	uint64_t wt[PG_MAX_GROUPS + 1] = { 0 };
	uint32_t id[PG_MAX_GROUPS + 1];
	int ng;

	w->choice = malloc(((size_t)w->n_el + 1) * sizeof(*w->choice));
	w->out = malloc((cap + 1) * sizeof(*w->out));
	if (!w->choice || !w->out)
		return -ENOMEM;
	ng = pgroup_select(j->in[s].sets, j->in[s].n, w->el, w->n_el, cap,
			   j->prm->whole_sets_only, w->out, w->choice);
	if (ng < 0)
		return ng;
	for (uint32_t e = 0; e < w->n_el; e++)
		if (w->choice[e] >= 0)
			wt[w->choice[e]] += w->el[e].weight;
	if (number_groups(w->out, wt, (uint32_t)ng, id, out) < 0)
		return -ENOMEM;
	for (uint32_t l = 0; l < out->ft_size; l++) {
		uint32_t e = w->lid_el[l];
		if (e && w->choice[e - 1] >= 0)
			out->ft[l] = (uint8_t)id[w->choice[e - 1]];
	}
	return 0;
}

static unsigned switch_cap(const struct pg_job *j, uint32_t s)
{
	unsigned cap = j->prm->sw_cap ? j->prm->sw_cap[s] : j->prm->cap;

	return cap > PG_MAX_GROUPS ? PG_MAX_GROUPS : cap;
}

static int build_switch(const struct pg_job *j, uint32_t s, uint64_t *mism)
{
	struct pgroup_sw *out = &j->t->sw[s];
	const struct intern *in = &j->in[s];
	unsigned cap = switch_cap(j, s);
	struct sw_work w = { .stride = j->f->switches[s]->nports + 1u,
			     .ft_lim = (uint32_t)j->f->max_lid + 1 };
	int rc = -ENOMEM;

	if (!cap)
		return 0;
	out->enabled = true;
	out->n_sets = in->n;
	if (j->prm->sw_fdb && j->prm->sw_fdb[s] && j->prm->sw_fdb[s] < w.ft_lim)
		w.ft_lim = j->prm->sw_fdb[s];
	w.fast = in->n <= cap;
	out->ft = calloc(w.ft_lim + 1, 1);
	out->ft_size = w.ft_lim;
	if (w.fast) {
		w.set_wt = calloc(in->n + 2, sizeof(*w.set_wt));
	} else {
		w.eidx = calloc((size_t)in->n * w.stride + 1, sizeof(*w.eidx));
		w.lid_el = calloc(w.ft_lim + 1, sizeof(*w.lid_el));
	}
	if (!out->ft || (w.fast ? !w.set_wt : !w.eidx || !w.lid_el))
		goto out;
	if (scan_lids(j, s, &w, out, mism) < 0)
		goto out;
	rc = w.fast ? finish_fast(j, s, &w, out)
		    : finish_select(j, s, cap, &w, out);
out:
	free(w.el);
	free(w.eidx);
	free(w.lid_el);
	free(w.choice);
	free(w.out);
	free(w.set_wt);
	return rc;
}

struct build_ctx {
	struct pg_job *j;
	uint64_t *mismatch; /* [n] */
	int *err;	    /* [n] */
};

static void build_one(void *arg, size_t s, unsigned worker)
{
	struct build_ctx *b = arg;

	(void)worker;
	b->err[s] = build_switch(b->j, (uint32_t)s, &b->mismatch[s]);
	free(b->j->in[s].slot);
	b->j->in[s].slot = NULL;
}

/* Destination LIDs grouped by the switch that delivers them. */
static int index_lids(struct pg_job *j)
{
	const struct fabric *f = j->f;
	uint32_t *fill = calloc(j->n + 1, sizeof(*fill));
	int32_t *dsw = malloc(((size_t)f->max_lid + 1) * sizeof(*dsw));
	int rc = -ENOMEM;

	j->lid_start = calloc(j->n + 2, sizeof(*j->lid_start));
	j->lids = malloc(((size_t)f->max_lid + 1) * sizeof(*j->lids));
	if (!fill || !dsw || !j->lid_start || !j->lids)
		goto out;
	for (uint32_t l = 0; l <= f->max_lid; l++) {
		struct ib_port *p = l ? fabric_port_by_lid(f, (uint16_t)l) : NULL;
		dsw[l] = -1;
		if (p && node_is_switch(p->node))
			dsw[l] = p->node->sw_idx;
		else if (p && p->remote && node_is_switch(p->remote->node))
			dsw[l] = p->remote->node->sw_idx;
		if (dsw[l] >= 0)
			j->lid_start[dsw[l] + 1]++;
	}
	for (uint32_t s = 0; s < j->n; s++)
		j->lid_start[s + 1] += j->lid_start[s];
	for (uint32_t l = 0; l <= f->max_lid; l++)
		if (dsw[l] >= 0)
			j->lids[j->lid_start[dsw[l]] + fill[dsw[l]]++] = l;
	rc = 0;
out:
	free(fill);
	free(dsw);
	return rc;
}

static int candidate_sets(struct pg_job *j)
{
	unsigned nw = pool_threads(j->pool);

	if (j->prm->order)
		return updown_candidates(j->f, &j->g, j->pool, j->prm->order,
					 j->prm->rank, updown_batch, j);
	j->wmask = malloc(((size_t)nw * j->n + 1) * sizeof(*j->wmask));
	if (!j->wmask)
		return -ENOMEM;
	pool_for(j->pool, j->n, minhop_sets, j);
	return 0;
}

static void sum_up(struct pgroup_table *t, const uint64_t *mismatch)
{
	uint64_t sets = 0, en = 0;

	for (uint32_t s = 0; s < t->n; s++) {
		const struct pgroup_sw *w = &t->sw[s];
		t->mismatch += mismatch[s];
		if (!w->enabled)
			continue;
		en++;
		sets += w->n_sets;
		t->multi += w->multi;
		t->covered += w->covered;
		t->groups += w->n_groups;
		t->max_groups = w->n_groups > t->max_groups ? w->n_groups
							    : t->max_groups;
		t->max_sets = w->n_sets > t->max_sets ? w->n_sets : t->max_sets;
	}
	t->sets_avg = en ? (double)sets / (double)en : 0.0;
}

static int run_builds(struct pg_job *j)
{
	struct build_ctx b = { .j = j };
	int rc = -ENOMEM;

	b.mismatch = calloc(j->n + 1, sizeof(*b.mismatch));
	b.err = calloc(j->n + 1, sizeof(*b.err));
	if (!b.mismatch || !b.err)
		goto out;
	for (uint32_t s = 0; s < j->n; s++)
		if (j->in[s].err)
			goto out;
	pool_for(j->pool, j->n, build_one, &b);
	for (uint32_t s = 0; s < j->n; s++)
		if (b.err[s])
			goto out;
	sum_up(j->t, b.mismatch);
	rc = 0;
out:
	free(b.mismatch);
	free(b.err);
	return rc;
}

int pgroup_compute(const struct fabric *f, const struct hops *h,
		   struct pool *pool, const struct pgroup_params *prm,
		   struct pgroup_table *t)
{
	struct pg_job j = { .f = f, .h = h, .prm = prm, .t = t, .pool = pool,
			    .n = f->n_switches };
	int rc = -ENOMEM;

	memset(t, 0, sizeof(*t));
	if (!h || h->n != f->n_switches)
		return -EINVAL;
	t->n = j.n;
	t->sw = calloc(j.n + 1, sizeof(*t->sw));
	j.setid = calloc((size_t)j.n * j.n + 1, sizeof(*j.setid));
	j.in = calloc(j.n + 1, sizeof(*j.in));
	if (!t->sw || !j.setid || !j.in || index_lids(&j) < 0 ||
	    sw_graph_build(f, &j.g) < 0 || candidate_sets(&j) < 0)
		goto out;
	rc = run_builds(&j);
out:
	for (uint32_t s = 0; j.in && s < j.n; s++) {
		free(j.in[s].sets);
		free(j.in[s].slot);
	}
	free(j.in);
	free(j.setid);
	free(j.lid_start);
	free(j.lids);
	free(j.wmask);
	sw_graph_free(&j.g);
	if (rc < 0)
		pgroup_free(t);
	return rc;
}

void pgroup_free(struct pgroup_table *t)
{
	for (uint32_t s = 0; t->sw && s < t->n; s++) {
		free(t->sw[s].groups);
		free(t->sw[s].ft);
	}
	free(t->sw);
	memset(t, 0, sizeof(*t));
}

double pgroup_coverage(const struct pgroup_table *t)
{
	return t->multi ? (double)t->covered / (double)t->multi : 1.0;
}

const struct pg_set *pgroup_of(const struct pgroup_table *t, uint32_t s,
			       uint16_t lid)
{
	const struct pgroup_sw *w = s < t->n ? &t->sw[s] : NULL;

	if (!w || !w->ft || lid >= w->ft_size || !w->ft[lid])
		return NULL;
	return &w->groups[w->ft[lid] - 1];
}
