/* The multicast group manager (docs/design.md §4.1, §4.2): groups keyed by MGID with their
 * member ports and JoinState bits, the collective (MemberCount) state
 * machine with join/leave timeouts, routing by the multicast engine in
 * slices between I/O, and MFT programming.  The SA answers
 * MCMemberRecord Set/Delete through it (daemon/mcast/sa_mcmember_join.c). */
#ifndef IBSMD_MCG_H
#define IBSMD_MCG_H

struct sm;
struct mcg_mgr;

/* Creates sm->mcg over the SA's group table and hooks it into the SA, the
 * control socket and SM_EV_FABRIC_REPLACED (after a heavy sweep: a new
 * engine context, every group routed again, MFTs programmed where they
 * differ).  Not in --once.  0 or -errno (logged). */
int mcg_init(struct sm *sm);
/* The same on a given SA (unit tests: no umad port). */
struct sa;
int mcg_init_sa(struct sm *sm, struct sa *sa);
void mcg_fini(struct sm *sm);
/* Takeover: the groups become those of the state file (the master's copy
 * a standby kept); the next sweep restores their trees.  0 or -errno. */
int mcg_reload(struct sm *sm);
/* MLIDs the groups may use: the MFT entries of the smallest
 * MulticastFDBCap, or multicast.mft_size (0 before the first sweep). */
unsigned mcg_mlid_limit(const struct sm *sm);
/* mfts.dump and mcgroups.dump of the groups into dir (nothing without a
 * manager or before the first sweep).  0 or -errno. */
int mcg_write_dumps_to(struct mcg_mgr *m, const char *dir);

#endif
