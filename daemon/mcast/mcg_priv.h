/* Internals of the multicast group manager shared by mcg_core.c (store,
 * state machine, timers, routing slices), sa_mcmember_join.c (the SA's
 * Set/Delete handlers), mftprog.c (MFT programming) and mcg_ctl.c
 * (control socket, dumps).  One manager per daemon, hung off struct sm
 * (sm->mcg) and passed to every function.  The files call each other in
 * one direction only: mftprog.c < mcg_core.c < mcg_journal.c < mcg_ctl.c
 * < mcg_persist.c < sa_mcmember_join.c < mcg_ipoib.c < mcg_init.c; a
 * lower file reaches a higher one only through the hooks that mcg_init.c
 * sets. */
#ifndef IBSMD_MCG_PRIV_H
#define IBSMD_MCG_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "daemon/mcast/mcg.h"
#include "daemon/sa/sa_mcm.h"
#include "routing/mcast/mcast.h"

struct sd_event_source;
struct mft_shadow;

struct mcg_mgr;

struct mcg {
	struct mcg_mgr *mgr;
	struct sa_mcg *sa; /* the SA's record: params, state, members */
	uint32_t eid;	   /* engine group id, MC_NONE while unrouted */
	bool queued;	   /* waiting in ComputingRoutes for a slice */
	uint64_t need_gen; /* MFT pass that makes it Ready */
	bool journaled;	   /* its route record is due (mcg_journal.c) */
	bool announced;	   /* its creation was reported (trap 66), or it
			      was loaded: its end is reported (trap 67) */
	struct sd_event_source *timer; /* join or leave timeout */
};

struct mcg_mgr {
	struct sm *sm;
	struct sa *sa;
	struct mc_ctx *mc; /* NULL until the first sweep */
	uint32_t colors;   /* MFT entries in use: min MulticastFDBCap */
	struct mcg **v;
	uint32_t n, cap;
	struct mcg **queue; /* ComputingRoutes, FIFO from qhead */
	uint32_t qhead, qn, qcap;
	struct sd_event_source *slicer;
	/* MFT programming passes (mftprog.c) */
	uint64_t gen_req, gen_done, gen_pass;
	bool prog_busy, prog_dirty;
	unsigned prog_pending, prog_failed;
	unsigned failed_passes;		  /* in a row */
	struct sd_event_source *kick_src; /* coalescing timer */
	uint64_t first_change_us;	  /* of the burst it waits for */
	struct mft_shadow *shadow;
	uint32_t n_shadow;
	bool mft_full;	  /* the next pass compares every switch */
	uint32_t mft_top; /* blocks in use at the last pass */
	uint32_t mgid_seq; /* SA-assigned MGIDs */
	uint64_t joins, leaves, refused, routed, blocks_sent;
	bool orphan;  /* freed by the last MFT transfer (mcg_fini) */
	bool reading; /* a read-back pass is out (after a takeover) */
	struct mcg_journal *journal; /* mcg_journal.c */
	/* Upward calls, set by mcg_init.c: */
	void (*dirty)(struct mcg_mgr *m);	/* groups changed: the dumps */
	void (*tree_changed)(struct mcg *g);	/* g's tree, MLID or state */
	void (*journal_due)(struct mcg_mgr *m); /* records wait: flush them
						   at the end of the turn */
	void (*gone)(struct mcg *g);		/* g is being destroyed */
	bool (*restore)(struct mcg *g, struct ib_port **ports, uint32_t n);
	/* before a new model: save every routed group's tree, read on the
	 * model old, for restore */
	void (*capture)(struct mcg_mgr *m, const struct fabric *old);
	void (*restored)(struct mcg_mgr *m); /* after the first re-route */
	void (*pass_done)(struct mcg_mgr *m, uint64_t gen); /* mftprog */
};

const char *mcg_state_name(unsigned st);
struct mcg *mcg_find(struct mcg_mgr *m, const uint8_t mgid[16]);
/* New group for an SA record; state ReceivingJoinReq (collective) or
 * Ready (standard).  NULL on ENOMEM. */
struct mcg *mcg_create(struct mcg_mgr *m, const struct sa_mcm_rec *params);
void mcg_change_state(struct mcg *g, unsigned to, const char *why);
/* Destroying: off the engine, color freed, MFTs reprogrammed, removed. */
void mcg_destroy(struct mcg *g, const char *why);
/* Collective group complete: ComputingRoutes, queued for a slice. */
void mcg_queue(struct mcg *g);
/* Standard group: routes it now with its current members or adds port p
 * to its tree.  0 or -errno (-ENOSPC: no color). */
int mcg_std_add(struct mcg *g, struct ib_port *p);
int mcg_std_remove(struct mcg *g, struct ib_port *p);
/* (Re)arms the join or leave timeout. */
void mcg_arm_timer(struct mcg *g, uint32_t ms);
void mcg_disarm_timer(struct mcg *g);
/* A change to the engine's trees: program the MFTs, groups waiting for
 * this change become Ready when the switches acknowledged it. */
void mcg_tables_changed(struct mcg_mgr *m, struct mcg *g);
/* The pass_done hook: mftprog.c completed a pass. */
void mcg_pass_done(struct mcg_mgr *m, uint64_t gen);
/* Store start (the SA's own groups adopted, the routing slicer) and end
 * (groups, queue, engine context freed). */
int mcg_core_init(struct mcg_mgr *m);
void mcg_core_fini(struct mcg_mgr *m);
/* SM_EV_FABRIC_REPLACED: a new engine context over sm->fab, every group
 * routed again, MFTs programmed where they differ. */
void mcg_after_sweep(struct mcg_mgr *m, const struct fabric *old);

/* mcg_ctl.c: rewrites mfts.dump and mcgroups.dump in the state dir. */
void mcg_write_dumps_now(struct mcg_mgr *m);

/* mcg_journal.c: the journal of mcgroups.state and its group commit.
 * Records, in the order things happen: a whole group (created), a
 * member joined, changed or dropped (mcg_journal_member: as the group
 * has it now, "drop" when it has it no more), a group gone; a group
 * whose tree changed gets its route record at the batch's end. */
int mcg_journal_start(struct mcg_mgr *m);
void mcg_journal_stop(struct mcg_mgr *m);
void mcg_journal_group(struct mcg *g);
void mcg_journal_member(struct mcg *g, const uint8_t port_gid[16]);
void mcg_journal_gone(struct mcg *g);
void mcg_journal_route(struct mcg *g);
/* The batch appended with one write, its sync asked of the syncer
 * thread; -EBADF/-EIO when it cannot be appended (a snapshot must carry
 * it: no file open, a record lost to ENOMEM, a failed write). */
int mcg_journal_flush(struct mcg_mgr *m);
bool mcg_journal_pending(struct mcg_mgr *m); /* records not written */
bool mcg_journal_unsaved(struct mcg_mgr *m); /* records not on disk */
uint64_t mcg_journal_ticket(struct mcg_mgr *m);
uint64_t mcg_journal_durable(struct mcg_mgr *m);
uint32_t mcg_journal_lines(struct mcg_mgr *m);
bool mcg_journal_open(struct mcg_mgr *m);
/* The file at path (its journal holding lines lines) is appended to;
 * NULL: none. */
void mcg_journal_reopen(struct mcg_mgr *m, const char *path, uint32_t lines);
/* A snapshot was written to path (rc 0) or failed (warned): every record
 * so far counts as saved; held answers go. */
void mcg_journal_snapshot_done(struct mcg_mgr *m, const char *path, int rc);
/* Records waiting are dropped (a copy taken over, a load's own). */
void mcg_journal_forget(struct mcg_mgr *m);
void mcg_journal_print(struct mcg_mgr *m, FILE *out);
/* Formatting shared with the snapshot: a GID, a tree's BFS order
 * (ord: 2 * n_nodes entries; returns how many nodes), a group's lines
 * (tree_done: trees listed already, NULL: list every one); lines. */
void mcg_put_gid(FILE *fp, const uint8_t g[16]);
uint32_t mcg_tree_order(const struct mc_tree *t, uint32_t *ord);
uint32_t mcg_write_group(FILE *fp, struct mcg *g, uint8_t *tree_done);

/* mcg_persist.c: mcgroups.state in the state directory */
int mcg_persist_load(struct mcg_mgr *m); /* after the SA's own groups */
/* Something the journal does not carry changed (trees moved by a sweep,
 * the partitions' groups): a snapshot soon, and the dumps. */
void mcg_persist_dirty(struct mcg_mgr *m);
/* Only the dumps (mfts.dump, mcgroups.dump) are out of date. */
void mcg_persist_dumps_dirty(struct mcg_mgr *m);
/* After the first sweep: g over its saved tree (same color); true if so. */
bool mcg_persist_restore(struct mcg *g, struct ib_port **ports, uint32_t n);
void mcg_persist_capture(struct mcg_mgr *m, const struct fabric *old);
void mcg_persist_restored(struct mcg_mgr *m);
void mcg_persist_fini(struct mcg_mgr *m);

/* mftprog.c */
void mftprog_kick(struct mcg_mgr *m);
void mftprog_reset(struct mcg_mgr *m); /* new fabric: shadows by GUID */
void mftprog_free(struct mcg_mgr *m);
/* sa->mft_block for MulticastForwardingTableRecord: switch sw's MFT block
 * (32 MLIDs) at position (16 ports) as ibsmd last wrote it; 1 if it holds
 * a port, 0 if empty or unknown (never written, or its write failed), -1
 * past the blocks of the colors in use. */
int mftprog_sa_block(void *ctx, const struct ib_node *sw, uint16_t block,
		     uint8_t position, uint16_t masks[32]);

/* sa_mcmember_join.c */
extern const struct sa_mcm_ops mcg_sa_ops;

/* mcg_ctl.c */
int mcg_ctl_register(struct sm *sm);

/* mcg_ipoib.c: the IPoIB broadcast groups of sm->cfg.partitions made,
 * updated or let go (at start and on each reload). */
void mcg_ipoib_apply(struct mcg_mgr *m);

#endif
