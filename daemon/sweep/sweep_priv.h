/* Inside daemon/sweep: the state shared by the sweep state machine
 * (sweep.c) and the phases of its own (light.c, incr.c); the table
 * programmers (daemon/program) get only the pass in it.  A phase submits
 * its SMPs, holding the pass once per SMP; the last release advances the
 * state machine through the pass's done hook, so that no phase calls back
 * into sweep.c. */
#ifndef IBSMD_SWEEP_PRIV_H
#define IBSMD_SWEEP_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/core/sm.h"
#include "daemon/discover/discover.h"
#include "daemon/program/program.h"
#include "daemon/sweep/sweep.h"
#include "lib/prom.h"

struct sweep {
	struct sm *sm;
	enum sweep_state state;
	/* What the programmers see: the model, counters, the error, and the
	 * count of SMPs in flight (sweep_hold/sweep_release). */
	struct prog_pass pass;
	bool heavy; /* this run rediscovers */
	bool again; /* another sweep was requested meanwhile */
	bool again_heavy;
	int64_t start_us;
	int64_t state_us;    /* when the current state was entered */
	uint64_t state_sent; /* the engine's SMPs sent by then */

	struct fabric *nf; /* heavy: the model being built */
	struct discovery *disc;
	/* What discovery tells the sweep of every answer: passed on to the
	 * SA's observer, and each switch's SwitchInfo starts its port-group
	 * probe (pgprog_probe) */
	struct disc_observer obs;

	/* Light sweep verdict: something changed; what the switches that
	 * reported a change or stayed silent said (incr.c). */
	bool changed;
	struct incr *incr;
	bool incremental; /* this sweep edits the model, no discovery */
	bool hold_pending; /* sweep_request_hold() since the last sweep */
	/* Switches trap 128 named since the last sweep began: the next
	 * sweep probes them at once instead of a light sweep. */
	uint64_t hints[64];
	uint32_t n_hints;
	bool hints_overflow;

	/* Each phase's duration, and the sweeps that failed
	 * (sweep_stats.c, for the metrics page). */
	struct prom_hist phase_us[SWEEP_STATES];
	uint64_t failed;

	/* Results of this sweep besides the pass's. */
	uint32_t left_out;  /* nodes/ports discovery had to leave out */
	uint64_t need_gets; /* the minimum this fabric needed */
};

static inline void sweep_hold(struct sweep *s)
{
	prog_hold(&s->pass);
}

static inline void sweep_release(struct sweep *s)
{
	prog_release(&s->pass);
}

/* s->nf becomes f (NULL: none), and sm->sweep_model with it: the M_Key
 * hook (daemon/program) looks new ports up there. */
static inline void sweep_set_model(struct sweep *s, struct fabric *f)
{
	s->nf = f;
	s->sm->sweep_model = f;
}

/* light.c: SwitchInfo Get of every switch in sm->fab; s->changed when a
 * switch reports PortStateChange (incr_note_psc) or does not answer
 * (incr_note_silent). */
int light_start(struct sweep *s);

/* incr.c: the incremental sweep, after a light sweep or for switches a
 * trap named.  incr_note_psc: a switch reported PortStateChange (si as the
 * light sweep read it) or a trap named it (si NULL: read in the probe).
 * incr_possible: some switch to probe, and this SM is a settled master.
 * The probe phase reads those switches' ports; incr_build then makes s->nf
 * the model without the links that went down (1), finds nothing to route
 * (0), or says why a heavy sweep is needed (-1). */
void incr_note_psc(struct sweep *s, uint64_t guid,
		   const uint8_t si[SMP_DATA_SIZE]);
void incr_note_silent(struct sweep *s, uint64_t guid);
bool incr_possible(const struct sweep *s);
/* After incr_build: switches silent in the light sweep, or whose old
 * route crossed a lost link, asked over their new routes (what they say
 * is judged by incr_recheck_ok). */
bool incr_need_recheck(const struct sweep *s);
int incr_recheck_start(struct sweep *s);
bool incr_recheck_ok(const struct sweep *s, char *why, size_t len);
/* The recheck found more switches reporting a change (far ends of lost
 * links): their ports are read over s->nf, then incr_apply cuts what they
 * lost too: 0 the model is complete, 1 ask more switches (another
 * recheck), -1 with why. */
bool incr_need_probe(const struct sweep *s);
int incr_apply(struct sweep *s, char *why, size_t len);
int incr_probe_start(struct sweep *s);
int incr_build(struct sweep *s, char *why, size_t len);
/* sweep_request_hold: s->nf becomes a copy of the model with the held
 * links cut (1), or nothing new is held (0), or -1 with why. */
int incr_hold_build(struct sweep *s, char *why, size_t len);
void incr_reset(struct sweep *s);

/* route.c: between discovery and programming, LIDs (lib/lids: keep valid
 * ones, then the state directory's guid2lid, then fresh ones), hop tables
 * and the configured unicast engine; after the sweep, guid2lid and the
 * dumps. */
/* Fills f's LIDs and LFTs and sm->sm_lid.  0 or -errno with err set. */
/* keep: f's LFTs hold the routes in force; keep those still right
 * (incremental sweep; see ucast_params.keep_lft). */
int route_compute(struct sm *sm, struct fabric *f, bool keep, char *err,
		  size_t len);
/* The routes just computed use more than one layer of the layered engine
 * where fab's used one (or none): SL2VL tables must be written first. */
bool layers_need_tables(const struct sm *sm);
/* After sm->fab was replaced by a swept model: takes its hop tables,
 * remembers its LIDs, writes guid2lid and the dumps. */
void route_after_sweep(struct sm *sm);

/* dumps.c: a model was adopted: guid2lid now, then the dumps the dumps
 * key lists on a helper thread that reads sm->fab and sm->hops.
 * guid2lid's 0/-errno.  dumps_join waits for the helper (before sm->fab
 * or sm->hops change); its 0/-errno. */
int dumps_after_sweep(struct sm *sm);
int dumps_join(struct sm *sm);

/* sweep_stats.c: the phase s leaves took us; the sweep ended with rc. */
void sweep_stats_init(struct sweep *s);
void sweep_stats_phase(struct sweep *s, enum sweep_state left, int64_t us);
void sweep_stats_end(struct sweep *s, int rc);

/* sweep.c: trap 128 named the switch with this LID: the next non-heavy
 * sweep probes it (and what its change hides) instead of every switch. */
void sweep_hint(struct sm *sm, uint16_t lid);

#endif
