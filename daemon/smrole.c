/* The SM role: the SM state machine (NOT_ACTIVE -> DISCOVERING -> MASTER;
 * ibsmd does not negotiate with other SMs: it never goes STANDBY, see
 * man/ibsmd.8), the SMP requests addressed to the SM (SMInfo Get, traps),
 * and what happens when a sweep ends (READY, --once exit, next sweep). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "daemon/sa_daemon.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "mad/smp_sm.h"

static const char *const sm_state_names[] = {
    [SM_STATE_NOT_ACTIVE] = "NOT_ACTIVE",
    [SM_STATE_DISCOVERING] = "DISCOVERING",
    [SM_STATE_STANDBY] = "STANDBY",
    [SM_STATE_MASTER] = "MASTER",
};

const char *sm_state_name(enum smp_sm_state s)
{
	return s <= SM_STATE_MASTER ? sm_state_names[s] : "?";
}

void sm_change_state(struct sm *sm, enum smp_sm_state to, const char *why)
{
	if (sm->sm_state == to)
		return;
	log_notice("SM state %s -> %s (%s)", sm_state_names[sm->sm_state],
		   sm_state_names[to], why);
	sm->sm_state = to;
	loop_notify_status(sm);
}

static void answer_sminfo(struct sm *sm, const struct txn_request *req)
{
	struct smp_sm_info si = {
	    .guid = sm->sm_guid,
	    .sm_key = 0,
	    .act_count = sm->act_count,
	    .priority = (uint8_t)sm->cfg.sm_priority,
	    .state = (uint8_t)sm->sm_state,
	};
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	if (req->smp->hdr.method != MAD_METHOD_GET) {
		/* SMInfo Set is another SM's handover/standby control; we do
		 * not take part in SM negotiation. */
		txn_respond_smp(sm->txn, req, MAD_STATUS_METHOD_ATTR_UNSUPP,
				NULL);
		return;
	}
	smp_sm_info_encode(&si, data, sizeof(data));
	rc = txn_respond_smp(sm->txn, req, 0, data);
	if (rc < 0)
		log_warn("cannot answer SMInfo from LID %u: %s",
			 req->rx->from.lid, strerror(-rc));
}

void sm_on_request(void *ctx, const struct txn_request *req)
{
	struct sm *sm = ctx;

	if (sa_daemon_request(sm, req)) {
		loop_txn_kick(sm);
		return;
	}
	if (!req->smp)
		return;
	if (req->smp->hdr.method == MAD_METHOD_TRAP) {
		traps_on_trap(sm, req);
	} else if (req->smp->hdr.attr_id == SMP_ATTR_SM_INFO) {
		answer_sminfo(sm, req);
	} else if (req->smp->hdr.method == MAD_METHOD_GET ||
		   req->smp->hdr.method == MAD_METHOD_SET) {
		txn_respond_smp(sm->txn, req, MAD_STATUS_METHOD_ATTR_UNSUPP,
				NULL);
	}
	loop_txn_kick(sm);
}

/* SMPs sent against the minimum the swept fabric needed (the figure the
 * bring-up benchmark reports). */
static void sm_log_smp_counts(struct sm *sm)
{
	const struct txn_stats *t = txn_stats(sm->txn);

	log_notice("SMPs: %" PRIu64 " sent (%" PRIu64 " retried, %" PRIu64
		   " lost, %" PRIu64 " timeouts), last heavy sweep needed at "
		   "least %" PRIu64 "; max outstanding %u",
		   t->sent, t->retried, t->lost, t->timeouts,
		   sm->smps.min_needed, t->max_outstanding);
}

/* --once: heavy sweeps after a failed one before giving up. */
#define ONCE_RETRIES 3

void sm_sweep_done(struct sm *sm, bool heavy, int rc)
{
	if (heavy && rc == 0) {
		sm->act_count++;
		if (!sm->subnet_up) {
			sm->subnet_up = true;
			sm_change_state(sm, SM_STATE_MASTER, "subnet up");
			if (!sm->once)
				sd_notify(0, "READY=1");
		}
	}
	loop_notify_status(sm);
	if (heavy)
		sm_log_smp_counts(sm);
	if (sm->once && rc < 0 && heavy && ++sm->once_retries <= ONCE_RETRIES) {
		/* Lost SMPs leave ports or blocks behind; the next heavy sweep
		 * sends only what is still missing. */
		log_notice(
		    "--once: sweep failed (%s); sweeping again (%u of %u)",
		    sm->last_error, sm->once_retries, ONCE_RETRIES);
		sweep_request(sm, true, "--once retry");
		return;
	}
	if (sm->once) {
		sm->exit_code = rc < 0 ? 1 : 0;
		if (rc < 0)
			log_err("--once: the subnet is not up: %s",
				sm->last_error[0] ? sm->last_error
						  : strerror(-rc));
		sd_event_exit(sm->ev, sm->exit_code);
		return;
	}
	if (!sm->subnet_up)
		sm_change_state(sm, SM_STATE_DISCOVERING, "sweep failed");
	loop_schedule_sweep(sm, sm->subnet_up ? sm->cfg.sm_sweep_interval_ms
					      : 1000);
}
