/* Transaction engine on a fake transport: windows (global and per
 * destination), FIFO order, TID matching on the low 32 bits, retries and
 * timeouts, immediate umad 110 answers, remote errors, requests and the
 * responses to them, cancellation. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mad/cursor.h"
#include "mad/txn.h"

#define MAXSENT 256

struct fake {
	uint8_t mad[MAXSENT][MAD_SIZE];
	struct mad_addr to[MAXSENT];
	int agent[MAXSENT];
	unsigned n;
	int fail_next; /* send error to return once */
};

static int fake_send(void *ctx, int agent, const uint8_t *mad, size_t len,
		     const struct mad_addr *to, int timeout_ms)
{
	struct fake *f = ctx;

	if (f->fail_next) {
		int rc = f->fail_next;
		f->fail_next = 0;
		return rc;
	}
	assert_true(f->n < MAXSENT);
	memcpy(f->mad[f->n], mad, len);
	f->to[f->n] = *to;
	f->agent[f->n] = agent;
	f->n++;
	return 0;
}

struct done {
	int calls;
	int status[64];
	uint16_t mad_status[64];
	unsigned tries[64];
	uint8_t first_data[64];
	int order[64];
};

static bool fast_seen;

struct cbctx {
	struct done *d;
	int id;
};

static void cb(void *ctx, int status, const struct txn_result *r)
{
	struct cbctx *c = ctx;
	struct done *d = c->d;

	d->status[c->id] = status;
	d->mad_status[c->id] = r->mad_status;
	d->tries[c->id] = r->tries;
	d->first_data[c->id] = r->data ? r->data[0] : 0xEE;
	d->order[d->calls++] = c->id;
	if (r->fast_timeout)
		fast_seen = true;
}

static struct txn_engine *mk2(struct fake *f, unsigned w, unsigned nw,
			      unsigned retries, bool retry_fast)
{
	struct txn_transport tr = {
	    .send = fake_send, .ctx = f, .agent_smi = 3, .agent_smi_dr = 4};
	struct txn_params p;
	struct txn_engine *e;

	memset(f, 0, sizeof(*f));
	txn_params_default(&p);
	p.window = w;
	p.node_window = nw;
	p.retries = retries;
	p.timeout_ms = 50;
	p.retry_fast_timeouts = retry_fast;
	assert_int_equal(txn_create_transport(&tr, &p, &e), 0);
	return e;
}

static struct txn_engine *mk(struct fake *f, unsigned w, unsigned nw,
			     unsigned retries)
{
	return mk2(f, w, nw, retries, true);
}

/* Answer sent MAD i: GetResp, same bytes, TID high bits scrambled as
 * ibsim does, optional status and data byte. */
static void answer(struct txn_engine *e, struct fake *f, unsigned i,
		   uint16_t status, uint8_t data0, int umad_status)
{
	struct mad_rx rx = {.len = MAD_SIZE, .agent = f->agent[i]};
	struct cur c;

	memcpy(rx.mad, f->mad[i], MAD_SIZE);
	rx.status = umad_status;
	cur_wr(&c, rx.mad, MAD_SIZE);
	if (!umad_status) {
		cur_poke_be(&c, 3, 1, MAD_METHOD_GET_RESP);
		cur_poke_be(&c, 4, 2,
			    status | (rx.mad[1] == 0x81 ? 0x8000 : 0));
		cur_poke_be(&c, 8, 4,
			    0xDEAD0000 | i); /* high 32 bits rewritten */
		rx.mad[SMP_DATA_OFF] = data0;
	}
	assert_int_equal(txn_inject(e, &rx), 0);
	txn_on_readable(e);
}

static void test_windows_and_fifo(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c[12];
	struct txn_engine *e = mk(&f, 4, 2, 0);
	uint8_t pa[2] = {0, 1}, pb[2] = {0, 2};

	(void)state;
	for (int i = 0; i < 12; i++) {
		c[i] = (struct cbctx){&d, i};
		/* even ids to node A, odd ids to node B */
		assert_int_equal(txn_submit_dr(e, i % 2 ? pb : pa, 1,
					       MAD_METHOD_GET,
					       SMP_ATTR_NODE_INFO, (uint32_t)i,
					       NULL, cb, &c[i]),
				 0);
	}
	/* 2 per node, 4 overall */
	assert_int_equal(f.n, 4);
	assert_int_equal(txn_stats(e)->outstanding, 4);
	assert_int_equal(txn_stats(e)->queued, 8);
	assert_int_equal(txn_pending(e), 12);
	for (unsigned i = 0; i < 12; i++) {
		/* answer the oldest unanswered; the engine refills */
		answer(e, &f, i, 0, (uint8_t)i, 0);
		assert_true(txn_stats(e)->outstanding <= 4);
	}
	assert_int_equal(f.n, 12);
	assert_int_equal(d.calls, 12);
	for (int i = 0; i < 12; i++)
		assert_int_equal(d.status[i], 0);
	/* per node FIFO: A's ids come back ascending, so do B's */
	int last_a = -1, last_b = -1;
	for (int k = 0; k < 12; k++) {
		int id = d.order[k];
		if (id % 2) {
			assert_true(id > last_b);
			last_b = id;
		} else {
			assert_true(id > last_a);
			last_a = id;
		}
	}
	/* attribute modifiers went out in per-node FIFO order */
	for (int i = 0; i < 12; i++)
		assert_int_equal(f.mad[i][23], i);
	assert_int_equal(txn_stats(e)->received, 12);
	assert_int_equal(txn_stats(e)->max_outstanding, 4);
	txn_destroy(e);
}

static void test_timeout_retry(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c0 = {&d, 0}, c1 = {&d, 1};
	struct txn_engine *e = mk(&f, 8, 8, 2);

	(void)state;
	assert_int_equal(txn_submit_lid(e, 7, MAD_METHOD_GET,
					SMP_ATTR_PORT_INFO, 1, NULL, cb, &c0),
			 0);
	assert_int_equal(txn_submit_lid(e, 8, MAD_METHOD_GET,
					SMP_ATTR_PORT_INFO, 1, NULL, cb, &c1),
			 0);
	assert_int_equal(f.n, 2);
	assert_true(txn_next_deadline_us(e) > txn_now_us());
	txn_on_timer(e, txn_now_us()); /* nothing due yet */
	assert_int_equal(f.n, 2);
	txn_on_timer(e, txn_next_deadline_us(e) + 1000);
	assert_int_equal(f.n, 4); /* both retried, new TIDs */
	assert_true(memcmp(f.mad[0] + 8, f.mad[2] + 8, 8) != 0);
	/* a late answer to the first try is not taken for the retry */
	answer(e, &f, 0, 0, 0, 0);
	assert_int_equal(txn_stats(e)->unmatched, 1);
	answer(e, &f, 3, 0, 0x42, 0); /* the retry of #1 answered */
	assert_int_equal(d.calls, 1);
	assert_int_equal(d.order[0], 1);
	assert_int_equal(d.tries[1], 2);
	assert_int_equal(d.first_data[1], 0x42);
	txn_on_timer(e, txn_next_deadline_us(e) + 1000);
	txn_on_timer(e, txn_next_deadline_us(e) + 1000);
	assert_int_equal(d.calls, 2);
	assert_int_equal(d.status[0], -ETIMEDOUT);
	assert_int_equal(d.tries[0], 3);
	assert_int_equal(txn_stats(e)->lost, 1);
	assert_int_equal(txn_stats(e)->retried, 3);
	assert_int_equal(txn_stats(e)->sent, 5);
	assert_int_equal(txn_next_deadline_us(e), -1);
	txn_destroy(e);
}

static void test_remote_error_and_fast_timeout(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c0 = {&d, 0}, c1 = {&d, 1}, c2 = {&d, 2};
	struct txn_engine *e = mk2(&f, 8, 8, 3, false);
	uint8_t p[2] = {0, 1};

	(void)state;
	txn_submit_dr(e, p, 1, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, cb,
		      &c0);
	txn_submit_dr(e, p, 1, MAD_METHOD_GET, SMP_ATTR_PGROUP_INFO, 0, NULL,
		      cb, &c1);
	txn_submit_dr(e, p, 1, MAD_METHOD_SET, SMP_ATTR_PORT_INFO, 0, NULL, cb,
		      &c2);
	answer(e, &f, 0, 0x001C, 0, 0);
	assert_int_equal(d.status[0], -EREMOTEIO);
	assert_int_equal(d.mad_status[0], 0x001C); /* D bit removed */
	answer(e, &f, 1, 0, 0, 110); /* ibsim: attribute not implemented */
	assert_int_equal(d.status[1], -ETIMEDOUT);
	assert_int_equal(d.tries[1], 1); /* no retry storm */
	assert_true(fast_seen);
	assert_int_equal(txn_stats(e)->fast_timeouts, 1);
	assert_int_equal(f.n, 3);
	assert_int_equal(txn_stats(e)->remote_errors, 1);
	txn_destroy(e);
	assert_int_equal(d.status[2], -ECANCELED);
}

/* Default policy: an immediate 110 (ibsim drop) is re-sent at once within
 * the retry budget; the budget bounds an unimplemented attribute. */
static void test_fast_timeout_retried(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c0 = {&d, 0}, c1 = {&d, 1};
	struct txn_engine *e = mk(&f, 8, 8, 2);
	struct txn_smp_req probe = {.dlid = 9,
				    .method = MAD_METHOD_GET,
				    .attr_id = SMP_ATTR_PGROUP_INFO,
				    .retries = 0};

	(void)state;
	fast_seen = false;
	txn_submit_lid(e, 5, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, cb,
		       &c0);
	answer(e, &f, 0, 0, 0, 110);
	assert_int_equal(f.n, 2); /* re-sent without waiting */
	answer(e, &f, 1, 0, 0, 110);
	assert_int_equal(f.n, 3);
	answer(e, &f, 2, 0, 7, 0);
	assert_int_equal(d.status[0], 0);
	assert_int_equal(d.tries[0], 3);
	assert_int_equal(txn_stats(e)->fast_timeouts, 2);
	/* an optional-attribute probe with retries 0: one SMP, final */
	assert_int_equal(txn_submit(e, &probe, cb, &c1), 0);
	answer(e, &f, 3, 0, 0, 110);
	assert_int_equal(d.status[1], -ETIMEDOUT);
	assert_int_equal(d.tries[1], 1);
	assert_true(fast_seen);
	assert_int_equal(f.n, 4);
	txn_destroy(e);
}

/* Timed-out tries keep their window slot until their late answer comes
 * (or 4 timeouts pass), so a too-short timeout cannot overfill ibsim. */
static void test_stale_slots(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c[3] = {{&d, 0}, {&d, 1}, {&d, 2}};
	struct txn_engine *e = mk(&f, 2, 2, 1);

	(void)state;
	for (int i = 0; i < 3; i++)
		txn_submit_lid(e, 5, MAD_METHOD_GET, SMP_ATTR_NODE_INFO,
			       (uint32_t)i, NULL, cb, &c[i]);
	assert_int_equal(f.n, 2);
	txn_on_timer(e, txn_now_us() + 60000);
	/* both timed out; their first tries may still be in the fabric, so
	 * the retries wait: 0 outstanding + 2 stale fill the window */
	assert_int_equal(f.n, 2);
	assert_int_equal(txn_stats(e)->stale, 2);
	assert_int_equal(txn_stats(e)->queued, 3);
	answer(e, &f, 0, 0, 0, 0); /* #0's late first answer: unmatched */
	assert_int_equal(txn_stats(e)->stale, 1);
	assert_int_equal(f.n, 3); /* #0's retry, before the new #2 */
	assert_int_equal(f.mad[2][23], 0);
	answer(e, &f, 1, 0, 0, 0);
	assert_int_equal(f.n, 4);
	assert_int_equal(f.mad[3][23], 1);
	answer(e, &f, 2, 0, 0, 0); /* #0 done, room for #2 */
	assert_int_equal(d.status[0], 0);
	assert_int_equal(d.tries[0], 2);
	assert_int_equal(f.n, 5);
	assert_int_equal(f.mad[4][23], 2);
	answer(e, &f, 3, 0, 0, 0);
	assert_int_equal(d.status[1], 0);
	/* #2 never answers: its stale slots free themselves after 1 s */
	txn_on_timer(e, txn_next_deadline_us(e) + 1);
	assert_int_equal(txn_stats(e)->stale, 1);
	txn_on_timer(e, txn_now_us() + 1100000); /* the retry goes */
	assert_int_equal(f.n, 6);
	txn_on_timer(e, txn_now_us() + 1200000); /* lost */
	assert_int_equal(d.status[2], -ETIMEDOUT);
	txn_on_timer(e, txn_now_us() + 2500000);
	assert_int_equal(txn_stats(e)->stale, 0);
	assert_int_equal(txn_pending(e), 0);
	txn_destroy(e);
}

static void test_send_error_retried(void **state)
{
	struct fake f;
	struct done d = {0};
	struct cbctx c0 = {&d, 0};
	struct txn_engine *e = mk(&f, 8, 8, 1);

	(void)state;
	f.fail_next = -ENOBUFS;
	txn_submit_lid(e, 5, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, cb,
		       &c0);
	assert_int_equal(f.n, 0);
	assert_int_equal(txn_stats(e)->send_errors, 1);
	txn_on_timer(e, txn_next_deadline_us(e) + 1);
	assert_int_equal(f.n, 1);
	answer(e, &f, 0, 0, 0, 0);
	assert_int_equal(d.status[0], 0);
	txn_destroy(e);
}

struct reqctx {
	struct txn_engine *e;
	int seen;
	uint16_t attr;
};

static void on_req(void *ctx, const struct txn_request *req)
{
	struct reqctx *r = ctx;
	uint8_t data[64] = {0xAB};

	r->seen++;
	r->attr = req->hdr->attr_id;
	assert_non_null(req->smp);
	assert_int_equal(txn_respond_smp(r->e, req, 0, data), 0);
}

static void on_trap(void *ctx, const struct txn_request *req)
{
	struct txn_engine *e = *(struct txn_engine **)ctx;

	assert_int_equal(txn_repress_trap(e, req), 0);
}

static void test_requests(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f, 8, 8, 0);
	struct reqctx rc = {e, 0, 0};
	struct mad_rx rx = {.len = MAD_SIZE, .agent = 4};
	struct smp s, back;
	uint8_t path[2] = {0, 0};

	(void)state;
	/* no handler: counted as dropped */
	smp_init_dr(&s, MAD_METHOD_GET, SMP_ATTR_SM_INFO, 0, path, 0);
	s.hdr.tid = 0x1234567890ULL;
	s.hop_ptr = 0;
	assert_int_equal(smp_encode(&s, rx.mad, MAD_SIZE), 0);
	txn_inject(e, &rx);
	txn_on_readable(e);
	assert_int_equal(txn_stats(e)->dropped, 1);

	txn_set_request_handler(e, on_req, &rc);
	rx.from.lid = 0xFFFF;
	txn_inject(e, &rx);
	txn_on_readable(e);
	assert_int_equal(rc.seen, 1);
	assert_int_equal(rc.attr, SMP_ATTR_SM_INFO);
	assert_int_equal(f.n, 1);
	assert_int_equal(f.agent[0], 4);
	assert_int_equal(f.to[0].lid, 0xFFFF);
	assert_int_equal(smp_decode(&back, f.mad[0], MAD_SIZE), 0);
	assert_int_equal(back.hdr.method, MAD_METHOD_GET_RESP);
	assert_true(back.hdr.tid == 0x1234567890ULL);
	assert_true(back.direction);
	assert_int_equal(back.data[0], 0xAB);

	/* a trap gets its repress: same TID, method 0x07, Notice kept */
	struct trapctx {
		struct txn_engine *e;
		int n;
	} tc = {e, 0};
	txn_set_request_handler(e, on_trap, &tc);
	smp_init_lid(&s, MAD_METHOD_TRAP, SMP_ATTR_NOTICE, 0);
	s.hdr.tid = 0x77;
	s.data[5] = 128; /* trap number low byte */
	assert_int_equal(smp_encode(&s, rx.mad, MAD_SIZE), 0);
	rx.agent = 3;
	rx.from.lid = 12;
	txn_inject(e, &rx);
	txn_on_readable(e);
	assert_int_equal(f.n, 2);
	assert_int_equal(f.to[1].lid, 12);
	assert_int_equal(smp_decode(&back, f.mad[1], MAD_SIZE), 0);
	assert_int_equal(back.hdr.method, MAD_METHOD_TRAP_REPRESS);
	assert_true(back.hdr.tid == 0x77);
	assert_int_equal(back.data[5], 128);
	txn_set_request_handler(e, on_req, &rc);

	/* garbage is dropped, not dispatched */
	memset(rx.mad, 0, MAD_SIZE);
	rx.mad[0] = 1;
	rx.mad[1] = 0x81;
	rx.mad[2] = 9; /* bad class version */
	txn_inject(e, &rx);
	txn_on_readable(e);
	assert_int_equal(rc.seen, 1);
	assert_int_equal(txn_stats(e)->dropped, 2);
	txn_destroy(e);
}

/* The send window: answers to requests and SMPs together stay within
 * send_window MADs the transport has not given back; answers past it wait
 * in order, a fence (NodeInfo Get over 0 hops) follows a quarter of the
 * window of answers, and its answer makes room. */
static void inject_smp_get(struct txn_engine *e, uint64_t tid)
{
	struct mad_rx rx = {.len = MAD_SIZE, .agent = 4, .from.lid = 0xFFFF};
	struct smp s;

	smp_init_dr(&s, MAD_METHOD_GET, SMP_ATTR_SM_INFO, 0, NULL, 0);
	s.hdr.tid = tid;
	assert_int_equal(smp_encode(&s, rx.mad, MAD_SIZE), 0);
	assert_int_equal(txn_inject(e, &rx), 0);
}

static bool is_fence(const struct fake *f, unsigned i)
{
	struct smp s;

	return smp_decode(&s, f->mad[i], MAD_SIZE) == 0 &&
	       s.hdr.method == MAD_METHOD_GET &&
	       s.hdr.attr_id == SMP_ATTR_NODE_INFO && s.hop_cnt == 0;
}

static void test_send_window(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f, 4, 4, 0);
	struct reqctx rc = {e, 0, 0};
	struct txn_params p = *txn_get_params(e);
	struct done d = {0};
	struct cbctx c[6];
	uint64_t next_tid = 1;
	unsigned fences = 0;

	(void)state;
	p.send_window = 8;
	txn_set_params(e, &p);
	txn_set_request_handler(e, on_req, &rc);
	for (int i = 0; i < 20; i++)
		inject_smp_get(e, 1000 + (uint64_t)i);
	txn_on_readable(e);
	assert_int_equal(rc.seen, 20);
	/* 8 answers, then the fence past the window; 12 wait */
	assert_int_equal(f.n, 9);
	assert_true(is_fence(&f, 8));
	assert_int_equal(txn_stats(e)->answers_waiting, 12);
	assert_false(txn_rx_room(e));
	/* SMPs wait for room too */
	for (int i = 0; i < 6; i++) {
		uint8_t path[2] = {0, 1};

		c[i] = (struct cbctx){&d, i};
		assert_int_equal(txn_submit_dr(e, path, 1, MAD_METHOD_GET,
					       SMP_ATTR_NODE_INFO, 0, NULL, cb,
					       &c[i]),
				 0);
	}
	assert_int_equal(f.n, 9);
	/* each fence answered makes room: requests first, answers after */
	while (d.calls < 6 || txn_stats(e)->answers_waiting) {
		unsigned n = f.n;

		for (unsigned i = 0; i < n; i++) {
			struct smp s;

			if (smp_decode(&s, f.mad[i], MAD_SIZE) < 0 ||
			    s.hdr.method != MAD_METHOD_GET)
				continue;
			fences += is_fence(&f, i);
			answer(e, &f, i, 0, 0, 0);
			f.mad[i][3] = 0; /* answered: not again */
		}
		assert_true(f.n > n); /* progress */
		assert_true(txn_stats(e)->max_unconsumed <= 8 + 1);
	}
	/* the 20 answers went in the order of their requests */
	for (unsigned i = 0; i < f.n; i++) {
		struct smp s;

		if (smp_decode(&s, f.mad[i], MAD_SIZE) == 0 &&
		    s.hdr.method == MAD_METHOD_GET_RESP)
			assert_true(s.hdr.tid == 1000 + next_tid++ - 1);
	}
	assert_int_equal(next_tid, 21);
	assert_int_equal(d.calls, 6);
	assert_true(fences >= 2);
	assert_true(txn_stats(e)->answers_waited == 12);
	assert_true(txn_rx_room(e));
	txn_destroy(e);
}

static int deferred_ran;
static void deferred(void *ctx)
{
	(void)ctx;
	deferred_ran++;
}

static void test_defer_and_run(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f, 8, 8, 0);
	struct done d = {0};
	struct cbctx c0 = {&d, 0};

	(void)state;
	assert_int_equal(txn_defer(e, deferred, NULL), 0);
	assert_true(txn_next_deadline_us(e) <= txn_now_us());
	assert_int_equal(txn_run(e, 1000), 0);
	assert_int_equal(deferred_ran, 1);
	/* txn_run waits out a timeout (50 ms, no retries) */
	txn_submit_lid(e, 5, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, NULL, cb,
		       &c0);
	int64_t t0 = txn_now_us();
	assert_int_equal(txn_run(e, 2000), 0);
	assert_true(txn_now_us() - t0 >= 45000);
	assert_int_equal(d.status[0], -ETIMEDOUT);
	txn_destroy(e);
}

/* A cancelled MAD's callback that submits the next one (as a table
 * writer going on to its next block does): once txn_destroy has begun,
 * nothing more reaches the wire, and every MAD still gets its callback
 * once.  (A MAD sent while the process exits was answered during the
 * umad layer's teardown, which hangs libumad2sim.) */
struct resubmit {
	struct txn_engine *e;
	int calls, cancelled, refused;
};

static void resubmit_cb(void *ctx, int status, const struct txn_result *r)
{
	struct resubmit *rs = ctx;
	uint8_t path[2] = {0, 1};

	(void)r;
	rs->calls++;
	if (status != -ECANCELED)
		return;
	rs->cancelled++;
	if (rs->calls > 40) /* a bounded chain */
		return;
	if (txn_submit_dr(rs->e, path, 1, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0,
			  NULL, resubmit_cb, rs))
		rs->refused++;
}

static void test_destroy_sends_nothing(void **state)
{
	struct fake f;
	struct resubmit rs = {0};
	uint8_t path[2] = {0, 1};
	unsigned sent;

	(void)state;
	rs.e = mk(&f, 4, 4, 0);
	for (int i = 0; i < 10; i++)
		assert_int_equal(txn_submit_dr(rs.e, path, 1, MAD_METHOD_GET,
					       SMP_ATTR_NODE_INFO, 0, NULL,
					       resubmit_cb, &rs),
				 0);
	sent = f.n;
	assert_int_equal(sent, 4); /* the window */
	txn_destroy(rs.e);
	assert_int_equal(f.n, sent);
	/* 10 submitted + what their callbacks submitted, each cancelled */
	assert_int_equal(rs.calls, rs.cancelled);
	assert_true(rs.calls > 10);
	assert_int_equal(rs.refused, 0); /* accepted, then cancelled */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_windows_and_fifo),
	    cmocka_unit_test(test_timeout_retry),
	    cmocka_unit_test(test_remote_error_and_fast_timeout),
	    cmocka_unit_test(test_fast_timeout_retried),
	    cmocka_unit_test(test_stale_slots),
	    cmocka_unit_test(test_send_error_retried),
	    cmocka_unit_test(test_requests),
	    cmocka_unit_test(test_send_window),
	    cmocka_unit_test(test_defer_and_run),
	    cmocka_unit_test(test_destroy_sends_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
