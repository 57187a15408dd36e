/* Acknowledged means durable: the answer to an SA request that changed
 * the multicast groups (MCMemberRecord Set or Delete) waits until
 * mcgroups.state holding the change is written and synced.  The writer
 * (mcg_persist.c) is asked to run at the end of this loop turn and sends
 * every answer held so far when it is done, so a burst of joins shares one
 * write (group commit).  A SIGKILL before the write loses only requests
 * that were never answered, which the client sends again. */
#include <stdlib.h>
#include <string.h>

#include "daemon/sa_daemon.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "mad/sa_mad.h"

struct held {
	struct mad_rx rx; /* the request: where the answer goes */
	struct mad_hdr hdr;
	uint8_t *buf;
	size_t len;
};

static struct {
	struct held *v;
	size_t n, cap;
	/* the store: set by the multicast manager when it persists */
	bool (*unsaved)(void);
	void (*flush_soon)(void);
} H;

void sa_durable_set_store(bool (*unsaved)(void), void (*flush_soon)(void))
{
	H.unsaved = unsaved;
	H.flush_soon = flush_soon;
}

static bool changes_state(const struct txn_request *req)
{
	uint8_t method = req->rx->mad[3];

	return method == SA_METHOD_SET || method == SA_METHOD_DELETE;
}

bool sa_durable_hold(struct sm *sm, const struct txn_request *req,
		     const uint8_t *buf, size_t len)
{
	struct held *h;

	if (!changes_state(req) || !H.unsaved || !H.unsaved())
		return false;
	if (H.n == H.cap) {
		size_t cap = H.cap ? 2 * H.cap : 64;
		struct held *v = realloc(H.v, cap * sizeof(*v));

		if (!v)
			return false; /* answered at once: better than never */
		H.v = v;
		H.cap = cap;
	}
	h = &H.v[H.n];
	h->buf = malloc(len);
	if (!h->buf)
		return false;
	memcpy(h->buf, buf, len);
	h->len = len;
	h->rx = *req->rx;
	h->hdr = *req->hdr;
	H.n++;
	H.flush_soon();
	return true;
}

void sa_durable_release(struct sm *sm)
{
	for (size_t i = 0; i < H.n; i++) {
		struct held *h = &H.v[i];
		struct txn_request req = {.rx = &h->rx, .hdr = &h->hdr};
		int rc = txn_respond_raw(sm->txn, &req, h->buf, h->len);

		if (rc < 0)
			log_warn("SA: cannot answer a held request from LID "
				 "%u: %s",
				 h->rx.from.lid, strerror(-rc));
		free(h->buf);
	}
	H.n = 0;
}

void sa_durable_drop(void)
{
	for (size_t i = 0; i < H.n; i++)
		free(H.v[i].buf);
	free(H.v);
	H.v = NULL;
	H.n = H.cap = 0;
}
