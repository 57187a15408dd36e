/* Glue between ibsmd and the SA server (daemon/sa/sa_server.h): registers the
 * SA class agent (0x03, version 2, RMPP) on the SM's umad port, answers
 * SubnAdm requests on the model of the last complete sweep
 * (SM_EV_FABRIC_REPLACED) - Gets of model records on the MAD receiver
 * thread, from an answer cache when asked again, the rest on the event
 * loop - and keeps the raw SMP attributes discovery read (its observer,
 * sm->disc_obs) so records carry them. */
#ifndef IBSMD_SA_DAEMON_H
#define IBSMD_SA_DAEMON_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "mad/smp.h"
#include "mad/txn.h"

struct sm;
struct sa;

/* Registers the SA agent and creates the SA as sm->sa.  0 or -errno
 * (logged). */
int sa_daemon_init(struct sm *sm);
void sa_daemon_fini(struct sm *sm);
/* The daemon's SA (NULL without sa_daemon_init), for the multicast
 * manager to fill the group table and set mcm_ops (sa_server.h,
 * sa_mcm.h). */
struct sa *sa_daemon_get(struct sm *sm);
/* ibsmctl status lines: SA requests, Gets answered on the receiver
 * thread, of which from the answer cache (nothing in --once). */
void sa_daemon_print_status(struct sm *sm, FILE *out);
/* The SA's answers by attribute and status, with their latency
 * (mad/sa_stats.h), for the metrics page; NULL without an SA. */
struct sa_answer_stats;
const struct sa_answer_stats *sa_daemon_answer_stats(struct sm *sm);
/* Answers req when it is an SA request (true), else false. */
bool sa_daemon_request(struct sm *sm, const struct txn_request *req);
/* durable_ack.c: holds the answer (buf, len) to req when req is a Set or
 * Delete and a store has changes not on disk yet (true: held, sent by
 * sa_durable_release once every store is written). */
bool sa_durable_hold(struct sm *sm, const struct txn_request *req,
		     const uint8_t *buf, size_t len);
/* A store calls it when its file is written or synced (or failed,
 * logged): the held answers whose changes are on disk go, in order. */
void sa_durable_release(struct sm *sm);
/* A store that makes changes durable (mcg_persist.c, sa_service_store.c,
 * sa_inform_store.c): whether changes wait to be written, and a request
 * to write them at the end of this loop turn.  A store that syncs on
 * another thread also gives ticket (the number of its latest change) and
 * durable (the number of the latest change on disk); it calls
 * sa_durable_release when durable grows.  Three at most; -ENOSPC past
 * that. */
struct sa_durable_store {
	bool (*unsaved)(void *ctx);
	void (*flush_soon)(void *ctx);
	void *ctx;
	uint64_t (*ticket)(void *ctx); /* NULL: syncs on the loop */
	uint64_t (*durable)(void *ctx);
};
int sa_durable_add_store(const struct sa_durable_store *s);
/* A store's write at the end of this loop turn (at once when there is no
 * loop): flush_soon of a store calls sa_durable_write_soon(sm, w); the
 * store sets w->save and w->ctx, and frees w with sa_durable_write_fini. */
struct sa_durable_writer {
	struct sd_event_source *src;
	void (*save)(void *ctx);
	void *ctx;
};
void sa_durable_write_soon(struct sm *sm, struct sa_durable_writer *w);
void sa_durable_write_fini(struct sa_durable_writer *w);
void sa_durable_remove_store(void *ctx);
/* At exit: held answers are dropped (their requests were not durable). */
void sa_durable_drop(void);
/* ibsmctl status: answers held now and in all. */
void sa_durable_print_status(FILE *out);

/* sa_service_store.c: the ServiceRecords of sa kept in services.state in
 * the state directory: loaded at once (damaged lines logged and skipped),
 * written before a Set or Delete that changed them is answered.  NULL
 * (logged) when they cannot be kept. */
struct sa_svc_store;
struct sa_svc_store *sa_svc_store_open(struct sm *sm, struct sa *sa);
void sa_svc_store_close(struct sa_svc_store *st);
/* services.state was replaced under the store (a standby's copy of its
 * master's, daemon/role/sm_repl.c): the SA's records become the file's. */
int sa_svc_store_reload(struct sa_svc_store *st);

/* sa_inform_store.c: the event subscriptions of sa kept in informs.state
 * the same way; reload: the file was replaced under the store (a
 * standby's copy of its master's). */
struct sa_inform_store;
struct sa_inform_store *sa_inform_store_open(struct sm *sm, struct sa *sa);
void sa_inform_store_close(struct sa_inform_store *st);
int sa_inform_store_reload(struct sa_inform_store *st);

/* The loop changes what the receiver thread's Get answers read besides
 * the model (the partition plan, the QoS policy): between these two,
 * under the SA's write lock; the end empties the answer cache and lets
 * Gets be answered there again.  No-ops without an SA. */
void sa_daemon_change_begin(struct sm *sm);
void sa_daemon_change_end(struct sm *sm);

/* sa_report.c: SubnAdmReports of events to the SA's subscribers (traps
 * 64-67), sent on the SA's agent; it sets sm->reports and
 * sm->report_mcg. */
struct sa_reports;
struct sa_reports *sa_reports_start(struct sm *sm, struct sa *sa, int agent);
void sa_reports_stop(struct sm *sm, struct sa_reports *r);

/* join_limit.c: answers req BUSY (true) when it is a multicast join or
 * leave over its port's multicast.join_rate. */
bool join_limit_refuse(struct sm *sm, const struct txn_request *req);

#endif
