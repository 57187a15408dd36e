/* minhop unicast engine: every switch sends every destination LID out of a
 * min-hop port, choosing among the min-hop ports the least loaded one.
 *
 * Load is counted per switch, so switches are routed in parallel with no
 * shared counters.  The key for a candidate port p is, lowest first:
 *   1. routes already sent out of p (one directed link: parallel links
 *      between two switches are different links and are balanced apart);
 *   2. routes already sent to p's neighbour switch over all parallel links,
 *      so that equal ports spread over different neighbours first;
 *   3. the port number, for determinism.
 * Every LID counts, including switch (port 0) LIDs and each LID of an LMC
 * range.  Destinations are taken grouped by their switch (the switch's own
 * LID, then the base LIDs of the CA ports on it in port order, then with
 * LMC the second LIDs, ...), switches in LID order: consecutive hosts of
 * one leaf then fan out over all up links, which is what balances a fat
 * tree.  A LID beyond the base of an LMC range takes the candidate
 * offset places after its base LID's (ucast_lmc_pick()), so the LIDs of
 * a host take different links wherever there are that many and every
 * offset is spread as the base LIDs are (taken in rounds, a leaf with as
 * many hosts as up links gave every LID of a host the same link). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"

/* Destination LIDs grouped by the switch that delivers them: dlid[] holds,
 * for switch t, entries first[t]..first[t+1]-1; port[] is the port of t
 * that reaches the LID (0 for t's own LID). */
struct dest_table {
	uint32_t *order; /* switch indexes by LID (then GUID) */
	uint32_t *first;
	uint16_t *dlid;
	uint8_t *port;
	uint8_t *off; /* the LID's offset in its port's LMC range */
	uint32_t n;
};

struct mh_job {
	struct fabric *f;
	const struct hops *h;
	const struct dest_table *dt;
	uint8_t (*scratch)[256]; /* per worker: candidate port list */
	bool keep;		 /* keep the entries still on a min-hop port */
};

static int dest_count(const struct fabric *f, uint32_t *n)
{
	*n = 0;
	for (uint32_t s = 0; s < f->n_switches; s++)
		*n += !!f->switches[s]->ports[0].lid +
		      ucast_host_lids(f->switches[s], NULL, NULL);
	return 0;
}

static int cmp_sw(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	const struct ib_node *x = f->switches[*(const uint32_t *)a];
	const struct ib_node *y = f->switches[*(const uint32_t *)b];

	if (x->ports[0].lid != y->ports[0].lid)
		return x->ports[0].lid < y->ports[0].lid ? -1 : 1;
	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* Destination switches are taken in LID order, not in the order nodes
 * happen to sit in the fabric model, so that the daemon (nodes in
 * discovery order) and ibsmroute (nodes in file order) compute the same
 * tables: LIDs come from the same BFS in both. */
static void dest_order(const struct fabric *f, struct dest_table *dt)
{
	for (uint32_t s = 0; s < f->n_switches; s++)
		dt->order[s] = s;
	qsort_r(dt->order, f->n_switches, sizeof(*dt->order), cmp_sw,
		(void *)f);
}

static void dest_free(struct dest_table *dt)
{
	free(dt->order);
	free(dt->first);
	free(dt->dlid);
	free(dt->port);
	free(dt->off);
}

static void add_dest(void *ctx, struct ib_port *host, uint8_t port,
		     uint8_t off)
{
	struct dest_table *dt = ctx;

	dt->dlid[dt->n] = (uint16_t)(host->lid + off);
	dt->off[dt->n] = off;
	dt->port[dt->n++] = port;
}

static int dest_build(const struct fabric *f, struct dest_table *dt)
{
	uint32_t n, k = 0;

	dest_count(f, &n);
	dt->first = malloc((f->n_switches + 1) * sizeof(*dt->first));
	dt->order = malloc((f->n_switches + 1) * sizeof(*dt->order));
	dt->dlid = malloc((n + 1) * sizeof(*dt->dlid));
	dt->port = malloc(n + 1);
	dt->off = malloc(n + 1);
	if (!dt->first || !dt->dlid || !dt->port || !dt->order || !dt->off)
		return -ENOMEM;
	dest_order(f, dt);
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		dt->first[s] = k;
		if (sw->ports[0].lid) {
			dt->dlid[k] = sw->ports[0].lid;
			dt->off[k] = 0;
			dt->port[k++] = 0;
		}
		dt->n = k;
		k += ucast_host_lids(sw, add_dest, dt);
	}
	dt->first[f->n_switches] = k;
	dt->n = k;
	return 0;
}

/* Per-switch state while routing it. */
struct sw_load {
	uint32_t port[256];	 /* routes per output port */
	uint32_t nb[256];	 /* routes per neighbour slot */
	uint8_t slot[256];	 /* port -> neighbour slot */
	uint8_t slot_ports[256]; /* ports per neighbour slot */
	uint32_t peer[256]; /* port -> neighbour switch index, or UINT32_MAX */
	/* The switch-to-switch ports in increasing order, with the hop row
	 * of the neighbour behind each, for the candidate scan. */
	uint8_t swport[256];
	const uint8_t *row[256];
	unsigned nsw;
	bool parallel; /* some neighbour has several links */
};

static void load_init(const struct ib_node *sw, const struct hops *h,
		      struct sw_load *ld)
{
	uint32_t nbidx[256];
	unsigned nslots = 0;

	memset(ld->port, 0, sizeof(ld->port));
	memset(ld->nb, 0, sizeof(ld->nb));
	memset(ld->slot_ports, 0, sizeof(ld->slot_ports));
	/* Each neighbour switch gets one slot shared by its parallel links;
	 * every other port (CA, unlinked) a slot of its own. */
	for (unsigned p = 1; p <= sw->nports; p++) {
		struct ib_port *r = sw->ports[p].remote;
		unsigned k = 0;
		ld->peer[p] = UINT32_MAX;
		if (r && node_is_switch(r->node)) {
			ld->peer[p] = (uint32_t)r->node->sw_idx;
			while (k < nslots && nbidx[k] != ld->peer[p])
				k++;
		} else {
			k = nslots;
		}
		if (k == nslots)
			nbidx[nslots++] = ld->peer[p];
		ld->slot[p] = (uint8_t)k;
		ld->slot_ports[k]++;
	}
	ld->nsw = 0;
	ld->parallel = false;
	for (unsigned p = 1; p <= sw->nports; p++) {
		if (ld->peer[p] == UINT32_MAX)
			continue;
		ld->swport[ld->nsw] = (uint8_t)p;
		ld->row[ld->nsw++] = h->d + (size_t)ld->peer[p] * h->n;
		ld->parallel |= ld->slot_ports[ld->slot[p]] > 1;
	}
}

static uint64_t key(const struct sw_load *ld, uint8_t p)
{
	return (uint64_t)ld->port[p] << 40 |
	       (uint64_t)ld->nb[ld->slot[p]] << 8 | p;
}

static void take(struct sw_load *ld, uint8_t p)
{
	ld->port[p]++;
	ld->nb[ld->slot[p]]++;
}

/* The common case, every candidate the only link to its neighbour: then
 * the neighbour count equals the port count and the key is (load, port).
 * Taking the least key repeatedly is then filling levels: at load L, the
 * candidates still at L in port order, then L + 1, and so on, which costs
 * n per level instead of n per LID.  c is in increasing port order. */
static void assign_levels(struct ib_node *sw, struct sw_load *ld,
			  const uint8_t *c, unsigned n, const uint16_t *dlid,
			  uint32_t a, uint32_t b)
{
	uint32_t lvl = UINT32_MAX;

	for (unsigned i = 0; i < n; i++)
		if (ld->port[c[i]] < lvl)
			lvl = ld->port[c[i]];
	for (uint32_t e = a; e < b; lvl++)
		for (unsigned i = 0; i < n && e < b; i++)
			if (ld->port[c[i]] == lvl) {
				sw->lft[dlid[e++]] = c[i];
				take(ld, c[i]);
			}
}

/* Routes the LIDs dlid[a..b) over the n candidate ports c, least loaded
 * first (see the file comment).  The keys live in a small contiguous
 * array so the choice is a tight scan; taking a port raises its own key
 * and, through the neighbour count, those of its parallel siblings. */
static void assign(struct ib_node *sw, struct sw_load *ld, const uint8_t *c,
		   unsigned n, const uint16_t *dlid, uint32_t a, uint32_t b)
{
	uint64_t ck[256];
	bool parallel = false;

	for (unsigned i = 0; ld->parallel && i < n; i++)
		parallel |= ld->slot_ports[ld->slot[c[i]]] > 1;
	if (!parallel) {
		assign_levels(sw, ld, c, n, dlid, a, b);
		return;
	}
	for (unsigned i = 0; i < n; i++)
		ck[i] = key(ld, c[i]);
	for (uint32_t e = a; e < b; e++) {
		unsigned bi = 0;
		uint64_t bk = ck[0];
		for (unsigned i = 1; i < n; i++)
			if (ck[i] < bk) {
				bk = ck[i];
				bi = i;
			}
		uint8_t p = c[bi];
		sw->lft[dlid[e]] = p;
		take(ld, p);
		ck[bi] += (1ULL << 40) + (1ULL << 8);
		if (ld->slot_ports[ld->slot[p]] > 1)
			for (unsigned i = 0; i < n; i++)
				if (i != bi && ld->slot[c[i]] == ld->slot[p])
					ck[i] += 1ULL << 8;
	}
}

struct lmc_ctx {
	const struct ib_node *sw;
	const uint8_t *c;
	uint16_t dlid;
	uint8_t off;
};

/* Candidate i already taken by a lower LID of dlid's port. */
static bool lmc_taken(void *arg, unsigned i)
{
	const struct lmc_ctx *x = arg;

	for (unsigned o = 1; o <= x->off; o++)
		if (x->sw->lft[x->dlid - o] == x->c[i])
			return true;
	return false;
}

/* The least loaded candidate none of the port's lower LIDs leaves by
 * (the least loaded if every one is taken). */
static unsigned least_free(const struct sw_load *ld, const uint8_t *c,
			   unsigned n, struct lmc_ctx *x)
{
	uint64_t best = UINT64_MAX;
	unsigned bi = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t k = key(ld, c[i]) | (uint64_t)lmc_taken(x, i) << 63;
		if (k < best) {
			best = k;
			bi = i;
		}
	}
	return bi;
}

/* The LID dlid, offset off > 0 in its port's LMC range: the candidate
 * ucast_lmc_pick() turns the base LID's by, so every offset is spread
 * as the base LIDs are; if the base LID left by none of them,
 * least_free(). */
static void assign_lmc(struct ib_node *sw, struct sw_load *ld, const uint8_t *c,
		       unsigned n, uint16_t dlid, uint8_t off)
{
	struct lmc_ctx x = {sw, c, dlid, off};
	unsigned i = 0;

	while (i < n && c[i] != sw->lft[dlid - off])
		i++;
	i = i < n ? ucast_lmc_pick(n, i, off, lmc_taken, &x)
		  : least_free(ld, c, n, &x);
	sw->lft[dlid] = c[i];
	take(ld, c[i]);
}

/* dlid[a..b), offsets off[a..b) (nondecreasing): the base LIDs (offset
 * 0) fan out as assign() spreads them, the others one by one. */
static void assign_range(struct ib_node *sw, struct sw_load *ld,
			 const uint8_t *c, unsigned n, const uint16_t *dlid,
			 const uint8_t *off, uint32_t a, uint32_t b)
{
	uint32_t m = a;

	while (m < b && !off[m])
		m++;
	assign(sw, ld, c, n, dlid, a, m);
	for (; m < b; m++)
		assign_lmc(sw, ld, c, n, dlid[m], off[m]);
}

/* Ports of sw whose neighbour switch is one hop closer to switch t. */
static unsigned candidates(const struct sw_load *ld, uint32_t t, uint8_t d,
			   uint8_t *c)
{
	unsigned n = 0;

	for (unsigned k = 0; k < ld->nsw; k++)
		if (ld->row[k][t] + 1 == d)
			c[n++] = ld->swport[k];
	return n;
}

static bool among(const uint8_t *c, unsigned n, uint8_t p)
{
	for (unsigned i = 0; i < n; i++)
		if (c[i] == p)
			return true;
	return false;
}

/* Keeping routes: the entries whose old port is still a min-hop port stay
 * (and count as load), then the others are assigned among the min-hop
 * ports, least loaded first, destination switches in the usual order. */
static bool route_switch_keep(struct mh_job *j, size_t s, uint8_t *c)
{
	struct ib_node *sw = j->f->switches[s];
	const struct dest_table *dt = j->dt;
	uint8_t *old = malloc(sw->lft_size);
	uint16_t *rest = malloc((dt->n ? dt->n : 1) * sizeof(*rest));
	uint8_t *roff = malloc(dt->n ? dt->n : 1);
	struct sw_load ld;

	if (!old || !rest || !roff) { /* out of memory: route afresh */
		free(old);
		free(rest);
		free(roff);
		return false;
	}
	memcpy(old, sw->lft, sw->lft_size);
	load_init(sw, j->h, &ld);
	memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	for (int pass = 0; pass < 2; pass++)
		for (uint32_t i = 0; i < j->f->n_switches; i++) {
			uint32_t t = dt->order[i], a = dt->first[t],
				 b = dt->first[t + 1], m = 0;
			uint8_t d = hops_sw(j->h, (uint32_t)s, t);
			unsigned n;

			if (a == b || d == HOPS_INF)
				continue;
			if (t == s) {
				for (uint32_t e = a; pass == 0 && e < b; e++) {
					sw->lft[dt->dlid[e]] = dt->port[e];
					if (dt->port[e])
						take(&ld, dt->port[e]);
				}
				continue;
			}
			n = candidates(&ld, t, d, c);
			for (uint32_t e = a; e < b; e++) {
				uint8_t p = old[dt->dlid[e]];
				if (pass == 0 && among(c, n, p)) {
					sw->lft[dt->dlid[e]] = p;
					take(&ld, p);
				} else if (pass == 1 &&
					   sw->lft[dt->dlid[e]] == LFT_NO_PORT) {
					roff[m] = dt->off[e];
					rest[m++] = dt->dlid[e];
				}
			}
			if (n && m)
				assign_range(sw, &ld, c, n, rest, roff, 0, m);
		}
	free(old);
	free(rest);
	free(roff);
	return true;
}

static void route_switch(void *arg, size_t s, unsigned worker)
{
	struct mh_job *j = arg;
	struct ib_node *sw = j->f->switches[s];
	const struct dest_table *dt = j->dt;
	uint8_t *c = j->scratch[worker];
	struct sw_load ld;

	if (j->keep && sw->lft && sw->lft_size > j->f->max_lid &&
	    route_switch_keep(j, s, c))
		return;
	load_init(sw, j->h, &ld);
	memset(sw->lft, LFT_NO_PORT, sw->lft_size);
	for (uint32_t i = 0; i < j->f->n_switches; i++) {
		uint32_t t = dt->order[i], a = dt->first[t],
			 b = dt->first[t + 1];
		uint8_t d = hops_sw(j->h, (uint32_t)s, t);
		unsigned n;
		if (a == b || d == HOPS_INF)
			continue;
		if (t == s) {
			for (uint32_t e = a; e < b; e++) {
				sw->lft[dt->dlid[e]] = dt->port[e];
				if (dt->port[e])
					take(&ld, dt->port[e]);
			}
			continue;
		}
		n = candidates(&ld, t, d, c);
		if (n) /* 0 cannot happen with a consistent table */
			assign_range(sw, &ld, c, n, dt->dlid, dt->off, a, b);
	}
}

static int fill(struct fabric *f, const struct hops *h, struct pool *pool,
		char *err, size_t errlen, bool keep)
{
	struct dest_table dt = {0};
	struct mh_job j = {.f = f, .h = h, .dt = &dt, .keep = keep};
	int rc;

	if (h->n != f->n_switches) {
		snprintf(err, errlen,
			 "hop table is for %u switches, fabric has %u", h->n,
			 f->n_switches);
		return -EINVAL;
	}
	rc = dest_build(f, &dt);
	if (rc == 0) {
		j.scratch = calloc(pool_threads(pool), sizeof(*j.scratch));
		if (!j.scratch)
			rc = -ENOMEM;
	}
	for (uint32_t s = 0; rc == 0 && s < f->n_switches; s++)
		rc = node_lft_reserve(f->switches[s], f->max_lid);
	if (rc == 0)
		pool_for(pool, f->n_switches, route_switch, &j);
	else
		snprintf(err, errlen,
			 "out of memory for LFTs (%u switches, "
			 "max LID %u)",
			 f->n_switches, f->max_lid);
	free(j.scratch);
	dest_free(&dt);
	return rc;
}

int minhop_fill_lfts(struct fabric *f, const struct hops *h, struct pool *pool,
		     char *err, size_t errlen)
{
	return fill(f, h, pool, err, errlen, false);
}

static int minhop_route(struct fabric *f, const struct hops *h,
			struct pool *pool, const struct ucast_params *prm,
			struct ucast_result *res)
{
	int rc = fill(f, h, pool, res->error, sizeof(res->error),
		      prm && prm->keep_lft);

	return rc < 0 ? rc : ucast_verify(f, h, pool, "minhop", res);
}

const struct ucast_engine ucast_minhop = {.name = "minhop",
					  .route = minhop_route};
