/* daemon/core, what every part of the daemon includes: struct sm, owned by
 * the event-loop thread (the configuration values the daemon uses, the MAD
 * engine, the fabric model of the last complete sweep, the SM and sweep
 * states and their counters, a pointer to each part's own state), the
 * events the parts subscribe to (events.h), the loop, the SM state and its
 * one logging change, reload, and what this SM announces of itself.  Each
 * part works on its own piece of struct sm (docs/design.md §8). */
#ifndef IBSMD_SM_H
#define IBSMD_SM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "daemon/core/events.h"
#include "lib/config.h"
#include "lib/fabric.h"
#include "lib/lids.h"
#include "lib/qos.h"
#include "mad/smp_sm.h"
#include "mad/txn.h"
#include "mad/umad_port.h"
#include "routing/hops/hops.h"

struct ucast_state;
struct ucast_layers;

struct sd_event;
struct sd_event_source;
struct ctl;
struct pool;
struct sa_daemon;
struct mcg_mgr;
struct disc_observer;
struct pgprog;
struct mkey_state;
struct pkeyprog;
struct qosprog;
struct metrics;
struct topology;
struct perf;

enum sweep_state {
	SWEEP_IDLE,
	SWEEP_LIGHT,	 /* SwitchInfo of every known switch: any change? */
	SWEEP_PROBE,	 /* PortInfo of the switches that changed (incr.c) */
	SWEEP_DISCOVER,	 /* heavy: NodeInfo/Desc, PortInfo, SwitchInfo */
	SWEEP_CONFIGURE, /* LIDs + ARMED, LinearFDBTop, LFT blocks */
	SWEEP_ACTIVATE,	 /* ACTIVE on every armed port */
	SWEEP_STATES
};

/* SMP counts by purpose, for `ibsmctl status` and the bring-up benchmark. */
struct sm_smp_counts {
	uint64_t disc_gets;  /* discovery Gets submitted */
	uint64_t light_gets; /* light-sweep SwitchInfo Gets */
	uint64_t portinfo_sets;
	uint64_t switchinfo_sets;
	uint64_t lft_blocks; /* LFT blocks submitted (not resends) */
	uint64_t
	    pkey_gets; /* P_KeyTable blocks read (daemon/program/pkeyprog.c) */
	uint64_t pkey_sets;  /* P_KeyTable blocks written */
	uint64_t sl2vl_sets; /* SL2VL blocks submitted (not resends) */
	uint64_t vlarb_sets; /* VLArb blocks submitted (not resends) */
	uint64_t min_needed; /* minimum the last heavy sweep needed */
};

struct sweep;
struct sm_elect;
struct discovery;

/* The election, handed down to the sweep (sm_elect.c sets it): after a
 * heavy sweep's discovery, done(ctx, master) tells whether the sweep goes
 * on.  0 or -errno. */
typedef int (*sm_elect_fn)(struct sm *sm, struct fabric *f, struct discovery *d,
			   void (*done)(void *ctx, bool master), void *ctx);

struct sm {
	struct config cfg;	      /* the committed configuration */
	struct qos_policy qos;	      /* cfg's qos.* keys, parsed */
	struct txn_params txnp;	      /* from cfg.mad_* */
	const char *config_path;      /* for SIGHUP reload, may be NULL */
	const char *const *overrides; /* -o KEY=VALUE, for reload too */
	size_t n_overrides;
	bool once;
	unsigned once_retries; /* --once: sweeps repeated after a failure */
	int exit_code;

	struct sd_event *ev;
	struct sd_event_source *txn_io, *txn_timer, *txn_post;
	struct sd_event_source *sweep_timer;
	struct mad_port *port;
	int issm_fd; /* /dev/infiniband/issmN held open */
	struct txn_engine *txn;
	struct ctl *ctl;
	struct pool *pool;

	struct fabric *fab;	 /* model of the last complete heavy sweep */
	struct hops hops;	 /* for fab */
	struct hops next_hops;	 /* computed for the model being swept */
	/* the unicast engine's memory of fab's routes, and of the model
	 * being swept (route.c; ftree keeps chains through repairs) */
	struct ucast_state *ucast_state, *next_ucast_state;
	/* the routes of fab (of the model being swept) follow the hosts'
	 * cabling order: the dump helper writes ftree-ca-order.dump */
	bool ca_order, next_ca_order;
	/* layered: the layers of fab's routes (of the model being swept),
	 * from which the SA answers each PathRecord's SL and QoS programming
	 * takes the SL2VL tables (route.c); NULL with other engines */
	struct ucast_layers *layers, *next_layers;
	struct guid2lid g2l;	 /* from the state dir at start */
	struct pgprog *pg;	 /* port groups per switch (pgprog.c) */
	struct mkey_state *mkey; /* M_Keys (mkey.c) */
	struct pkeyprog *pkeys;	 /* P_Key tables, partition plan (pkeyprog.c) */
	struct qosprog *qos_prog;  /* SL2VL/VLArb per node (qosprog.c) */
	struct dump_job *dump_job; /* dumps.c's helper thread */

	enum smp_sm_state sm_state;
	struct sm_elect *elect; /* other SMs, polls, handover (sm_elect.h) */
	sm_elect_fn elect_fn;	/* NULL: this SM is master */
	/* Set by the role files when this SM follows another master or takes
	 * the subnet over; read by the sweep phases.  Since another SM may
	 * have written the tables, the first sweep as master reads the LFTs
	 * back (cleared when it ends) and the MFTs (cleared by mftprog.c
	 * after its read pass); without the old master's multicast state it
	 * sets ClientReregister on CA ports (cleared when it ends). */
	bool tables_unknown;
	bool mft_unknown;
	bool rereg_pending;
	/* The multicast manager's state file reloaded (mcg_init.c sets it;
	 * NULL without one): how a standby's copy becomes this SM's state. */
	int (*mcg_reload)(struct sm *sm);
	/* The same for the SA's ServiceRecords and event subscriptions
	 * (sa_daemon.c sets them). */
	int (*svc_reload)(struct sm *sm);
	int (*inform_reload)(struct sm *sm);
	/* The M_Key files (guid2mkey, neighbors, mkey.secret) replaced by a
	 * standby's copies (mkey.c sets it). */
	int (*mkey_reload)(struct sm *sm);
	/* The links the health policy holds out of routing (daemon/perf
	 * sets it; NULL: none): in a model about to be routed it unlinks
	 * them, marks both ends held (lib/fabric.h) and recomputes the
	 * directed routes; it returns how many it unlinked. */
	uint32_t (*hold_links)(struct sm *sm, struct fabric *f);
	/* The health state file replaced by a standby's copy (daemon/perf
	 * sets it). */
	int (*health_reload)(struct sm *sm);
	/* Reports of events to the SA's subscribers (sa_report.c sets
	 * both; NULL without an SA): a multicast group created or deleted. */
	struct sa_reports *reports;
	void (*report_mcg)(struct sm *sm, const uint8_t mgid[16], uint16_t pkey,
			   bool created);
	uint32_t act_count; /* SMInfo ActCount, bumped per sweep */
	uint16_t sm_lid;
	uint64_t sm_guid; /* our port GUID */

	struct sweep *sweep; /* the sweep's own (daemon/sweep) */
	/* What the sweep tells the parts it drives (daemon/sweep writes them,
	 * the others read): a sweep is running (not SWEEP_IDLE), and the
	 * model a heavy or incremental sweep is building (NULL outside one),
	 * which the M_Key hook looks new ports up in. */
	bool sweep_busy;
	const struct fabric *sweep_model;
	bool subnet_up; /* a heavy sweep completed at least once */
	/* SIGTERM seen: what the cancelled SMPs' callbacks would start next
	 * (another sweep, another MFT pass) is not started */
	bool stopping;
	bool heavy_pending;
	uint64_t sweeps, heavy_sweeps;
	uint64_t incremental_sweeps; /* of heavy_sweeps: no discovery */
	struct timespec last_sweep;  /* CLOCK_REALTIME end of last sweep */
	double last_sweep_ms;
	char last_error[256];
	/* What the switches' LinearFDBCap left out of the last LID
	 * assignment (lids_limit_message; daemon/sweep/route.c), "" when
	 * everything fit: logged once when it changes, in `ibsmctl status`,
	 * and --once fails with it */
	char lid_limit[256];
	struct sm_smp_counts smps;
	uint64_t traps;

	/* The parts that hang off the loop (docs/design.md §8): each owns
	 * its state and hears of the loop only through subs. */
	struct sm_subs subs;
	struct sa_daemon *sa;		      /* NULL in --once */
	struct mcg_mgr *mcg;		      /* NULL in --once */
	struct metrics *metrics; /* families and endpoint (daemon/metrics) */
	struct topology *topo;	 /* the expected cabling (daemon/topology) */
	struct perf *perf;		      /* NULL in --once */
	const struct disc_observer *disc_obs; /* the SA's, may be NULL */
};

/* smstate.c: the SM state; every change through sm_change_state(). */
void sm_change_state(struct sm *sm, enum smp_sm_state to, const char *why);
const char *sm_state_name(enum smp_sm_state s);
/* The STATUS= line for systemd. */
void sm_notify_status(struct sm *sm);
/* The MFTs must be read back before the first pass (mft_unknown, as
 * master); CA port Sets carry ClientReregister (rereg_pending, as
 * master). */
static inline bool sm_mft_unknown(const struct sm *sm)
{
	return sm->mft_unknown && sm->sm_state == SM_STATE_MASTER;
}
static inline bool sm_want_rereg(const struct sm *sm)
{
	return sm->rereg_pending && sm->sm_state == SM_STATE_MASTER;
}

/* reload.c: SIGHUP.  0 (SM_EV_CONFIG_RELOADED published, a heavy sweep
 * should follow), 1 (published; only keys its subscribers apply without a
 * sweep changed), or -errno with the running config kept. */
int sm_reload(struct sm *sm);
/* SIGHUP: sm_reload and (unless it says 1) a heavy sweep, once per burst
 * of SIGHUPs. */
void sm_reload_request(struct sm *sm);
/* reload.c: the control socket's limits from sm->cfg.control_*. */
void sm_ctl_limits_from_cfg(struct sm *sm);
/* loop.c: it publishes SM_EV_SWEEP_DUE (timer, SIGHUP) and applies the
 * MAD engine parameters on SM_EV_CONFIG_RELOADED. */
int loop_init(struct sm *sm);
void loop_fini(struct sm *sm);
/* Re-arms the engine's timer after submits made outside its callbacks. */
void loop_txn_kick(struct sm *sm);
void loop_schedule_sweep(struct sm *sm, unsigned delay_ms);
/* The MAD engine parameters from sm->cfg. */
void sm_txn_params_from_cfg(struct sm *sm);

/* sm_announce.c: what this SM announces of itself in SMInfo (and the SA's
 * SMInfoRecord): its priority (the elevated one once master, when
 * sm.elevated_priority says so), its SMInfo, and the rule that ranks two
 * SMs (a higher priority, then a lower GUID, wins). */
uint8_t elect_priority(const struct sm *sm);
void elect_own_sminfo(const struct sm *sm, struct smp_sm_info *si);
bool elect_beats(uint8_t prio_a, uint64_t guid_a, uint8_t prio_b,
		 uint64_t guid_b);

/* testpoint.c: IBSMD_TEST_SIGTERM_AT=NAME[:N] stops the daemon at the Nth
 * pass through point NAME (restart tests); IBSMD_TEST_HOLD_AT=NAME[:N]
 * holds the loop there while IBSMD_TEST_HOLD_FILE exists (SA tests). */
void testpoint(const char *name);

#endif
