/* Internals of the multicast group manager shared by mcg_core.c (store,
 * state machine, timers, routing slices), sa_mcmember_join.c (the SA's
 * Set/Delete handlers), mftprog.c (MFT programming) and mcg_ctl.c
 * (control socket, dumps).  One manager per daemon, owned by the loop. */
#ifndef IBSMD_MCG_PRIV_H
#define IBSMD_MCG_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/mcg.h"
#include "daemon/sa_mcm.h"
#include "routing/mcast.h"

struct sd_event_source;
struct mft_shadow;

struct mcg {
	struct sa_mcg *sa; /* the SA's record: params, state, members */
	uint32_t eid;	   /* engine group id, MC_NONE while unrouted */
	bool queued;	   /* waiting in ComputingRoutes for a slice */
	uint64_t need_gen; /* MFT pass that makes it Ready */
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
	struct mft_shadow *shadow;
	uint32_t n_shadow;
	uint32_t mgid_seq; /* SA-assigned MGIDs */
	uint64_t joins, leaves, refused, routed, blocks_sent;
};

extern struct mcg_mgr mcg_m;

const char *mcg_state_name(unsigned st);
struct mcg *mcg_find(const uint8_t mgid[16]);
/* New group for an SA record; state ReceivingJoinReq (collective) or
 * Ready (standard).  NULL on ENOMEM. */
struct mcg *mcg_create(const struct sa_mcm_rec *params);
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
void mcg_tables_changed(struct mcg *g);
/* Called by mftprog.c when a pass is complete. */
void mcg_pass_done(uint64_t gen);
/* Rewrites mfts.dump and mcgroups.dump in the state directory. */
void mcg_write_dumps(void);
void mcg_write_dumps_now(void);

/* mcg_persist.c: mcgroups.state in the state directory */
int mcg_persist_load(void);   /* at start, after the SA's own groups */
void mcg_persist_dirty(void); /* write it at the end of this loop turn */
/* After the first sweep: g over its saved tree (same color); true if so. */
bool mcg_persist_restore(struct mcg *g, struct ib_port **ports, uint32_t n);
void mcg_persist_restored(void);
void mcg_persist_fini(void);

/* mftprog.c */
void mftprog_kick(void);
void mftprog_reset(void); /* fabric replaced: shadows remapped by GUID */
void mftprog_free(void);

/* sa_mcmember_join.c */
extern const struct sa_mcm_ops mcg_sa_ops;

/* mcg_ctl.c */
int mcg_ctl_register(struct sm *sm);

#endif
