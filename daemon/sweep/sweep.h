/* daemon/sweep: the sweep state machine and its phases (docs/design.md
 * §3.4): light sweeps, directed-route discovery, incremental repair after
 * a link went down, LIDs and routing, then the table programmers
 * (daemon/program) in CONFIGURE and ACTIVATE; traps; guid2lid and the
 * dumps.  It publishes SM_EV_SWEEP_DONE and, after a heavy sweep,
 * SM_EV_FABRIC_REPLACED; it reaches the election only through
 * sm->elect_fn.  sweep_priv.h is its inside. */
#ifndef IBSMD_SWEEP_H
#define IBSMD_SWEEP_H

#include <stdbool.h>

#include "daemon/core/sm.h"
#include "mad/txn.h"

/* Subscribes to SM_EV_SWEEP_DUE and starts the QoS programmer. */
int sweep_create(struct sm *sm);
void sweep_destroy(struct sm *sm);
/* Requests a sweep (heavy: rediscover; else light check first).  When one
 * is running, it is repeated after it ends. */
void sweep_request(struct sm *sm, bool heavy, const char *why);
/* The health policy holds more links out (sm->hold_links): a master with
 * a settled model routes a copy of it without them and sends what
 * differs, with no discovery (incr.c); otherwise a heavy sweep, which
 * holds them out too. */
void sweep_request_hold(struct sm *sm, const char *why);
enum sweep_state sweep_state(const struct sm *sm);
const char *sweep_state_name(enum sweep_state s);

/* sweep_stats.c, for the metrics page: the time the phases of every
 * sweep so far took (a histogram of phase st: LIGHT, PROBE, DISCOVER
 * (with LIDs and routing), CONFIGURE, ACTIVATE; NULL for IDLE or
 * without a sweep part), and the sweeps that ended in an error (not
 * those cancelled because another SM is master). */
struct prom_hist;
const struct prom_hist *sweep_phase_hist(const struct sm *sm,
					 enum sweep_state st);
uint64_t sweep_failures(const struct sm *sm);

/* traps.c: a trap SMP: TrapRepress, then acted on within the per-port
 * limits (sm.trap_limit per sm.trap_interval_ms). */
void traps_on_trap(struct sm *sm, const struct txn_request *req);

/* route.c: reads <state_dir>/guid2lid into sm->g2l (missing file: empty). */
int route_load_guid2lid(struct sm *sm);
/* Frees what route_compute() kept at exit. */
void route_fini(struct sm *sm);

/* dumps.c (the multicast tables come from mcg_write_dumps_to): every dump
 * of sm->fab to dir, in the loop (ibsmctl dump); dumps_free at exit. */
int sm_write_dumps(struct sm *sm, const char *dir);
void dumps_free(struct sm *sm);

#endif
