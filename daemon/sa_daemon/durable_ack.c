/* Acknowledged means durable: the answer to an SA request that changed
 * saved state (MCMemberRecord or ServiceRecord Set or Delete) waits until
 * the state files holding the change are written and synced.  Each store
 * (mcg_persist.c: mcgroups.state, sa_service_store.c: services.state) is
 * asked to write at the end of this loop turn, so a burst of requests
 * shares one write (group commit).  A store that syncs on the loop says
 * only whether changes wait (unsaved); one that syncs on another thread
 * (mcgroups.state, lib/syncer.c) also numbers its changes (ticket) and
 * says how far they are on disk (durable): an answer held then waits for
 * the ticket of its change, not for later ones, and answers go in the
 * order they came.  A SIGKILL before the sync loses only requests that
 * were never answered, which the client sends again. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-event.h>

#include "daemon/sa_daemon/sa_daemon.h"
#include "daemon/core/sm.h"
#include "lib/log.h"
#include "mad/sa_mad.h"

#define MAX_STORES 3

struct held {
	struct mad_rx rx; /* the request: where the answer goes */
	struct mad_hdr hdr;
	uint8_t *buf;
	size_t len;
	uint64_t ticket[MAX_STORES]; /* per store with tickets */
};

static struct {
	struct held *v;
	size_t head, n, cap; /* held answers are v[head..n) */
	/* the stores: added by whoever persists state */
	struct sa_durable_store stores[MAX_STORES];
	uint64_t total; /* answers ever held */
} H;

int sa_durable_add_store(const struct sa_durable_store *s)
{
	for (int i = 0; i < MAX_STORES; i++)
		if (!H.stores[i].unsaved) {
			H.stores[i] = *s;
			return 0;
		}
	return -ENOSPC;
}

void sa_durable_remove_store(void *ctx)
{
	for (int i = 0; i < MAX_STORES; i++)
		if (H.stores[i].unsaved && H.stores[i].ctx == ctx)
			memset(&H.stores[i], 0, sizeof(H.stores[i]));
}

/* Asks every store with unsaved changes to write them soon; true if one
 * had some. */
static bool flush_unsaved(void)
{
	bool any = false;

	for (int i = 0; i < MAX_STORES; i++) {
		struct sa_durable_store *s = &H.stores[i];

		if (s->unsaved && s->unsaved(s->ctx)) {
			s->flush_soon(s->ctx);
			any = true;
		}
	}
	return any;
}

static bool any_unsaved(void)
{
	for (int i = 0; i < MAX_STORES; i++)
		if (H.stores[i].unsaved && H.stores[i].unsaved(H.stores[i].ctx))
			return true;
	return false;
}

/* h may go: every store that syncs on the loop is written, and every
 * store with tickets has h's change on disk. */
static bool releasable(const struct held *h)
{
	for (int i = 0; i < MAX_STORES; i++) {
		const struct sa_durable_store *s = &H.stores[i];

		if (!s->unsaved)
			continue;
		if (s->ticket ? s->durable(s->ctx) < h->ticket[i]
			      : s->unsaved(s->ctx))
			return false;
	}
	return true;
}

static bool changes_state(const struct txn_request *req)
{
	uint8_t method = req->rx->mad[3];

	return method == SA_METHOD_SET || method == SA_METHOD_DELETE;
}

/* Room for one more held answer (the released ones at the front are
 * dropped first). */
static int room(void)
{
	if (H.head && H.head == H.n)
		H.head = H.n = 0;
	if (H.n < H.cap)
		return 0;
	if (H.head) {
		memmove(H.v, H.v + H.head, (H.n - H.head) * sizeof(*H.v));
		H.n -= H.head;
		H.head = 0;
		return 0;
	}
	size_t cap = H.cap ? 2 * H.cap : 64;
	struct held *v = realloc(H.v, cap * sizeof(*v));

	if (!v)
		return -ENOMEM;
	H.v = v;
	H.cap = cap;
	return 0;
}

bool sa_durable_hold(struct sm *sm, const struct txn_request *req,
		     const uint8_t *buf, size_t len)
{
	struct held *h;

	if (!changes_state(req) || !any_unsaved())
		return false;
	if (room() < 0)
		return false; /* answered at once: better than never */
	h = &H.v[H.n];
	h->buf = malloc(len);
	if (!h->buf)
		return false;
	memcpy(h->buf, buf, len);
	h->len = len;
	h->rx = *req->rx;
	h->hdr = *req->hdr;
	for (int i = 0; i < MAX_STORES; i++) {
		const struct sa_durable_store *s = &H.stores[i];

		h->ticket[i] = s->unsaved && s->ticket ? s->ticket(s->ctx) : 0;
	}
	H.n++;
	H.total++;
	flush_unsaved();
	return true;
}

void sa_durable_release(struct sm *sm)
{
	while (H.head < H.n && releasable(&H.v[H.head])) {
		struct held *h = &H.v[H.head++];
		struct txn_request req = {.rx = &h->rx, .hdr = &h->hdr};
		int rc = txn_respond_raw(sm->txn, &req, h->buf, h->len);

		if (rc < 0)
			log_warn("SA: cannot answer a held request from LID "
				 "%u: %s",
				 h->rx.from.lid, strerror(-rc));
		free(h->buf);
	}
	loop_txn_kick(sm); /* the answers that waited for room, too */
}

void sa_durable_print_status(FILE *out)
{
	fprintf(out, "sa_answers_held %zu\n", H.n - H.head);
	fprintf(out, "sa_answers_held_total %" PRIu64 "\n", H.total);
}

void sa_durable_drop(void)
{
	for (size_t i = H.head; i < H.n; i++)
		free(H.v[i].buf);
	free(H.v);
	H.v = NULL;
	H.head = H.n = H.cap = 0;
}

static int on_write(sd_event_source *s, uint64_t usec, void *ud)
{
	struct sa_durable_writer *w = ud;

	sd_event_source_set_enabled(s, SD_EVENT_OFF);
	w->save(w->ctx);
	return 0;
}

void sa_durable_write_soon(struct sm *sm, struct sa_durable_writer *w)
{
	uint64_t now;

	if (!w->src && sm->ev &&
	    sd_event_add_time(sm->ev, &w->src, CLOCK_MONOTONIC, UINT64_MAX,
			      1000, on_write, w) < 0)
		w->src = NULL;
	if (!w->src) {
		w->save(w->ctx);
		return;
	}
	sd_event_now(sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(w->src, now);
	sd_event_source_set_enabled(w->src, SD_EVENT_ONESHOT);
}

void sa_durable_write_fini(struct sa_durable_writer *w)
{
	w->src = sd_event_source_unref(w->src);
}
