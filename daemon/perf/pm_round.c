/* The counter round (docs/design.md §3.12).  Every perfmgr.interval_ms
 * the master lists the ports of its model that carry a link (or a link
 * held out of routing), asks each new node's PerfMgt ClassPortInfo once,
 * then reads every port's PortCounters and, where the node has them, its
 * PortCountersExtended; narrow counters past half their range are
 * cleared.  The MADs go through the engine like every other MAD, but at
 * most a quarter of mad.window at once, none while a sweep runs, and
 * paced over three quarters of the interval (the last quarter is left for
 * sweeps that pause it), so a round never stands in front of a
 * sweep's SMPs or loads the fabric in bursts.  A switch that offers
 * AllPortSelect and PortCountersExtended has its error counters read as
 * one sum first, and its ports' PortCounters only when the sum moved
 * (pm_sum.c): at 16,000 hosts a round then costs less than a heavy
 * sweep's SMPs. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/perf/perf_priv.h"
#include "lib/log.h"
#include "mad/smp.h"
#include "mad/umad_port.h"

#define TICK_US	  10000 /* pacing tick while a round runs */
#define CAP_KNOWN (1u << 31)

enum pm_phase { PM_CPI, PM_SUM, PM_PC, PM_EXT, PM_CLEAR };

struct pm_req {
	struct perf *pf;
	uint32_t job; /* PM_CPI: index in cpi, PM_SUM: in sum */
	enum pm_phase phase;
	uint32_t clear;
	struct perf_sample s;
};

static void pm_cb(void *ctx, int status, const struct txn_result *r);

static unsigned max_out(const struct perf *pf)
{
	unsigned w = pf->sm->cfg.mad_window / 4;

	return w ? w : 1;
}

static bool node_cap(const struct perf *pf, uint64_t guid, uint16_t *cap)
{
	uintptr_t v = (uintptr_t)guidtab_get(&pf->caps, guid);

	if (!(v & CAP_KNOWN))
		return false;
	*cap = (uint16_t)v;
	return true;
}

static int submit(struct perf *pf, struct pm_req *q, uint16_t lid,
		  uint64_t guid, uint8_t method, uint16_t attr, uint8_t port)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = {.lid = lid, .qpn = 1, .qkey = MAD_QKEY_GSI};
	int rc = perf_encode(mad, sizeof(mad), method, attr, port, q->clear);

	if (rc == 0)
		rc = txn_submit_mad(pf->sm->txn, pf->agent, mad, sizeof(mad),
				    &to, guid, pm_cb, q);
	if (rc < 0)
		return rc;
	pf->outstanding++;
	pf->round_mads++;
	pf->st.mads++;
	return 0;
}

static void pump(struct perf *pf);

static void job_done(struct perf *pf, struct pm_req *q)
{
	pf->jobs[q->job].state = 2;
	pf->jobs_done++;
	free(q);
}

/* A port's reading is complete: into the totals, judged, and the counters
 * near saturation cleared. */
static void reading_done(struct perf *pf, struct pm_req *q)
{
	const struct pm_job *j = &pf->jobs[q->job];
	struct pm_port *p = pm_port_get(pf, j->guid, j->port);
	struct timespec ts;

	if (!p) {
		job_done(pf, q);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	q->clear = pm_count(p, &q->s, txn_now_us(), ts.tv_sec);
	health_on_reading(pf, j->guid, j->port, p);
	if (!q->clear) {
		job_done(pf, q);
		return;
	}
	q->phase = PM_CLEAR;
	pf->st.clears++;
	if (submit(pf, q, j->lid, j->guid, MAD_METHOD_SET,
		   PERF_ATTR_PORT_COUNTERS, j->port) < 0)
		job_done(pf, q);
}

static void on_cpi(struct perf *pf, struct pm_req *q, int status,
		   const struct txn_result *r)
{
	uint64_t guid = pf->cpi[q->job].guid;
	uint16_t cap = 0;

	/* An error answer is a node without the optional counters; a
	 * lost one is asked again next round. */
	if (status == 0 && perf_decode_cpi(r->mad, r->mad_len, &cap) < 0)
		cap = 0;
	if (status == 0 || status == -EREMOTEIO)
		guidtab_put(&pf->caps, guid,
			    (void *)(uintptr_t)(CAP_KNOWN | cap));
	pf->cpi_done++;
	free(q);
}

static void on_reading(struct perf *pf, struct pm_req *q, int status,
		       const struct txn_result *r)
{
	const struct pm_job *j = &pf->jobs[q->job];
	uint16_t cap = 0;
	int rc = status;

	if (rc == 0)
		rc = q->phase == PM_PC
			 ? perf_decode_pc(r->mad, r->mad_len, &q->s)
			 : perf_decode_pc_ext(r->mad, r->mad_len,
					      !node_cap(pf, j->guid, &cap) ||
						  !(cap & PERF_CAP_EXT_WIDTH),
					      &q->s);
	if (rc < 0) {
		pf->st.errors++;
		log_debug("perfmgr: %s of 0x%016" PRIx64 " port %u (LID %u) "
			  "failed: %s",
			  q->phase == PM_PC ? "PortCounters"
					    : "PortCountersExtended",
			  j->guid, j->port, j->lid, strerror(-rc));
		job_done(pf, q);
		return;
	}
	if (q->phase == PM_PC && node_cap(pf, j->guid, &cap) &&
	    (cap & (PERF_CAP_EXT_WIDTH | PERF_CAP_EXT_WIDTH_NOIETF))) {
		q->phase = PM_EXT;
		if (submit(pf, q, j->lid, j->guid, MAD_METHOD_GET,
			   PERF_ATTR_PORT_COUNTERS_EXT, j->port) == 0)
			return;
	}
	reading_done(pf, q);
}

/* The switch's sum: its ports are read one by one when it moved, or
 * could not be read. */
static void on_sum(struct perf *pf, struct pm_req *q, int status,
		   const struct txn_result *r)
{
	const struct pm_sumjob *sj = &pf->sum[q->job];
	bool full = true;

	if (status == 0 && perf_decode_pc(r->mad, r->mad_len, &q->s) == 0)
		full = pm_sum_moved(pf, sj->guid, &q->s) || sj->full;
	else
		pf->st.errors++;
	for (uint32_t i = 0; i < sj->n; i++)
		pf->jobs[sj->first + i].full = full;
	pf->st.last_sums_moved += full;
	pf->sum_done++;
	free(q);
}

static void pm_cb(void *ctx, int status, const struct txn_result *r)
{
	struct pm_req *q = ctx;
	struct perf *pf = q->pf;

	pf->outstanding--;
	if (status == -ECANCELED || pf->sm->stopping) {
		free(q);
		return;
	}
	if (q->phase == PM_CPI)
		on_cpi(pf, q, status, r);
	else if (q->phase == PM_SUM)
		on_sum(pf, q, status, r);
	else if (q->phase == PM_CLEAR) {
		struct pm_port *p = pm_port_find(pf, pf->jobs[q->job].guid,
						 pf->jobs[q->job].port);
		struct perf_sample s = {0};

		if (status == 0 && p &&
		    perf_decode_pc(r->mad, r->mad_len, &s) == 0)
			pm_cleared(p, &s, q->clear);
		job_done(pf, q);
	} else
		on_reading(pf, q, status, r);
	pump(pf);
}

/* The MADs the pacing allows by now: the round's estimate spread over
 * three quarters of the interval, plus one window to start with.  Under
 * ibsim every MAD costs the one simulator thread that also answers the
 * SA: half the interval raised the SA's PathRecord p99 by a quarter at
 * 16,000 hosts (docs/benchmarks.md). */
static bool paced_out(const struct perf *pf)
{
	double s = (double)(txn_now_us() - pf->round_start_us) / 1e6;

	return (double)pf->round_mads >= pf->rate * s + max_out(pf);
}

static int submit_next(struct perf *pf)
{
	struct pm_req *q = calloc(1, sizeof(*q));
	int rc;

	if (!q)
		return -ENOMEM;
	q->pf = pf;
	if (pf->next_cpi < pf->n_cpi) {
		const struct pm_job *c = &pf->cpi[pf->next_cpi];

		q->phase = PM_CPI;
		q->job = pf->next_cpi++;
		rc = submit(pf, q, c->lid, c->guid, MAD_METHOD_GET,
			    PERF_ATTR_CPI, 0);
		if (rc < 0)
			pf->cpi_done++;
	} else if (pf->next_sum < pf->n_sum) {
		const struct pm_sumjob *sj = &pf->sum[pf->next_sum];

		q->phase = PM_SUM;
		q->job = pf->next_sum++;
		rc = submit(pf, q, sj->lid, sj->guid, MAD_METHOD_GET,
			    PERF_ATTR_PORT_COUNTERS, 0xff);
		if (rc < 0)
			on_sum(pf, q, rc, NULL); /* frees q */
		return rc;
	} else {
		struct pm_job *j = &pf->jobs[pf->next_job];

		q->phase = j->full ? PM_PC : PM_EXT;
		q->job = pf->next_job++;
		j->state = 1;
		rc = submit(pf, q, j->lid, j->guid, MAD_METHOD_GET,
			    j->full ? PERF_ATTR_PORT_COUNTERS
				    : PERF_ATTR_PORT_COUNTERS_EXT,
			    j->port);
		if (rc < 0) {
			j->state = 2;
			pf->jobs_done++;
		}
	}
	if (rc < 0)
		free(q);
	return rc;
}

static void end_round(struct perf *pf);

/* Something to submit now: the ports wait for their switches' sums. */
static bool ready(const struct perf *pf)
{
	if (pf->next_cpi < pf->n_cpi || pf->next_sum < pf->n_sum)
		return true;
	return pf->sum_done == pf->n_sum && pf->next_job < pf->n_jobs;
}

static void pump(struct perf *pf)
{
	while (pf->running && !pf->sm->sweep_busy &&
	       pf->outstanding < max_out(pf) && !paced_out(pf) && ready(pf))
		if (submit_next(pf) < 0)
			break;
	if (pf->running && pf->outstanding == 0 && pf->next_cpi == pf->n_cpi &&
	    pf->sum_done == pf->n_sum && pf->next_job == pf->n_jobs)
		end_round(pf);
}

static int on_tick(sd_event_source *src, uint64_t usec, void *ud)
{
	struct perf *pf = ud;

	pump(pf);
	loop_txn_kick(pf->sm);
	if (pf->running)
		sd_event_source_set_time(src, usec + TICK_US);
	return 0;
}

static void add_job(struct perf *pf, const struct ib_node *n, uint8_t p)
{
	const struct ib_port *pt = &n->ports[p];
	uint16_t lid = node_is_switch(n) ? n->ports[0].lid : pt->lid;

	if (!lid || (!pt->remote && !pt->held))
		return;
	pf->jobs[pf->n_jobs++] = (struct pm_job){n->guid, lid, p, 0, true};
}

/* A switch offering AllPortSelect and the 64-bit data counters has its
 * ports' jobs [first, n_jobs) wait for its sum; every PM_FULL_EVERY-th
 * round they read PortCounters whatever the sum.  Staggered by the
 * switch's place among the summed switches, not in the model: a quarter
 * of them each round, so that no round is heavier than the others (the
 * model's order mixes hosts and switches unevenly: at 16,000 hosts,
 * staggered by the node index, rounds read 78 to 468 of the 2,000
 * switches port by port where a quarter is 500). */
static void add_sum(struct perf *pf, const struct ib_node *n, uint32_t first)
{
	uint16_t cap;
	bool full;

	if (!node_is_switch(n) || pf->n_jobs == first ||
	    !node_cap(pf, n->guid, &cap) || !(cap & PERF_CAP_ALL_PORT_SELECT) ||
	    !(cap & (PERF_CAP_EXT_WIDTH | PERF_CAP_EXT_WIDTH_NOIETF)))
		return;
	full = (pf->n_sum + pf->st.rounds) % PM_FULL_EVERY == 0;
	pf->sum[pf->n_sum++] = (struct pm_sumjob){
	    n->guid, n->ports[0].lid, first, pf->n_jobs - first, full};
}

/* The ports of the model, and the nodes whose capabilities are unknown. */
static int list_jobs(struct perf *pf)
{
	const struct fabric *f = pf->sm->fab;
	uint32_t n = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		n += f->nodes[i]->nports;
	free(pf->jobs);
	free(pf->cpi);
	free(pf->sum);
	pf->n_jobs = pf->n_cpi = pf->n_sum = 0;
	pf->jobs = calloc(n ? n : 1, sizeof(*pf->jobs));
	pf->cpi = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*pf->cpi));
	pf->sum = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*pf->sum));
	if (!pf->jobs || !pf->cpi || !pf->sum)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *nd = f->nodes[i];
		uint32_t before = pf->n_jobs;
		uint16_t cap;

		for (unsigned p = 1; p <= nd->nports; p++)
			add_job(pf, nd, (uint8_t)p);
		/* a port of the node gives the LID to ask */
		if (pf->n_jobs > before && !node_cap(pf, nd->guid, &cap))
			pf->cpi[pf->n_cpi++] = pf->jobs[before];
		add_sum(pf, nd, before);
	}
	return 0;
}

static void schedule(struct perf *pf, uint64_t delay_us)
{
	uint64_t now;

	sd_event_now(pf->sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(pf->round_timer, now + delay_us);
	sd_event_source_set_enabled(pf->round_timer, pf->sm->cfg.perfmgr_enable
							 ? SD_EVENT_ONESHOT
							 : SD_EVENT_OFF);
}

/* The round's MADs if no sum moved (more when some do: the round then
 * takes longer than three quarters of the interval). */
static double estimate(const struct perf *pf)
{
	double n = pf->n_cpi + pf->n_sum + 2.0 * pf->n_jobs;

	for (uint32_t i = 0; i < pf->n_sum; i++)
		if (!pf->sum[i].full)
			n -= pf->sum[i].n;
	return n;
}

/* false when this SM cannot read the counters now (not master, no
 * subnet yet): the round is tried again a second later. */
static bool start_round(struct perf *pf)
{
	struct sm *sm = pf->sm;
	double span = sm->cfg.perfmgr_interval_ms * 0.75 / 1000.0;

	if (!sm->fab || !sm->subnet_up || sm->sm_state != SM_STATE_MASTER ||
	    pf->agent < 0)
		return false; /* the master reads the counters */
	if (list_jobs(pf) < 0) {
		log_err("perfmgr: out of memory listing the ports; the "
			"counters are read next interval");
		return true;
	}
	pf->next_job = pf->jobs_done = pf->next_cpi = pf->cpi_done = 0;
	pf->next_sum = pf->sum_done = 0;
	pf->st.last_sums = pf->n_sum;
	pf->st.last_sums_moved = 0;
	pf->round_mads = 0;
	pf->round_start_us = txn_now_us();
	pf->rate = estimate(pf) / span;
	pf->running = true;
	sd_event_source_set_enabled(pf->tick, SD_EVENT_ON);
	sd_event_source_set_time(pf->tick, (uint64_t)pf->round_start_us);
	pump(pf);
	loop_txn_kick(sm);
	return true;
}

static void end_round(struct perf *pf)
{
	double ms = (double)(txn_now_us() - pf->round_start_us) / 1000.0;
	char path[600];
	int64_t t0;

	pf->running = false;
	sd_event_source_set_enabled(pf->tick, SD_EVENT_OFF);
	pf->st.rounds++;
	pf->st.ports = pf->n_jobs;
	pf->st.last_mads = pf->round_mads;
	pf->st.last_ms = ms;
	perf_page_request(pf, PAGE_ROUND);
	t0 = txn_now_us();
	if (pm_store_save(pf) < 0)
		log_warn("perfmgr: cannot write %s/port_counters.state; a "
			 "restart may judge some errors twice",
			 pf->sm->cfg.state_dir);
	log_info("perfmgr: round %" PRIu64 ": %u ports, %" PRIu64 " MADs, "
		 "%.1f ms; state written in %.1f ms",
		 pf->st.rounds, pf->n_jobs, pf->round_mads, ms,
		 (double)(txn_now_us() - t0) / 1000.0);
	if (config_dump_wanted(&pf->sm->cfg, "counters")) {
		snprintf(path, sizeof(path), "%s/port_counters.dump",
			 pf->sm->cfg.state_dir);
		if (pm_dump_write(pf, path) < 0)
			log_warn("perfmgr: cannot write %s", path);
	}
	health_tick(pf);
}

#define RETRY_US 1000000 /* a round that could not start, or the first */

static int on_round(sd_event_source *src, uint64_t usec, void *ud)
{
	struct perf *pf = ud;
	uint64_t iv = (uint64_t)pf->sm->cfg.perfmgr_interval_ms * 1000;

	if (pf->running) {
		if (!pf->warned_slow)
			log_warn("perfmgr: a round took longer than "
				 "perfmgr.interval_ms (%u ms); the next starts "
				 "when it ends",
				 pf->sm->cfg.perfmgr_interval_ms);
		pf->warned_slow = true;
	} else if (!start_round(pf)) {
		iv = RETRY_US;
	}
	schedule(pf, iv);
	return 0;
}

/* At start and when perfmgr.* changed: the first round as soon as the
 * subnet is up, then every interval. */
void pm_round_config(struct perf *pf)
{
	if (!pf->running)
		schedule(pf, RETRY_US);
}

int pm_round_init(struct perf *pf)
{
	struct sm *sm = pf->sm;
	struct mad_agent_req r = {
	    .mgmt_class = PERF_MGMT_CLASS,
	    .class_version = PERF_CLASS_VERSION,
	};
	int rc = mad_port_register(sm->port, &r);

	if (rc < 0)
		log_warn("perfmgr: cannot register a PerfMgt agent: %s; no "
			 "counters are read",
			 strerror(-rc));
	pf->agent = rc;
	rc = sd_event_add_time(sm->ev, &pf->round_timer, CLOCK_MONOTONIC,
			       UINT64_MAX, 1000, on_round, pf);
	if (rc >= 0)
		rc = sd_event_add_time(sm->ev, &pf->tick, CLOCK_MONOTONIC,
				       UINT64_MAX, 1000, on_tick, pf);
	if (rc < 0)
		return rc;
	sd_event_source_set_enabled(pf->tick, SD_EVENT_OFF);
	pm_round_config(pf);
	return 0;
}

void pm_round_fini(struct perf *pf)
{
	pf->round_timer = sd_event_source_unref(pf->round_timer);
	pf->tick = sd_event_source_unref(pf->tick);
	free(pf->jobs);
	free(pf->cpi);
	free(pf->sum);
	pf->jobs = NULL;
	pf->cpi = NULL;
	pf->sum = NULL;
	guidtab_free(&pf->caps, NULL);
	pm_sums_free(pf);
	pm_table_free(pf);
	pf->agent = -1;
}
