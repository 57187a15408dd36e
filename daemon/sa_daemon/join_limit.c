/* Join and leave rate limit per requesting port: MCMemberRecord Set and
 * Delete cost the SA a group change, a routing slice, MFT blocks and a
 * synced state-file write, so one port sending thousands a second would
 * make every other port's joins wait.  Each source LID has a token bucket
 * (multicast.join_rate per second, multicast.join_burst deep); a request
 * without a token is answered MAD status BUSY (IBA 13.4.7: "busy, retry
 * later") without touching the groups, and the refusals are summed into
 * one log line per 10 s. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "mad/sa_mad.h"
#include "mad/sa_wire.h"

#define JL_LIDS	  0xC000 /* unicast LIDs; others share slot 0 */
#define JL_LOG_MS 10000

struct bucket {
	uint32_t last_ms;     /* wraps: differences only */
	uint32_t millitokens; /* 1000 per request */
};

static struct {
	struct bucket *b;
	uint64_t refused, last_log_ms;
	uint16_t last_lid;
} JL;

static bool is_change(const struct txn_request *req)
{
	const uint8_t *m = req->rx->mad;

	return sa_get16(m + 16) == SA_ATTR_MCMEMBER_REC &&
	       (m[3] == SA_METHOD_SET || m[3] == SA_METHOD_DELETE);
}

/* Takes a token from lid's bucket; false when it is empty. */
static bool take(struct sm *sm, uint16_t lid, uint64_t now)
{
	uint64_t cap = (uint64_t)sm->cfg.multicast_join_burst * 1000;
	struct bucket *k;
	uint64_t t;

	if (!JL.b && !(JL.b = calloc(JL_LIDS, sizeof(*JL.b))))
		return true; /* no memory for the limit: no limit */
	k = &JL.b[lid < JL_LIDS ? lid : 0];
	if (!k->last_ms) {
		k->last_ms = (uint32_t)now;
		k->millitokens = (uint32_t)cap;
	}
	t = k->millitokens + (uint64_t)((uint32_t)now - k->last_ms) *
				 sm->cfg.multicast_join_rate;
	k->millitokens = (uint32_t)(t < cap ? t : cap);
	k->last_ms = (uint32_t)now;
	if (k->millitokens < 1000)
		return false;
	k->millitokens -= 1000;
	return true;
}

static void note_refused(uint16_t lid, uint64_t now)
{
	JL.refused++;
	JL.last_lid = lid;
	if (now - JL.last_log_ms < JL_LOG_MS)
		return;
	log_warn("SA: %" PRIu64 " multicast joins/leaves answered BUSY over "
		 "multicast.join_rate, the last from LID %u",
		 JL.refused, lid);
	JL.refused = 0;
	JL.last_log_ms = now;
}

static void answer_busy(struct sm *sm, const struct txn_request *req)
{
	uint8_t mad[SA_MAD_SIZE] = {0};
	size_t len = req->rx->len < sizeof(mad) ? req->rx->len : sizeof(mad);

	memcpy(mad, req->rx->mad, len);
	mad[3] = mad[3] == SA_METHOD_DELETE ? SA_METHOD_DELETE_RESP
					    : SA_METHOD_GET_RESP;
	sa_put16(mad + 4, MAD_STATUS_BUSY);
	memset(mad + 24, 0, 12); /* no RMPP */
	txn_respond_raw(sm->txn, req, mad, sizeof(mad));
}

bool join_limit_refuse(struct sm *sm, const struct txn_request *req)
{
	uint64_t now;

	if (req->rx->len < SA_HDR_SIZE || !is_change(req))
		return false;
	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	now /= 1000;
	if (take(sm, req->rx->from.lid, now))
		return false;
	note_refused(req->rx->from.lid, now);
	answer_busy(sm, req);
	return true;
}
