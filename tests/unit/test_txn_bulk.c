/* Bulk windowed transfer on a fake transport: never more than W blocks in
 * flight and all inside [base, base + W); a lost block is the only one
 * sent again; blocks that keep failing are reported; remote errors are
 * final; the LFT helper sends the right blocks and bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mad/bulk.h"
#include "mad/cursor.h"

#define MAXSENT 512

struct fake {
	uint8_t mad[MAXSENT][MAD_SIZE];
	unsigned n;
	unsigned answered[MAXSENT]; /* 1 once answered/dropped */
};

static int fake_send(void *ctx, int agent, const uint8_t *mad, size_t len,
		     const struct mad_addr *to, int timeout_ms)
{
	struct fake *f = ctx;

	assert_true(f->n < MAXSENT);
	memcpy(f->mad[f->n++], mad, len);
	return 0;
}

static struct txn_engine *mk(struct fake *f)
{
	struct txn_transport tr = {
	    .send = fake_send, .ctx = f, .agent_smi = 1, .agent_smi_dr = 2};
	struct txn_params p;
	struct txn_engine *e;

	memset(f, 0, sizeof(*f));
	txn_params_default(&p);
	p.window = 64;
	p.node_window = 64;
	p.timeout_ms = 20;
	assert_int_equal(txn_create_transport(&tr, &p, &e), 0);
	return e;
}

static void answer(struct txn_engine *e, struct fake *f, unsigned i,
		   uint16_t status)
{
	struct mad_rx rx = {.len = MAD_SIZE};
	struct cur c;

	memcpy(rx.mad, f->mad[i], MAD_SIZE);
	cur_wr(&c, rx.mad, MAD_SIZE);
	cur_poke_be(&c, 3, 1, MAD_METHOD_GET_RESP);
	cur_poke_be(&c, 4, 2, status | (rx.mad[1] == 0x81 ? 0x8000 : 0));
	f->answered[i] = 1;
	txn_inject(e, &rx);
	txn_on_readable(e);
}

static uint32_t mod_of(struct fake *f, unsigned i)
{
	struct cur c;

	cur_rd(&c, f->mad[i], MAD_SIZE);
	return (uint32_t)cur_peek_be(&c, 20, 4);
}

struct res {
	int calls, status;
	uint32_t nfailed, failed[16], acked;
	unsigned sends, resends;
};

static void done(void *ctx, int status, const struct bulk_result *r)
{
	struct res *res = ctx;

	res->calls++;
	res->status = status;
	res->nfailed = r->nfailed;
	res->acked = r->acked;
	res->sends = r->sends;
	res->resends = r->resends;
	for (uint32_t i = 0; i < r->nfailed && i < 16; i++)
		res->failed[i] = r->failed[i];
}

static int fill(void *ctx, uint32_t item, uint32_t *mod, uint8_t data[64])
{
	*mod = item;
	data[0] = (uint8_t)item;
	return item == 99 ? -EINVAL : 0;
}

static void test_window_and_resend(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f);
	struct res res = {0};
	uint8_t path[3] = {0, 1, 2};
	struct bulk_req r = {.dr = true,
			     .path = path,
			     .hops = 2,
			     .attr_id = SMP_ATTR_LFT,
			     .nitems = 12,
			     .window = 4,
			     .retries = 2,
			     .fill = fill,
			     .done = done,
			     .ctx = &res};
	struct bulk_xfer *x;

	(void)state;
	assert_int_equal(bulk_start(e, &r, &x), 0);
	assert_int_equal(f.n, 4); /* blocks 0..3 */
	/* lose block 1: answer 0, 2, 3 */
	answer(e, &f, 0, 0);
	assert_int_equal(bulk_base(x), 1);
	answer(e, &f, 2, 0);
	answer(e, &f, 3, 0);
	/* the base is stuck at 1: only block 4 fits in [1, 5) */
	assert_int_equal(f.n, 5);
	assert_int_equal(mod_of(&f, 4), 4);
	answer(e, &f, 4, 0);
	assert_int_equal(f.n, 5);
	/* timeout: only block 1 goes again */
	txn_on_timer(e, txn_next_deadline_us(e) + 1);
	assert_int_equal(f.n, 6);
	assert_int_equal(mod_of(&f, 5), 1);
	answer(e, &f, 5, 0);
	/* the base jumps to 5 and the window refills with 5..8 */
	assert_int_equal(bulk_base(x), 5);
	assert_int_equal(f.n, 10);
	for (unsigned i = 6; i < 10; i++)
		assert_int_equal(mod_of(&f, i), i - 1);
	/* answer everything else as it comes */
	for (unsigned i = 6; i < f.n; i++)
		answer(e, &f, i, 0);
	assert_int_equal(res.calls, 1);
	assert_int_equal(res.status, 0);
	assert_int_equal(res.acked, 12);
	assert_int_equal(res.sends, 13);
	assert_int_equal(res.resends, 1);
	assert_int_equal(txn_pending(e), 0);
	txn_destroy(e);
}

static void test_failures_reported(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f);
	struct res res = {0};
	struct bulk_req r = {.dlid = 5,
			     .attr_id = SMP_ATTR_MFT,
			     .nitems = 6,
			     .window = 8,
			     .retries = 1,
			     .fill = fill,
			     .done = done,
			     .ctx = &res};

	(void)state;
	assert_int_equal(bulk_start(e, &r, NULL), 0);
	assert_int_equal(f.n, 6);
	answer(e, &f, 0, 0);
	answer(e, &f, 1, 0x001C); /* remote error: final, not resent */
	answer(e, &f, 2, 0);
	answer(e, &f, 4, 0);
	answer(e, &f, 5, 0);
	/* block 3 never answers: one resend, then it fails */
	txn_on_timer(e, txn_next_deadline_us(e) + 1);
	assert_int_equal(f.n, 7);
	assert_int_equal(mod_of(&f, 6), 3);
	txn_on_timer(e, txn_next_deadline_us(e) + 1);
	assert_int_equal(f.n, 7);
	assert_int_equal(res.calls, 1);
	assert_int_equal(res.status, -EREMOTEIO); /* the first failure */
	assert_int_equal(res.nfailed, 2);
	assert_int_equal(res.failed[0], 1);
	assert_int_equal(res.failed[1], 3);
	assert_int_equal(res.acked, 4);
	txn_destroy(e);
}

/* Destroying the engine mid-transfer: the blocks in flight complete with
 * -ECANCELED and no block past the window is sent (a send from inside
 * txn_destroy would wait on a transport nobody reads any more). */
static void test_cancel_sends_nothing(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f);
	struct res res = {0};
	struct bulk_req r = {.dlid = 5,
			     .attr_id = SMP_ATTR_SL2VL_TABLE,
			     .nitems = 40,
			     .window = 4,
			     .retries = 1,
			     .fill = fill,
			     .done = done,
			     .ctx = &res};

	(void)state;
	assert_int_equal(bulk_start(e, &r, NULL), 0);
	assert_int_equal(f.n, 4);
	answer(e, &f, 0, 0);
	assert_int_equal(f.n, 5);
	txn_destroy(e);
	assert_int_equal(f.n, 5); /* nothing sent while cancelling */
	assert_int_equal(res.calls, 1);
	assert_int_equal(res.status, -ECANCELED);
	assert_int_equal(res.acked, 1);
	assert_int_equal(res.nfailed, 39);
}

static void test_empty_and_fill_errors(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f);
	struct res res = {0};
	struct bulk_req r = {.dlid = 5,
			     .attr_id = SMP_ATTR_LFT,
			     .nitems = 0,
			     .fill = fill,
			     .done = done,
			     .ctx = &res};

	(void)state;
	assert_int_equal(bulk_start(e, &r, NULL), 0);
	assert_int_equal(res.calls, 0); /* never inside bulk_start */
	assert_int_equal(txn_run(e, 1000), 0);
	assert_int_equal(res.calls, 1);
	assert_int_equal(res.status, 0);
	txn_destroy(e);
}

struct lftres {
	int calls, status;
};

static void lft_done(void *ctx, int status, const struct bulk_result *r)
{
	struct lftres *l = ctx;

	l->calls++;
	l->status = status;
}

static void test_lft_helper(void **state)
{
	struct fake f;
	struct txn_engine *e = mk(&f);
	uint8_t lft[150];
	uint32_t blocks[2] = {2, 0};
	struct lftres l = {0};
	struct bulk_lft_req r = {.dlid = 9,
				 .lft = lft,
				 .lft_size = 150,
				 .blocks = blocks,
				 .n = 2,
				 .window = 2,
				 .retries = 1,
				 .done = lft_done,
				 .ctx = &l};

	(void)state;
	for (int i = 0; i < 150; i++)
		lft[i] = (uint8_t)(i % 7);
	assert_int_equal(bulk_lft_start(e, &r), 0);
	assert_int_equal(f.n, 2);
	assert_int_equal(mod_of(&f, 0), 2);
	assert_int_equal(f.mad[0][1], MAD_CLASS_SMI);
	assert_int_equal(f.mad[0][3], MAD_METHOD_SET);
	assert_int_equal(f.mad[0][17], SMP_ATTR_LFT);
	assert_memory_equal(f.mad[0] + SMP_DATA_OFF, lft + 128, 22);
	assert_int_equal(f.mad[0][SMP_DATA_OFF + 22], 0xFF); /* past the LFT */
	assert_memory_equal(f.mad[1] + SMP_DATA_OFF, lft, 64);
	answer(e, &f, 0, 0);
	answer(e, &f, 1, 0);
	assert_int_equal(l.calls, 1);
	assert_int_equal(l.status, 0);
	txn_destroy(e);
}

static void test_lft_changed(void **state)
{
	uint8_t old[200], cur[200];
	uint32_t out[8];

	(void)state;
	memset(old, 3, sizeof(old));
	memcpy(cur, old, sizeof(cur));
	assert_int_equal(bulk_lft_changed(old, 200, cur, 200, out), 0);
	cur[70] = 4;  /* block 1 */
	cur[199] = 5; /* block 3 */
	assert_int_equal(bulk_lft_changed(old, 200, cur, 200, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 3);
	/* a table that grew: the new LIDs' block differs from "drop" */
	assert_int_equal(bulk_lft_changed(old, 130, old, 200, out), 2);
	assert_int_equal(out[0], 2);
	assert_int_equal(out[1], 3);
	/* unknown contents: everything */
	assert_int_equal(bulk_lft_changed(NULL, 0, cur, 129, out), 3);
	assert_int_equal(out[2], 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_window_and_resend),
	    cmocka_unit_test(test_failures_reported),
	    cmocka_unit_test(test_cancel_sends_nothing),
	    cmocka_unit_test(test_empty_and_fill_errors),
	    cmocka_unit_test(test_lft_helper),
	    cmocka_unit_test(test_lft_changed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
