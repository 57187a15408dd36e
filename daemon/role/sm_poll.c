/* A standby's watch over its master: SMInfo Get every sm.poll_interval_ms
 * over the directed route discovery found; an answer that is not a MASTER,
 * or none, is a miss, and after sm.poll_retries misses in a row the
 * standby rediscovers the subnet and, the master gone, takes it.  The same
 * timer ends a handover this master started that is never acknowledged.
 * A standby that outranks its master tells it once with the trap 144 a
 * port's SMA sends when its IsSM bit appears, so the master looks at the
 * subnet again and hands it over. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/role/sm_elect.h"
#include "lib/log.h"

#define CAP_IS_SM 0x00000002u

static void arm(struct sm *sm, unsigned ms)
{
	struct sm_elect *e = sm->elect;
	uint64_t now;

	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(e->poll_timer, now + (uint64_t)ms * 1000);
	sd_event_source_set_enabled(e->poll_timer, SD_EVENT_ONESHOT);
}

static void takeover(struct sm *sm)
{
	struct sm_elect *e = sm->elect;
	char why[128];

	e->takeovers++;
	sm_repl_take_state(sm);
	snprintf(why, sizeof(why),
		 "master 0x%016" PRIx64 " (LID %u) missed %u polls",
		 e->master_guid, e->master_lid, e->misses);
	poll_stop(sm);
	sm_change_state(sm, SM_STATE_DISCOVERING, why);
	sweep_request(sm, true, "master gone");
}

static void trap_cb(void *ctx, int status, const struct txn_result *r)
{
	(void)ctx;
	(void)status;
	(void)r;
}

/* Trap 144 (CapabilityMask change, IsSM set) from our port to the master. */
static void tell_master(struct sm *sm)
{
	struct sm_elect *e = sm->elect;
	struct smp_notice n = {
	    .is_generic = 1,
	    .type = 4,		/* informational */
	    .producer_type = 1, /* channel adapter */
	    .trap_num = 144,
	    .issuer_lid = sm->sm_lid,
	};
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct txn_smp_req q = {
	    .dlid = e->master_lid,
	    .method = MAD_METHOD_TRAP,
	    .attr_id = SMP_ATTR_NOTICE,
	    .data = data,
	    .retries = 0,
	};

	e->trap_sent = true;
	if (!e->master_lid || !sm->sm_lid)
		return;
	n.details[2] = (uint8_t)(sm->sm_lid >> 8);
	n.details[3] = (uint8_t)sm->sm_lid;
	n.details[9] = CAP_IS_SM;
	if (smp_notice_encode(&n, data, sizeof(data)) == 0 &&
	    txn_submit(sm->txn, &q, trap_cb, NULL) == 0)
		log_notice("this SM outranks master 0x%016" PRIx64
			   ": trap 144 sent to it (LID %u)",
			   e->master_guid, e->master_lid);
}

static void poll_cb(void *ctx, int status, const struct txn_result *r)
{
	struct sm *sm = ctx;
	struct sm_elect *e = sm->elect;
	struct smp_sm_info si;

	if (status == -ECANCELED)
		return;
	e->poll_busy = false;
	if (sm->sm_state != SM_STATE_STANDBY)
		return;
	if (status == 0 && r->data &&
	    smp_sm_info_decode(&si, r->data, SMP_DATA_SIZE) == 0 &&
	    si.state == SM_STATE_MASTER) {
		e->misses = 0;
		e->master_act_count = si.act_count;
		sm_repl_poll(sm);
		if (!e->trap_sent &&
		    elect_beats((uint8_t)sm->cfg.sm_priority, sm->sm_guid,
				si.priority, si.guid))
			tell_master(sm);
		return;
	}
	e->misses++;
	e->poll_misses++;
	log_info("master 0x%016" PRIx64 " poll %u of %u missed (%s)",
		 e->master_guid, e->misses, sm->cfg.sm_poll_retries,
		 status < 0 ? strerror(-status) : "not MASTER");
	if (e->misses >= sm->cfg.sm_poll_retries)
		takeover(sm);
}

static void send_poll(struct sm *sm)
{
	struct sm_elect *e = sm->elect;
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp_sm_info own;
	struct txn_smp_req q = {
	    .dr = e->master_hops > 0,
	    .path = e->master_path,
	    .hops = e->master_hops,
	    .dlid = e->master_lid,
	    .method = MAD_METHOD_GET,
	    .attr_id = SMP_ATTR_SM_INFO,
	    .data = data,
	    .retries = 0,
	    /* Answered or missed before the next poll is due. */
	    .timeout_ms = sm->cfg.sm_poll_interval_ms * 3 / 4 + 1,
	};

	elect_own_sminfo(sm, &own);
	smp_sm_info_encode(&own, data, sizeof(data));
	if (txn_submit(sm->txn, &q, poll_cb, sm) == 0) {
		e->poll_busy = true;
		e->polls++;
		loop_txn_kick(sm);
	}
}

static int on_poll(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sm *sm = ud;
	struct sm_elect *e = sm->elect;

	(void)s;
	(void)usec;
	if (e->handing_over) {
		if (txn_now_us() < e->handover_deadline_us) {
			arm(sm, sm->cfg.sm_poll_interval_ms);
			return 0;
		}
		e->handing_over = false;
		log_warn("SM 0x%016" PRIx64 " never acknowledged the handover; "
			 "staying master",
			 e->handover_guid);
		loop_schedule_sweep(sm, 1000);
		return 0;
	}
	if (sm->sm_state != SM_STATE_STANDBY)
		return 0;
	if (!e->poll_busy)
		send_poll(sm);
	arm(sm, sm->cfg.sm_poll_interval_ms);
	return 0;
}

void poll_start(struct sm *sm)
{
	struct sm_elect *e = sm->elect;

	if (sm->once || !sm->ev)
		return;
	if (!e->poll_timer &&
	    sd_event_add_time(sm->ev, &e->poll_timer, CLOCK_MONOTONIC,
			      UINT64_MAX, 1000, on_poll, sm) < 0) {
		log_err("cannot create the master poll timer");
		return;
	}
	arm(sm, sm->cfg.sm_poll_interval_ms);
}

void poll_stop(struct sm *sm)
{
	struct sm_elect *e = sm->elect;

	if (e && e->poll_timer && !e->handing_over)
		sd_event_source_set_enabled(e->poll_timer, SD_EVENT_OFF);
	if (e)
		e->misses = 0;
}
