/* The transaction engine's receive side and lifetime: validation and
 * dispatch of received MADs (responses matched on the TID's low 32 bits,
 * umad timeout records, unsolicited requests to the handler), responses
 * to requests, creation/destruction and the counters. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/cursor.h"
#include "mad/smp_sm.h"
#include "mad/txn_int.h"

#define UMAD_STATUS_TIMEOUT 110 /* ETIMEDOUT as umad reports it */

static struct log_ratelimit drop_rl = {.interval_ms = 5000, .burst = 5};

static void drop(struct txn_engine *e, const char *why, const struct mad_rx *rx)
{
	e->stats.dropped++;
	if (log_ratelimit_ok(&drop_rl))
		log_warn(
		    "txn: dropped a received MAD from LID %u (%s, class 0x%02x "
		    "method 0x%02x attr 0x%02x%02x); counted, going on",
		    rx->from.lid, why, rx->len > 1 ? rx->mad[1] : 0,
		    rx->len > 3 ? rx->mad[3] : 0,
		    rx->len > 17 ? rx->mad[16] : 0,
		    rx->len > 17 ? rx->mad[17] : 0);
}

/* umad returned our own MAD with status 110: no answer (see txn.h on
 * retry_fast_timeouts for why immediate ones are told apart). */
static void umad_timeout(struct txn_engine *e, struct txn *t)
{
	int64_t waited = txn_now_us() - t->sent_us;
	bool fast = waited < (int64_t)t->timeout_ms * 1000 / 2;

	if (fast)
		e->stats.fast_timeouts++;
	if (!fast ||
	    (e->params.retry_fast_timeouts && t->tries < t->max_tries)) {
		txn_expire(e, t, false); /* umad gave up: nothing late */
		return;
	}
	if (t->optional)
		e->stats.unsupported++; /* ibsim: not implemented */
	else
		e->stats.timeouts++;
	if (e->params.retry_fast_timeouts && !t->optional)
		e->stats.lost++;
	txn_complete_fast_timeout(e, t);
}

static void on_response(struct txn_engine *e, const struct mad_rx *rx,
			const struct mad_hdr *h)
{
	struct txn *t = txn_by_tid(e, (uint32_t)h->tid);
	struct smp s;
	int status;

	if (!t) {
		e->stats.unmatched++;
		txn_stale_release(e);
		return;
	}
	txn_tx_ack(e, t->tx_seq);
	if (t->is_smp) {
		if (smp_decode(&s, rx->mad, rx->len)) {
			drop(e, "bad SMP response", rx);
			return;
		}
		e->stats.received++;
		status = s.status ? -EREMOTEIO : 0;
		if (s.status && t->optional)
			e->stats.unsupported++;
		else if (s.status)
			e->stats.remote_errors++;
		txn_complete(e, t, status, rx, &s);
		return;
	}
	e->stats.received++;
	if (h->status)
		e->stats.remote_errors++;
	txn_complete(e, t, h->status ? -EREMOTEIO : 0, rx, NULL);
}

static void on_request(struct txn_engine *e, const struct mad_rx *rx,
		       const struct mad_hdr *h)
{
	struct txn_request req = {.rx = rx, .hdr = h};
	struct smp s;

	if (h->mgmt_class == MAD_CLASS_SMI ||
	    h->mgmt_class == MAD_CLASS_SMI_DR) {
		if (smp_decode(&s, rx->mad, rx->len)) {
			drop(e, "bad SMP request", rx);
			return;
		}
		req.smp = &s;
	}
	if (!e->req_cb) {
		drop(e, "request with no handler", rx);
		return;
	}
	e->stats.requests++;
	e->req_cb(e->req_ctx, &req);
}

void txn_dispatch(struct txn_engine *e, const struct mad_rx *rx)
{
	struct mad_hdr h;

	if (mad_hdr_decode(&h, rx->mad, rx->len)) {
		drop(e, "shorter than a MAD header", rx);
		return;
	}
	if (rx->status) {
		struct txn *t = txn_by_tid(e, (uint32_t)h.tid);

		/* umad's report on our own MAD: the transport took it */
		if (t)
			txn_tx_ack(e, t->tx_seq);
		if (!t) {
			e->stats.unmatched++;
			txn_stale_release(e);
		} else if (rx->status == UMAD_STATUS_TIMEOUT)
			umad_timeout(e, t);
		else
			txn_expire(e, t,
				   false); /* other umad error: a lost try */
		return;
	}
	if (h.base_version != 1) {
		drop(e, "base version not 1", rx);
		return;
	}
	if (h.method & MAD_METHOD_RESP)
		on_response(e, rx, &h);
	else
		on_request(e, rx, &h);
}

/* ---- responding to requests ---- */

int txn_respond_raw(struct txn_engine *e, const struct txn_request *req,
		    const uint8_t *mad, size_t len)
{
	struct mad_addr to = req->rx->from;
	int rc;

	if (req->smp && smp_is_dr(req->smp))
		to.lid = MAD_LID_PERMISSIVE;
	if (!to.qkey && req->hdr->mgmt_class != MAD_CLASS_SMI &&
	    req->hdr->mgmt_class != MAD_CLASS_SMI_DR)
		to.qkey = MAD_QKEY_GSI;
	/* no room, or answers before it wait: it waits behind them */
	if (e->outq || !txn_tx_room(e))
		return txn_out_queue(e, req->rx->agent, mad, len, &to);
	rc = e->tr.send(e->tr.ctx, req->rx->agent, mad, len, &to, 0);
	if (rc) {
		e->stats.send_errors++;
	} else {
		e->stats.sent++;
		txn_tx_sent_answer(e, true);
	}
	return rc;
}

int txn_respond_rx(struct txn_engine *e, const struct mad_rx *rx,
		   const uint8_t *mad, size_t len)
{
	struct mad_addr to = rx->from;
	int rc;

	if (!to.qkey)
		to.qkey = MAD_QKEY_GSI;
	rc = e->tr.send(e->tr.ctx, rx->agent, mad, len, &to, 0);
	if (rc == 0) {
		txn_tx_sent_answer(e, false);
		txn_tx_fence_if_due(e, false);
	}
	return rc;
}

void txn_set_rx_hook(struct txn_engine *e, txn_rx_hook fn, void *ctx)
{
	pthread_rwlock_wrlock(&e->rxq.hook_lock);
	e->rxq.hook = fn;
	e->rxq.hook_ctx = ctx;
	pthread_rwlock_unlock(&e->rxq.hook_lock);
}

int txn_respond_smp(struct txn_engine *e, const struct txn_request *req,
		    uint16_t status, const uint8_t *data)
{
	uint8_t buf[MAD_SIZE];
	struct smp s;
	int rc;

	if (!req->smp)
		return -EINVAL;
	s = *req->smp;
	smp_make_response(&s, status);
	if (data)
		memcpy(s.data, data, SMP_DATA_SIZE);
	rc = smp_encode(&s, buf, sizeof(buf));
	return rc ? rc : txn_respond_raw(e, req, buf, sizeof(buf));
}

int txn_repress_trap(struct txn_engine *e, const struct txn_request *req)
{
	uint8_t buf[MAD_SIZE];
	struct smp s;
	int rc;

	if (!req->smp || req->hdr->method != MAD_METHOD_TRAP)
		return -EINVAL;
	s = *req->smp;
	smp_make_trap_repress(&s);
	rc = smp_encode(&s, buf, sizeof(buf));
	return rc ? rc : txn_respond_raw(e, req, buf, sizeof(buf));
}

void txn_set_request_handler(struct txn_engine *e, txn_request_cb cb, void *ctx)
{
	e->req_cb = cb;
	e->req_ctx = ctx;
}

/* ---- lifetime ---- */

static int port_send(void *ctx, int agent, const uint8_t *mad, size_t len,
		     const struct mad_addr *to, int timeout_ms)
{
	return mad_port_send(ctx, agent, mad, len, to, timeout_ms);
}

int txn_create_transport(const struct txn_transport *tr,
			 const struct txn_params *params,
			 struct txn_engine **out)
{
	struct txn_engine *e = calloc(1, sizeof(*e));
	int rc;

	*out = NULL;
	if (!e)
		return -ENOMEM;
	e->tr = *tr;
	if (params)
		e->params = *params;
	else
		txn_params_default(&e->params);
	txn_set_params(e, &e->params);
	rc = txn_rxq_init(&e->rxq);
	if (rc) {
		free(e);
		return rc;
	}
	*out = e;
	return 0;
}

/* The receiver thread counts what it receives and takes fence answers. */
static bool rx_heard(void *ctx, const struct mad_rx *rx)
{
	return txn_tx_heard(ctx, rx);
}

int txn_create(struct mad_port *port, const struct txn_params *params,
	       struct txn_engine **out)
{
	struct txn_transport tr = {.send = port_send, .ctx = port};
	int rc;

	*out = NULL;
	rc = mad_port_register_smi(port, &tr.agent_smi, &tr.agent_smi_dr);
	if (rc)
		return rc;
	rc = txn_create_transport(&tr, params, out);
	if (rc)
		return rc;
	(*out)->port = port;
	(*out)->rxq.heard = rx_heard;
	(*out)->rxq.heard_ctx = *out;
	rc = txn_rxq_start(&(*out)->rxq, port);
	if (rc) {
		txn_destroy(*out);
		*out = NULL;
	}
	return rc;
}

/* The receiver thread waits in umad up to RX_POLL_MS (100 ms) before it
 * sees its stop flag; a NodeInfo Get to our own port (0 hops, answered by
 * the port's own SMA, under ibsim too) wakes it at once, so an exit
 * (--once) does not wait for that.  The answer matches no transaction. */
static void wake_receiver(struct txn_engine *e)
{
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = {.lid = MAD_LID_PERMISSIVE};
	struct smp s;
	struct txn_smp_req req = {.dr = true,
				  .method = MAD_METHOD_GET,
				  .attr_id = SMP_ATTR_NODE_INFO};

	if (!e->rxq.running)
		return;
	smp_init_dr(&s, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	s.hdr.tid = TXN_WAKE_TID; /* no slot (txn_by_tid) */
	/* like every SMP, it carries our port's M_Key (mkey.c's hook is
	 * still set: the daemon stops it after the engine) */
	if (e->mkey_fn)
		s.mkey = e->mkey_fn(e->mkey_ctx, &req);
	if (smp_encode(&s, mad, sizeof(mad)) == 0)
		e->tr.send(e->tr.ctx, e->tr.agent_smi_dr, mad, sizeof(mad), &to,
			   (int)e->params.timeout_ms);
}

/* At most this long for the answers to the SMPs still on the wire when
 * the engine is destroyed. */
#define DRAIN_MAX_MS 1000

/* Marks the tries on the wire whose answer may come; returns how many,
 * and in *end the last of their deadlines (at most DRAIN_MAX_MS on). */
static unsigned drain_mark(struct txn_engine *e, int64_t *end)
{
	int64_t cap = txn_now_us() + (int64_t)DRAIN_MAX_MS * 1000;
	unsigned n = 0;

	*end = 0;
	for (unsigned i = 0; i < e->heap_n; i++) {
		struct txn *t = e->heap[i];

		if (t->slot == UINT32_MAX || t->last_err)
			continue; /* never sent */
		t->drain_wait = true;
		n++;
		if (t->deadline_us > *end)
			*end = t->deadline_us;
	}
	if (*end > cap)
		*end = cap;
	return n;
}

/* One received MAD while draining: the answer (or umad's timeout record)
 * of a marked try counts; everything else is dropped, we are stopping. */
static bool drain_one(struct txn_engine *e, const struct mad_rx *rx)
{
	struct mad_hdr h;
	struct txn *t;

	if (mad_hdr_decode(&h, rx->mad, rx->len) ||
	    (!rx->status && !(h.method & MAD_METHOD_RESP)))
		return false;
	t = txn_by_tid(e, (uint32_t)h.tid);
	if (!t || !t->drain_wait)
		return false;
	t->drain_wait = false;
	return true;
}

/* Before the port closes, the answers to the SMPs still on the wire are
 * let in and dropped, up to their deadlines.  A SIGTERM mid-sweep leaves
 * a window of them; an answer that reaches the process while it exits
 * races with the umad layer's own teardown, and libumad2sim (ibsim's
 * shim) deadlocks in its exit handler when its receiver thread is handed
 * a packet then (it joins that thread while holding the lock the thread
 * waits for).  On hardware this costs one round trip at exit.  The
 * transactions are cancelled after, with their callbacks; what those
 * submit is queued and cancelled, never sent (e->closing). */
static void drain_answers(struct txn_engine *e)
{
	int64_t end, now;
	unsigned left;

	if (!e->rxq.running)
		return;
	left = drain_mark(e, &end);
	while (left && (now = txn_now_us()) < end) {
		struct pollfd pfd = {.fd = e->rxq.efd, .events = POLLIN};
		struct rx_item *it, *next;

		if (poll(&pfd, 1, (int)((end - now + 999) / 1000)) < 0 &&
		    errno != EINTR)
			break;
		for (it = txn_rxq_take(&e->rxq); it; it = next) {
			next = it->next;
			if (drain_one(e, &it->rx))
				left--;
			free(it);
		}
	}
	if (left)
		log_debug("txn: %u answers still on the wire at exit", left);
}

void txn_destroy(struct txn_engine *e)
{
	if (!e)
		return;
	e->closing = true;
	drain_answers(e);
	txn_rxq_stop(&e->rxq);
	wake_receiver(e);
	txn_rxq_fini(&e->rxq); /* no more receptions */
	while (e->heap_n)
		txn_complete(e, e->heap[0], -ECANCELED, NULL, NULL);
	while (e->retry_head) {
		struct txn *t = e->retry_head;
		struct txn_result r = {.status = -ECANCELED, .tries = t->tries};

		e->retry_head = t->qnext;
		if (t->cb)
			t->cb(t->ctx, -ECANCELED, &r);
		free(t);
	}
	e->retry_tail = NULL;
	txn_out_free(e);
	while (e->ready_head) {
		struct txn_dest *d = e->ready_head;
		struct txn *t;

		e->ready_head = d->rnext;
		d->in_ready = false;
		while ((t = d->qhead)) {
			d->qhead = t->qnext;
			if (t->cb) {
				struct txn_result r = {.status = -ECANCELED};
				t->cb(t->ctx, -ECANCELED, &r);
			}
			free(t);
		}
	}
	for (unsigned i = 0; i < TXN_DEST_BUCKETS; i++)
		while (e->buckets[i]) {
			struct txn_dest *d = e->buckets[i];
			e->buckets[i] = d->hnext;
			free(d);
		}
	while (e->defer_head) {
		struct txn_deferred *d = e->defer_head;
		e->defer_head = d->next;
		free(d);
	}
	free(e->heap);
	free(e->stale_exp);
	free(e->slots);
	free(e->free_slots);
	free(e);
}

int txn_inject(struct txn_engine *e, const struct mad_rx *rx)
{
	if (txn_tx_heard(e, rx))
		return 0; /* a fence's answer, taken as the thread takes it */
	return txn_rxq_push(&e->rxq, rx);
}

void txn_set_params(struct txn_engine *e, const struct txn_params *p)
{
	e->params = *p;
	if (e->params.window == 0)
		e->params.window = 1;
	if (e->params.window > TXN_MAX_SLOTS - 1)
		e->params.window = TXN_MAX_SLOTS - 1;
	if (e->params.node_window == 0 ||
	    e->params.node_window > e->params.window)
		e->params.node_window = e->params.window;
	if (e->params.timeout_ms == 0)
		e->params.timeout_ms = TXN_DEFAULT_TIMEOUT_MS;
}

const struct txn_params *txn_get_params(const struct txn_engine *e)
{
	return &e->params;
}

int txn_fd(const struct txn_engine *e)
{
	return e->rxq.efd;
}
struct mad_port *txn_port(const struct txn_engine *e)
{
	return e->port;
}
const struct txn_stats *txn_stats(const struct txn_engine *e)
{
	return &e->stats;
}
