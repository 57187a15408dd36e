/* SIGHUP: the configuration is built again from the same file and -o
 * overrides into a fresh struct, validated whole, and committed only if
 * it is good (bgpd's way).  Keys that name resources opened at start
 * (port.*, state_dir, control_socket) keep their running values until a
 * restart; everything else (routing, SM priority, sweep interval, MAD
 * windows/timeouts/retries, log level) applies from the next sweep, which
 * the reload starts, unless only keys that apply without one changed (the
 * QoS tables, the partitions' P_Key tables: written where they differ over
 * the current model). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "daemon/ctl/ctl.h"
#include "daemon/core/events.h"
#include "daemon/core/sm.h"
#include "lib/log.h"

static int keep_str(char **dst, const char *running, const char *key)
{
	char *v;

	if (strcmp(*dst ? *dst : "", running ? running : "") == 0)
		return 0;
	log_warn("reload: %s changed; it applies at the next restart", key);
	v = strdup(running ? running : "");
	if (!v)
		return -ENOMEM;
	free(*dst);
	*dst = v;
	return 0;
}

/* Puts the running values of the restart-only keys into nc. */
static int keep_restart_keys(struct config *nc, const struct config *cur)
{
	int rc;

	if (nc->port_guid != cur->port_guid || nc->port_num != cur->port_num)
		log_warn("reload: port.guid/port.num changed; they apply at "
			 "the next restart");
	nc->port_guid = cur->port_guid;
	nc->port_num = cur->port_num;
	rc = keep_str(&nc->port_ca, cur->port_ca, "port.ca");
	if (rc == 0)
		rc = keep_str(&nc->state_dir, cur->state_dir, "state_dir");
	if (rc == 0)
		rc = keep_str(&nc->control_socket, cur->control_socket,
			      "control_socket");
	return rc;
}

void sm_ctl_limits_from_cfg(struct sm *sm)
{
	struct ctl_limits lim = {
	    .max_connections = sm->cfg.control_max_connections,
	    .idle_timeout_ms = sm->cfg.control_idle_timeout_ms,
	    .max_output = sm->cfg.control_max_output,
	};

	ctl_set_limits(sm->ctl, &lim);
}

/* Keys whose new values their owners apply at once, on the current
 * model, with no sweep (qosprog.c: OperationalVLs and VLHighLimit where
 * they change, then only the SL2VL/VLArb blocks that differ; the SA:
 * PathRecord SLs; pkeyprog.c: the P_Key blocks that differ, the SA's
 * partition plan, mcg_ipoib.c: the partitions' IPoIB groups;
 * daemon/metrics: the endpoint's address; daemon/perf: the round timer,
 * the thresholds and the policy).  When nothing
 * else changed, a reload starts no heavy sweep. */
static const char *const applied_without_sweep[] = {
    "qos.enable",     "qos.sl2vl",   "qos.vlarb_high", "qos.vlarb_low",
    "qos.default_sl", "qos.classes", "qos.max_vls",    "qos.high_limit",
    "partitions",     "metrics.listen", "perfmgr.",    "health.",
    NULL,
};

int sm_reload(struct sm *sm)
{
	struct config nc;
	struct qos_policy nq;
	char err[512] = "";
	bool sweep;
	int rc = config_build(&nc, sm->config_path, sm->overrides,
			      sm->n_overrides, err, sizeof(err));

	if (rc == 0 &&
	    ((rc = config_check_daemon(&nc, err, sizeof(err))) < 0 ||
	     (rc = qos_policy_from_config(&nq, &nc, err, sizeof(err))) < 0))
		config_free(&nc);
	if (rc < 0) {
		log_err("reload: %s; keeping the running configuration",
			err[0] ? err : strerror(-rc));
		return rc;
	}
	rc = keep_restart_keys(&nc, &sm->cfg);
	if (rc < 0) {
		config_free(&nc);
		qos_policy_free(&nq);
		return rc;
	}
	sweep = config_equal(&nc, &sm->cfg) ||
		!config_equal_except(&nc, &sm->cfg, applied_without_sweep);
	config_free(&sm->cfg);
	sm->cfg = nc;
	/* the SA keeps its own copy, swapped on SM_EV_CONFIG_RELOADED */
	qos_policy_free(&sm->qos);
	sm->qos = nq;
	log_set_level((enum log_level)sm->cfg.log_level);
	sm_ctl_limits_from_cfg(sm);
	log_notice("reload: configuration %s applied%s",
		   sm->config_path ? sm->config_path : "(built-in defaults)",
		   sweep ? ""
			 : " without a sweep (only qos.*, partitions, "
			   "metrics.listen, perfmgr.* or health.* changed)");
	sm_publish(sm, SM_EV_CONFIG_RELOADED,
		   &(struct sm_event_arg){.heavy = sweep});
	return sweep ? 0 : 1;
}

/* A burst of SIGHUPs (a script in a loop, a config manager poking every
 * unit) is one reload and one heavy sweep: the reload runs once no SIGHUP
 * came for RELOAD_QUIET_MS, and never later than RELOAD_MAX_DELAY_MS after
 * the first of the burst. */
#define RELOAD_QUIET_MS	    300
#define RELOAD_MAX_DELAY_MS 3000

static struct {
	sd_event_source *timer; /* floating: the event loop owns it */
	uint64_t first_us;
	unsigned signals;
} R;

static int on_reload_timer(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sm *sm = ud;

	log_notice("SIGHUP: reloading the configuration (%u SIGHUP%s)",
		   R.signals, R.signals == 1 ? "" : "s coalesced");
	R.signals = 0;
	if (sm_reload(sm) != 1)
		sm_publish(
		    sm, SM_EV_SWEEP_DUE,
		    &(struct sm_event_arg){.heavy = true, .why = "SIGHUP"});
	return 0;
}

void sm_reload_request(struct sm *sm)
{
	uint64_t now, at;

	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	if (!R.timer) {
		if (sd_event_add_time(sm->ev, &R.timer, CLOCK_MONOTONIC,
				      UINT64_MAX, 10000, on_reload_timer,
				      sm) < 0) {
			on_reload_timer(NULL, now, sm); /* at once, then */
			return;
		}
		sd_event_source_set_floating(R.timer, 1);
	}
	if (R.signals++ == 0)
		R.first_us = now;
	at = now + RELOAD_QUIET_MS * 1000ull;
	if (at > R.first_us + RELOAD_MAX_DELAY_MS * 1000ull)
		at = R.first_us + RELOAD_MAX_DELAY_MS * 1000ull;
	sd_event_source_set_time(R.timer, at);
	sd_event_source_set_enabled(R.timer, SD_EVENT_ONESHOT);
}
