/* The SM's own metric families on the metrics page (daemon/metrics):
 * the SM state and election, sweeps and their phases, the fabric's size,
 * SMPs, traps, the SA's answers and the multicast groups.  Like
 * statectl.c (`ibsmctl status`) it sits at the top of daemon/ and reads
 * the parts through their front doors; each family is documented in
 * man/ibsmd.8, METRICS. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "daemon/core/sm.h"
#include "daemon/main.h"
#include "daemon/mcast/mcg.h"
#include "daemon/metrics/metrics.h"
#include "daemon/role/role.h"
#include "daemon/sa/sa_mcm.h"
#include "daemon/sa/sa_server.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/sweep/sweep.h"
#include "mad/sa_stats.h"
#include "routing/unicast/layers.h"

static void one(struct prom_out *o, const char *name, enum prom_type t,
		const char *help, double v)
{
	prom_family(o, name, t, help);
	prom_sample(o, name, NULL, 0, v);
}

static void role(struct sm *sm, struct prom_out *o)
{
	static const struct {
		enum smp_sm_state st;
		const char *name;
	} states[] = {{SM_STATE_NOT_ACTIVE, "not_active"},
		      {SM_STATE_DISCOVERING, "discovering"},
		      {SM_STATE_STANDBY, "standby"},
		      {SM_STATE_MASTER, "master"}};
	struct elect_counts c;

	prom_family(o, "ibsmd_sm_state", PROM_GAUGE,
		    "1 for the state this SM is in (IBA SMInfo SMState).");
	for (unsigned i = 0; i < 4; i++) {
		struct prom_label l = {"state", states[i].name};
		prom_sample(o, "ibsmd_sm_state", &l, 1,
			    sm->sm_state == states[i].st);
	}
	one(o, "ibsmd_sm_priority", PROM_GAUGE,
	    "Priority this SM announces in SMInfo.", elect_priority(sm));
	one(o, "ibsmd_sm_activity", PROM_GAUGE,
	    "SMInfo ActCount: grows with each sweep while master.",
	    sm->act_count);
	elect_get_counts(sm, &c);
	one(o, "ibsmd_sm_peers", PROM_GAUGE,
	    "Other SMs on the subnet seen by the last election.", c.peers);
	one(o, "ibsmd_sm_polls_total", PROM_COUNTER,
	    "SMInfo polls of the master sent while standing by.", c.polls);
	one(o, "ibsmd_sm_poll_misses_total", PROM_COUNTER,
	    "Polls of the master that were not answered.", c.poll_misses);
	one(o, "ibsmd_sm_takeovers_total", PROM_COUNTER,
	    "Times this SM took the subnet over from a silent master.",
	    c.takeovers);
	prom_family(o, "ibsmd_sm_handovers_total", PROM_COUNTER,
		    "Mastership handed to another SM (sent) or received from "
		    "one (taken).");
	struct prom_label ls = {"direction", "sent"},
			  lt = {"direction", "taken"};
	prom_sample_u64(o, "ibsmd_sm_handovers_total", &ls, 1,
			c.handovers_sent);
	prom_sample_u64(o, "ibsmd_sm_handovers_total", &lt, 1,
			c.handovers_taken);
}

static void sweep_phases(struct sm *sm, struct prom_out *o)
{
	static const struct {
		enum sweep_state st;
		const char *name;
	} ph[] = {{SWEEP_LIGHT, "light"},
		  {SWEEP_PROBE, "probe"},
		  {SWEEP_DISCOVER, "discover"},
		  {SWEEP_CONFIGURE, "configure"},
		  {SWEEP_ACTIVATE, "activate"}};

	prom_family(o, "ibsmd_sweep_phase_duration_seconds", PROM_HISTOGRAM,
		    "Time each sweep phase took (discover includes LIDs and "
		    "routing).");
	for (unsigned i = 0; i < sizeof(ph) / sizeof(ph[0]); i++) {
		const struct prom_hist *h = sweep_phase_hist(sm, ph[i].st);
		struct prom_label l = {"phase", ph[i].name};

		if (h)
			prom_hist_write(o, "ibsmd_sweep_phase_duration_seconds",
					&l, 1, h);
	}
}

static void sweeps(struct sm *sm, struct prom_out *o)
{
	struct prom_label d = {"kind", "discovery"},
			  in = {"kind", "incremental"};

	one(o, "ibsmd_sweeps_total", PROM_COUNTER,
	    "Sweeps run (light, incremental and heavy), failed ones included.",
	    sm->sweeps);
	prom_family(o, "ibsmd_sweeps_adopted_total", PROM_COUNTER,
		    "Sweeps whose model replaced the fabric model, by how it "
		    "was made (discovery or an incremental repair).");
	prom_sample_u64(o, "ibsmd_sweeps_adopted_total", &d, 1,
			sm->heavy_sweeps - sm->incremental_sweeps);
	prom_sample_u64(o, "ibsmd_sweeps_adopted_total", &in, 1,
			sm->incremental_sweeps);
	one(o, "ibsmd_sweep_failures_total", PROM_COUNTER,
	    "Sweeps that ended in an error (ibsmctl status last_error).",
	    sweep_failures(sm));
	one(o, "ibsmd_sweep_in_progress", PROM_GAUGE, "1 while a sweep runs.",
	    sm->sweep_busy);
	one(o, "ibsmd_last_sweep_duration_seconds", PROM_GAUGE,
	    "Duration of the last sweep.", sm->last_sweep_ms / 1000.0);
	one(o, "ibsmd_last_sweep_timestamp_seconds", PROM_GAUGE,
	    "When the last sweep ended (Unix time; 0: none yet).",
	    sm->sweeps ? sm->last_sweep.tv_sec + sm->last_sweep.tv_nsec / 1e9
		       : 0);
	one(o, "ibsmd_subnet_up", PROM_GAUGE,
	    "1 once a heavy sweep brought the subnet up.", sm->subnet_up);
	sweep_phases(sm, o);
}

static void fabric(struct sm *sm, struct prom_out *o)
{
	const struct fabric *f = sm->fab;
	unsigned n[4] = {0};
	static const char *const types[] = {"", "ca", "switch", "router"};

	for (uint32_t i = 0; f && i < f->n_nodes; i++)
		if (f->nodes[i]->type <= IB_NODE_ROUTER)
			n[f->nodes[i]->type]++;
	prom_family(o, "ibsmd_fabric_nodes", PROM_GAUGE,
		    "Nodes of the fabric model, by type.");
	for (unsigned t = 1; t < 4; t++) {
		struct prom_label l = {"type", types[t]};
		prom_sample(o, "ibsmd_fabric_nodes", &l, 1, n[t]);
	}
	one(o, "ibsmd_fabric_links", PROM_GAUGE, "Links of the fabric model.",
	    f ? fabric_count_links(f) : 0);
	one(o, "ibsmd_fabric_max_lid", PROM_GAUGE, "Highest LID assigned.",
	    f ? f->max_lid : 0);
	prom_family(o, "ibsmd_unicast_layers", PROM_GAUGE,
		    "The layered engine's layers (VLs) of the routes in "
		    "force: made, and used by host pairs (0 with other "
		    "engines).");
	for (unsigned k = 0; k < 2; k++) {
		const struct ucast_layers *ly = sm->layers;
		struct prom_label l = {"kind", k ? "used" : "made"};
		prom_sample(o, "ibsmd_unicast_layers", &l, 1,
			    !ly ? 0 : k ? ly->used : ly->n_layers);
	}
}

static void smp_engine(struct sm *sm, struct prom_out *o)
{
	static const struct txn_stats none;
	const struct txn_stats *t = sm->txn ? txn_stats(sm->txn) : &none;
	const struct {
		const char *name, *help;
		double v;
	} c[] = {
	    {"ibsmd_smps_sent_total",
	     "MADs the SM sent through its transaction engine (SMPs, and SA "
	     "reports to subscribers), retries included.",
	     t->sent},
	    {"ibsmd_smps_received_total",
	     "Responses matched to a request sent.", t->received},
	    {"ibsmd_smps_retried_total", "Requests sent again after a timeout.",
	     t->retried},
	    {"ibsmd_smps_timeouts_total",
	     "Tries that got no answer in mad.timeout_ms (or an immediate "
	     "umad timeout).",
	     t->timeouts},
	    {"ibsmd_smps_lost_total", "Requests that ran out of retries.",
	     t->lost},
	    {"ibsmd_smps_remote_errors_total",
	     "Responses with a MAD status other than 0.", t->remote_errors},
	    {"ibsmd_smps_unmatched_total",
	     "Responses to no outstanding request (late duplicates).",
	     t->unmatched},
	    {"ibsmd_mads_dropped_total",
	     "Received MADs that failed validation.", t->dropped},
	    {"ibsmd_traps_total", "Traps received.", sm->traps},
	};

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		one(o, c[i].name, PROM_COUNTER, c[i].help, c[i].v);
	one(o, "ibsmd_smps_outstanding", PROM_GAUGE,
	    "Requests on the wire now (at most mad.window).", t->outstanding);
}

static void smp_purposes(struct sm *sm, struct prom_out *o)
{
	const struct sm_smp_counts *c = &sm->smps;
	const struct {
		const char *name;
		uint64_t v;
	} p[] = {{"discovery_get", c->disc_gets},
		 {"light_get", c->light_gets},
		 {"portinfo_set", c->portinfo_sets},
		 {"switchinfo_set", c->switchinfo_sets},
		 {"lft_block", c->lft_blocks},
		 {"pkey_get", c->pkey_gets},
		 {"pkey_set", c->pkey_sets},
		 {"sl2vl_set", c->sl2vl_sets},
		 {"vlarb_set", c->vlarb_sets}};

	prom_family(o, "ibsmd_smps_by_purpose_total", PROM_COUNTER,
		    "SMPs the sweeps submitted, by purpose (first tries).");
	for (unsigned i = 0; i < sizeof(p) / sizeof(p[0]); i++) {
		struct prom_label l = {"purpose", p[i].name};
		prom_sample_u64(o, "ibsmd_smps_by_purpose_total", &l, 1,
				p[i].v);
	}
}

static void sa(struct sm *sm, struct prom_out *o)
{
	const struct sa_answer_stats *st = sa_daemon_answer_stats(sm);
	const struct sa *s = sa_daemon_get(sm);

	if (!st || !s)
		return;
	sa_answer_stats_write(o, st);
	one(o, "ibsmd_sa_requests_dropped_total", PROM_COUNTER,
	    "SA requests dropped without an answer (malformed, a response, "
	    "a wrong SM_Key...).",
	    __atomic_load_n(&s->stats.dropped, __ATOMIC_RELAXED));
}

static void mcast(struct sm *sm, struct prom_out *o)
{
	static const char *const names[] = {
	    "",	     "receiving_join_req",  "computing_routes",
	    "ready", "receiving_leave_req", "destroying"};
	static uint8_t mlid_seen[0x4000 / 8];
	const struct sa *s = sa_daemon_get(sm);
	unsigned n[6] = {0}, mlids = 0;

	if (!s)
		return;
	memset(mlid_seen, 0, sizeof(mlid_seen));
	for (uint32_t i = 0; i < s->mcgs.n; i++) {
		const struct sa_mcg *g = s->mcgs.v[i];
		unsigned m = g->rec.mlid - IB_LID_MCAST_START;

		if (g->state < 6)
			n[g->state]++;
		if (g->rec.mlid >= IB_LID_MCAST_START && m < 0x4000 &&
		    !(mlid_seen[m / 8] & (1u << (m % 8)))) {
			mlid_seen[m / 8] |= (uint8_t)(1u << (m % 8));
			mlids++;
		}
	}
	prom_family(o, "ibsmd_multicast_groups", PROM_GAUGE,
		    "Multicast groups by state (docs/design.md §5.1).");
	for (unsigned i = 1; i < 6; i++) {
		struct prom_label l = {"state", names[i]};
		prom_sample(o, "ibsmd_multicast_groups", &l, 1, n[i]);
	}
	one(o, "ibsmd_multicast_mlids_used", PROM_GAUGE,
	    "Distinct MLIDs the groups hold.", mlids);
	one(o, "ibsmd_multicast_mlids_limit", PROM_GAUGE,
	    "MLIDs the groups may use (MFT entries of the smallest "
	    "MulticastFDBCap, or multicast.mft_size).",
	    mcg_mlid_limit(sm));
}

static void source(struct sm *sm, struct prom_out *o, void *ctx)
{
	role(sm, o);
	sweeps(sm, o);
	fabric(sm, o);
	smp_engine(sm, o);
	smp_purposes(sm, o);
	sa(sm, o);
	mcast(sm, o);
}

int metrics_sm_register(struct sm *sm)
{
	return metrics_add(sm, source, NULL);
}
