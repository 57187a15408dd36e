/* lib/namelist.c: the count and the first four names of a condition many
 * nodes share, for one log line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/namelist.h"

static void test_few_and_many(void **state)
{
	struct namelist l = {0};
	char buf[200];

	(void)state;
	assert_string_equal(namelist_str(&l, buf, sizeof(buf)), "none");
	namelist_add(&l, "S1");
	namelist_add(&l, "S2");
	assert_string_equal(namelist_str(&l, buf, sizeof(buf)), "S1, S2");
	for (int i = 3; i <= 65; i++) {
		char n[16];
		snprintf(n, sizeof(n), "S%d", i);
		namelist_add(&l, n);
	}
	assert_int_equal(l.n, 65);
	assert_string_equal(namelist_str(&l, buf, sizeof(buf)),
			    "S1, S2, S3, S4 and 61 more");
	namelist_clear(&l);
	assert_int_equal(l.n, 0);
	assert_string_equal(namelist_str(&l, buf, sizeof(buf)), "none");
}

/* Names as long as a NodeDescription (64 characters) are cut to fit, and
 * still counted. */
static void test_long_names(void **state)
{
	struct namelist l = {0};
	char name[65], buf[300];

	(void)state;
	memset(name, 'x', 64);
	name[64] = '\0';
	for (int i = 0; i < 6; i++)
		namelist_add(&l, name);
	assert_int_equal(l.n, 6);
	assert_true(strlen(l.first) < sizeof(l.first));
	namelist_str(&l, buf, sizeof(buf));
	assert_non_null(strstr(buf, " and 2 more"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_few_and_many),
	    cmocka_unit_test(test_long_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
