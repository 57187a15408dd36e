/* daemon/metrics: the Prometheus endpoint (metrics.listen, served at
 * /metrics by libmicrohttpd driven from the event loop, no thread of its
 * own) and the registry of the metric families it shows.  A part adds its
 * families with metrics_add(): at each scrape (at most once a second, the
 * page is shared by the scrapes of that second) the endpoint calls every
 * source in the order they were added, on the loop thread, and the source
 * writes whole families with lib/prom.h.  The endpoint knows none of
 * them, as the loop knows the parts only through events
 * (docs/design.md §3.1, §8). */
#ifndef IBSMD_METRICS_H
#define IBSMD_METRICS_H

#include "lib/prom.h"

struct sm;

/* A source of metric families: writes each of its families whole
 * (prom_family, then its samples) into o.  Runs on the loop thread, so it
 * may read its part's state as it is; it should not take long (it delays
 * the loop: a per-port family of 100,000 ports keeps its label sets made
 * once per model, prom_labels_fmt).  Names start with "ibsmd_" and follow
 * Prometheus' conventions (counters end in _total, durations are
 * seconds); every family is documented in man/ibsmd.8, METRICS. */
typedef void (*metrics_source_fn)(struct sm *sm, struct prom_out *o, void *ctx);
/* A part below the top adds its own families; its folder is placed after
 * daemon/metrics/ in docs/design.md §8.  The port counters, for example:
 *
 *	static void counters(struct sm *sm, struct prom_out *o, void *ctx)
 *	{
 *		struct perfmgr *pm = ctx;
 *
 *		prom_family(o, "ibsmd_port_symbol_errors_total", PROM_COUNTER,
 *			    "SymbolErrorCounter, 64-bit total.");
 *		for (uint32_t i = 0; i < pm->n_ports; i++)
 *			prom_sample_raw(o, "ibsmd_port_symbol_errors_total",
 *					pm->port[i].labels,
 *					pm->port[i].symbol_errors);
 *		... one family after the other ...
 *	}
 *	metrics_add(sm, counters, pm);		at its start
 *	metrics_remove(sm, counters, pm);	at its end
 *
 * where each port's labels are made once per model with prom_labels_fmt()
 * from {node_guid "0x..." (16 hex digits), port, node_desc, remote_guid,
 * remote_port, remote_desc}.  Families of hundreds of megabytes (the
 * port counters at 16,000 hosts, daemon/perf/perf_metrics.c) are made
 * once into a prom_block when their data changed, and each page gets
 * the block by reference: prom_put_block(o, block). */

/* 0, -ENOSPC past METRICS_MAX_SOURCES (a programming error, logged) or
 * -ENOMEM.  Works before metrics_start and in --once (nothing is
 * served then). */
#define METRICS_MAX_SOURCES 32
int metrics_add(struct sm *sm, metrics_source_fn fn, void *ctx);
/* Removes every registration of (fn, ctx). */
void metrics_remove(struct sm *sm, metrics_source_fn fn, void *ctx);

/* The page as a scrape would get it now (tests, benchmarks): every
 * source, then the endpoint's own families; blocks a source put by
 * reference stay so (prom_out_read, prom_out_flatten).  0, or -ENOMEM
 * (o freed). */
int metrics_render(struct sm *sm, struct prom_out *o);

/* Opens the endpoint when metrics.listen is set (not in --once) and
 * follows the key on SIGHUP.  0 or -errno (logged: the address cannot be
 * bound). */
int metrics_start(struct sm *sm);
/* Closes the endpoint and frees the registry. */
void metrics_stop(struct sm *sm);

#endif
