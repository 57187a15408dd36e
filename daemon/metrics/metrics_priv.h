/* Inside daemon/metrics: the registry (metrics_reg.c) and the HTTP
 * endpoint (metrics_http.c) share struct metrics, hung off sm->metrics. */
#ifndef IBSMD_METRICS_PRIV_H
#define IBSMD_METRICS_PRIV_H

#include <stdint.h>

#include "daemon/metrics/metrics.h"

struct sd_event_source;
struct MHD_Daemon;
struct MHD_Response;

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
	/* the endpoint's own figures */
	uint64_t scrapes, renders, refused;
	double render_s; /* the last render took */
	size_t page_bytes;
};

/* metrics_reg.c: sm->metrics, made on first use; NULL without memory. */
struct metrics *metrics_get(struct sm *sm);

#endif
