/* The loop's events (daemon/core/events.c): subscribers of an event hear it in
 * subscription order with the publisher's argument, subscribers of other
 * events do not, unsubscribing removes exactly one (fn, ctx) pair, and a
 * full table refuses with -ENOSPC instead of dropping a subscriber. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "daemon/core/sm.h"

static char heard[64];
static unsigned n_heard;

static void note(struct sm *sm, enum sm_event ev, const struct sm_event_arg *a,
		 void *ctx)
{
	if (n_heard < sizeof(heard) - 1)
		heard[n_heard++] = *(const char *)ctx;
	if (ev == SM_EV_SWEEP_DONE)
		assert_int_equal(a->rc, -EIO);
}

static void reset(void)
{
	memset(heard, 0, sizeof(heard));
	n_heard = 0;
}

static void test_order_and_filter(void **state)
{
	static struct sm sm;
	const char *a = "a", *b = "b", *c = "c";

	memset(&sm, 0, sizeof(sm));
	assert_int_equal(sm_subscribe(&sm, SM_EV_SWEEP_DONE, note, (void *)a), 0);
	assert_int_equal(sm_subscribe(&sm, SM_EV_FABRIC_REPLACED, note, (void *)c), 0);
	assert_int_equal(sm_subscribe(&sm, SM_EV_SWEEP_DONE, note, (void *)b), 0);
	reset();
	sm_publish(&sm, SM_EV_SWEEP_DONE, &(struct sm_event_arg){.rc = -EIO});
	assert_string_equal(heard, "ab");
	reset();
	sm_publish(&sm, SM_EV_FABRIC_REPLACED, NULL);
	assert_string_equal(heard, "c");
	reset();
	sm_publish(&sm, SM_EV_CONFIG_RELOADED, NULL);
	assert_string_equal(heard, "");
	sm_unsubscribe(&sm, note, (void *)a);
	reset();
	sm_publish(&sm, SM_EV_SWEEP_DONE, &(struct sm_event_arg){.rc = -EIO});
	assert_string_equal(heard, "b");
	reset();
	sm_publish(&sm, SM_EV_FABRIC_REPLACED, NULL);
	assert_string_equal(heard, "c");
}

static void test_full_table(void **state)
{
	static struct sm sm;
	const char *x = "x";
	unsigned i;

	memset(&sm, 0, sizeof(sm));
	for (i = 0; i < SM_MAX_SUBS; i++)
		assert_int_equal(
		    sm_subscribe(&sm, SM_EV_SWEEP_DUE, note, (void *)x), 0);
	assert_int_equal(sm_subscribe(&sm, SM_EV_SWEEP_DUE, note, (void *)x),
			 -ENOSPC);
	reset();
	sm_publish(&sm, SM_EV_SWEEP_DUE, NULL);
	assert_int_equal(n_heard, SM_MAX_SUBS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_order_and_filter),
	    cmocka_unit_test(test_full_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
