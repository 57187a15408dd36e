/* daemon/role: this SM among the others on the subnet (IBA vol. 1, 14.4):
 * the election after each discovery, SMInfo answered and obeyed, a
 * standby's polls of its master and its takeover, handovers, the copy of
 * the master's multicast state, and the SMP requests and traps addressed
 * to the SM.  The sweep reaches the election only through sm->elect_fn,
 * which elect_init() sets (docs/design.md §8); sm_elect.h is the inside. */
#ifndef IBSMD_ROLE_H
#define IBSMD_ROLE_H

#include <stdbool.h>
#include <stdio.h>

#include "daemon/core/sm.h"
#include "mad/txn.h"

/* sm_elect.c: the election, handed to the sweep as sm->elect_fn. */
int elect_init(struct sm *sm);
void elect_fini(struct sm *sm);
/* `ibsmctl status` lines: role, master, the other SMs, the copy. */
void elect_print_status(const struct sm *sm, FILE *out);

/* The election's counts, for the metrics page (zero without it). */
struct elect_counts {
	unsigned peers; /* other SMs seen */
	uint64_t polls, poll_misses, takeovers;
	uint64_t handovers_sent, handovers_taken;
};
void elect_get_counts(const struct sm *sm, struct elect_counts *c);

/* sm_repl.c: the master's multicast state copied by a standby. */
int sm_repl_init(struct sm *sm);
void sm_repl_fini(struct sm *sm);

/* smrole.c: the SMP requests the SM answers (the MAD engine's request
 * handler; SA requests go on to daemon/sa_daemon). */
void sm_on_request(void *ctx, const struct txn_request *req);
/* Each sweep's end (rc 0 or -errno): MASTER and READY, --once retries
 * and exit, the next periodic sweep.  main.c subscribes it to
 * SM_EV_SWEEP_DONE after the election. */
void sm_sweep_done(struct sm *sm, bool heavy, int rc);

#endif
