/* Windowed bulk table programming to one switch (see bulk.h): the sender
 * keeps a base, per-block state and a FIFO of blocks to send again; only
 * blocks inside [base, base + W) are ever in flight, so one lost block
 * holds the window until its resend is acknowledged, as with a
 * receiver-side sliding window. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/bulk.h"
#include "mad/smp_switch.h"

enum item_state { IT_UNSENT, IT_INFLIGHT, IT_RESEND, IT_ACKED, IT_FAILED };

struct bulk_item {
	struct bulk_xfer *x;
	uint32_t idx;
	uint8_t state; /* enum item_state */
	uint8_t tries; /* sends so far */
};

struct bulk_xfer {
	struct txn_engine *eng;
	struct bulk_req req;
	uint8_t path[SMP_PATH_SIZE];
	struct bulk_item *items;
	uint32_t base;	  /* first item neither acked nor failed */
	uint32_t next;	  /* first item never sent */
	uint32_t *resend; /* FIFO ring of items to send again */
	uint32_t rs_head, rs_n;
	unsigned inflight, window;
	uint32_t acked, nfailed;
	int first_error;
	unsigned sends, resends;
	int64_t start_us;
	bool finished;
};

uint32_t bulk_base(const struct bulk_xfer *x)
{
	return x->base;
}

static void finish(struct bulk_xfer *x)
{
	struct bulk_result r = {.nitems = x->req.nitems,
				.acked = x->acked,
				.nfailed = x->nfailed,
				.first_error = x->first_error,
				.sends = x->sends,
				.resends = x->resends};
	uint32_t *failed = NULL;

	x->finished = true;
	if (x->nfailed) {
		failed = malloc(x->nfailed * sizeof(*failed));
		if (failed) {
			uint32_t k = 0;
			for (uint32_t i = 0; i < x->req.nitems; i++)
				if (x->items[i].state == IT_FAILED)
					failed[k++] = i;
		}
	}
	r.failed = failed;
	r.usecs = txn_now_us() - x->start_us;
	if (x->req.done)
		x->req.done(x->req.ctx, x->first_error, &r);
	free(failed);
	free(x->items);
	free(x->resend);
	free(x);
}

static void fail_item(struct bulk_xfer *x, struct bulk_item *it, int err)
{
	it->state = IT_FAILED;
	x->nfailed++;
	if (!x->first_error)
		x->first_error = err;
}

static void on_block(void *ctx, int status, const struct txn_result *r);

static void send_item(struct bulk_xfer *x, struct bulk_item *it)
{
	struct txn_smp_req sr = {.dr = x->req.dr,
				 .path = x->path,
				 .hops = x->req.hops,
				 .dlid = x->req.dlid,
				 .method = x->req.method ? x->req.method
							 : MAD_METHOD_SET,
				 .attr_id = x->req.attr_id,
				 .dest = x->req.dest,
				 .retries = 0,
				 .timeout_ms = x->req.timeout_ms};
	uint8_t data[SMP_DATA_SIZE] = {0};
	int rc;

	rc = x->req.fill(x->req.ctx, it->idx, &sr.attr_mod, data);
	if (!rc) {
		sr.data = data;
		rc = txn_submit(x->eng, &sr, on_block, it);
	}
	if (rc) {
		fail_item(x, it, rc);
		return;
	}
	if (it->tries++)
		x->resends++;
	x->sends++;
	it->state = IT_INFLIGHT;
	x->inflight++;
}

static void slide(struct bulk_xfer *x)
{
	while (x->base < x->req.nitems &&
	       (x->items[x->base].state == IT_ACKED ||
		x->items[x->base].state == IT_FAILED))
		x->base++;
}

/* Fills the window: missing blocks first, then new ones below base + W. */
static void fill_window(struct bulk_xfer *x)
{
	while (x->inflight < x->window) {
		if (x->rs_n) {
			uint32_t i = x->resend[x->rs_head];

			x->rs_head = (x->rs_head + 1) % x->req.nitems;
			x->rs_n--;
			send_item(x, &x->items[i]);
		} else if (x->next < x->req.nitems &&
			   x->next < x->base + x->window) {
			send_item(x, &x->items[x->next++]);
		} else {
			break;
		}
		slide(x); /* a block whose fill failed moves the base too */
	}
}

/* The engine is being destroyed (its SMPs complete with -ECANCELED):
 * nothing more may be sent, so every block not in flight fails now and
 * the transfer ends with the last one in flight.  Sending from inside
 * txn_destroy() would block on a transport that no longer reads. */
static void cancel_rest(struct bulk_xfer *x, int err)
{
	for (uint32_t i = 0; i < x->req.nitems; i++)
		if (x->items[i].state == IT_UNSENT ||
		    x->items[i].state == IT_RESEND)
			fail_item(x, &x->items[i], err);
	x->next = x->req.nitems;
	x->rs_n = 0;
}

static bool all_done(const struct bulk_xfer *x)
{
	return x->base == x->req.nitems && !x->inflight && !x->rs_n;
}

static void on_block(void *ctx, int status, const struct txn_result *r)
{
	struct bulk_item *it = ctx;
	struct bulk_xfer *x = it->x;

	x->inflight--;
	if (status == 0) {
		it->state = IT_ACKED;
		x->acked++;
	} else if ((status == -ETIMEDOUT || status == -ENOBUFS ||
		    status == -EAGAIN || status == -EIO) &&
		   it->tries <= x->req.retries) {
		/* Lost (ibsim's drops come back as immediate umad 110s): only
		 * this block goes again. */
		it->state = IT_RESEND;
		x->resend[(x->rs_head + x->rs_n++) % x->req.nitems] = it->idx;
	} else {
		fail_item(x, it, status);
	}
	if (status == -ECANCELED)
		cancel_rest(x, status);
	slide(x);
	fill_window(x);
	if (all_done(x))
		finish(x);
}

static void finish_deferred(void *ctx)
{
	finish(ctx);
}

int bulk_start(struct txn_engine *eng, const struct bulk_req *req,
	       struct bulk_xfer **out)
{
	struct bulk_xfer *x;

	if (out)
		*out = NULL;
	if (!req->fill || (req->dr && req->hops > SMP_MAX_HOPS) ||
	    (req->dr && req->hops && !req->path))
		return -EINVAL;
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->eng = eng;
	x->req = *req;
	if (req->dr && req->hops)
		memcpy(x->path + 1, req->path + 1, req->hops);
	x->req.path = x->path;
	x->window =
	    req->window ? req->window : txn_get_params(eng)->node_window;
	x->start_us = txn_now_us();
	if (req->nitems) {
		x->items = calloc(req->nitems, sizeof(*x->items));
		x->resend = calloc(req->nitems, sizeof(*x->resend));
		if (!x->items || !x->resend) {
			free(x->items);
			free(x->resend);
			free(x);
			return -ENOMEM;
		}
	}
	for (uint32_t i = 0; i < req->nitems; i++)
		x->items[i] = (struct bulk_item){.x = x, .idx = i};
	if (out)
		*out = x;
	if (!req->nitems)
		return txn_defer(eng, finish_deferred, x);
	fill_window(x);
	if (all_done(x)) /* every fill failed */
		return txn_defer(eng, finish_deferred, x);
	return 0;
}

/* ---- LFT convenience ---- */

struct lft_ctx {
	struct bulk_lft_req req;
	uint32_t *blocks;
};

static int lft_fill(void *ctx, uint32_t item, uint32_t *mod,
		    uint8_t data[SMP_DATA_SIZE])
{
	struct lft_ctx *c = ctx;
	uint32_t block = c->blocks ? c->blocks[item] : item;
	uint32_t first = block * 64;

	*mod = block;
	for (uint32_t i = 0; i < 64; i++)
		data[i] =
		    first + i < c->req.lft_size ? c->req.lft[first + i] : 0xFF;
	return 0;
}

static void lft_done(void *ctx, int status, const struct bulk_result *r)
{
	struct lft_ctx *c = ctx;

	if (c->req.done)
		c->req.done(c->req.ctx, status, r);
	free(c->blocks);
	free(c);
}

int bulk_lft_start(struct txn_engine *eng, const struct bulk_lft_req *req)
{
	struct bulk_req br = {.dr = req->dr,
			      .path = req->path,
			      .hops = req->hops,
			      .dlid = req->dlid,
			      .dest = req->dest,
			      .method = MAD_METHOD_SET,
			      .attr_id = SMP_ATTR_LFT,
			      .nitems = req->n,
			      .window = req->window,
			      .retries = req->retries,
			      .timeout_ms = req->timeout_ms,
			      .fill = lft_fill,
			      .done = lft_done};
	struct lft_ctx *c = calloc(1, sizeof(*c));
	int rc;

	if (!c)
		return -ENOMEM;
	c->req = *req;
	if (req->blocks && req->n) {
		c->blocks = malloc(req->n * sizeof(*c->blocks));
		if (!c->blocks) {
			free(c);
			return -ENOMEM;
		}
		memcpy(c->blocks, req->blocks, req->n * sizeof(*c->blocks));
	}
	br.ctx = c;
	rc = bulk_start(eng, &br, NULL);
	if (rc) {
		free(c->blocks);
		free(c);
	}
	return rc;
}

uint32_t bulk_lft_changed(const uint8_t *old, uint32_t old_size,
			  const uint8_t *new_lft, uint32_t new_size,
			  uint32_t *out)
{
	uint32_t nblocks = (new_size + LFT_BLOCK_SIZE - 1) / LFT_BLOCK_SIZE;
	uint32_t n = 0;

	for (uint32_t b = 0; b < nblocks; b++) {
		bool diff = !old;

		for (uint32_t i = b * LFT_BLOCK_SIZE;
		     !diff && i < (b + 1) * LFT_BLOCK_SIZE; i++) {
			uint8_t o = i < old_size ? old[i] : 0xFF;
			uint8_t v = i < new_size ? new_lft[i] : 0xFF;

			diff = o != v;
		}
		if (diff)
			out[n++] = b;
	}
	return n;
}
