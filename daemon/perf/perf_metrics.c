/* daemon/perf on the metrics page (daemon/metrics, man/ibsmd.8 METRICS):
 * every port's counters as ibsmd_port_<counter>_total, the unhealthy
 * links, and the performance manager's own figures.  It reads its state
 * through its front door (perf.h), as a part above would.
 *
 * The port families are hundreds of megabytes at 16,000 hosts (96,000
 * ports, 21 counters, 6 labels each), so they are one block (lib/prom.h,
 * made in slices by perf_page.c after each round) put by reference into
 * every page: a scrape neither copies it nor makes it again. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "daemon/metrics/metrics.h"
#include "daemon/perf/perf_priv.h"
#include "lib/log.h"

static int link_samples(void *ctx, const struct health_link_view *v)
{
	struct prom_out *o = ctx;
	struct prom_label ex[2] = {{"tripped", v->tripped},
				   {"action", health_action_name(v->action)}};
	char l[1200];

	if (perf_end_labels(l, sizeof(l), v->guid[0], v->port[0], v->desc[0],
			    v->guid[1], v->port[1], v->desc[1], ex,
			    2) >= sizeof(l))
		return 0;
	prom_sample_raw(o, "ibsmd_link_unhealthy", l, 1);
	return 0;
}

static int link_since(void *ctx, const struct health_link_view *v)
{
	struct prom_out *o = ctx;
	char l[1200];

	if (perf_end_labels(l, sizeof(l), v->guid[0], v->port[0], v->desc[0],
			    v->guid[1], v->port[1], v->desc[1], NULL,
			    0) >= sizeof(l))
		return 0;
	prom_sample_raw(o, "ibsmd_link_unhealthy_since_timestamp_seconds", l,
			(uint64_t)v->since);
	return 0;
}

static void health_families(struct perf *pf, struct prom_out *o,
			    const struct perf_stats *st)
{
	prom_family(o, "ibsmd_health_unhealthy_links", PROM_GAUGE,
		    "Links listed by ibsmctl health.");
	prom_sample(o, "ibsmd_health_unhealthy_links", NULL, 0, st->unhealthy);
	prom_family(o, "ibsmd_link_unhealthy", PROM_GAUGE,
		    "1 for each unhealthy link: its ends, what tripped, the "
		    "action taken.");
	health_foreach_link(pf->sm, link_samples, o);
	prom_family(o, "ibsmd_link_unhealthy_since_timestamp_seconds",
		    PROM_GAUGE,
		    "When each unhealthy link's episode began (Unix time).");
	health_foreach_link(pf->sm, link_since, o);
}

static void one(struct prom_out *o, const char *name, enum prom_type t,
		const char *help, double v)
{
	prom_family(o, name, t, help);
	prom_sample(o, name, NULL, 0, v);
}

static void perfmgr_families(struct perf *pf, struct prom_out *o,
			     const struct perf_stats *st)
{
	one(o, "ibsmd_perfmgr_enabled", PROM_GAUGE, "1 when perfmgr.enable.",
	    pf->sm->cfg.perfmgr_enable);
	one(o, "ibsmd_perfmgr_rounds_total", PROM_COUNTER,
	    "Counter rounds completed.", (double)st->rounds);
	one(o, "ibsmd_perfmgr_mads_total", PROM_COUNTER,
	    "PerfMgt MADs sent (reads and clears).", (double)st->mads);
	one(o, "ibsmd_perfmgr_read_errors_total", PROM_COUNTER,
	    "Counter reads that failed (no answer, error status).",
	    (double)st->errors);
	one(o, "ibsmd_perfmgr_clears_total", PROM_COUNTER,
	    "Counters cleared before they saturate.", (double)st->clears);
	one(o, "ibsmd_perfmgr_last_round_ports", PROM_GAUGE,
	    "Ports the last round read.", st->ports);
	one(o, "ibsmd_perfmgr_last_round_mads", PROM_GAUGE,
	    "MADs the last round sent.", (double)st->last_mads);
	one(o, "ibsmd_perfmgr_last_round_seconds", PROM_GAUGE,
	    "How long the last round took.", st->last_ms / 1000.0);
	one(o, "ibsmd_perfmgr_page_build_seconds", PROM_GAUGE,
	    "Loop time the port counters' families last took to make (in "
	    "slices, after each round).",
	    pf->page_s);
	one(o, "ibsmd_perfmgr_page_builds_total", PROM_COUNTER,
	    "Times the port counters' families were made.",
	    (double)pf->page_builds);
}

static void source(struct sm *sm, struct prom_out *o, void *ctx)
{
	struct perf *pf = ctx;
	struct perf_stats st;

	perf_get_stats(sm, &st);
	perfmgr_families(pf, o, &st);
	health_families(pf, o, &st);
	if (pf->page)
		prom_put_block(o, pf->page);
	else if (pf->n_ports)
		perf_page_request(pf, PAGE_NONE_YET);
}

int perf_metrics_init(struct perf *pf)
{
	int rc = perf_page_init(pf);

	return rc < 0 ? rc : metrics_add(pf->sm, source, pf);
}

void perf_metrics_fini(struct perf *pf)
{
	metrics_remove(pf->sm, source, pf);
	perf_page_fini(pf);
}
