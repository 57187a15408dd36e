/* P_Key table programming (program.h, pkeyprog.h).  A pass takes a model
 * and its plan, makes one job per port that has a table to hold, and
 * copies into it all it needs (GUID, port, directed route, entries), so
 * its SMPs' callbacks never touch a model that a sweep may replace
 * meanwhile.  A job
 * whose port's content is unknown reads every block first; then it sends
 * the blocks whose content differs from the layout.  The shadows (what
 * each port holds, by node GUID and port) live for the daemon's life. */
#include "daemon/program/pkeyprog.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/sa/sa_server.h"
#include "daemon/program/program.h"
#include "lib/log.h"
#include "mad/smp_pkey.h"

struct pk_shadow {
	uint64_t guid; /* node GUID; 0 = free slot */
	uint8_t port;
	bool known;
	uint16_t cap;
	uint16_t *tbl; /* [cap] as last read or acknowledged */
};

struct pk_pass;

struct pk_job {
	struct pk_pass *pass;
	uint64_t guid;
	uint8_t port;
	uint8_t path[IB_MAX_DR_HOPS + 1];
	uint8_t hops;
	bool sw; /* a switch: the modifier names the port */
	uint16_t cap;
	uint16_t *want;
	uint32_t n_want;
	uint32_t pending;
	bool failed;
	char desc[IB_DESC_LEN + 1];
};

/* Jobs started and not finished at most: every port's first sweep reads
 * its table (165,472 blocks at 40,960 hosts), and queued all at once
 * they were the largest allocation of the bring-up (docs/design.md
 * §3.6); a few thousand keep the MAD engine's windows full. */
#define PK_JOBS_INFLIGHT 1024

struct pk_pass {
	struct pkeyprog *pp;
	struct prog_pass *s; /* NULL: a reload's pass */
	struct pk_job *jobs;
	uint32_t n_jobs;
	uint32_t pending; /* jobs not finished */
	uint32_t next;	  /* the next job to start */
	bool feeding;	  /* inside feed(): no recursion */
	uint32_t gets, sets, errors, ports, dropped;
	struct namelist failed; /* ports whose job failed, for one line */
	char why[160];		/* the first failure */
	int64_t start_us;
	struct pkey_plan plan; /* of the model it was made from */
};

struct pkeyprog {
	struct sm *sm;
	struct pk_shadow *sh;
	uint32_t sh_cap, sh_used;
	struct pkey_plan plan; /* of sm->fab: what the SA answers by */
	bool have_plan;
	struct pk_pass *running;
	struct prog_pass *queued; /* a sweep waiting for the running pass */
	/* the last sweep's plan: port activation decides enforcement by it */
	struct pkey_plan sweep_plan;
	bool reload_pending; /* a reload's pass waits for the sweep */
};

/* One SMP of a job. */
struct pk_req {
	struct pk_job *job;
	uint16_t block;
};

static void pass_next(struct pkeyprog *pp);

/* ---- shadows: open addressing by (GUID, port) ---- */

static uint32_t sh_hash(uint64_t guid, uint8_t port, uint32_t cap)
{
	uint64_t h = (guid ^ ((uint64_t)port << 56)) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(h >> 32) & (cap - 1);
}

static int sh_grow(struct pkeyprog *pp)
{
	uint32_t cap = pp->sh_cap ? pp->sh_cap * 2 : 1024;
	struct pk_shadow *nv = calloc(cap, sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	for (uint32_t i = 0; i < pp->sh_cap; i++) {
		struct pk_shadow *o = &pp->sh[i];
		uint32_t h;
		if (!o->guid)
			continue;
		for (h = sh_hash(o->guid, o->port, cap); nv[h].guid;
		     h = (h + 1) & (cap - 1))
			;
		nv[h] = *o;
	}
	free(pp->sh);
	pp->sh = nv;
	pp->sh_cap = cap;
	return 0;
}

/* The shadow of (guid, port); created (unknown) when create is set. */
static struct pk_shadow *sh_get(struct pkeyprog *pp, uint64_t guid,
				uint8_t port, bool create)
{
	uint32_t h;

	if (pp->sh_cap) {
		for (h = sh_hash(guid, port, pp->sh_cap); pp->sh[h].guid;
		     h = (h + 1) & (pp->sh_cap - 1))
			if (pp->sh[h].guid == guid && pp->sh[h].port == port)
				return &pp->sh[h];
	}
	if (!create || ((pp->sh_used + 1) * 2 > pp->sh_cap && sh_grow(pp)))
		return NULL;
	for (h = sh_hash(guid, port, pp->sh_cap); pp->sh[h].guid;
	     h = (h + 1) & (pp->sh_cap - 1))
		;
	pp->sh[h] = (struct pk_shadow){.guid = guid, .port = port};
	pp->sh_used++;
	return &pp->sh[h];
}

/* The table is cap entries long from now on; content unknown if new. */
static int sh_size(struct pk_shadow *sh, uint16_t cap)
{
	uint16_t *t;

	if (sh->tbl && sh->cap == cap)
		return 0;
	t = calloc(cap, sizeof(*t));
	if (!t)
		return -ENOMEM;
	free(sh->tbl);
	sh->tbl = t;
	sh->cap = cap;
	sh->known = false;
	return 0;
}

/* ---- one job: read what is unknown, send what differs ---- */

static void job_start(struct pk_job *j);

/* Starts jobs while fewer than PK_JOBS_INFLIGHT run (pending counts the
 * jobs not started yet, and the hold of pass_run until it ends). */
static void feed(struct pk_pass *ps)
{
	if (ps->feeding)
		return;
	ps->feeding = true;
	ps->pending++; /* a job that ends at once must not end the pass here */
	while (ps->next < ps->n_jobs &&
	       ps->pending - (ps->n_jobs - ps->next) <= PK_JOBS_INFLIGHT)
		job_start(&ps->jobs[ps->next++]);
	ps->feeding = false;
	if (--ps->pending == 0)
		pass_next(ps->pp);
}

static void job_done(struct pk_job *j)
{
	struct pk_pass *ps = j->pass;

	if (j->failed)
		ps->errors++;
	if (--ps->pending == 0) {
		pass_next(ps->pp);
		return;
	}
	feed(ps);
}

static void job_release(struct pk_job *j)
{
	if (--j->pending == 0)
		job_done(j);
}

static void job_error(struct pk_job *j, const char *what, uint16_t block,
		      int status, uint16_t mad_status)
{
	struct pk_shadow *sh = sh_get(j->pass->pp, j->guid, j->port, false);

	if (sh)
		sh->known = false; /* read again next time */
	if (!j->failed) {
		char where[IB_DESC_LEN + 16];
		if (!j->pass->failed.n)
			snprintf(j->pass->why, sizeof(j->pass->why),
				 "%s of block %u: %s (MAD status 0x%x)", what,
				 block, strerror(-status), mad_status);
		snprintf(where, sizeof(where), "%s/%u", j->desc, j->port);
		namelist_add(&j->pass->failed, where);
		log_debug("partitions: P_KeyTable %s of %s (0x%016" PRIx64
			  ") port %u block %u failed: %s (MAD status 0x%x)",
			  what, j->desc, j->guid, j->port, block,
			  strerror(-status), mad_status);
	}
	j->failed = true;
}

static int job_submit(struct pk_job *j, uint8_t method, uint16_t block,
		      const uint16_t *tbl, txn_cb cb)
{
	struct pk_req *q = malloc(sizeof(*q));
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	if (!q)
		return -ENOMEM;
	q->job = j;
	q->block = block;
	if (tbl)
		smp_pkey_encode(tbl + block * PKEY_BLOCK_SIZE, data,
				sizeof(data));
	rc = txn_submit_dr(
	    j->pass->pp->sm->txn, j->path, j->hops, method, SMP_ATTR_PKEY_TABLE,
	    smp_pkey_mod(j->sw ? j->port : 0, block), tbl ? data : NULL, cb, q);
	if (rc < 0) {
		free(q);
		return rc;
	}
	j->pending++;
	return 0;
}

/* The answer's block into the shadow (a Set's answer is the table as
 * the port now holds it). */
static void sh_store(struct pk_shadow *sh, uint16_t block, const uint8_t *data)
{
	uint16_t b[PKEY_BLOCK_SIZE];
	uint32_t first = (uint32_t)block * PKEY_BLOCK_SIZE;

	if (!sh || first >= sh->cap ||
	    smp_pkey_decode(b, data, SMP_DATA_SIZE) < 0)
		return;
	memcpy(sh->tbl + first, b,
	       (sh->cap - first < PKEY_BLOCK_SIZE ? sh->cap - first
						  : PKEY_BLOCK_SIZE) *
		   sizeof(*b));
}

static void set_cb(void *ctx, int status, const struct txn_result *r)
{
	struct pk_req *q = ctx;
	struct pk_job *j = q->job;
	struct pk_shadow *sh = sh_get(j->pass->pp, j->guid, j->port, false);

	if (status < 0 || !r->data)
		job_error(j, "Set", q->block, status < 0 ? status : -EIO,
			  r ? r->mad_status : 0);
	else
		sh_store(sh, q->block, r->data);
	free(q);
	job_release(j);
}

static int job_send(struct pk_job *j)
{
	struct pk_pass *ps = j->pass;
	struct pk_shadow *sh = sh_get(ps->pp, j->guid, j->port, false);
	uint16_t next[PKEY_MAX_ENTRIES];
	uint32_t blocks[PKEY_MAX_ENTRIES / PKEY_BLOCK_SIZE], nb, drop;
	int rc = 0;

	if (!sh || !sh->known)
		return 0;
	drop = pkey_layout(sh->tbl, j->cap, j->want, j->n_want, next);
	if (drop && !ps->dropped)
		log_err("partitions: %s (0x%016" PRIx64 ") port %u holds %u "
			"P_Keys; %u of its partitions do not fit and are "
			"left out",
			j->desc, j->guid, j->port, j->cap, drop);
	ps->dropped += drop;
	nb = pkey_changed_blocks(sh->tbl, next, j->cap, blocks);
	if (nb)
		ps->ports++;
	for (uint32_t i = 0; i < nb && rc == 0; i++)
		rc = job_submit(j, MAD_METHOD_SET, (uint16_t)blocks[i], next,
				set_cb);
	ps->sets += nb;
	ps->pp->sm->smps.pkey_sets += nb;
	if (ps->s)
		ps->s->need_sets += nb;
	return rc;
}

static void get_cb(void *ctx, int status, const struct txn_result *r)
{
	struct pk_req *q = ctx;
	struct pk_job *j = q->job;
	struct pk_shadow *sh = sh_get(j->pass->pp, j->guid, j->port, false);

	if (status < 0 || !r->data)
		job_error(j, "Get", q->block, status < 0 ? status : -EIO,
			  r ? r->mad_status : 0);
	else
		sh_store(sh, q->block, r->data);
	free(q);
	/* the last block read: the table is known, send what differs */
	if (j->pending == 1 && !j->failed && sh) {
		sh->known = true;
		if (job_send(j) < 0)
			job_error(j, "Set", 0, -ENOMEM, 0);
	}
	job_release(j);
}

static void job_start(struct pk_job *j)
{
	struct pk_pass *ps = j->pass;
	struct pk_shadow *sh = sh_get(ps->pp, j->guid, j->port, true);
	uint32_t nb = (j->cap + PKEY_BLOCK_SIZE - 1) / PKEY_BLOCK_SIZE;
	int rc;

	j->pending = 1; /* held while submitting */
	if (!sh || sh_size(sh, j->cap) < 0) {
		job_error(j, "shadow", 0, -ENOMEM, 0);
		job_release(j); /* the pass still ends */
		return;
	}
	if (sh->known) {
		rc = job_send(j);
	} else {
		rc = 0;
		for (uint32_t b = 0; b < nb && rc == 0; b++)
			rc = job_submit(j, MAD_METHOD_GET, (uint16_t)b, NULL,
					get_cb);
		ps->gets += nb;
		ps->pp->sm->smps.pkey_gets += nb;
		if (ps->s)
			ps->s->need_sets += nb;
	}
	if (rc < 0)
		job_error(j, "submit", 0, rc, 0);
	job_release(j);
}

/* ---- passes ---- */

/* A port with a table: an end port (linked CA port, the SM's port, switch
 * port 0) or a switch external port facing an end port of a switch with
 * PartitionEnforcementCap.  Its size and entries; false if none. */
static bool port_table(const struct fabric *f, const struct pkey_plan *pl,
		       const struct ib_node *n, uint8_t pn, uint16_t *cap,
		       const uint16_t **want, uint32_t *n_want)
{
	const struct ib_port *p = &n->ports[pn], *peer = p->remote;

	if (node_is_switch(n) && pn) {
		if (!peer || node_is_switch(peer->node) || !n->pkey_enf_cap)
			return false;
		*cap = n->pkey_enf_cap;
		*want = pkey_plan_port(pl, peer, n_want);
	} else {
		if (!node_is_switch(n) && !peer &&
		    !(n == f->sm_node && pn == f->sm_port))
			return false;
		*cap = n->pkey_cap;
		*want = pkey_plan_port(pl, p, n_want);
	}
	if (*cap > PKEY_MAX_ENTRIES)
		*cap = PKEY_MAX_ENTRIES;
	return *cap > 0;
}

static int add_job(struct pk_pass *ps, const struct fabric *f,
		   const struct ib_node *n, uint8_t pn)
{
	struct pk_job *j = &ps->jobs[ps->n_jobs], tmp = {0};
	const uint16_t *want;
	uint16_t cap;

	/* jobs[] holds the ports with a table only: judged before a slot
	 * is touched */
	if (!port_table(f, &ps->plan, n, pn, &cap, &want, &tmp.n_want) ||
	    disc_port_path(f, n, pn, tmp.path, &tmp.hops) < 0)
		return 0;
	*j = tmp;
	j->want = malloc((j->n_want ? j->n_want : 1) * sizeof(*want));
	if (!j->want)
		return -ENOMEM;
	memcpy(j->want, want, j->n_want * sizeof(*want));
	j->pass = ps;
	j->guid = n->guid;
	j->port = pn;
	j->sw = node_is_switch(n);
	j->cap = cap;
	snprintf(j->desc, sizeof(j->desc), "%s", n->desc);
	ps->n_jobs++;
	return 0;
}

/* A port found in INIT has been reset (or is new): its table is read
 * again rather than trusted from the shadow. */
static void forget_reset_ports(struct pkeyprog *pp, const struct fabric *f)
{
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		for (unsigned pn = 0; pn <= n->nports; pn++) {
			struct pk_shadow *sh;
			if (n->ports[pn].state != IB_PORT_INIT)
				continue;
			sh = sh_get(pp, n->guid, (uint8_t)pn, false);
			if (sh)
				sh->known = false;
			if (node_is_switch(n) && pn) /* switch port 0 too */
				if ((sh = sh_get(pp, n->guid, 0, false)))
					sh->known = false;
		}
	}
}

static struct pk_pass *pass_make(struct pkeyprog *pp, const struct fabric *f,
				 struct prog_pass *s)
{
	struct pk_pass *ps = calloc(1, sizeof(*ps));
	uint32_t ports = 0;
	int rc;

	if (!ps)
		return NULL;
	ps->pp = pp;
	ps->s = s;
	/* jobs only for the ports that hold a table (a third of a fat
	 * tree's ports) */
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned pn = 0; pn <= f->nodes[i]->nports; pn++) {
			const uint16_t *w;
			uint32_t nw;
			uint16_t cap;
			ports += port_table(f, NULL, f->nodes[i], (uint8_t)pn,
					    &cap, &w, &nw);
		}
	ps->jobs = calloc(ports ? ports : 1, sizeof(*ps->jobs));
	/* the passes log names that match nothing, the SA's plan does not */
	rc = ps->jobs
		 ? pkey_plan_build(&ps->plan, f, &pp->sm->cfg.partitions, true)
		 : -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && rc == 0; i++)
		for (unsigned pn = 0; pn <= f->nodes[i]->nports && rc == 0;
		     pn++)
			rc = add_job(ps, f, f->nodes[i], (uint8_t)pn);
	if (rc == 0)
		return ps;
	for (uint32_t i = 0; i < ps->n_jobs; i++)
		free(ps->jobs[i].want);
	free(ps->jobs);
	pkey_plan_free(&ps->plan);
	free(ps);
	return NULL;
}

static void pass_free(struct pk_pass *ps)
{
	for (uint32_t i = 0; i < ps->n_jobs; i++)
		free(ps->jobs[i].want);
	free(ps->jobs);
	pkey_plan_free(&ps->plan);
	free(ps);
}

static void pass_run(struct pkeyprog *pp, struct pk_pass *ps)
{
	pp->running = ps;
	ps->start_us = txn_now_us();
	ps->pending = ps->n_jobs + 1; /* held while starting the jobs */
	ps->next = 0;
	feed(ps);
	loop_txn_kick(pp->sm);
	if (--ps->pending == 0)
		pass_next(pp);
}

static void pass_log(const struct pk_pass *ps)
{
	if (!ps->sets && !ps->gets && !ps->errors)
		return;
	char names[200];

	log_notice("partitions: %u P_KeyTable blocks written to %u ports, "
		   "%u read, %u failed ports (%s, %.1f ms)",
		   ps->sets, ps->ports, ps->gets, ps->errors,
		   ps->s ? "sweep" : "reload",
		   (txn_now_us() - ps->start_us) / 1000.0);
	if (ps->failed.n)
		log_warn("partitions: P_KeyTables of %u ports failed (%s), "
			 "first %s; the next sweep tries them again",
			 ps->failed.n,
			 namelist_str(&ps->failed, names, sizeof(names)),
			 ps->why);
}

/* The running pass ended: its sweep goes on; a waiting pass starts. */
static void pass_next(struct pkeyprog *pp)
{
	struct pk_pass *ps = pp->running;
	struct prog_pass *s = ps ? ps->s : NULL;

	pp->running = NULL;
	if (ps) {
		pass_log(ps);
		if (s && ps->errors)
			s->set_errors += ps->errors;
		if (s) {
			pkey_plan_free(&pp->sweep_plan);
			pp->sweep_plan = ps->plan;
			memset(&ps->plan, 0, sizeof(ps->plan));
		}
		pass_free(ps);
	}
	if (pp->queued && !pp->sm->stopping) {
		struct prog_pass *q = pp->queued;
		struct pk_pass *nps;
		pp->queued = NULL;
		nps = pass_make(pp, q->f, q);
		if (nps)
			pass_run(pp, nps);
		else
			prog_release(q);
	}
	if (s)
		prog_release(s); /* last: it may end the sweep */
}

int pkeyprog_start(struct prog_pass *s)
{
	struct pkeyprog *pp = s->sm->pkeys;
	struct pk_pass *ps;

	if (!pp)
		return 0;
	forget_reset_ports(pp, s->f);
	prog_hold(s); /* released when its pass ends */
	if (pp->running) {
		pp->queued = s;
		return 0;
	}
	ps = pass_make(pp, s->f, s);
	if (!ps) {
		prog_release(s);
		return -ENOMEM;
	}
	pass_run(pp, ps);
	return 0;
}

bool pkeyprog_port_enforce(struct sm *sm, const struct ib_node *n, uint8_t pn,
			   struct smp_port_info *pi)
{
	struct pkeyprog *pp = sm->pkeys;
	const struct ib_port *peer = n->ports[pn].remote;
	uint32_t n_entries = 0;
	uint8_t in, out;

	if (!node_is_switch(n) || !pn)
		return false;
	if (pp && peer)
		pkey_plan_port(pp->running && pp->running->s
				   ? &pp->running->plan
				   : &pp->sweep_plan,
			       peer, &n_entries);
	pkey_enforced(n, pn, n_entries, &in, &out);
	if (pi->partition_enf_inbound == in &&
	    pi->partition_enf_outbound == out)
		return false;
	pi->partition_enf_inbound = in;
	pi->partition_enf_outbound = out;
	return true;
}

/* ---- the SA's view and the events ---- */

static int sa_table(void *ctx, const struct ib_port *p, const uint16_t **tbl)
{
	struct pkeyprog *pp = ctx;
	struct pk_shadow *sh = sh_get(pp, p->node->guid, p->num, false);

	if (!sh || !sh->known)
		return 0;
	*tbl = sh->tbl;
	return sh->cap;
}

/* The plan of the current model and configuration, built aside and
 * swapped in under the SA's lock: its receiver thread answers PathRecords
 * by it (sa_daemon.c). */
static void publish_plan(struct pkeyprog *pp)
{
	struct sm *sm = pp->sm;
	struct sa *sa = sa_daemon_get(sm);
	struct pkey_plan np, old = pp->plan;
	bool had = pp->have_plan, have;

	have = sm->fab &&
	       pkey_plan_build(&np, sm->fab, &sm->cfg.partitions, false) == 0;
	sa_daemon_change_begin(sm);
	pp->have_plan = have;
	if (have)
		pp->plan = np;
	if (sa) {
		sa->pkeys = have ? &pp->plan : NULL;
		sa->pkey_table = sa_table;
		sa->pkey_ctx = pp;
	}
	sa_daemon_change_end(sm);
	if (had)
		pkey_plan_free(&old);
}

static void reload_pass(struct pkeyprog *pp)
{
	struct pk_pass *ps;

	pp->reload_pending = false;
	/* a standby sends no Set: its first sweep as master programs them */
	if (!pp->sm->fab || pp->sm->stopping ||
	    pp->sm->sm_state != SM_STATE_MASTER)
		return;
	/* the sweep's state read, not asked: the sweep calls this file */
	if (pp->running || pp->sm->sweep_busy) {
		pp->reload_pending = true;
		return;
	}
	ps = pass_make(pp, pp->sm->fab, NULL);
	if (ps)
		pass_run(pp, ps);
	else
		log_err("partitions: out of memory; the tables are "
			"programmed by the next heavy sweep");
}

static void on_event(struct sm *sm, enum sm_event ev,
		     const struct sm_event_arg *a, void *ctx)
{
	struct pkeyprog *pp = ctx;

	if (ev == SM_EV_FABRIC_REPLACED) {
		publish_plan(pp);
	} else if (ev == SM_EV_CONFIG_RELOADED) {
		publish_plan(pp);
		reload_pass(pp);
	} else if (ev == SM_EV_SWEEP_DONE && pp->reload_pending) {
		reload_pass(pp);
	}
}

int pkeyprog_init(struct sm *sm)
{
	struct pkeyprog *pp = calloc(1, sizeof(*pp));
	int rc;

	if (!pp)
		return -ENOMEM;
	pp->sm = sm;
	sm->pkeys = pp;
	rc = sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_event, pp);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_event, pp);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_SWEEP_DONE, on_event, pp);
	return rc;
}

void pkeyprog_fini(struct sm *sm)
{
	struct pkeyprog *pp = sm->pkeys;
	struct sa *sa = sa_daemon_get(sm);

	if (!pp)
		return;
	sm_unsubscribe(sm, on_event, pp);
	sa_daemon_change_begin(sm);
	if (sa)
		sa->pkeys = NULL;
	sa_daemon_change_end(sm);
	if (pp->running)
		pass_free(pp->running);
	if (pp->have_plan)
		pkey_plan_free(&pp->plan);
	pkey_plan_free(&pp->sweep_plan);
	for (uint32_t i = 0; i < pp->sh_cap; i++)
		free(pp->sh[i].tbl);
	free(pp->sh);
	free(pp);
	sm->pkeys = NULL;
}
