/* SMInfo addressed to this SM (IBA vol. 1, 14.4.1): Get answered with our
 * GUID, SM_Key (only to a requester that knows it), ActCount, priority and
 * state; Set obeyed as SM control (HANDOVER, ACKNOWLEDGE, DISABLE,
 * STANDBY, DISCOVER).  A Set carrying the wrong SM_Key, when one is
 * configured, is refused, counted and changes nothing. */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "daemon/role/sm_elect.h"
#include "lib/log.h"

/* Refusals are logged at most this often; the counter has them all. */
#define BAD_KEY_LOG_US 10000000

static void answer(struct sm *sm, const struct txn_request *req,
		   uint16_t status, bool key_ok)
{
	struct smp_sm_info si;
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	elect_own_sminfo(sm, &si);
	if (!key_ok)
		si.sm_key = 0;
	smp_sm_info_encode(&si, data, sizeof(data));
	rc = txn_respond_smp(sm->txn, req, status, data);
	if (rc < 0)
		log_warn("cannot answer SMInfo from LID %u: %s",
			 req->rx->from.lid, strerror(-rc));
}

static void ack_cb(void *ctx, int status, const struct txn_result *r)
{
	(void)ctx;
	(void)r;
	if (status < 0 && status != -ECANCELED)
		log_warn("SMInfo ACKNOWLEDGE to the old master was not "
			 "answered: %s",
			 strerror(-status));
}

/* ACKNOWLEDGE to the SM that handed the subnet over: over the directed
 * route we polled it on when it is the master we followed, else to the
 * LID the HANDOVER came from. */
static void send_ack(struct sm *sm, const struct txn_request *req,
		     uint64_t from_guid)
{
	struct sm_elect *e = sm->elect;
	uint8_t data[SMP_DATA_SIZE] = {0};
	struct smp_sm_info si;
	struct txn_smp_req q = {
	    .method = MAD_METHOD_SET,
	    .attr_id = SMP_ATTR_SM_INFO,
	    .attr_mod = SMINFO_MOD_ACKNOWLEDGE,
	    .data = data,
	};

	elect_own_sminfo(sm, &si);
	smp_sm_info_encode(&si, data, sizeof(data));
	if (from_guid == e->master_guid && e->master_hops) {
		q.dr = true;
		q.path = e->master_path;
		q.hops = e->master_hops;
	} else {
		q.dlid = req->rx->from.lid;
	}
	if (txn_submit(sm->txn, &q, ack_cb, NULL) < 0)
		log_warn("cannot send SMInfo ACKNOWLEDGE to 0x%016" PRIx64,
			 from_guid);
}

static void on_handover(struct sm *sm, const struct txn_request *req,
			const struct smp_sm_info *in)
{
	struct sm_elect *e = sm->elect;
	char why[96];

	if (sm->sm_state != SM_STATE_STANDBY &&
	    sm->sm_state != SM_STATE_DISCOVERING) {
		answer(sm, req, MAD_STATUS_INVALID_FIELD, true);
		return;
	}
	e->handovers_taken++;
	sm_repl_take_state(sm);
	poll_stop(sm);
	snprintf(why, sizeof(why), "handover from SM 0x%016" PRIx64, in->guid);
	sm_change_state(sm, SM_STATE_MASTER, why);
	answer(sm, req, 0, true);
	send_ack(sm, req, in->guid);
	sweep_request(sm, true, "handover");
}

static void on_acknowledge(struct sm *sm, const struct txn_request *req,
			   const struct smp_sm_info *in)
{
	struct sm_elect *e = sm->elect;
	struct sm_peer m = {.guid = in->guid, .lid = req->rx->from.lid};

	if (!e->handing_over) {
		answer(sm, req, MAD_STATUS_INVALID_FIELD, true);
		return;
	}
	for (unsigned i = 0; i < e->n_peers; i++)
		if (e->peers[i].guid == e->handover_guid)
			m = e->peers[i];
	m.si = *in;
	m.si.state = SM_STATE_MASTER;
	answer(sm, req, 0, true);
	elect_follow(sm, &m, "handover acknowledged");
}

static void refuse_key(struct sm *sm, const struct txn_request *req,
		       const struct smp_sm_info *in)
{
	struct sm_elect *e = sm->elect;
	int64_t now = txn_now_us();

	e->bad_key++;
	if (now - e->bad_key_logged_us >= BAD_KEY_LOG_US) {
		e->bad_key_logged_us = now;
		log_warn(
		    "SMInfo Set (modifier %u) from LID %u, SM 0x%016" PRIx64
		    ", refused: wrong SM_Key (%" PRIu64 " refused so far)",
		    req->smp->hdr.attr_mod, req->rx->from.lid, in->guid,
		    e->bad_key);
	}
	answer(sm, req, MAD_STATUS_INVALID_FIELD, false);
}

static void on_set(struct sm *sm, const struct txn_request *req,
		   const struct smp_sm_info *in)
{
	struct sm_peer m = {
	    .guid = in->guid, .lid = req->rx->from.lid, .si = *in};

	switch (req->smp->hdr.attr_mod) {
	case SMINFO_MOD_HANDOVER:
		on_handover(sm, req, in);
		return;
	case SMINFO_MOD_ACKNOWLEDGE:
		on_acknowledge(sm, req, in);
		return;
	case SMINFO_MOD_DISABLE:
		poll_stop(sm);
		sm_change_state(sm, SM_STATE_NOT_ACTIVE, "SMInfo DISABLE");
		break;
	case SMINFO_MOD_STANDBY:
		if (sm->sm_state != SM_STATE_DISCOVERING &&
		    sm->sm_state != SM_STATE_MASTER)
			break;
		m.si.state = SM_STATE_MASTER;
		elect_follow(sm, &m, "SMInfo STANDBY");
		break;
	case SMINFO_MOD_DISCOVER:
		if (sm->sm_state != SM_STATE_NOT_ACTIVE &&
		    sm->sm_state != SM_STATE_STANDBY)
			break;
		poll_stop(sm);
		sm_change_state(sm, SM_STATE_DISCOVERING, "SMInfo DISCOVER");
		sweep_request(sm, true, "SMInfo DISCOVER");
		break;
	default:
		answer(sm, req, MAD_STATUS_INVALID_FIELD, true);
		return;
	}
	answer(sm, req, 0, true);
}

void elect_on_sminfo(struct sm *sm, const struct txn_request *req)
{
	struct smp_sm_info in = {0};
	bool key_ok;

	smp_sm_info_decode(&in, req->smp->data, SMP_DATA_SIZE);
	key_ok = !sm->cfg.sm_sm_key || in.sm_key == sm->cfg.sm_sm_key;
	if (req->smp->hdr.method == MAD_METHOD_GET) {
		answer(sm, req, 0, key_ok);
	} else if (req->smp->hdr.method != MAD_METHOD_SET) {
		txn_respond_smp(sm->txn, req, MAD_STATUS_METHOD_ATTR_UNSUPP,
				NULL);
	} else if (!key_ok) {
		refuse_key(sm, req, &in);
	} else {
		on_set(sm, req, &in);
	}
}
