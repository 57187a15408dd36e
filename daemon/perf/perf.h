/* daemon/perf, the operator's view of the fabric's links: the
 * performance manager (perfmgr.*: every linked port's PortCounters and
 * PortCountersExtended, read through the MAD engine every
 * perfmgr.interval_ms while no sweep runs, kept as 64-bit totals across
 * wraps, clears and restarts) and the link health policy (health.*:
 * error thresholds per interval and link flaps make a link unhealthy;
 * report, isolate or disable it; the state persisted and copied to a
 * standby).  docs/design.md §3.12.
 *
 * The front door for the parts above (the daemon's status commands and
 * the metrics endpoint): start and stop, and two read-only iterations.
 * Both run on the loop thread only, and what they hand the callback is
 * valid during the call only. */
#ifndef IBSMD_PERF_H
#define IBSMD_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "daemon/core/sm.h"
#include "mad/perf.h"

/* Loads the state files, subscribes to the model's changes and the
 * reload, registers `ibsmctl health`, `health clear` and `perf`, and sets
 * sm->hold_links and sm->health_reload.  0 or -errno.  In --once (no
 * control socket) it does nothing. */
int perf_init(struct sm *sm);
void perf_fini(struct sm *sm);

/* One port the performance manager reads, with its link's far end: the
 * peer in the model, or for a link held out of routing the peer it had
 * (remote_guid 0: none known). */
struct perf_port_view {
	uint64_t node_guid;
	uint8_t port;
	const char *node_desc;
	uint64_t remote_guid;
	uint8_t remote_port;
	const char *remote_desc; /* "" when none */
	bool held;		 /* held out of routing (health.policy) */
	/* 64-bit totals since ibsmd first read the port (kept across
	 * restarts); counter c is valid when valid & (1 << c). */
	const uint64_t *total; /* [PERF_COUNTERS], enum perf_counter */
	uint32_t valid;
	/* The totals at the reading before the last one, and the seconds
	 * between the two (0: one reading only): the growth in the last
	 * interval is total[c] - delta_base[c], its rate that / interval_s. */
	const uint64_t *delta_base; /* [PERF_COUNTERS] */
	double interval_s;
	time_t last_read; /* wall clock of the last reading, 0: never */
};
typedef int (*perf_port_fn)(void *ctx, const struct perf_port_view *v);
/* Every port of the current model that was read at least once, in model
 * order; stops at the first nonzero return of fn and returns it. */
int perf_foreach_port(const struct sm *sm, perf_port_fn fn, void *ctx);

enum health_action {
	HEALTH_REPORTED, /* health.policy report */
	HEALTH_ISOLATED, /* routed around, still up */
	HEALTH_DISABLED, /* port set Disabled, routed around */
	HEALTH_KEPT,	 /* isolate/disable asked, but the link's loss would
			    cut a node off: reported only */
};
const char *health_action_name(enum health_action a);

/* One unhealthy link, both ends as the model last saw them. */
struct health_link_view {
	uint64_t guid[2];
	uint8_t port[2];
	const char *desc[2];
	const char *tripped; /* a counter name (perf_counters[].name) or
				"flaps" */
	uint64_t value;	     /* the errors in the interval, or the flaps in
				health.flap_window_s, that tripped it */
	time_t since;	     /* the episode's start (wall clock) */
	time_t last_bad;     /* the last time it crossed a limit */
	enum health_action action;
};
typedef int (*health_link_fn)(void *ctx, const struct health_link_view *v);
/* Every unhealthy link, oldest episode first; stops like
 * perf_foreach_port. */
int health_foreach_link(const struct sm *sm, health_link_fn fn, void *ctx);

/* What the performance manager did, for `ibsmctl status` and metrics. */
struct perf_stats {
	uint64_t rounds;    /* counter rounds completed */
	uint64_t mads;	    /* PerfMgt MADs sent (Gets and clears) */
	uint64_t errors;    /* reads that failed */
	uint64_t clears;    /* counter clears before saturation */
	uint32_t ports;	    /* ports read in the last round */
	uint64_t last_mads; /* MADs of the last round */
	uint32_t last_sums; /* switches read as an AllPortSelect sum in it */
	uint32_t last_sums_moved; /* of those, read port by port */
	double last_ms;		  /* its duration */
	uint32_t unhealthy;	  /* links listed by health_foreach_link */
};
void perf_get_stats(const struct sm *sm, struct perf_stats *st);
/* key value lines for `ibsmctl status` (perfmgr_* and health_*). */
void perf_print_status(const struct sm *sm, FILE *out);

#endif
