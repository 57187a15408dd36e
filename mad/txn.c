/* The transaction engine's core: submission, the global and
 * per-destination windows (destinations served round-robin, FIFO within
 * one), TID slots, the deadline heap, retries and completion.  Received
 * MADs are dispatched in txn_recv.c. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "mad/cursor.h"
#include "mad/txn_int.h"

int64_t txn_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void txn_params_default(struct txn_params *p)
{
	memset(p, 0, sizeof(*p));
	p->window = TXN_DEFAULT_WINDOW;
	p->node_window = TXN_DEFAULT_NODE_WINDOW;
	p->timeout_ms = TXN_DEFAULT_TIMEOUT_MS;
	p->retries = TXN_DEFAULT_RETRIES;
	p->retry_fast_timeouts = true;
	p->send_window = TXN_DEFAULT_SEND_WINDOW;
}

uint64_t txn_dest_path(const uint8_t *path, uint8_t hops)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (unsigned i = 1; i <= hops; i++)
		h = (h ^ path[i]) * 1099511628211ULL;
	h = (h ^ hops) * 1099511628211ULL;
	return h | 1; /* never 0 */
}

uint64_t txn_dest_lid(uint16_t lid)
{
	return 0x4C49440000000000ULL | lid; /* "LID" tag; never 0 */
}

/* ---- deadline heap ---- */

static void heap_swap(struct txn_engine *e, unsigned a, unsigned b)
{
	struct txn *t = e->heap[a];

	e->heap[a] = e->heap[b];
	e->heap[b] = t;
	e->heap[a]->heap_idx = (int)a;
	e->heap[b]->heap_idx = (int)b;
}

static void heap_up(struct txn_engine *e, unsigned i)
{
	while (i > 0) {
		unsigned p = (i - 1) / 2;

		if (e->heap[p]->deadline_us <= e->heap[i]->deadline_us)
			break;
		heap_swap(e, p, i);
		i = p;
	}
}

static void heap_down(struct txn_engine *e, unsigned i)
{
	for (;;) {
		unsigned l = 2 * i + 1, r = l + 1, m = i;

		if (l < e->heap_n &&
		    e->heap[l]->deadline_us < e->heap[m]->deadline_us)
			m = l;
		if (r < e->heap_n &&
		    e->heap[r]->deadline_us < e->heap[m]->deadline_us)
			m = r;
		if (m == i)
			return;
		heap_swap(e, i, m);
		i = m;
	}
}

static int heap_push(struct txn_engine *e, struct txn *t)
{
	if (e->heap_n == e->heap_cap) {
		unsigned cap = e->heap_cap ? 2 * e->heap_cap : 256;
		struct txn **h = realloc(e->heap, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		e->heap = h;
		e->heap_cap = cap;
	}
	e->heap[e->heap_n] = t;
	t->heap_idx = (int)e->heap_n++;
	heap_up(e, (unsigned)t->heap_idx);
	return 0;
}

static void heap_remove(struct txn_engine *e, struct txn *t)
{
	unsigned i = (unsigned)t->heap_idx;

	if (t->heap_idx < 0)
		return;
	t->heap_idx = -1;
	if (i != --e->heap_n) {
		e->heap[i] = e->heap[e->heap_n];
		e->heap[i]->heap_idx = (int)i;
		heap_down(e, i);
		heap_up(e, i);
	}
}

/* ---- destinations ---- */

static struct txn_dest **dest_bucket(struct txn_engine *e, uint64_t key)
{
	uint64_t h = key * 0x9E3779B97F4A7C15ULL;

	return &e->buckets[h >> 52]; /* 12 bits = TXN_DEST_BUCKETS */
}

static struct txn_dest *dest_get(struct txn_engine *e, uint64_t key)
{
	struct txn_dest **b = dest_bucket(e, key), *d;

	for (d = *b; d; d = d->hnext)
		if (d->key == key)
			return d;
	d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->key = key;
	d->hnext = *b;
	*b = d;
	return d;
}

static void dest_put(struct txn_engine *e, struct txn_dest *d)
{
	struct txn_dest **pp;

	if (d->outstanding || d->qhead || d->in_ready)
		return;
	for (pp = dest_bucket(e, d->key); *pp; pp = &(*pp)->hnext)
		if (*pp == d) {
			*pp = d->hnext;
			free(d);
			return;
		}
}

static void ready_push(struct txn_engine *e, struct txn_dest *d)
{
	if (d->in_ready || !d->qhead || d->outstanding >= e->params.node_window)
		return;
	d->in_ready = true;
	d->rnext = NULL;
	if (e->ready_tail)
		e->ready_tail->rnext = d;
	else
		e->ready_head = d;
	e->ready_tail = d;
}

static struct txn_dest *ready_pop(struct txn_engine *e)
{
	struct txn_dest *d = e->ready_head;

	if (d) {
		e->ready_head = d->rnext;
		if (!e->ready_head)
			e->ready_tail = NULL;
		d->in_ready = false;
	}
	return d;
}

/* ---- TID slots ---- */

static int slot_alloc(struct txn_engine *e, struct txn *t)
{
	if (!e->nfree) {
		uint32_t n = e->nslots ? 2 * e->nslots : 256;
		struct txn **s;
		uint32_t *f;

		if (n > TXN_MAX_SLOTS)
			n = TXN_MAX_SLOTS;
		if (n == e->nslots)
			return -ENOSPC;
		s = realloc(e->slots, n * sizeof(*s));
		if (!s)
			return -ENOMEM;
		e->slots = s;
		f = realloc(e->free_slots, n * sizeof(*f));
		if (!f)
			return -ENOMEM;
		e->free_slots = f;
		for (uint32_t i = n; i-- > e->nslots;) {
			s[i] = NULL;
			f[e->nfree++] = i;
		}
		e->nslots = n;
	}
	t->slot = e->free_slots[--e->nfree];
	e->slots[t->slot] = t;
	return 0;
}

static void slot_free(struct txn_engine *e, struct txn *t)
{
	e->slots[t->slot] = NULL;
	e->free_slots[e->nfree++] = t->slot;
}

struct txn *txn_by_tid(struct txn_engine *e, uint32_t tid)
{
	uint32_t slot = tid & 0xFFFF;
	struct txn *t;

	if (slot >= e->nslots)
		return NULL;
	t = e->slots[slot];
	return t && t->tid == tid ? t : NULL;
}

/* ---- sending ---- */

/* One try: a fresh TID (so a late answer to an earlier try, or its umad
 * timeout record, cannot be taken for this one), send, arm the deadline. */
static void try_send(struct txn_engine *e, struct txn *t)
{
	struct cur c;
	int rc;

	t->tid = (uint32_t)e->gen++ << 16 | t->slot;
	cur_wr(&c, t->mad, t->len);
	cur_poke_be(&c, 8, 8, t->tid); /* high 32 bits 0: umad owns them */
	t->tries++;
	t->sent_us = txn_now_us();
	t->deadline_us = t->sent_us + (int64_t)t->timeout_ms * 1000;
	rc = e->tr.send(e->tr.ctx, t->agent, t->mad, t->len, &t->to,
			(int)t->timeout_ms);
	if (rc) {
		/* Treated as a lost try: the deadline retries it. */
		e->stats.send_errors++;
		t->last_err = rc;
		log_debug("txn: send failed: %s; retry after %u ms",
			  strerror(-rc), t->timeout_ms);
	} else {
		e->stats.sent++;
		t->last_err = 0;
		t->tx_seq = txn_tx_take(e);
	}
	if (heap_push(e, t))
		log_err("txn: out of memory arming a timeout; the MAD may "
			"never complete");
}

static void start(struct txn_engine *e, struct txn *t)
{
	if (slot_alloc(e, t)) {
		/* Only ENOMEM: window < TXN_MAX_SLOTS.  Expire it at once. */
		log_err("txn: out of memory for a TID slot; failing the MAD");
		t->outstanding = true;
		t->dest->outstanding++;
		e->stats.outstanding++;
		t->heap_idx = -1;
		t->slot = UINT32_MAX;
		t->tries = t->max_tries;
		t->last_err = -ENOMEM;
		t->deadline_us = txn_now_us();
		heap_push(e, t);
		return;
	}
	t->outstanding = true;
	t->dest->outstanding++;
	e->stats.outstanding++;
	if (e->stats.outstanding > e->stats.max_outstanding)
		e->stats.max_outstanding = e->stats.outstanding;
	try_send(e, t);
}

/* ---- stale slots: timed-out tries whose answer may still come ---- */

#define TXN_STALE_MIN_US 1000000

static void stale_add(struct txn_engine *e, int64_t expiry)
{
	if (e->stats.stale == e->stale_cap) {
		unsigned cap = e->stale_cap ? 2 * e->stale_cap : 64;
		int64_t *r = malloc(cap * sizeof(*r));

		if (!r)
			return; /* then the slot is simply not held */
		for (unsigned i = 0; i < e->stats.stale; i++)
			r[i] = e->stale_exp[(e->stale_head + i) % e->stale_cap];
		free(e->stale_exp);
		e->stale_exp = r;
		e->stale_head = 0;
		e->stale_cap = cap;
	}
	e->stale_exp[(e->stale_head + e->stats.stale++) % e->stale_cap] =
	    expiry;
}

/* The oldest stale slot goes: late answers come back roughly in order. */
void txn_stale_release(struct txn_engine *e)
{
	if (!e->stats.stale)
		return;
	e->stale_head = (e->stale_head + 1) % e->stale_cap;
	e->stats.stale--;
}

static void stale_expire(struct txn_engine *e, int64_t now_us)
{
	while (e->stats.stale && e->stale_exp[e->stale_head] <= now_us)
		txn_stale_release(e);
}

/* Room for one more request: the window (stale slots included) and the
 * send window. */
static bool request_room(const struct txn_engine *e)
{
	return e->stats.outstanding + e->stats.stale < e->params.window &&
	       txn_tx_room(e);
}

void txn_pump(struct txn_engine *e)
{
	if (e->closing)
		return;
	/* Requests first: answers always have the send window's part the
	 * request window leaves (mad.send_window > mad.window). */
	while (request_room(e) && e->retry_head) {
		struct txn *t = e->retry_head;

		e->retry_head = t->qnext;
		if (!e->retry_head)
			e->retry_tail = NULL;
		t->qnext = NULL;
		e->stats.queued--;
		start(e, t);
	}
	while (request_room(e) && e->ready_head) {
		struct txn_dest *d = ready_pop(e);
		struct txn *t = d->qhead;

		d->qhead = t->qnext;
		if (!d->qhead)
			d->qtail = NULL;
		t->qnext = NULL;
		e->stats.queued--;
		start(e, t);
		ready_push(e, d);
	}
	txn_out_pump(e);
}

static int enqueue(struct txn_engine *e, struct txn *t, uint64_t dest)
{
	struct txn_dest *d = dest_get(e, dest);

	if (!d)
		return -ENOMEM;
	t->dest = d;
	t->heap_idx = -1;
	if (d->qtail)
		d->qtail->qnext = t;
	else
		d->qhead = t;
	d->qtail = t;
	e->stats.queued++;
	ready_push(e, d);
	txn_pump(e);
	return 0;
}

static struct txn *txn_new(struct txn_engine *e, int retries,
			   unsigned timeout_ms, txn_cb cb, void *ctx)
{
	struct txn *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->cb = cb;
	t->ctx = ctx;
	t->max_tries =
	    1 + (retries < 0 ? e->params.retries : (unsigned)retries);
	t->timeout_ms = timeout_ms ? timeout_ms : e->params.timeout_ms;
	return t;
}

int txn_submit(struct txn_engine *e, const struct txn_smp_req *req, txn_cb cb,
	       void *ctx)
{
	struct smp s;
	struct txn *t;
	uint64_t dest = req->dest;
	int rc;

	if (req->dr && (req->hops > SMP_MAX_HOPS || (req->hops && !req->path)))
		return -EINVAL;
	t = txn_new(e, req->retries, req->timeout_ms, cb, ctx);
	if (!t)
		return -ENOMEM;
	if (req->dr) {
		smp_init_dr(&s, req->method, req->attr_id, req->attr_mod,
			    req->path, req->hops);
		t->agent = e->tr.agent_smi_dr;
		t->to.lid = MAD_LID_PERMISSIVE;
		if (!dest)
			dest = txn_dest_path(req->path, req->hops);
	} else {
		smp_init_lid(&s, req->method, req->attr_id, req->attr_mod);
		t->agent = e->tr.agent_smi;
		t->to.lid = req->dlid;
		if (!dest)
			dest = txn_dest_lid(req->dlid);
	}
	s.mkey = req->mkey    ? req->mkey
		 : e->mkey_fn ? e->mkey_fn(e->mkey_ctx, req)
			      : 0;
	if (req->data)
		memcpy(s.data, req->data, SMP_DATA_SIZE);
	t->is_smp = true;
	t->optional = req->optional;
	t->len = MAD_SIZE;
	rc = smp_encode(&s, t->mad, sizeof(t->mad));
	if (!rc)
		rc = enqueue(e, t, dest);
	if (rc)
		free(t);
	return rc;
}

void txn_set_mkey_hook(struct txn_engine *e, txn_mkey_fn fn, void *ctx)
{
	e->mkey_fn = fn;
	e->mkey_ctx = ctx;
}

int txn_submit_dr(struct txn_engine *e, const uint8_t *path, uint8_t hops,
		  uint8_t method, uint16_t attr_id, uint32_t attr_mod,
		  const uint8_t *data, txn_cb cb, void *ctx)
{
	struct txn_smp_req r = {.dr = true,
				.path = path,
				.hops = hops,
				.method = method,
				.attr_id = attr_id,
				.attr_mod = attr_mod,
				.data = data,
				.retries = -1};

	return txn_submit(e, &r, cb, ctx);
}

int txn_submit_lid(struct txn_engine *e, uint16_t dlid, uint8_t method,
		   uint16_t attr_id, uint32_t attr_mod, const uint8_t *data,
		   txn_cb cb, void *ctx)
{
	struct txn_smp_req r = {.dlid = dlid,
				.method = method,
				.attr_id = attr_id,
				.attr_mod = attr_mod,
				.data = data,
				.retries = -1};

	return txn_submit(e, &r, cb, ctx);
}

int txn_submit_mad(struct txn_engine *e, int agent, const uint8_t *mad,
		   size_t len, const struct mad_addr *to, uint64_t dest,
		   txn_cb cb, void *ctx)
{
	struct txn *t;
	int rc;

	if (len < MAD_HDR_SIZE || len > MAD_SIZE || !to)
		return -EINVAL;
	t = txn_new(e, -1, 0, cb, ctx);
	if (!t)
		return -ENOMEM;
	memcpy(t->mad, mad, len);
	t->len = len;
	t->agent = agent;
	t->to = *to;
	rc = enqueue(e, t, dest ? dest : txn_dest_lid(to->lid));
	if (rc)
		free(t);
	return rc;
}

/* ---- completion and timeouts ---- */

static void complete(struct txn_engine *e, struct txn *t, int status,
		     const struct mad_rx *rx, const struct smp *s, bool fast)
{
	struct txn_result r = {
	    .status = status, .tries = t->tries, .fast_timeout = fast};
	struct txn_dest *d = t->dest;

	heap_remove(e, t);
	if (t->slot != UINT32_MAX)
		slot_free(e, t);
	d->outstanding--;
	e->stats.outstanding--;
	ready_push(e, d);
	dest_put(e, d);
	if (rx) {
		r.mad = rx->mad;
		r.mad_len = rx->len;
		if (s) {
			r.smp = s;
			r.data = s->data;
			r.mad_status = s->status;
		} else {
			r.mad_status = (uint16_t)(rx->mad[4] << 8 | rx->mad[5]);
		}
	}
	if (t->cb)
		t->cb(t->ctx, status, &r);
	free(t);
}

void txn_complete(struct txn_engine *e, struct txn *t, int status,
		  const struct mad_rx *rx, const struct smp *s)
{
	complete(e, t, status, rx, s, false);
}

void txn_complete_fast_timeout(struct txn_engine *e, struct txn *t)
{
	complete(e, t, -ETIMEDOUT, NULL, NULL, true);
}

/* A retry whose earlier try may still be in the fabric waits in the retry
 * FIFO, which the pump serves before any new MAD, until outstanding +
 * stale < window: retries never push what ibsim holds past the window. */
static void requeue_retry(struct txn_engine *e, struct txn *t)
{
	struct txn_dest *d = t->dest;

	slot_free(e, t);
	t->outstanding = false;
	d->outstanding--;
	e->stats.outstanding--;
	t->qnext = NULL;
	if (e->retry_tail)
		e->retry_tail->qnext = t;
	else
		e->retry_head = t;
	e->retry_tail = t;
	e->stats.queued++;
	ready_push(e, d);
}

/* The current try got no answer: retry, or give up. */
void txn_expire(struct txn_engine *e, struct txn *t, bool late)
{
	heap_remove(e, t);
	e->stats.timeouts++;
	if (late && !t->last_err) { /* it reached the wire */
		int64_t hold = 4 * (int64_t)t->timeout_ms * 1000;

		/* ibsim and the kernel both report every send in the end (an
		 * answer or a umad 110), which frees the slot; the expiry only
		 * guards against a report that never comes. */
		if (hold < TXN_STALE_MIN_US)
			hold = TXN_STALE_MIN_US;
		stale_add(e, txn_now_us() + hold);
	}
	if (t->tries < t->max_tries && t->slot != UINT32_MAX) {
		e->stats.retried++;
		if (late)
			requeue_retry(e, t); /* wait for room, first in line */
		else
			try_send(e, t); /* its slot is free again */
		return;
	}
	e->stats.lost++;
	log_debug("txn: MAD attr 0x%04x lost after %u tries",
		  t->mad[16] << 8 | t->mad[17], t->tries);
	txn_complete(e, t, t->last_err ? t->last_err : -ETIMEDOUT, NULL, NULL);
}

static void run_deferred(struct txn_engine *e)
{
	struct txn_deferred *l = e->defer_head, *n;

	e->defer_head = e->defer_tail = NULL;
	for (; l; l = n) {
		n = l->next;
		l->fn(l->ctx);
		free(l);
	}
}

int txn_defer(struct txn_engine *e, void (*fn)(void *ctx), void *ctx)
{
	struct txn_deferred *d = malloc(sizeof(*d));

	if (!d)
		return -ENOMEM;
	d->fn = fn;
	d->ctx = ctx;
	d->next = NULL;
	if (e->defer_tail)
		e->defer_tail->next = d;
	else
		e->defer_head = d;
	e->defer_tail = d;
	return 0;
}

void txn_on_timer(struct txn_engine *e, int64_t now_us)
{
	struct txn *due = NULL, **tail = &due, *t;

	run_deferred(e);
	stale_expire(e, now_us);
	/* Collect first, then expire: a retry's new deadline comes from the
	 * clock, which may be behind the caller's now_us. */
	while (e->heap_n && e->heap[0]->deadline_us <= now_us) {
		t = e->heap[0];
		heap_remove(e, t);
		t->qnext = NULL; /* qnext is unused while outstanding */
		*tail = t;
		tail = &t->qnext;
	}
	while ((t = due)) {
		due = t->qnext;
		t->qnext = NULL;
		txn_expire(e, t, true);
	}
	txn_pump(e);
}

int64_t txn_next_deadline_us(const struct txn_engine *e)
{
	int64_t dl = e->heap_n ? e->heap[0]->deadline_us : -1;

	if (e->defer_head || (e->outq && txn_tx_room(e)))
		return txn_now_us();
	/* Stale slots matter only while something waits for the window. */
	if (e->stats.stale && e->stats.queued) {
		int64_t s = e->stale_exp[e->stale_head];

		if (dl < 0 || s < dl)
			dl = s;
	}
	return dl;
}

void txn_on_readable(struct txn_engine *e)
{
	struct rx_item *it = txn_rxq_take(&e->rxq), *next;

	run_deferred(e);
	for (; it; it = next) {
		next = it->next;
		txn_dispatch(e, &it->rx);
		free(it);
	}
	txn_pump(e);
}

unsigned txn_pending(const struct txn_engine *e)
{
	return e->stats.outstanding + e->stats.queued;
}

int txn_run(struct txn_engine *e, int max_ms)
{
	int64_t end =
	    max_ms < 0 ? INT64_MAX : txn_now_us() + (int64_t)max_ms * 1000;

	while (txn_pending(e) || e->defer_head) {
		int64_t now = txn_now_us(), dl = txn_next_deadline_us(e);
		int64_t wait = (dl < 0 ? end : (dl < end ? dl : end)) - now;
		struct pollfd pfd = {.fd = e->rxq.efd, .events = POLLIN};

		if (now >= end)
			return -ETIMEDOUT;
		if (wait < 0)
			wait = 0;
		if (poll(&pfd, 1, (int)((wait + 999) / 1000)) < 0 &&
		    errno != EINTR)
			return -errno;
		if (pfd.revents & POLLIN)
			txn_on_readable(e);
		txn_on_timer(e, txn_now_us());
	}
	return 0;
}
