/* The SM role: the SMP requests addressed to the SM (SMInfo, handed down
 * to sm_control.c; state chunks, to sm_repl.c; traps), and what happens
 * when a sweep ends (READY, --once exit, next sweep).  The state itself is
 * in smstate.c; the election and the SMInfo control that drive it are in
 * sm_control.c, sm_elect.c and sm_poll.c, below this file. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <systemd/sd-daemon.h>
#include <systemd/sd-event.h>

#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/core/sm.h"
#include "daemon/role/sm_elect.h"
#include "lib/log.h"
#include "mad/smp_sm.h"

void sm_on_request(void *ctx, const struct txn_request *req)
{
	struct sm *sm = ctx;

	if (sm_repl_request(sm, req) || sa_daemon_request(sm, req)) {
		loop_txn_kick(sm);
		return;
	}
	if (!req->smp)
		return;
	if (req->smp->hdr.method == MAD_METHOD_TRAP) {
		traps_on_trap(sm, req);
	} else if (req->smp->hdr.attr_id == SMP_ATTR_SM_INFO) {
		elect_on_sminfo(sm, req);
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

	/* "unsupported" are the expected answers to optional probes
	 * (PortGroupInfo of a switch without port groups), never losses */
	log_notice("SMPs: %" PRIu64 " sent (%" PRIu64 " retried, %" PRIu64
		   " lost, %" PRIu64 " timeouts; %" PRIu64 " probes answered "
		   "unsupported), last heavy sweep needed at least %" PRIu64
		   "; max outstanding %u",
		   t->sent, t->retried, t->lost, t->timeouts, t->unsupported,
		   sm->smps.min_needed, t->max_outstanding);
}

/* --once: heavy sweeps after a failed one before giving up. */
#define ONCE_RETRIES 3

/* A sweep that found this SM is not (or no longer) master: it configured
 * nothing; a standby waits on its polls, a master handing over on the
 * acknowledgement. */
static void sweep_not_master(struct sm *sm)
{
	sm_notify_status(sm);
	if (sm->once) {
		log_err("--once: another SM is master of this subnet; nothing "
			"was configured");
		sm->exit_code = 1;
		sd_event_exit(sm->ev, 1);
		return;
	}
	sd_notify(0, "READY=1");
	if (sm->sm_state == SM_STATE_MASTER)
		loop_schedule_sweep(sm, sm->cfg.sm_sweep_interval_ms);
}

void sm_sweep_done(struct sm *sm, bool heavy, int rc)
{
	if (rc == -ECANCELED) {
		sweep_not_master(sm);
		return;
	}
	if (rc == 0 && sm->sm_state == SM_STATE_MASTER)
		sm->act_count++; /* ActCount grows while master */
	if (heavy && rc == 0 && !sm->subnet_up) {
		sm->subnet_up = true;
		sm_change_state(sm, SM_STATE_MASTER, "subnet up");
		if (!sm->once)
			sd_notify(0, "READY=1");
	}
	sm_notify_status(sm);
	if (heavy)
		sm_log_smp_counts(sm);
	/* -ERANGE: the fabric does not fit the switches' tables; another
	 * sweep would find the same */
	if (sm->once && rc < 0 && rc != -ERANGE && heavy &&
	    ++sm->once_retries <= ONCE_RETRIES) {
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
		if (rc ==
		    -ERANGE) /* the rest is up: one error says why not all */
			log_err("--once: %s", sm->last_error);
		else if (rc < 0)
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
