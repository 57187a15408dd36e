/* Table read-back: see program.h.  The Gets go through the engine's
 * windows like any SMP; each completes into its slot of one buffer. */
#include "daemon/program/program.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct readback {
	uint8_t *data;
	bool *ok;
	uint32_t n, pending;
	readback_done_fn done;
	void *ctx;
	struct rb_item {
		struct readback *rb;
		uint32_t i;
	} * items;
};

static void rb_free(struct readback *rb)
{
	free(rb->data);
	free(rb->ok);
	free(rb->items);
	free(rb);
}

static void rb_end(struct readback *rb)
{
	rb->done(rb->ctx, rb->data, rb->ok, rb->n);
	rb_free(rb);
}

static void rb_end_deferred(void *ctx)
{
	rb_end(ctx);
}

static void item_cb(void *ctx, int status, const struct txn_result *r)
{
	struct rb_item *it = ctx;
	struct readback *rb = it->rb;

	if (status == 0 && r->data) {
		memcpy(rb->data + (size_t)it->i * SMP_DATA_SIZE, r->data,
		       SMP_DATA_SIZE);
		rb->ok[it->i] = true;
	}
	if (--rb->pending == 0)
		rb_end(rb);
}

int readback_start(struct txn_engine *eng, const uint8_t *path, uint8_t hops,
		   uint64_t dest, uint16_t attr, const uint32_t *mods,
		   uint32_t n, readback_done_fn done, void *ctx)
{
	struct readback *rb = calloc(1, sizeof(*rb));
	struct txn_smp_req q = {
	    .dr = true,
	    .path = path,
	    .hops = hops,
	    .dest = dest,
	    .method = MAD_METHOD_GET,
	    .attr_id = attr,
	    .retries = -1,
	};

	if (!rb)
		return -ENOMEM;
	rb->data = calloc(n ? n : 1, SMP_DATA_SIZE);
	rb->ok = calloc(n ? n : 1, sizeof(*rb->ok));
	rb->items = calloc(n ? n : 1, sizeof(*rb->items));
	if (!rb->data || !rb->ok || !rb->items) {
		rb_free(rb);
		return -ENOMEM;
	}
	rb->n = n;
	rb->done = done;
	rb->ctx = ctx;
	rb->pending = 1; /* held while submitting */
	for (uint32_t i = 0; i < n; i++) {
		rb->items[i] = (struct rb_item){rb, i};
		q.attr_mod = mods[i];
		/* A Get that cannot be queued leaves its block unread: it
		 * is written. */
		if (txn_submit(eng, &q, item_cb, &rb->items[i]) == 0)
			rb->pending++;
	}
	if (--rb->pending == 0 && txn_defer(eng, rb_end_deferred, rb) < 0) {
		rb_free(rb);
		return -ENOMEM;
	}
	return 0;
}
