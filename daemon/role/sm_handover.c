/* A master that finds a better standby hands the subnet over to it
 * (IBA vol. 1, 14.4.1): SMInfo Set HANDOVER with our SM_Key, then the
 * standby's ACKNOWLEDGE (sm_control.c) makes this SM follow it.  The poll
 * timer (sm_poll.c) ends a handover that is never acknowledged. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "daemon/role/sm_elect.h"
#include "lib/log.h"

static void handover_cb(void *ctx, int status, const struct txn_result *r)
{
	struct sm *sm = ctx;
	struct sm_elect *e = sm->elect;

	(void)r;
	if (status == -ECANCELED || status == 0 || !e->handing_over)
		return; /* the ACKNOWLEDGE ends it */
	e->handing_over = false;
	log_warn("SMInfo HANDOVER to SM 0x%016" PRIx64 " failed: %s; staying "
		 "master",
		 e->handover_guid, strerror(-status));
	loop_schedule_sweep(sm, 1000);
}

int elect_send_handover(struct sm *sm, const struct sm_peer *p)
{
	struct sm_elect *e = sm->elect;
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp_sm_info si;
	struct txn_smp_req q = {
	    .dr = true,
	    .path = p->path,
	    .hops = p->hops,
	    .method = MAD_METHOD_SET,
	    .attr_id = SMP_ATTR_SM_INFO,
	    .attr_mod = SMINFO_MOD_HANDOVER,
	    .data = data,
	};
	int rc;

	if (e->handing_over)
		return 0;
	elect_own_sminfo(sm, &si);
	si.sm_key = sm->cfg.sm_sm_key;
	smp_sm_info_encode(&si, data, sizeof(data));
	rc = txn_submit(sm->txn, &q, handover_cb, sm);
	if (rc < 0)
		return rc;
	e->handing_over = true;
	e->handover_guid = p->guid;
	e->handover_deadline_us =
	    txn_now_us() + 1000ll * sm->cfg.sm_poll_interval_ms *
			       (sm->cfg.sm_poll_retries + 1);
	e->handovers_sent++;
	log_notice("SM 0x%016" PRIx64 " (LID %u, %s), priority %u, outranks "
		   "this master: handing the subnet over",
		   p->guid, p->lid, p->desc, p->si.priority);
	poll_start(sm); /* its timer ends a handover never acknowledged */
	return 0;
}
