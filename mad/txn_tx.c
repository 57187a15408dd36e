/* The send window of the transaction engine: how many MADs the transport
 * holds that it has not passed on yet, requests and answers together
 * (txn.h, send_window).  Every send takes the next place in order
 * (tx_seq); the answer to a request, or umad's report that it went
 * unanswered, says the transport read that request, hence everything sent
 * before it (under ibsim the MADs of one client go through one socket,
 * read in order).  Answers to requests have no answer of their own: after
 * a quarter of the window of them with no request in between, a fence, a
 * NodeInfo Get to our own port over 0 hops, is sent past the windows, and
 * its answer acknowledges them.  What finds no room waits here (answers)
 * or in the engine's queues (requests); no send ever waits in a write.
 *
 * Both threads send (the receiver answers SA Gets), so the counters and
 * the fence are atomics: either thread may send the fence, and the
 * receiver thread takes its answer as it arrives, so a loop busy routing
 * does not hold the receiver's answers back. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "mad/smp.h"
#include "mad/txn_int.h"

/* Answers kept while the window is full; past that they are dropped and
 * counted (the requester asks again): a flood of requests must not take
 * the daemon's memory. */
#define OUTQ_MAX 16384
/* A fence unanswered this long is taken as lost; another is sent only
 * once something came back from the transport since (a stopped ibsim is
 * not fed fences). */
#define FENCE_LOST_US 1000000

static struct log_ratelimit out_rl = {.interval_ms = 5000, .burst = 2};

#define LOAD(x)	    __atomic_load_n(&(x), __ATOMIC_ACQUIRE)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELEASE)

static unsigned unconsumed(const struct txn_engine *e)
{
	uint64_t s = LOAD(e->tx_seq), a = LOAD(e->tx_acked);

	return s > a ? (unsigned)(s - a) : 0;
}

bool txn_tx_room(const struct txn_engine *e)
{
	return !e->params.send_window || unconsumed(e) < e->params.send_window;
}

/* On the loop: the high-water mark (the statistics are the loop's). */
static void note_high(struct txn_engine *e)
{
	unsigned u = unconsumed(e);

	if (u > e->stats.max_unconsumed)
		e->stats.max_unconsumed = u;
	e->stats.unconsumed = u;
}

uint64_t txn_tx_take(struct txn_engine *e)
{
	uint64_t s = __atomic_add_fetch(&e->tx_seq, 1, __ATOMIC_ACQ_REL);

	/* a request: its answer acknowledges what went before */
	STORE(e->unfenced, 0);
	note_high(e);
	return s;
}

void txn_tx_sent_answer(struct txn_engine *e, bool loop)
{
	__atomic_add_fetch(&e->tx_seq, 1, __ATOMIC_ACQ_REL);
	__atomic_add_fetch(&e->unfenced, 1, __ATOMIC_ACQ_REL);
	if (loop)
		note_high(e);
}

void txn_tx_ack(struct txn_engine *e, uint64_t seq)
{
	uint64_t a = LOAD(e->tx_acked);

	while (seq > a &&
	       !__atomic_compare_exchange_n(&e->tx_acked, &a, seq, false,
					    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		;
}

/* Sends the fence if none is out (or the one out is lost); either
 * thread.  The place in order is taken before the send, so its answer,
 * which the receiver thread may read at once, always finds it. */
static void send_fence(struct txn_engine *e)
{
	uint64_t out = LOAD(e->fence_seq), seq;
	uint8_t mad[MAD_SIZE];
	struct mad_addr to = {.lid = MAD_LID_PERMISSIVE};
	struct smp s;
	uint32_t tid;

	if (out && (txn_now_us() - LOAD(e->fence_sent_us) < FENCE_LOST_US ||
		    LOAD(e->rx_count) == LOAD(e->fence_rx_mark)))
		return;
	if (!__atomic_compare_exchange_n(&e->fence_seq, &out, UINT64_MAX, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return; /* the other thread is sending one */
	tid = (__atomic_add_fetch(&e->fence_gen, 1, __ATOMIC_RELAXED) << 16) |
	      TXN_FENCE_SLOT;
	smp_init_dr(&s, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, 0);
	s.hdr.tid = tid;
	if (smp_encode(&s, mad, sizeof(mad)) < 0) {
		STORE(e->fence_seq, 0);
		return;
	}
	seq = __atomic_add_fetch(&e->tx_seq, 1, __ATOMIC_ACQ_REL);
	STORE(e->unfenced, 0);
	STORE(e->fence_tid, tid);
	STORE(e->fence_rx_mark, LOAD(e->rx_count));
	STORE(e->fence_sent_us, txn_now_us());
	STORE(e->fence_seq, seq);
	if (e->tr.send(e->tr.ctx, e->tr.agent_smi_dr, mad, sizeof(mad), &to,
		       0)) {
		STORE(e->fence_seq, 0); /* its place is acked by the next */
		return;
	}
	__atomic_add_fetch(&e->stats.fences, 1, __ATOMIC_RELAXED);
}

/* The fence is due when a quarter of the window of answers went with no
 * request after them, or when answers wait and only a fence can make
 * room. */
void txn_tx_fence_if_due(struct txn_engine *e, bool waiting)
{
	unsigned unf = LOAD(e->unfenced);
	unsigned every = e->params.send_window / 4;

	if (e->closing || !unf || !e->params.send_window)
		return;
	if (unf >= (every ? every : 1) || (waiting && !txn_tx_room(e)))
		send_fence(e);
}

bool txn_tx_heard(struct txn_engine *e, const struct mad_rx *rx)
{
	struct mad_hdr h;
	uint64_t seq;

	__atomic_add_fetch(&e->rx_count, 1, __ATOMIC_ACQ_REL);
	if (rx->status || mad_hdr_decode(&h, rx->mad, rx->len) ||
	    h.mgmt_class != MAD_CLASS_SMI_DR || !(h.method & MAD_METHOD_RESP) ||
	    ((uint32_t)h.tid & 0xFFFF) != TXN_FENCE_SLOT)
		return false;
	seq = LOAD(e->fence_seq);
	/* the answer of the fence out; a late one of a lost fence is only
	 * dropped (its place was acked by a later answer, or will be) */
	if (seq && seq != UINT64_MAX && (uint32_t)h.tid == LOAD(e->fence_tid) &&
	    __atomic_compare_exchange_n(&e->fence_seq, &seq, 0, false,
					__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		txn_tx_ack(e, seq);
	return true;
}

bool txn_rx_room(struct txn_engine *e)
{
	if (txn_tx_room(e))
		return true; /* the room is taken by the send that follows */
	txn_tx_fence_if_due(e, true);
	__atomic_add_fetch(&e->stats.rx_handed_back, 1, __ATOMIC_RELAXED);
	return false;
}

int txn_out_queue(struct txn_engine *e, int agent, const uint8_t *mad,
		  size_t len, const struct mad_addr *to)
{
	struct txn_out *o;

	if (e->stats.answers_waiting >= OUTQ_MAX) {
		e->stats.answers_dropped++;
		if (log_ratelimit_ok(&out_rl))
			log_warn("txn: %u answers wait for the transport; one "
				 "to LID %u dropped (counted; its requester "
				 "asks again)",
				 e->stats.answers_waiting, to->lid);
		return -ENOBUFS;
	}
	o = malloc(sizeof(*o) + len);
	if (!o)
		return -ENOMEM;
	o->next = NULL;
	o->agent = agent;
	o->to = *to;
	o->len = len;
	memcpy(o->mad, mad, len);
	if (!e->outq_tail)
		e->outq_tail = &e->outq;
	*e->outq_tail = o;
	e->outq_tail = &o->next;
	e->stats.answers_waiting++;
	e->stats.answers_waited++;
	return 0;
}

void txn_out_pump(struct txn_engine *e)
{
	struct txn_out *o;

	while (!e->closing && (o = e->outq) && txn_tx_room(e)) {
		int rc =
		    e->tr.send(e->tr.ctx, o->agent, o->mad, o->len, &o->to, 0);

		e->outq = o->next;
		if (!e->outq)
			e->outq_tail = &e->outq;
		e->stats.answers_waiting--;
		if (rc) {
			e->stats.send_errors++;
		} else {
			e->stats.sent++;
			txn_tx_sent_answer(e, true);
		}
		free(o);
	}
	txn_tx_fence_if_due(e, e->outq != NULL);
	note_high(e);
}

void txn_out_free(struct txn_engine *e)
{
	struct txn_out *o, *n;

	for (o = e->outq; o; o = n) {
		n = o->next;
		free(o);
	}
	e->outq = NULL;
	e->outq_tail = &e->outq;
	e->stats.answers_waiting = 0;
}
