/* The sweep state machine.  IDLE -> LIGHT (SwitchInfo of every switch)
 * -> IDLE when nothing changed, else DISCOVER (fresh model over directed
 * routes), or PROBE when switches only reported a port state change
 * (incr.c: the model without the links that went down, no discovery; a
 * heavy DISCOVER when that cannot be sure) -> [LIDs, hop tables, unicast
 * routing: computed in the loop] -> CONFIGURE (PortInfo LID/ARMED, SwitchInfo,
 * changed LFT blocks) -> ACTIVATE (PortInfo ACTIVE) -> IDLE.  Every transition
 * goes through change_state(), which logs it.  A phase ends when its last SMP
 * has completed (sweep_release). */
#include "daemon/sweep/sweep_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/topology/topology.h"
#include "lib/event.h"
#include "lib/log.h"

static const char *const state_names[SWEEP_STATES] = {
    [SWEEP_IDLE] = "IDLE",	     [SWEEP_LIGHT] = "LIGHT",
    [SWEEP_PROBE] = "PROBE",	     [SWEEP_DISCOVER] = "DISCOVER",
    [SWEEP_CONFIGURE] = "CONFIGURE", [SWEEP_ACTIVATE] = "ACTIVATE",
};

const char *sweep_state_name(enum sweep_state st)
{
	return st < SWEEP_STATES ? state_names[st] : "?";
}

enum sweep_state sweep_state(const struct sm *sm)
{
	return sm->sweep ? sm->sweep->state : SWEEP_IDLE;
}

/* SMPs sent so far, retries included (0 before the engine exists). */
static uint64_t smps_sent(const struct sweep *s)
{
	return s->sm->txn ? txn_stats(s->sm->txn)->sent : 0;
}

/* Logs the phase that ends with its SMPs and their rate: which phase
 * runs below the transport's pace shows in one line per phase. */
static void change_state(struct sweep *s, enum sweep_state to, const char *why)
{
	int64_t now = txn_now_us();
	uint64_t sent = smps_sent(s);
	double ms = s->state_us ? (now - s->state_us) / 1000.0 : 0.0;
	uint64_t n = sent - s->state_sent;

	if (s->state == to)
		return;
	log_info("sweep: %s -> %s (%s) after %.1f ms, %" PRIu64 " SMPs "
		 "(%.0f/s)",
		 state_names[s->state], state_names[to], why, ms, n,
		 ms > 0 ? n * 1000.0 / ms : 0.0);
	if (s->state_us)
		sweep_stats_phase(s, s->state, now - s->state_us);
	s->state = to;
	s->sm->sweep_busy = to != SWEEP_IDLE;
	s->state_us = now;
	s->state_sent = sent;
	if (to != SWEEP_IDLE) {
		char tp[32];

		snprintf(tp, sizeof(tp), "sweep:%s", state_names[to]);
		testpoint(tp);
	}
}

/* Runs a phase's submit function; a phase with nothing to send ends at
 * once.  A submit error ends the sweep after what was sent completes. */
static void run_phase(struct sweep *s, int (*start)(struct sweep *),
		      const char *what)
{
	int rc;

	/* what the programmers of this phase see of the sweep */
	s->pass.f = s->nf;
	s->pass.disc = s->disc;
	s->pass.incremental = s->incremental;
	sweep_hold(s); /* keeps the phase open while submitting */
	rc = start(s);
	if (rc < 0)
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "%s: cannot submit: %s", what, strerror(-rc));
	loop_txn_kick(s->sm);
	sweep_release(s);
}

static void sweep_reset(struct sweep *s)
{
	disc_free(s->disc);
	s->disc = NULL;
	if (s->nf) {
		fabric_free(s->nf);
		free(s->nf);
		sweep_set_model(s, NULL);
	}
	s->changed = s->incremental = false;
	incr_reset(s);
	s->pass.set_errors = s->pass.lft_errors = s->pass.lft_switches = 0;
	namelist_clear(&s->pass.set_failed);
	namelist_clear(&s->pass.lft_failed);
	s->pass.lft_past_cap = 0;
	s->pass.lft_blocks = s->pass.lft_read = s->pass.armed =
	    s->pass.activated = 0;
	s->need_gets = s->pass.need_sets = 0;
	s->left_out = 0;
	s->pass.error[0] = '\0';
}

static void finish(struct sweep *s, int rc);
static int start_lft(struct sweep *s);
static void on_elected(void *ctx, bool master);

static void on_disc_done(void *ctx, int status)
{
	struct sweep *s = ctx;
	const struct disc_stats *ds = disc_stats(s->disc);

	s->need_gets = ds->gets;
	s->left_out = ds->failed_nodes + ds->silent_ports;
	s->sm->smps.disc_gets += ds->gets;
	if (status < 0) {
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "discovery failed: the SM's own port does not answer "
			 "(%s)",
			 strerror(-status));
		finish(s, status);
		return;
	}
	log_info("discovery: %u nodes (%u switches, %u hosts), %u links, "
		 "%" PRIu64 " SMPs, %.1f ms",
		 s->nf->n_nodes, s->nf->n_switches, fabric_count_hosts(s->nf),
		 fabric_count_links(s->nf), ds->gets, ds->usecs / 1000.0);
	/* Sets only once the election says this SM is master. */
	if (!s->sm->elect_fn) {
		on_elected(s, true);
		return;
	}
	status = s->sm->elect_fn(s->sm, s->nf, s->disc, on_elected, s);
	if (status < 0) {
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "cannot look for other SMs: %s", strerror(-status));
		finish(s, status);
	}
}

static void on_elected(void *ctx, bool master)
{
	struct sweep *s = ctx;

	if (!master) {
		finish(s, -ECANCELED);
		return;
	}
	topology_check(s->sm, s->nf); /* before routing: enforce cuts */
	s->hold_pending = false; /* a fresh model: every held link cut */
	if (s->sm->hold_links)
		s->sm->hold_links(s->sm, s->nf);
	if (route_compute(s->sm, s->nf, false, s->pass.error,
			  sizeof(s->pass.error)) < 0) {
		finish(s, -EINVAL);
		return;
	}
	change_state(s, SWEEP_CONFIGURE, "fabric discovered and routed");
	run_phase(s, start_lft, "port setup and LFTs");
}

static int start_lft(struct sweep *s)
{
	/* P_Keys first: port setup decides partition enforcement by them */
	int rc = pkeyprog_start(&s->pass);

	if (rc == 0)
		rc = portsetup_arm(&s->pass);

	if (rc == 0)
		rc = lftprog_start(&s->pass, s->sm->fab);
	if (rc == 0)
		rc = pgprog_start(&s->pass);
	return rc < 0 ? rc : qosprog_start(&s->pass);
}

static int start_activate(struct sweep *s)
{
	return portsetup_activate(&s->pass);
}

/* Every discovery answer: the SA's observer keeps what it needs; a
 * switch's SwitchInfo means it exists and its route is known, so its
 * port-group probe goes out now rather than in CONFIGURE. */
static void disc_answer(void *ctx, const struct ib_node *n,
			const struct smp *smp, const uint8_t *data)
{
	struct sweep *s = ctx;
	const struct disc_observer *o = s->sm->disc_obs;

	if (o && o->smp)
		o->smp(o->ctx, n, smp, data);
	if (n && node_is_switch(n) && smp->hdr.attr_id == SMP_ATTR_SWITCH_INFO)
		pgprog_probe(s->sm, n);
}

static int start_discovery(struct sweep *s)
{
	struct fabric *f = calloc(1, sizeof(*f));
	int rc;

	if (!f)
		return -ENOMEM;
	fabric_init(f);
	sweep_set_model(s, f);
	/* Discovery reports through on_disc_done, never from inside
	 * disc_start, so the sweep holds nothing for it. */
	s->obs = (struct disc_observer){.smp = disc_answer, .ctx = s};
	rc = disc_start(s->sm->txn, f, on_disc_done, s, &s->obs, &s->disc);
	if (rc == 0)
		loop_txn_kick(s->sm);
	return rc;
}

void sweep_hint(struct sm *sm, uint16_t lid)
{
	struct sweep *s = sm->sweep;
	struct ib_port *p = sm->fab ? fabric_port_by_lid(sm->fab, lid) : NULL;

	if (!s || !p || !node_is_switch(p->node))
		return;
	for (uint32_t i = 0; i < s->n_hints; i++)
		if (s->hints[i] == p->node->guid)
			return;
	if (s->n_hints < sizeof(s->hints) / sizeof(s->hints[0]))
		s->hints[s->n_hints++] = p->node->guid;
	else
		s->hints_overflow =
		    true; /* a storm: the light sweep sees all */
}

/* Trap-named switches go straight to the probe: no SwitchInfo round over
 * every switch (at 16,000 hosts 2,880 Gets, and every switch routed over
 * the dead link silent, each costing a timeout). */
static bool begin_probe(struct sweep *s, const char *why)
{
	bool ok = s->n_hints && !s->hints_overflow;

	for (uint32_t i = 0; ok && i < s->n_hints; i++)
		incr_note_psc(s, s->hints[i], NULL);
	s->n_hints = 0;
	s->hints_overflow = false;
	if (!ok || !incr_possible(s)) {
		incr_reset(s);
		return false;
	}
	change_state(s, SWEEP_PROBE, why);
	run_phase(s, incr_probe_start, "port probe");
	return true;
}

static void incr_route(struct sweep *s);
static void incr_fallback(struct sweep *s, const char *why);

/* Links the health policy holds out: the model's copy without them is
 * routed as after a lost link (incr.c), when this SM may edit its model;
 * else (false) the sweep goes on, and a heavy one holds them out. */
static bool begin_hold(struct sweep *s, const char *why)
{
	const struct sm *sm = s->sm;
	char err[200] = "";
	int r;

	if (!s->hold_pending || !sm->cfg.sm_incremental || !sm->subnet_up ||
	    sm->sm_state != SM_STATE_MASTER || sm->tables_unknown)
		return false;
	s->hold_pending = false;
	r = incr_hold_build(s, err, sizeof(err));
	if (r == 0)
		return false;
	change_state(s, SWEEP_PROBE, why);
	if (r < 0)
		incr_fallback(s, err);
	else
		incr_route(s);
	return true;
}

static void begin(struct sweep *s, bool heavy, const char *why)
{
	int rc;

	sweep_reset(s);
	s->start_us = txn_now_us();
	s->heavy = heavy || !s->sm->fab;
	if (!s->heavy && begin_hold(s, why))
		return;
	if (!s->heavy && begin_probe(s, why))
		return;
	s->n_hints = 0;
	s->hints_overflow = false;
	if (!s->heavy) {
		change_state(s, SWEEP_LIGHT, why);
		run_phase(s, light_start, "light sweep");
		return;
	}
	change_state(s, SWEEP_DISCOVER, why);
	rc = start_discovery(s);
	if (rc < 0) {
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "cannot start discovery: %s", strerror(-rc));
		finish(s, rc);
	}
}

static void go_heavy(struct sweep *s, const char *why)
{
	s->heavy = true;
	s->incremental = false;
	change_state(s, SWEEP_DISCOVER, why);
	if (start_discovery(s) < 0)
		finish(s, -ENOMEM);
}

static void incr_fallback(struct sweep *s, const char *why)
{
	if (s->nf) {
		fabric_free(s->nf);
		free(s->nf);
		sweep_set_model(s, NULL);
	}
	log_notice("incremental sweep not possible (%s); rediscovering",
		   why[0] ? why : s->pass.error);
	s->pass.error[0] = '\0';
	go_heavy(s, "probe found more than lost links");
}

static void incr_route(struct sweep *s)
{
	char why[200] = "";

	s->heavy = s->incremental = true;
	topology_check(s->sm, s->nf);
	if (route_compute(s->sm, s->nf, true, why, sizeof(why)) < 0) {
		incr_fallback(s, why);
		return;
	}
	/* An incremental sweep writes no SL2VL table: routes that now need
	 * a second layer where one sufficed need the heavy sweep that
	 * writes them (docs/design.md §5.3) before any SL is answered. */
	if (layers_need_tables(s->sm)) {
		snprintf(why, sizeof(why), "the layered routes now use more "
			 "than one layer and need SL2VL tables");
		incr_fallback(s, why);
		return;
	}
	change_state(s, SWEEP_CONFIGURE, "links down, rerouted");
	run_phase(s, start_lft, "LFTs");
}

/* The probe's verdict: edit the model and route it, nothing to do, or a
 * heavy sweep after all.  Switches the light sweep did not hear are asked
 * again over the edited model's routes first (the second pass here). */
static void probe_done(struct sweep *s)
{
	char why[200] = "";
	int r;

	if (s->nf) { /* after the recheck, or after the far ends' probe */
		if (s->pass.error[0] || !incr_recheck_ok(s, why, sizeof(why)))
			incr_fallback(s, why);
		else if (incr_need_probe(s))
			run_phase(s, incr_probe_start, "far ends' ports");
		else if ((r = incr_apply(s, why, sizeof(why))) < 0)
			incr_fallback(s, why);
		else if (r > 0)
			run_phase(s, incr_recheck_start, "mute switches");
		else
			incr_route(s);
		return;
	}
	r = s->pass.error[0] ? -1 : incr_build(s, why, sizeof(why));
	if (r == 0)
		finish(s, 0);
	else if (r < 0)
		incr_fallback(s, why);
	else if (incr_need_recheck(s))
		run_phase(s, incr_recheck_start, "silent switches");
	else
		incr_route(s);
}

static void phase_done(struct sweep *s)
{
	switch (s->state) {
	case SWEEP_LIGHT:
		if (s->changed && incr_possible(s)) {
			change_state(s, SWEEP_PROBE, "port state change");
			run_phase(s, incr_probe_start, "port probe");
		} else if (s->changed) {
			go_heavy(s, "change seen");
		} else {
			finish(s, 0);
		}
		break;
	case SWEEP_PROBE:
		probe_done(s);
		break;
	case SWEEP_CONFIGURE:
		change_state(s, SWEEP_ACTIVATE, "ports armed, tables sent");
		run_phase(s, start_activate, "port activation");
		break;
	case SWEEP_ACTIVATE:
		finish(s, s->pass.error[0] ? -EIO : 0);
		break;
	default:
		break;
	}
}

/* The pass's last release: the programmers and the sweep's own phases
 * hold the pass, never the sweep. */
static void pass_done(struct prog_pass *p)
{
	phase_done((struct sweep *)((char *)p - offsetof(struct sweep, pass)));
}

/* Ports that should be ACTIVE and are not (a --once failure); a link to a
 * CA port that got no LID (LinearFDBCap too small) stays down on purpose
 * and is reported by route.c instead. */
static uint32_t count_inactive(const struct fabric *f, char *first, size_t len)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *nd = f->nodes[i];
		for (unsigned p = 1; p <= nd->nports; p++) {
			if (!nd->ports[p].remote ||
			    nd->ports[p].state == IB_PORT_ACTIVE ||
			    lids_link_unrouted(&nd->ports[p]))
				continue;
			if (!n++)
				snprintf(first, len,
					 "%s (0x%016" PRIx64 ") port %u",
					 nd->desc, nd->guid, p);
		}
	}
	return n;
}

/* A heavy sweep's model replaces the previous one. */
static int adopt_model(struct sweep *s)
{
	struct sm *sm = s->sm;
	char first[128] = "";
	uint32_t inactive = count_inactive(s->nf, first, sizeof(first));

	/* Sets are sent only where something differs, so the Sets sent are
	 * the Sets needed; Gets are judged against the formula. */
	sm->smps.min_needed = disc_min_gets(s->nf) + s->pass.need_sets;
	struct fabric *old = sm->fab;

	dumps_join(sm); /* the dump helper reads the model it replaces */
	sm->fab = s->nf;
	sweep_set_model(s, NULL);
	sm->heavy_sweeps++;
	sm->incremental_sweeps += s->incremental;
	route_after_sweep(sm);
	sm_publish(sm, SM_EV_FABRIC_REPLACED,
		   &(struct sm_event_arg){.old = old});
	/* Freed only now: the SA's receiver thread answers from the old
	 * model until its subscriber moved it to the new one, and the
	 * multicast manager reads the trees routed on it (.old). */
	if (old) {
		fabric_free(old);
		free(old);
	}
	/* What the switches' caps left out is for good: --once ends with it
	 * (no retry can help); a daemon serves the rest and shows it in
	 * its status. */
	if (sm->once && sm->lid_limit[0]) {
		snprintf(s->pass.error, sizeof(s->pass.error), "%s",
			 sm->lid_limit);
		return -ERANGE;
	}
	if (s->left_out) {
		/* The model lacks them, so nothing above counts their ports:
		 * --once has not brought every port up; a daemon serves the
		 * rest and makes its next periodic sweep heavy. */
		snprintf(
		    s->pass.error, sizeof(s->pass.error),
		    "%u nodes or linked ports did not answer discovery and "
		    "were left out",
		    s->left_out);
		sm->heavy_pending = true;
		if (sm->once)
			return -EIO;
		log_warn("sweep: %s; the next sweep rediscovers",
			 s->pass.error);
	}
	if (inactive) {
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "%u linked ports are not ACTIVE, first %s", inactive,
			 first);
		return -EIO;
	}
	if (s->pass.lft_errors || s->pass.set_errors) {
		snprintf(s->pass.error, sizeof(s->pass.error),
			 "%u Sets and %u LFT blocks failed", s->pass.set_errors,
			 s->pass.lft_errors);
		return -EIO;
	}
	return 0;
}

/* The structured lines of a heavy sweep's end (lib/event.h):
 * heavy_sweep always, subnet_up when it configured the subnet. */
static void sweep_events(const struct sweep *s, int rc)
{
	const struct sm *sm = s->sm;
	struct event_line e;

	if (event_begin(&e, "heavy_sweep") == 0) {
		json_kv_uint(&e.j, "sweep", sm->sweeps);
		json_kv_bool(&e.j, "incremental", s->incremental);
		json_kv_double(&e.j, "ms", sm->last_sweep_ms);
		json_kv_int(&e.j, "rc", rc);
		json_kv_string(&e.j, "error", s->pass.error);
		json_kv_uint(&e.j, "lft_blocks", s->pass.lft_blocks);
		event_end(&e);
	}
	if (rc < 0 || !sm->fab || event_begin(&e, "subnet_up") < 0)
		return;
	json_kv_uint(&e.j, "sweep", sm->sweeps);
	json_kv_bool(&e.j, "first", !sm->subnet_up);
	json_kv_uint(&e.j, "switches", sm->fab->n_switches);
	json_kv_uint(&e.j, "hosts", fabric_count_hosts(sm->fab));
	json_kv_uint(&e.j, "links", fabric_count_links(sm->fab));
	event_end(&e);
}

/* One line each for the Sets and the LFT blocks that failed in this
 * sweep: how many, where (the first few), the first reason. */
static void log_failures(struct sweep *s)
{
	char names[200];

	if (s->pass.set_errors)
		log_warn(
		    "sweep %" PRIu64 ": %u Sets failed (%s), first %s; "
		    "those ports keep their old state until the next "
		    "sweep",
		    s->sm->sweeps, s->pass.set_errors,
		    namelist_str(&s->pass.set_failed, names, sizeof(names)),
		    s->pass.set_why);
	if (s->pass.lft_errors)
		log_warn(
		    "sweep %" PRIu64 ": %u LFT blocks failed on %u "
		    "switches (%s), first %s; they are sent again at the "
		    "next sweep",
		    s->sm->sweeps, s->pass.lft_errors, s->pass.lft_failed.n,
		    namelist_str(&s->pass.lft_failed, names, sizeof(names)),
		    s->pass.lft_why);
}

static void finish(struct sweep *s, int rc)
{
	struct sm *sm = s->sm;
	bool heavy = s->heavy && rc != -EHOSTUNREACH && s->nf &&
		     s->state >= SWEEP_CONFIGURE;

	if (heavy) {
		int r2 = adopt_model(s);
		if (rc == 0)
			rc = r2;
	}
	sm->sweeps++;
	sm->last_sweep_ms = (txn_now_us() - s->start_us) / 1000.0;
	clock_gettime(CLOCK_REALTIME, &sm->last_sweep);
	snprintf(sm->last_error, sizeof(sm->last_error), "%s", s->pass.error);
	if (rc == -ECANCELED)
		log_notice("sweep %" PRIu64 ": this SM is %s, nothing "
			   "configured",
			   sm->sweeps, sm_state_name(sm->sm_state));
	else if (rc < 0 && rc != -ERANGE) /* -ERANGE: --once says it */
		log_err("sweep %" PRIu64 " failed: %s", sm->sweeps,
			s->pass.error[0] ? s->pass.error : strerror(-rc));
	else if (s->heavy)
		log_notice(
		    "sweep %" PRIu64 ": subnet up%s, %u switches, %u hosts,"
		    " %u ports armed, %u activated, %" PRIu64 " LFT "
		    "blocks to %u switches (%" PRIu64 " read back), "
		    "%.1f ms",
		    sm->sweeps,
		    rc == -ERANGE    ? " but for the ports left without a LID"
		    : s->incremental ? " (incremental)"
				     : "",
		    sm->fab->n_switches, fabric_count_hosts(sm->fab),
		    s->pass.armed, s->pass.activated, s->pass.lft_blocks,
		    s->pass.lft_switches, s->pass.lft_read, sm->last_sweep_ms);
	log_failures(s);
	if (s->pass.lft_past_cap)
		log_err("sweep %" PRIu64 ": %" PRIu64 " LFT blocks past their "
			"switch's LinearFDBCap were not sent",
			sm->sweeps, s->pass.lft_past_cap);
	sweep_stats_end(s, rc);
	if (s->heavy && rc != -ECANCELED)
		sweep_events(s, rc);
	change_state(s, SWEEP_IDLE,
		     rc == -ECANCELED ? "not master"
		     : rc < 0	      ? "failed"
				      : "done");
	sweep_reset(s);
	sm_publish(sm, SM_EV_SWEEP_DONE,
		   &(struct sm_event_arg){.heavy = s->heavy, .rc = rc});
	if (s->again && s->state == SWEEP_IDLE && !sm->once) {
		bool h = s->again_heavy;
		s->again = s->again_heavy = false;
		begin(s, h, "requested during the last sweep");
	}
}

void sweep_request(struct sm *sm, bool heavy, const char *why)
{
	struct sweep *s = sm->sweep;

	if (!s || sm->stopping)
		return;
	if (s->state != SWEEP_IDLE) {
		s->again = true;
		s->again_heavy |= heavy;
		return;
	}
	begin(s, heavy, why);
}

void sweep_request_hold(struct sm *sm, const char *why)
{
	if (!sm->sweep)
		return;
	sm->sweep->hold_pending = true;
	sweep_request(sm, false, why);
}

static void on_sweep_due(struct sm *sm, enum sm_event ev,
			 const struct sm_event_arg *a, void *ctx)
{
	sweep_request(sm, a->heavy, a->why ? a->why : "due");
}

int sweep_create(struct sm *sm)
{
	int rc;

	sm->sweep = calloc(1, sizeof(*sm->sweep));
	if (!sm->sweep)
		return -ENOMEM;
	sm->sweep->sm = sm;
	sm->sweep->pass.sm = sm;
	sm->sweep->pass.done = pass_done;
	sweep_stats_init(sm->sweep);
	rc = sm_subscribe(sm, SM_EV_SWEEP_DUE, on_sweep_due, NULL);
	return rc ? rc : qosprog_init(sm);
}

void sweep_destroy(struct sm *sm)
{
	if (!sm->sweep)
		return;
	sm_unsubscribe(sm, on_sweep_due, NULL);
	sweep_reset(sm->sweep);
	pgprog_destroy(sm);
	qosprog_destroy(sm);
	free(sm->sweep);
	sm->sweep = NULL;
}
