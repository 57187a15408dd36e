/* Inside a sweep: the state shared by the sweep state machine (sweep.c)
 * and the phases it runs (portsetup.c, lftprog.c, light.c).  A phase
 * submits its SMPs, holding the sweep once per SMP; the last release
 * advances the state machine through phase_done, so that the phases
 * never call back into sweep.c. */
#ifndef IBSMD_SWEEP_H
#define IBSMD_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/discover/discover.h"
#include "daemon/core/sm.h"

struct sweep {
	struct sm *sm;
	enum sweep_state state;
	bool heavy; /* this run rediscovers */
	bool again; /* another sweep was requested meanwhile */
	bool again_heavy;
	unsigned pending; /* SMPs/transfers of the current phase */
	int64_t start_us;
	int64_t state_us; /* when the current state was entered */
	uint64_t state_sent; /* the engine's SMPs sent by then */

	struct fabric *nf; /* heavy: the model being built */
	struct discovery *disc;

	/* Light sweep verdict: something changed; what the switches that
	 * reported a change or stayed silent said (incr.c). */
	bool changed;
	struct incr *incr;
	bool incremental; /* this sweep edits the model, no discovery */
	/* Switches trap 128 named since the last sweep began: the next
	 * sweep probes them at once instead of a light sweep. */
	uint64_t hints[64];
	uint32_t n_hints;
	bool hints_overflow;

	/* Results of this sweep. */
	uint32_t set_errors;   /* PortInfo/SwitchInfo Sets that failed */
	uint32_t lft_errors;   /* LFT blocks that failed */
	uint32_t lft_switches; /* switches whose LFT blocks were sent */
	uint64_t lft_blocks;
	uint64_t lft_read; /* LFT blocks read back before writing */
	uint32_t armed, activated;
	uint32_t left_out; /* nodes/ports discovery had to leave out */
	uint64_t need_gets, need_sets; /* the minimum this fabric needed */
	char error[256];
	void (*phase_done)(struct sweep *s); /* set by sweep.c */
};

static inline void sweep_hold(struct sweep *s)
{
	s->pending++;
}

static inline void sweep_release(struct sweep *s)
{
	if (--s->pending == 0)
		s->phase_done(s);
}

/* portsetup.c: LID/LMC/SM LID and ARMED (one Set per port, only where
 * something differs) plus SwitchInfo LinearFDBTop; then ACTIVE. */
int portsetup_arm(struct sweep *s);
int portsetup_activate(struct sweep *s);

/* lftprog.c: the LFT blocks that differ from what was last programmed on
 * the same switch (old: the previous model, may be NULL = send all). */
int lftprog_start(struct sweep *s, struct fabric *old);

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
void incr_reset(struct sweep *s);

#endif
