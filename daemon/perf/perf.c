/* daemon/perf's start and stop and the events it hears. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/perf/perf_priv.h"
#include "lib/log.h"

#define HEALTH_TICK_US (10ull * 1000000) /* recovery checks */

/* Links gone between two models are flaps; the port table follows. */
static void on_fabric(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	struct perf *pf = ctx;

	health_on_model(pf, a->old, sm->fab);
	perf_page_request(pf, PAGE_MODEL); /* the peers in the labels */
}

static void on_reload(struct sm *sm, enum sm_event ev,
		      const struct sm_event_arg *a, void *ctx)
{
	pm_round_config(ctx);
}

static int on_health_tick(sd_event_source *src, uint64_t usec, void *ud)
{
	health_tick(ud);
	sd_event_source_set_time(src, usec + HEALTH_TICK_US);
	return 0;
}

static int start(struct perf *pf)
{
	struct sm *sm = pf->sm;
	int rc = pm_store_load(pf);

	if (rc == 0)
		rc = health_init(pf);
	if (rc == 0)
		rc = pm_round_init(pf);
	if (rc == 0)
		rc = sd_event_add_time(sm->ev, &pf->health_timer,
				       CLOCK_MONOTONIC, HEALTH_TICK_US, 1000000,
				       on_health_tick, pf);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(pf->health_timer, SD_EVENT_ON);
	if (rc >= 0)
		rc = sm_subscribe(sm, SM_EV_FABRIC_REPLACED, on_fabric, pf);
	if (rc == 0)
		rc = sm_subscribe(sm, SM_EV_CONFIG_RELOADED, on_reload, pf);
	if (rc == 0 && sm->ctl)
		rc = perf_ctl_register(pf);
	if (rc == 0)
		rc = perf_metrics_init(pf);
	return rc < 0 ? rc : 0;
}

int perf_init(struct sm *sm)
{
	struct perf *pf;
	int rc;

	if (sm->once)
		return 0;
	pf = calloc(1, sizeof(*pf));
	if (!pf)
		return -ENOMEM;
	pf->sm = sm;
	sm->perf = pf;
	sm->hold_links = health_hold_links;
	sm->health_reload = health_reload;
	rc = start(pf);
	if (rc < 0) {
		log_err("perfmgr: cannot start: %s", strerror(-rc));
		perf_fini(sm);
	}
	return rc;
}

void perf_fini(struct sm *sm)
{
	struct perf *pf = sm->perf;

	if (!pf)
		return;
	sm_unsubscribe(sm, on_fabric, pf);
	sm_unsubscribe(sm, on_reload, pf);
	perf_metrics_fini(pf);
	pf->health_timer = sd_event_source_unref(pf->health_timer);
	/* the readings since the last round's save: a restart must not
	 * judge their growth again */
	if (pf->n_ports && pm_store_save(pf) < 0)
		log_warn("perfmgr: cannot write %s/port_counters.state at exit",
			 sm->cfg.state_dir);
	pm_round_fini(pf);
	health_fini(pf);
	sm->hold_links = NULL;
	sm->health_reload = NULL;
	sm->perf = NULL;
	free(pf);
}
