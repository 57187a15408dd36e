/* Port-group programming inside a heavy sweep: see program.h and pgprog.h.  Per
 * switch GUID the daemon remembers whether the switch implements port groups
 * (asked once, one try, while discovery still runs: pgprog_probe is
 * called as each switch's SwitchInfo arrives, so a switch without them
 * costs one SMP and no wait in CONFIGURE, and the sweep logs one line for
 * all of them) and what was last programmed there, so that a resweep
 * sends only the blocks that changed: none on an unchanged fabric.  A
 * transfer that fails makes the switch's content unknown, so the next
 * sweep sends it whole. */
#include "daemon/program/pgprog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/program/program.h"
#include "lib/log.h"
#include "lib/namelist.h"
#include "mad/bulk.h"
#include "mad/smp_pgroup.h"

enum pg_support { PG_UNKNOWN, PG_YES, PG_NO };

struct pg_swstate {
	uint64_t guid;
	enum pg_support support;
	bool probing; /* a PortGroupInfo Get is out */
	uint8_t cap;
	uint16_t fdb_cap;
	bool known;		     /* groups/ft/info are on the switch */
	struct smp_pgroup_info info; /* as programmed */
	struct pg_set *groups;	     /* [256] by group id, as programmed;
					only on switches with port groups */
	uint8_t *ft;		     /* [fdb_cap] */
	uint32_t ft_used;	     /* entries the last table covered */
};

struct pgprog {
	struct pg_swstate **sw; /* sorted by GUID */
	uint32_t n, cap;
	uint32_t *order, *rank; /* updown, for the model being swept */
	unsigned probing, xfers;
	struct prog_pass *waiting;   /* pgprog_start waits for the probes */
	struct namelist without_new; /* found without groups, not logged */
	int64_t start_us;
	int64_t probe_wait_us; /* what CONFIGURE waited for probes */
	uint64_t tbl_blocks, ft_blocks;
	uint32_t info_sets, programmed, without, failed;
	double coverage;
	bool layered_said; /* the notice that layered routing has none */
};

/* One switch's transfers: table blocks, then forwarding blocks, then
 * PortGroupInfo. */
struct pg_req {
	struct prog_pass *s;
	struct pgprog *pg;
	struct pg_swstate *st;
	const struct ib_node *sw;
	uint32_t *tblocks, nt, *fblocks, nf;
	struct smp_pgroup_info want;
	bool send_info;
	int stage;
};

static int cmp_state(const void *a, const void *b)
{
	uint64_t x = (*(struct pg_swstate *const *)a)->guid;
	uint64_t y = (*(struct pg_swstate *const *)b)->guid;

	return x < y ? -1 : x > y;
}

static struct pg_swstate *state_find(struct pgprog *pg, uint64_t guid)
{
	struct pg_swstate key = {.guid = guid}, *kp = &key, **r;

	r = pg->n ? bsearch(&kp, pg->sw, pg->n, sizeof(*pg->sw), cmp_state)
		  : NULL;
	return r ? *r : NULL;
}

static struct pg_swstate *state_get(struct pgprog *pg, uint64_t guid)
{
	struct pg_swstate *st = state_find(pg, guid);

	if (st)
		return st;
	if (pg->n == pg->cap) {
		uint32_t cap = pg->cap ? pg->cap * 2 : 64;
		struct pg_swstate **v = realloc(pg->sw, cap * sizeof(*v));
		if (!v)
			return NULL;
		pg->sw = v;
		pg->cap = cap;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->guid = guid;
	/* sorted insert: a qsort per new switch was quadratic */
	uint32_t lo = 0, hi = pg->n;
	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		if (pg->sw[mid]->guid < guid)
			lo = mid + 1;
		else
			hi = mid;
	}
	memmove(pg->sw + lo + 1, pg->sw + lo, (pg->n - lo) * sizeof(*pg->sw));
	pg->sw[lo] = st;
	pg->n++;
	return st;
}

void pgprog_routed(struct sm *sm, struct ucast_result *res)
{
	struct pgprog *pg = sm->pg;

	if (!pg && !(pg = sm->pg = calloc(1, sizeof(*pg))))
		return;
	free(pg->order);
	free(pg->rank);
	pg->order = res->updown_order;
	pg->rank = res->updown_rank;
	res->updown_order = res->updown_rank = NULL;
}

void pgprog_destroy(struct sm *sm)
{
	struct pgprog *pg = sm->pg;

	if (!pg)
		return;
	for (uint32_t i = 0; i < pg->n; i++) {
		free(pg->sw[i]->ft);
		free(pg->sw[i]->groups);
		free(pg->sw[i]);
	}
	free(pg->sw);
	free(pg->order);
	free(pg->rank);
	free(pg);
	sm->pg = NULL;
}

static void program_all(struct prog_pass *s);

/* ---- PortGroupInfo probe ---- */

/* What a probe needs outlives the model it was sent for (a sweep that
 * fails frees it): the GUID and the name, copied. */
struct probe {
	struct pgprog *pg;
	struct pg_swstate *st;
	uint64_t guid;
	char desc[IB_DESC_LEN + 1];
};

static void no_groups(struct pgprog *pg, struct pg_swstate *st,
		      const char *desc)
{
	st->support = PG_NO;
	namelist_add(&pg->without_new, desc);
}

static void probe_answer(struct probe *p, int status,
			 const struct txn_result *r)
{
	struct smp_pgroup_info pi;

	if (status == 0 && r->data &&
	    smp_pgroup_info_decode(&pi, r->data, SMP_DATA_SIZE) == 0 &&
	    pi.cap && pi.fdb_cap) {
		p->st->support = PG_YES;
		p->st->cap = pi.cap;
		p->st->fdb_cap = pi.fdb_cap;
		log_info("port groups: switch %s (0x%016" PRIx64 ") supports "
			 "%u groups for %u LIDs",
			 p->desc, p->guid, pi.cap, pi.fdb_cap);
	} else {
		/* an error status, no answer, or caps of 0: the sweep's
		 * summary names it with the others */
		no_groups(p->pg, p->st, p->desc);
	}
}

static void on_probe(void *ctx, int status, const struct txn_result *r)
{
	struct probe *p = ctx;
	struct pgprog *pg = p->pg;
	struct prog_pass *s = pg->waiting;

	p->st->probing = false;
	if (status != -ECANCELED)
		probe_answer(p, status, r);
	free(p);
	if (--pg->probing || !s)
		return;
	pg->waiting = NULL; /* CONFIGURE waited for the last probe */
	pg->probe_wait_us = txn_now_us() - pg->start_us;
	program_all(s);
	prog_release(s);
}

static int probe(struct sm *sm, struct pg_swstate *st, const struct ib_node *sw)
{
	struct probe *p = calloc(1, sizeof(*p));
	struct txn_smp_req r = {.dr = true,
				.path = sw->dr_path,
				.hops = sw->dr_hops,
				.dest = sw->guid,
				.method = MAD_METHOD_GET,
				.attr_id = SMP_ATTR_PGROUP_INFO,
				.retries = 0,
				.optional = true};
	int rc;

	if (!p)
		return -ENOMEM;
	*p = (struct probe){.pg = sm->pg, .st = st, .guid = sw->guid};
	snprintf(p->desc, sizeof(p->desc), "%s", sw->desc);
	rc = txn_submit(sm->txn, &r, on_probe, p);
	if (rc < 0) {
		free(p);
		return rc;
	}
	st->probing = true;
	sm->pg->probing++;
	return 0;
}

static struct pgprog *pg_get(struct sm *sm)
{
	if (!sm->pg)
		sm->pg = calloc(1, sizeof(*sm->pg));
	return sm->pg;
}

void pgprog_probe(struct sm *sm, const struct ib_node *sw)
{
	struct pgprog *pg;
	struct pg_swstate *st;

	if (!sm->cfg.routing_port_groups_enable || !sm->txn ||
	    !(pg = pg_get(sm)) || !(st = state_get(pg, sw->guid)) ||
	    st->support != PG_UNKNOWN || st->probing)
		return;
	if (probe(sm, st, sw) < 0) /* pgprog_start asks it again */
		log_debug("port groups: cannot probe %s yet", sw->desc);
}

/* ---- programming ---- */

static void log_summary(struct prog_pass *s)
{
	struct pgprog *pg = s->sm->pg;
	char names[200];

	if (pg->without_new.n) {
		log_notice(
		    "port groups: %u switches answer PortGroupInfo with "
		    "an error, not at all, or caps of 0: %s; they get "
		    "no port groups and are not asked again",
		    pg->without_new.n,
		    namelist_str(&pg->without_new, names, sizeof(names)));
		namelist_clear(&pg->without_new);
	}
	log_notice("port groups: %u switches programmed, %" PRIu64
		   " table and %" PRIu64 " forwarding blocks, %u info Sets, "
		   "%u switches without port groups, %u failed, coverage "
		   "%.1f%%, %.1f ms (%.1f ms of it waiting for probes)",
		   pg->programmed, pg->tbl_blocks, pg->ft_blocks, pg->info_sets,
		   pg->without, pg->failed, 100.0 * pg->coverage,
		   (txn_now_us() - pg->start_us) / 1000.0,
		   pg->probe_wait_us / 1000.0);
}

static void req_free(struct pg_req *q)
{
	free(q->tblocks);
	free(q->fblocks);
	free(q);
}

static void req_failed(struct pg_req *q, const char *what, int status)
{
	q->st->known = false;
	q->pg->failed++;
	log_warn("port groups: %s to %s (0x%016" PRIx64 ") failed (%s); the "
		 "whole table is sent again at the next sweep",
		 what, q->sw->desc, q->sw->guid, strerror(-status));
}

static void req_next(struct pg_req *q);

static void req_end(struct pg_req *q)
{
	struct prog_pass *s = q->s;
	struct pgprog *pg = q->pg;

	req_free(q);
	if (--pg->xfers == 0 && !pg->probing)
		log_summary(s);
	prog_release(s);
}

static int fill_table(void *ctx, uint32_t item, uint32_t *attr_mod,
		      uint8_t data[SMP_DATA_SIZE])
{
	struct pg_req *q = ctx;

	*attr_mod = q->tblocks[item];
	pg_table_block_encode(q->st->groups, *attr_mod, data);
	return 0;
}

static int fill_ft(void *ctx, uint32_t item, uint32_t *attr_mod,
		   uint8_t data[SMP_DATA_SIZE])
{
	struct pg_req *q = ctx;
	uint32_t first = q->fblocks[item] * PGROUP_FT_BLOCK_SIZE;
	uint8_t ids[PGROUP_FT_BLOCK_SIZE] = {0};

	*attr_mod = q->fblocks[item];
	for (uint32_t i = 0;
	     i < PGROUP_FT_BLOCK_SIZE && first + i < q->st->fdb_cap; i++)
		ids[i] = q->st->ft[first + i];
	return smp_pgroup_ft_encode(ids, data, SMP_DATA_SIZE);
}

static void on_blocks(void *ctx, int status, const struct bulk_result *r)
{
	struct pg_req *q = ctx;

	if (status < 0) {
		req_failed(q,
			   q->stage == 1 ? "PortGroupTable blocks"
					 : "PortGroupForwardingTable blocks",
			   status);
		req_end(q);
		return;
	}
	req_next(q);
}

static void on_info_set(void *ctx, int status, const struct txn_result *r)
{
	struct pg_req *q = ctx;

	if (status < 0)
		req_failed(q, "PortGroupInfo Set", status);
	req_end(q);
}

static int start_blocks(struct pg_req *q, uint16_t attr, uint32_t n,
			bulk_fill_fn fill)
{
	struct bulk_req br = {.dr = true,
			      .path = q->sw->dr_path,
			      .hops = q->sw->dr_hops,
			      .dest = q->sw->guid,
			      .method = MAD_METHOD_SET,
			      .attr_id = attr,
			      .nitems = n,
			      .retries = q->s->sm->txnp.retries,
			      .fill = fill,
			      .done = on_blocks,
			      .ctx = q};

	return bulk_start(q->s->sm->txn, &br, NULL);
}

static int start_info(struct pg_req *q)
{
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct txn_smp_req r = {.dr = true,
				.path = q->sw->dr_path,
				.hops = q->sw->dr_hops,
				.dest = q->sw->guid,
				.method = MAD_METHOD_SET,
				.attr_id = SMP_ATTR_PGROUP_INFO,
				.data = data};

	smp_pgroup_info_encode(&q->want, data, sizeof(data));
	q->st->info = q->want;
	q->pg->info_sets++;
	return txn_submit(q->s->sm->txn, &r, on_info_set, q);
}

/* Table blocks, forwarding blocks, PortGroupInfo: each stage that has
 * something to send, in that order. */
static void req_next(struct pg_req *q)
{
	int rc = 0;

	for (;;) {
		switch (q->stage++) {
		case 0:
			if (!q->nt)
				continue;
			rc = start_blocks(q, SMP_ATTR_PGROUP_TABLE, q->nt,
					  fill_table);
			break;
		case 1:
			if (!q->nf)
				continue;
			rc =
			    start_blocks(q, SMP_ATTR_PGROUP_FT, q->nf, fill_ft);
			break;
		case 2:
			if (!q->send_info)
				continue;
			rc = start_info(q);
			break;
		default:
			req_end(q);
			return;
		}
		break;
	}
	if (rc < 0) {
		req_failed(q, "submitting port-group blocks", rc);
		req_end(q);
	}
}

/* The new tables of one switch into its state, the blocks that differ
 * into q.  0 or -ENOMEM. */
static int diff_switch(struct pg_req *q, const struct pgroup_sw *w)
{
	struct pg_swstate *st = q->st;
	struct pg_set *ng = calloc(256, sizeof(*ng));
	uint8_t *nft = calloc(st->fdb_cap + 1u, 1);
	uint32_t used = w->ft_size < st->fdb_cap ? w->ft_size : st->fdb_cap;
	uint32_t fmax = st->ft_used > used ? st->ft_used : used;

	q->tblocks = malloc(130 * sizeof(*q->tblocks));
	q->fblocks =
	    malloc((fmax / PGROUP_FT_BLOCK_SIZE + 2) * sizeof(*q->fblocks));
	if (!ng || !nft || !q->tblocks || !q->fblocks) {
		free(ng);
		free(nft);
		return -ENOMEM;
	}
	for (unsigned g = 0; g < w->n_groups; g++)
		ng[g + 1] = w->groups[g];
	memcpy(nft, w->ft, used);
	q->nt = pg_table_blocks(st->known ? st->groups : NULL, st->info.top, ng,
				w->n_groups, q->tblocks);
	q->nf = pg_ft_blocks(st->known && st->ft ? st->ft : NULL, st->ft_used,
			     nft, used, q->fblocks);
	free(st->groups);
	st->groups = ng; /* what the switch holds once the blocks are sent */
	free(st->ft);
	st->ft = nft;
	st->ft_used = used;
	return 0;
}

static void want_info(struct pg_req *q, const struct config *c,
		      const struct pgroup_sw *w)
{
	q->want = (struct smp_pgroup_info){
	    .cap = q->st->cap,
	    .fdb_cap = q->st->fdb_cap,
	    .top = (uint8_t)w->n_groups,
	    .enable = w->n_groups > 0,
	    .algorithm = (uint8_t)c->routing_port_groups_algorithm,
	    .threshold = (uint8_t)c->routing_port_groups_threshold,
	};
	q->send_info = !q->st->known || q->st->info.top != q->want.top ||
		       q->st->info.enable != q->want.enable ||
		       q->st->info.algorithm != q->want.algorithm ||
		       q->st->info.threshold != q->want.threshold;
}

static int program_switch(struct prog_pass *s, struct pg_swstate *st,
			  const struct ib_node *sw, const struct pgroup_sw *w)
{
	struct pg_req *q = calloc(1, sizeof(*q));
	struct pgprog *pg = s->sm->pg;

	if (!q)
		return -ENOMEM;
	*q = (struct pg_req){.s = s, .pg = pg, .st = st, .sw = sw};
	want_info(q, &s->sm->cfg, w);
	if (diff_switch(q, w) < 0) {
		req_free(q);
		return -ENOMEM;
	}
	pg->tbl_blocks += q->nt;
	pg->ft_blocks += q->nf;
	if (!q->nt && !q->nf && !q->send_info) {
		req_free(q);
		return 0;
	}
	st->known = true; /* a failure below makes it unknown again */
	pg->programmed++;
	pg->xfers++;
	prog_hold(s);
	req_next(q);
	return 0;
}

/* Per-switch caps for the computation: 0 where there are no groups. */
static int caps_for(struct sm *sm, const struct fabric *f, uint8_t **cap,
		    uint16_t **fdb, struct pg_swstate ***st)
{
	uint32_t cfg = sm->cfg.routing_port_groups_cap;

	*cap = calloc(f->n_switches + 1, 1);
	*fdb = calloc(f->n_switches + 1, sizeof(**fdb));
	*st = calloc(f->n_switches + 1, sizeof(**st));
	if (!*cap || !*fdb || !*st)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_switches; i++) {
		struct pg_swstate *x = state_find(sm->pg, f->switches[i]->guid);
		(*st)[i] = x;
		if (!x || x->support != PG_YES) {
			sm->pg->without++;
			continue;
		}
		(*cap)[i] = cfg && cfg < x->cap ? (uint8_t)cfg : x->cap;
		(*fdb)[i] = x->fdb_cap;
	}
	return 0;
}

static int compute_and_send(struct prog_pass *s, struct pgroup_table *t)
{
	struct sm *sm = s->sm;
	struct pgprog *pg = sm->pg;
	const struct fabric *f = s->f;
	struct pgroup_params prm = {.order = pg->order, .rank = pg->rank};
	struct pg_swstate **st = NULL;
	uint8_t *cap = NULL;
	uint16_t *fdb = NULL;
	int rc = caps_for(sm, f, &cap, &fdb, &st);

	prm.sw_cap = cap;
	prm.sw_fdb = fdb;
	if (rc == 0)
		rc = pgroup_compute(f, &sm->next_hops, sm->pool, &prm, t);
	if (rc < 0)
		goto out;
	pg->coverage = pgroup_coverage(t);
	if ((rc = pgroup_dump_write(sm->cfg.state_dir, f, t)) < 0)
		log_warn("port groups: cannot write %s/port-groups.dump: %s",
			 sm->cfg.state_dir, strerror(-rc));
	rc = 0;
	for (uint32_t i = 0; i < f->n_switches && rc == 0; i++)
		if (cap[i])
			rc =
			    program_switch(s, st[i], f->switches[i], &t->sw[i]);
	pgroup_free(t);
out:
	free(cap);
	free(fdb);
	free(st);
	return rc;
}

static void program_all(struct prog_pass *s)
{
	struct pgroup_table t;
	int rc;

	prog_hold(s); /* the summary waits for the last transfer */
	s->sm->pg->xfers++;
	rc = compute_and_send(s, &t);
	if (rc < 0) {
		snprintf(s->error, sizeof(s->error),
			 "port groups: cannot compute or send: %s",
			 strerror(-rc));
	}
	if (--s->sm->pg->xfers == 0)
		log_summary(s);
	prog_release(s);
}

int pgprog_start(struct prog_pass *s)
{
	struct sm *sm = s->sm;
	struct pgprog *pg;
	const struct fabric *f = s->f;
	int rc = 0;

	if (!sm->cfg.routing_port_groups_enable || !f)
		return 0;
	if (!(pg = pg_get(sm)))
		return -ENOMEM;
	/* A layered path is legal in its layer only as a whole (its SL is
	 * the lowest layer its every turn allows), and an adaptive switch
	 * choosing another port changes the path under an SL already
	 * answered: no group could be shown to stay legal, so none is made
	 * (docs/design.md §5.3). */
	if (sm->cfg.routing_unicast == CFG_UCAST_LAYERED) {
		if (!pg->layered_said)
			log_notice("port groups: none programmed with "
				   "routing.unicast layered (an adaptive "
				   "port could leave the path's layer)");
		pg->layered_said = true;
		return 0;
	}
	pg->layered_said = false;
	pg->start_us = txn_now_us();
	pg->probe_wait_us = 0;
	pg->tbl_blocks = pg->ft_blocks = 0;
	pg->info_sets = pg->programmed = pg->without = pg->failed = 0;
	pg->coverage = 0;
	/* Switches discovery did not hand to pgprog_probe (an incremental
	 * sweep discovers nothing) are asked now. */
	for (uint32_t i = 0; i < f->n_switches && rc == 0; i++) {
		const struct ib_node *sw = f->switches[i];
		struct pg_swstate *st = state_get(pg, sw->guid);
		if (!st)
			rc = -ENOMEM;
		else if (st->support == PG_UNKNOWN && !st->probing)
			rc = probe(sm, st, sw);
	}
	if (rc < 0)
		return rc;
	if (pg->probing) { /* on_probe runs program_all after the last */
		pg->waiting = s;
		prog_hold(s);
		return 0;
	}
	program_all(s);
	return 0;
}
