/* Traps from the fabric (IBA 14.2.5): every trap is answered with
 * TrapRepress at once, as the IBA asks, so a port stops resending it.
 * What a trap makes the SM do is throttled per source port: within one
 * sm.trap_interval_ms only sm.trap_limit traps of a port are acted on
 * (trap 128 asks for a heavy sweep, the others are logged), the rest are
 * counted and summed into one log line per interval.  A trap 128 starts a
 * light sweep, which turns heavy when a switch reports PortStateChange:
 * a real link change costs one SwitchInfo round more, a forged trap no
 * rediscovery.  Sweeps asked by traps start at most once per interval; a
 * request inside the interval is held and served at its end, so no link
 * change is lost. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/program/program.h"
#include "daemon/sweep/sweep_priv.h"
#include "lib/event.h"
#include "lib/log.h"
#include "mad/smp_sm.h"

#define TRAP_LIDS 0xC000 /* unicast LIDs; others share slot 0 */

/* Per source LID; 20 bytes each, allocated at the first trap. */
struct trap_src {
	uint32_t start_ms; /* of its current interval (wraps: unsigned) */
	uint32_t n;	   /* traps in it */
	uint32_t over;	   /* of which ignored */
	/* A port's interval and the log summary's do not line up: what the
	 * summary says of a port is counted apart, per summary. */
	uint32_t sum_gen;  /* summary this port was last counted in */
	uint32_t sum_over; /* its ignored traps in that summary */
};

static struct {
	struct trap_src *src;
	sd_event_source *timer; /* floating: the event loop owns it */
	uint64_t last_sweep_ms, last_log_ms;
	bool sweep_pending;
	uint64_t over, over_ports; /* ignored since the last summary */
	uint32_t sum_gen;	   /* bumped by each summary; 0 never used */
	uint16_t top_lid;
	uint32_t top_n;
} TR;

static uint64_t now_ms(const struct sm *sm)
{
	uint64_t us;

	sd_event_now(sm->ev, CLOCK_MONOTONIC, &us);
	return us / 1000;
}

static void log_summary(struct sm *sm, uint64_t now)
{
	if (!TR.over || now - TR.last_log_ms < sm->cfg.sm_trap_interval_ms)
		return;
	log_warn("traps: %" PRIu64 " traps from %" PRIu64 " ports over "
		 "sm.trap_limit (%u per %u ms) repressed and ignored, most "
		 "from LID %u (%u)",
		 TR.over, TR.over_ports, sm->cfg.sm_trap_limit,
		 sm->cfg.sm_trap_interval_ms, TR.top_lid, TR.top_n);
	TR.last_log_ms = now;
	TR.over = TR.over_ports = 0;
	TR.top_n = 0;
	if (++TR.sum_gen == 0)
		TR.sum_gen = 1;
}

/* Counts the trap against its port; false when it is over the limit. */
static bool admit(struct sm *sm, uint16_t lid, uint64_t now)
{
	struct trap_src *p;

	if (!TR.src && !(TR.src = calloc(TRAP_LIDS, sizeof(*TR.src))))
		return true; /* no memory for the throttle: act on it */
	p = &TR.src[lid < TRAP_LIDS ? lid : 0];
	if ((uint32_t)now - p->start_ms >= sm->cfg.sm_trap_interval_ms) {
		p->start_ms = (uint32_t)now;
		p->n = p->over = 0;
	}
	if (++p->n <= sm->cfg.sm_trap_limit)
		return true;
	p->over++;
	if (!TR.sum_gen)
		TR.sum_gen = 1;
	if (p->sum_gen != TR.sum_gen) {
		p->sum_gen = TR.sum_gen;
		p->sum_over = 0;
		TR.over_ports++;
	}
	TR.over++;
	if (++p->sum_over > TR.top_n) {
		TR.top_n = p->sum_over;
		TR.top_lid = lid;
	}
	return false;
}

static int on_held_sweep(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sm *sm = ud;

	TR.sweep_pending = false;
	TR.last_sweep_ms = now_ms(sm);
	sweep_request(sm, false, "trap 128 (held to sm.trap_interval_ms)");
	return 0;
}

static void trap_sweep(struct sm *sm, uint64_t now)
{
	uint64_t at = TR.last_sweep_ms + sm->cfg.sm_trap_interval_ms;

	if (!TR.last_sweep_ms || now >= at) {
		TR.last_sweep_ms = now;
		sweep_request(sm, false, "trap 128");
		return;
	}
	if (TR.sweep_pending)
		return;
	if (!TR.timer) {
		if (sd_event_add_time(sm->ev, &TR.timer, CLOCK_MONOTONIC,
				      UINT64_MAX, 1000, on_held_sweep,
				      sm) < 0) {
			sweep_request(sm, false, "trap 128");
			return;
		}
		sd_event_source_set_floating(TR.timer, 1);
	}
	TR.sweep_pending = true;
	sd_event_source_set_time(TR.timer, at * 1000);
	sd_event_source_set_enabled(TR.timer, SD_EVENT_ONESHOT);
}

/* The structured line of every trap acted on (lib/event.h). */
static void trap_event(const struct smp_notice *n, uint16_t from)
{
	struct event_line e;

	if (event_begin(&e, "trap") < 0)
		return;
	json_kv_uint(&e.j, "trap", n->trap_num);
	json_kv_bool(&e.j, "generic", n->is_generic);
	json_kv_uint(&e.j, "source_lid", from);
	json_kv_uint(&e.j, "issuer_lid", n->issuer_lid);
	event_end(&e);
}

static void act(struct sm *sm, const struct smp_notice *n, uint16_t from,
		uint64_t now)
{
	uint16_t lid = 0;

	if (sm->sm_state != SM_STATE_MASTER) {
		log_info("trap %u from LID %u ignored: not master", n->trap_num,
			 n->issuer_lid);
	} else if (n->is_generic && n->trap_num == 144) {
		/* A port's capabilities changed; among them IsSM: another SM
		 * may have started.  Look again (and elect). */
		log_notice("trap 144 (capability change) from LID %u; "
			   "rediscovering",
			   from);
		sweep_request(sm, true, "trap 144");
	} else if (n->is_generic && n->trap_num == 128) {
		smp_trap128_lid(n, &lid);
		log_notice("trap 128 (link state change) from LID %u, switch "
			   "LID %u; checking the switches",
			   from, lid);
		sweep_hint(sm, lid);
		trap_sweep(sm, now);
	} else if (n->is_generic && n->trap_num == 256) {
		mkey_on_trap256(sm, n, from);
	} else {
		log_info("trap %u from LID %u (issuer %u) logged, nothing to "
			 "do",
			 n->trap_num, from, n->issuer_lid);
	}
}

void traps_on_trap(struct sm *sm, const struct txn_request *req)
{
	struct smp rep = *req->smp;
	uint8_t mad[MAD_SIZE] = {0};
	struct smp_notice n;
	uint16_t from = req->rx->from.lid;
	uint64_t now = now_ms(sm);

	sm->traps++;
	smp_make_trap_repress(&rep);
	if (smp_encode(&rep, mad, sizeof(mad)) == 0)
		txn_respond_raw(sm->txn, req, mad, sizeof(mad));
	if (!admit(sm, from, now)) {
		log_summary(sm, now);
		return;
	}
	log_summary(sm, now);
	if (smp_notice_decode(&n, req->smp->data, SMP_DATA_SIZE) == 0) {
		trap_event(&n, from);
		act(sm, &n, from, now);
	}
}
