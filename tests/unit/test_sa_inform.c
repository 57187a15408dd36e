/* Event subscriptions: InformInfo Sets subscribing and unsubscribing the
 * requester, InformInfoRecord listing them, the table bounded, and which
 * notices a subscription wants (layouts: test_sa_inform_layout.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sa_fixture.h"
#include "daemon/sa/sa_priv.h"
#include "mad/sa_inform.h"

static struct sa_inform_info sub(uint16_t trap, uint8_t subscribe)
{
	struct sa_inform_info ii = {.lid_begin = 0xFFFF,
				    .is_generic = 1,
				    .subscribe = subscribe,
				    .type = 0xFFFF,
				    .trap_num = trap,
				    .qpn = 1,
				    .resp_time = 18,
				    .producer = 0xFFFFFF};
	return ii;
}

static int set(struct fx *x, const struct sa_inform_info *ii)
{
	return fx_ask(x, SA_METHOD_SET, SA_ATTR_INFORM_INFO, 0,
		      &sa_inform_info_desc, ii);
}

static uint32_t n_subs(struct fx *x)
{
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_INFORM_INFO_REC,
				0, NULL, NULL),
			 0);
	return x->out.records;
}

static void test_subscribe(void **state)
{
	struct fx *x = *state;
	struct sa_inform_info a = sub(64, 1), b = sub(65, 1), back = {0};
	struct sa_inform_rec r = {0};
	uint8_t gid[16];

	assert_int_equal(set(x, &a), 0);
	fx_rec(x, &sa_inform_info_desc, 0, &back);
	assert_int_equal(back.trap_num, 64); /* the answer echoes it */
	assert_int_equal(n_subs(x), 1);
	fx_rec(x, &sa_inform_rec_desc, 0, &r);
	sa_port_gid(&x->sa, &x->h[0]->ports[1], gid); /* LID 2 asked */
	assert_memory_equal(r.subscriber_gid, gid, 16);
	assert_int_equal(r.info.trap_num, 64);
	assert_int_equal(r.info.qpn, 1);
	/* the same subscription twice is one */
	assert_int_equal(set(x, &a), 0);
	assert_int_equal(n_subs(x), 1);
	assert_int_equal(set(x, &b), 0);
	assert_int_equal(n_subs(x), 2);
	fx_rec(x, &sa_inform_rec_desc, 1, &r);
	assert_int_equal(r.enumeration, 1);
	/* InformInfoRecord by subscriber and enumeration */
	memcpy(r.subscriber_gid, gid, 16);
	r.enumeration = 1;
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET, SA_ATTR_INFORM_INFO_REC,
		   1ull << SA_IIR_SUBSCRIBER_GID | 1ull << SA_IIR_ENUM,
		   &sa_inform_rec_desc, &r),
	    0);
	fx_rec(x, &sa_inform_rec_desc, 0, &r);
	assert_int_equal(r.info.trap_num, 65);
	/* taking one back; a second time it is not there */
	a.subscribe = 0;
	assert_int_equal(set(x, &a), 0);
	assert_int_equal(n_subs(x), 1);
	assert_int_equal(set(x, &a), SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	/* a GID that is no port's */
	b = sub(64, 1);
	memset(b.gid, 0x77, 16);
	assert_int_equal(set(x, &b), SA_MAD_STATUS(SA_STATUS_INVALID_GID));
	b = sub(64, 2);
	assert_int_equal(set(x, &b), SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	/* the port leaves: its subscriptions go */
	assert_int_equal(sa_inform_drop_subscriber(&x->sa, gid), 1);
	assert_int_equal(n_subs(x), 0);
}

static void test_bounded(void **state)
{
	struct fx *x = *state;
	struct sa_inform_info a;

	for (unsigned i = 0; i < 4096; i++) {
		a = sub((uint16_t)i, 1);
		assert_int_equal(set(x, &a), 0);
	}
	a = sub(5000, 1);
	assert_int_equal(set(x, &a), SA_MAD_STATUS(SA_STATUS_NO_RESOURCES));
}

static void test_matches(void **state)
{
	struct sa_inform_info ii = sub(64, 1);
	struct sa_notice n = {
	    .is_generic = 1, .type = 4, .producer = 4, .trap_num = 64};
	uint8_t g[16] = {0xfe, 0x80}, h[16] = {0xfe, 0x80, 1};

	(void)state;
	assert_true(sa_inform_matches(&ii, &n, g, 7));
	n.trap_num = 65;
	assert_false(sa_inform_matches(&ii, &n, g, 7));
	ii.trap_num = 0xFFFF;
	assert_true(sa_inform_matches(&ii, &n, g, 7));
	ii.type = 3;
	assert_false(sa_inform_matches(&ii, &n, g, 7));
	ii.type = 4;
	ii.producer = 2;
	assert_false(sa_inform_matches(&ii, &n, g, 7));
	ii.producer = 4;
	ii.lid_begin = 5;
	ii.lid_end = 6;
	assert_false(sa_inform_matches(&ii, &n, g, 7));
	ii.lid_end = 7;
	assert_true(sa_inform_matches(&ii, &n, g, 7));
	memcpy(ii.gid, h, 16);
	assert_false(sa_inform_matches(&ii, &n, g, 7));
	assert_true(sa_inform_matches(&ii, &n, h, 7));
	ii.is_generic = 0;
	assert_false(sa_inform_matches(&ii, &n, h, 7));
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_subscribe),
	    T(test_bounded),
	    cmocka_unit_test(test_matches),
	};
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
