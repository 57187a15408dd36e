/* Several SMs on one subnet (IBA vol. 1, 14.4): the other SMs a heavy
 * sweep finds (ports with CapabilityMask.IsSM, asked for their SMInfo),
 * the election (priority, then the lower port GUID; a MASTER already in
 * place is followed), SMInfo answered and obeyed (sm_control.c), a
 * standby's polling of its master (sm_poll.c) and the master's handover
 * to a better standby (sm_handover.c).  The SM state itself is
 * sm->sm_state, changed only by sm_change_state() (daemon/core/smstate.c).
 * This header is the part's inside; role.h is its front door.
 * The files call one way: smrole.c < sm_control.c < sm_elect.c <
 * sm_handover.c < sm_poll.c < sm_repl.c; the sweep reaches the election
 * through sm->elect_fn, the election hears of a sweep's end through
 * SM_EV_SWEEP_DONE, and the copy becomes multicast state through
 * sm->mcg_reload (docs/design.md §8). */
#ifndef IBSMD_SM_ELECT_H
#define IBSMD_SM_ELECT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/discover/discover.h"
#include "daemon/role/role.h"
#include "daemon/sweep/sweep.h"
#include "mad/smp_sm.h"

/* Another SM as last seen. */
struct sm_peer {
	uint64_t guid; /* port GUID */
	uint16_t lid;  /* from its PortInfo */
	uint8_t path[IB_MAX_DR_HOPS + 1];
	uint8_t hops;
	char desc[65];	       /* its node's description */
	struct smp_sm_info si; /* its last SMInfo answer */
	bool answered;	       /* SMInfo answered in the last round */
};

#define ELECT_MAX_PEERS 16

struct sm_elect {
	struct sm *sm;
	struct sm_peer peers[ELECT_MAX_PEERS];
	unsigned n_peers;
	unsigned pending; /* SMInfo Gets of the running round */
	void (*done)(void *ctx, bool master);
	void *done_ctx;

	/* The master we follow (STANDBY), or we are it. */
	uint64_t master_guid;
	uint16_t master_lid;
	uint8_t master_path[IB_MAX_DR_HOPS + 1];
	uint8_t master_hops;
	uint32_t master_act_count;

	/* sm_poll.c */
	struct sd_event_source *poll_timer;
	unsigned misses; /* polls in a row the master did not answer */
	bool poll_busy;	 /* a poll is in flight */
	bool trap_sent;	 /* trap 144 told the master we are here */
	uint64_t polls, poll_misses, takeovers;

	/* Handover we started: waiting for the standby's ACKNOWLEDGE. */
	bool handing_over;
	uint64_t handover_guid;
	int64_t handover_deadline_us;
	uint64_t handovers_sent, handovers_taken;

	/* SMInfo Sets refused for a wrong SM_Key. */
	uint64_t bad_key;
	int64_t bad_key_logged_us;
};

/* sm_elect.c */
/* After a heavy sweep's discovery: asks every other IsSM port of f for
 * its SMInfo, then elects; done(ctx, true) when this SM is (or stays)
 * MASTER and the sweep goes on, done(ctx, false) when it stands by (or
 * hands over).  done runs from an engine event, never inside this call.
 * 0 or -errno. */
int elect_after_discovery(struct sm *sm, struct fabric *f, struct discovery *d,
			  void (*done)(void *ctx, bool master), void *ctx);
/* The SM follows the master m (or the better SM it waits for). */
void elect_follow(struct sm *sm, const struct sm_peer *m, const char *why);

/* sm_control.c: SMInfo Get/Set addressed to this SM. */
void elect_on_sminfo(struct sm *sm, const struct txn_request *req);

/* sm_handover.c: SMInfo Set HANDOVER to the standby p. */
int elect_send_handover(struct sm *sm, const struct sm_peer *p);

/* sm_poll.c: a standby's SMInfo polls of its master. */
void poll_start(struct sm *sm);
void poll_stop(struct sm *sm);

/* sm_repl.c: the master's multicast state copied by the standby. */
/* The master's side: answers SMStateChunk requests; false if req is not
 * one. */
bool sm_repl_request(struct sm *sm, const struct txn_request *req);
/* After a poll the master answered: fetch its state when it changed. */
void sm_repl_poll(struct sm *sm);
/* `ibsmctl status` lines of the copy. */
void sm_repl_print(FILE *out);
/* Following another master: the copy is of no use. */
void sm_repl_forget(struct sm *sm);
/* Taking the subnet over: a copy current at the last poll becomes this
 * SM's multicast state (through sm->mcg_reload), else the next sweep as
 * master sets ClientReregister (sm->rereg_pending). */
void sm_repl_take_state(struct sm *sm);

#endif
