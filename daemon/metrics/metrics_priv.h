/* Inside daemon/metrics: the registry (metrics_reg.c) and the HTTP
 * endpoint (metrics_http.c) share struct metrics, hung off sm->metrics. */
#ifndef IBSMD_METRICS_PRIV_H
#define IBSMD_METRICS_PRIV_H

#include <stdint.h>

#include "mad/txn.h"

#include "daemon/metrics/metrics.h"

struct sd_event_source;
struct MHD_Daemon;
struct MHD_Response;
struct MHD_Connection;
struct metrics_conn;

struct metrics_src {
	metrics_source_fn fn;
	void *ctx;
};

struct metrics {
	struct metrics_src src[METRICS_MAX_SOURCES];
	unsigned n;
	/* the endpoint (NULL: none) and its sources in the loop */
	struct MHD_Daemon *mhd;
	struct sd_event_source *io, *timer;
	char *listen; /* the address it is bound to */
	/* the page served to every scrape of its second */
	struct MHD_Response *page;
	uint64_t page_us; /* when it was rendered (txn_now_us) */
	/* open connections, oldest request first (metrics_conn.c) */
	struct metrics_conn *conns, *conns_tail;
	unsigned conns_open;
	/* the endpoint's own figures */
	uint64_t scrapes, renders, conns_cut;
	double render_s; /* the last render took */
	size_t page_bytes;
};

/* metrics_reg.c: sm->metrics, made on first use; NULL without memory. */
struct metrics *metrics_get(struct sm *sm);

/* metrics_conn.c: MHD's connection and request-completed notifiers
 * (cls: struct metrics), and the deadline: connections whose request is
 * older than it are shut down; returns the microseconds until the next
 * deadline, or -1 when none is pending. */
#include <microhttpd.h>
void metrics_conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
			 enum MHD_ConnectionNotificationCode toe);
void metrics_conn_completed(void *cls, struct MHD_Connection *c, void **rctx,
			    enum MHD_RequestTerminationCode toe);
int64_t metrics_conn_enforce(struct metrics *m, int64_t now);

#endif
