/* daemon/program: everything the SM writes into the ports' and switches'
 * tables, below the sweep that runs it: port set-up (LID, LMC, SM LID,
 * ARMED, ACTIVE), LFT blocks, P_Key tables, SL2VL and VLArb tables, port
 * groups, M_Keys, and reading tables back before writing them.
 *
 * A programmer never sees who runs it.  The sweep (daemon/sweep), or a
 * reload outside any sweep, hands it a pass: the model to program, what
 * discovery read of it, and a done() hook; the programmer holds the pass
 * once per SMP or transfer in flight, adds to its counters, and the last
 * release calls done().  docs/design.md §8. */
#ifndef IBSMD_PROGRAM_H
#define IBSMD_PROGRAM_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/core/sm.h"
#include "daemon/discover/discover.h"
#include "lib/namelist.h"
#include "mad/smp_sm.h"
#include "mad/txn.h"
#include "routing/unicast/unicast.h"

struct prog_pass {
	struct sm *sm;
	struct fabric *f;	/* the model programmed */
	struct discovery *disc; /* what discovery read of f; NULL: none */
	bool incremental;	/* f is sm->fab edited, not rediscovered */
	unsigned pending;	/* SMPs and transfers in flight */
	void (*done)(struct prog_pass *p); /* the last release */
	/* Results, added to by the programmers. */
	uint32_t set_errors; /* PortInfo/SwitchInfo Sets that failed */
	uint32_t lft_errors; /* LFT blocks that failed */
	/* Where Sets and LFT blocks failed, and the first reason: one line
	 * per sweep for all of them (the sweep logs it at its end) */
	struct namelist set_failed, lft_failed;
	char set_why[96], lft_why[96];
	uint32_t lft_switches; /* switches whose LFT blocks were sent */
	uint64_t lft_blocks;
	uint64_t lft_read; /* LFT blocks read back before writing */
	/* LFT blocks past a switch's LinearFDBCap, never sent (LID
	 * assignment keeps every LID below the smallest cap, so this stays
	 * 0 unless a model and its switches disagree) */
	uint64_t lft_past_cap;
	uint32_t armed, activated;
	/* portsetup.c's pacing: the next node to set up, its Sets in
	 * flight (a bounded number queued at a time, so that a 40,960-host
	 * fabric does not hold 100,000 queued SMPs: docs/design.md §3.6) */
	uint32_t ps_next, ps_inflight;
	bool ps_activate, ps_feeding, ps_held;
	uint64_t need_sets; /* the fewest Sets this fabric needed */
	char error[256];
};

static inline void prog_hold(struct prog_pass *p)
{
	p->pending++;
}

static inline void prog_release(struct prog_pass *p)
{
	if (--p->pending == 0)
		p->done(p);
}

/* portsetup.c: LID/LMC/SM LID and ARMED (one Set per port, only where
 * something differs) plus SwitchInfo LinearFDBTop; then ACTIVE. */
int portsetup_arm(struct prog_pass *p);
int portsetup_activate(struct prog_pass *p);

/* portsetup.c, for the health policy (daemon/perf): port pn of the node
 * with this GUID in sm->fab gets PortPhysicalState Disabled (disable) or
 * Polling (enable again): a PortInfo Get, then a Set of what it read with
 * the M_Key fields as portsetup writes them.  done(ctx, 0/-errno) runs
 * from an engine event (may be NULL).  0 or -errno (-ENOENT: not in the
 * model). */
int portsetup_phys_state(struct sm *sm, uint64_t guid, uint8_t pn, bool disable,
			 void (*done)(void *ctx, int status), void *ctx);

/* lftprog.c: the LFT blocks that differ from what was last programmed on
 * the same switch (old: the previous model, may be NULL = send all). */
int lftprog_start(struct prog_pass *p, struct fabric *old);

/* pkeyprog.c (docs/design.md §1.2): P_Key tables.  init subscribes to
 * fabric replaced (a new plan for the SA), config reloaded (a new plan
 * and a pass over the current model) and sweep done (a reload's pass that
 * waited for the sweep); fini after the MAD engine is gone (its callbacks
 * use the passes).  start: the plan of p->f and its blocks, holding p
 * until that pass ended.  0 or -errno. */
int pkeyprog_init(struct sm *sm);
void pkeyprog_fini(struct sm *sm);
int pkeyprog_start(struct prog_pass *p);

/* qosprog.c (docs/design.md §5.2): SL2VL and VLArb tables.  init
 * subscribes to config reloaded and sweep done (a reload that changed
 * only tables is applied without a sweep).  start, in a heavy sweep's
 * CONFIGURE phase: learns every port's VLCap, VLArb capacities and state
 * from the discovery, then sends the blocks that differ, holding p per
 * transfer.  0 or -errno. */
int qosprog_init(struct sm *sm);
void qosprog_destroy(struct sm *sm);
int qosprog_start(struct prog_pass *p);

/* pgprog.c (docs/design.md §4.3): port groups.  probe: discovery has
 * just read switch sw's SwitchInfo; a switch not asked before is asked
 * PortGroupInfo now, while discovery and routing run, so that CONFIGURE
 * does not wait for it.  routed: the routing result of the model being
 * swept (keeps the updown order and rank it needs).  start, in CONFIGURE
 * after the LFT blocks: probes what was not probed, waits for the probes
 * still out, computes and programs, holding p until every transfer
 * ended. */
void pgprog_probe(struct sm *sm, const struct ib_node *sw);
void pgprog_routed(struct sm *sm, struct ucast_result *res);
int pgprog_start(struct prog_pass *p);
void pgprog_destroy(struct sm *sm);

/* mkey.c (docs/design.md §3.10): M_Keys, hanging off sm->mkey.  start
 * reads guid2mkey, neighbors and (per-port mode) the secret and installs
 * the engine's hook, before the first sweep so that a restart reaches the
 * ports it keyed: 0 or -errno (logged).  stop writes what changed.  Trap
 * 256 (Bad M_Key) from the port at LID from: counted and logged; as
 * master with M_Keys managed, the port is read with its key, which stops
 * its lease timer (IBA 14.2.4.2). */
int mkey_start(struct sm *sm);
void mkey_stop(struct sm *sm);
void mkey_on_trap256(struct sm *sm, const struct smp_notice *n, uint16_t from);
void mkey_print_status(const struct sm *sm, FILE *out);

/* readback.c: a switch's table blocks (LFT or MFT Gets) read before they
 * are written, so that an SM taking over a programmed subnet sends only
 * the blocks that differ.  data: n blocks of SMP_DATA_SIZE bytes as read,
 * ok[i] false where block i could not be read (write it); both are freed
 * after done returns. */
typedef void (*readback_done_fn)(void *ctx, const uint8_t *data, const bool *ok,
				 uint32_t n);
/* One Get per attribute modifier mods[0..n) to the switch at the directed
 * route path/hops (copied); done runs from an engine event when every Get
 * has completed (also for n = 0).  0 or -ENOMEM/-EINVAL. */
int readback_start(struct txn_engine *eng, const uint8_t *path, uint8_t hops,
		   uint64_t dest, uint16_t attr, const uint32_t *mods,
		   uint32_t n, readback_done_fn done, void *ctx);

#endif
