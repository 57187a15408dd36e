/* The multicast group manager (docs/design.md §4.1, §4.2): groups keyed by MGID with their
 * member ports and JoinState bits, the collective (MemberCount) state
 * machine with join/leave timeouts, routing by the multicast engine in
 * slices between I/O, and MFT programming.  The SA answers
 * MCMemberRecord Set/Delete through it (daemon/sa_mcmember_join.c). */
#ifndef IBSMD_MCG_H
#define IBSMD_MCG_H

struct sm;

/* Hooks the manager into the SA and the control socket (not in --once).
 * 0 or -errno (logged). */
int mcg_init(struct sm *sm);
/* The same on a given SA (unit tests: no umad port). */
struct sa;
int mcg_init_sa(struct sm *sm, struct sa *sa);
void mcg_fini(struct sm *sm);
/* After a heavy sweep replaced sm->fab: a new engine context over it,
 * every group routed again, MFTs programmed where they differ. */
void mcg_after_sweep(struct sm *sm);
/* Takeover: the groups become those of the state file (the master's copy
 * a standby kept); the next sweep restores their trees.  0 or -errno. */
int mcg_reload(struct sm *sm);
/* mfts.dump and mcgroups.dump of the groups into dir (nothing before the
 * first sweep).  0 or -errno. */
int mcg_write_dumps_to(const char *dir);

#endif
