/* The registry of metric sources and the page they make: see metrics.h.
 * The endpoint's own families (scrapes, render time and size) come last,
 * so a scrape shows what the previous page cost. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/core/sm.h"
#include "daemon/metrics/metrics_priv.h"
#include "lib/log.h"

struct metrics *metrics_get(struct sm *sm)
{
	if (!sm->metrics)
		sm->metrics = calloc(1, sizeof(*sm->metrics));
	return sm->metrics;
}

int metrics_add(struct sm *sm, metrics_source_fn fn, void *ctx)
{
	struct metrics *m = metrics_get(sm);

	if (!m)
		return -ENOMEM;
	if (m->n == METRICS_MAX_SOURCES) {
		log_err("metrics: more than %u sources; one is not shown",
			METRICS_MAX_SOURCES);
		return -ENOSPC;
	}
	m->src[m->n++] = (struct metrics_src){fn, ctx};
	return 0;
}

void metrics_remove(struct sm *sm, metrics_source_fn fn, void *ctx)
{
	struct metrics *m = sm->metrics;
	unsigned k = 0;

	if (!m)
		return;
	for (unsigned i = 0; i < m->n; i++)
		if (m->src[i].fn != fn || m->src[i].ctx != ctx)
			m->src[k++] = m->src[i];
	m->n = k;
}

static void own_families(const struct metrics *m, struct prom_out *o)
{
	prom_family(o, "ibsmd_metrics_scrapes_total", PROM_COUNTER,
		    "Requests for /metrics answered.");
	prom_sample_u64(o, "ibsmd_metrics_scrapes_total", NULL, 0, m->scrapes);
	prom_family(o, "ibsmd_metrics_renders_total", PROM_COUNTER,
		    "Pages made (scrapes within a second share one).");
	prom_sample_u64(o, "ibsmd_metrics_renders_total", NULL, 0, m->renders);
	prom_family(o, "ibsmd_metrics_connections", PROM_GAUGE,
		    "Connections to the endpoint open now.");
	prom_sample(o, "ibsmd_metrics_connections", NULL, 0, m->conns_open);
	prom_family(o, "ibsmd_metrics_connections_cut_total", PROM_COUNTER,
		    "Connections closed because a request was not read and "
		    "answered within 10 s (slow clients).");
	prom_sample_u64(o, "ibsmd_metrics_connections_cut_total", NULL, 0,
			m->conns_cut);
	prom_family(o, "ibsmd_metrics_last_render_seconds", PROM_GAUGE,
		    "Time the previous page took to make, on the event loop.");
	prom_sample(o, "ibsmd_metrics_last_render_seconds", NULL, 0,
		    m->render_s);
	prom_family(o, "ibsmd_metrics_last_render_bytes", PROM_GAUGE,
		    "Size of the previous page.");
	prom_sample_u64(o, "ibsmd_metrics_last_render_bytes", NULL, 0,
			m->page_bytes);
}

int metrics_render(struct sm *sm, struct prom_out *o)
{
	struct metrics *m = metrics_get(sm);
	int64_t t0 = txn_now_us();

	*o = (struct prom_out){0};
	if (!m)
		return -ENOMEM;
	for (unsigned i = 0; i < m->n; i++)
		m->src[i].fn(sm, o, m->src[i].ctx);
	own_families(m, o);
	m->renders++;
	m->render_s = (txn_now_us() - t0) / 1e6;
	m->page_bytes = prom_out_size(o);
	if (o->oom) {
		prom_out_free(o);
		return -ENOMEM;
	}
	return 0;
}
