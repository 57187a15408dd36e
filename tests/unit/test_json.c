/* JSON writer: exact output for nested documents (compact and pretty),
 * escaping, numbers, and misuse reported by json_finish(). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/json.h"

struct buf {
	char *data;
	size_t len;
	FILE *f;
};

static void buf_open(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->f = open_memstream(&b->data, &b->len);
	assert_non_null(b->f);
}

static void buf_close(struct buf *b)
{
	fclose(b->f);
}

static void report(struct json *j)
{
	json_begin_object(j);
	json_key(j, "topology");
	json_begin_object(j);
	json_kv_int(j, "switches", 10);
	json_kv_uint(j, "hosts", 18446744073709551615ULL);
	json_end_object(j);
	json_key(j, "list");
	json_begin_array(j);
	json_int(j, -1);
	json_double(j, 0.25);
	json_bool(j, true);
	json_null(j);
	json_begin_array(j);
	json_end_array(j);
	json_begin_object(j);
	json_end_object(j);
	json_end_array(j);
	json_kv_double(j, "seconds", 3.0);
	json_kv_bool(j, "ok", false);
	json_end_object(j);
}

static void test_compact(void **state)
{
	struct buf b;
	struct json j;

	(void)state;
	buf_open(&b);
	json_init(&j, b.f, false);
	report(&j);
	assert_int_equal(json_finish(&j), 0);
	buf_close(&b);
	assert_string_equal(b.data,
			    "{\"topology\":{\"switches\":10,\"hosts\":"
			    "18446744073709551615},\"list\":[-1,0.25,true,"
			    "null,[],{}],\"seconds\":3.0,\"ok\":false}\n");
	free(b.data);
}

static void test_pretty(void **state)
{
	struct buf b;
	struct json j;

	(void)state;
	buf_open(&b);
	json_init(&j, b.f, true);
	json_begin_object(&j);
	json_kv_string(&j, "engine", "mr4lms");
	json_key(&j, "a");
	json_begin_array(&j);
	json_int(&j, 1);
	json_int(&j, 2);
	json_end_array(&j);
	json_end_object(&j);
	assert_int_equal(json_finish(&j), 0);
	buf_close(&b);
	assert_string_equal(b.data, "{\n  \"engine\": \"mr4lms\",\n  \"a\": [\n"
				    "    1,\n    2\n  ]\n}\n");
	free(b.data);
}

static void test_escaping_numbers(void **state)
{
	struct buf b;
	struct json j;

	(void)state;
	buf_open(&b);
	json_init(&j, b.f, false);
	json_begin_array(&j);
	json_string(&j, "q\"b\\s/\n\t\r\b\f\x01 \xc3\xa9");
	json_double(&j, NAN);
	json_double(&j, INFINITY);
	json_double(&j, 1e300);
	json_double(&j, -0.1);
	json_string(&j, NULL);
	json_end_array(&j);
	assert_int_equal(json_finish(&j), 0);
	buf_close(&b);
	assert_string_equal(b.data, "[\"q\\\"b\\\\s/\\n\\t\\r\\b\\f\\u0001 "
				    "\xc3\xa9\",null,null,1e+300,-0.1,null]\n");
	free(b.data);
}

static int misuse(int which)
{
	struct buf b;
	struct json j;
	int r;

	buf_open(&b);
	json_init(&j, b.f, false);
	switch (which) {
	case 0: /* value in an object without a key */
		json_begin_object(&j);
		json_int(&j, 1);
		json_end_object(&j);
		break;
	case 1: /* unbalanced */
		json_begin_array(&j);
		break;
	case 2: /* wrong closer */
		json_begin_array(&j);
		json_end_object(&j);
		break;
	case 3: /* key outside an object */
		json_begin_array(&j);
		json_key(&j, "k");
		json_end_array(&j);
		break;
	case 4: /* two top-level values */
		json_int(&j, 1);
		json_int(&j, 2);
		break;
	case 5: /* key without a value */
		json_begin_object(&j);
		json_key(&j, "k");
		json_end_object(&j);
		break;
	default: /* nothing at all */
		break;
	}
	r = json_finish(&j);
	buf_close(&b);
	free(b.data);
	return r;
}

static void test_misuse(void **state)
{
	(void)state;
	for (int i = 0; i <= 6; i++)
		assert_int_equal(misuse(i), -EINVAL);
}

static void test_deep(void **state)
{
	struct buf b;
	struct json j;

	(void)state;
	buf_open(&b);
	json_init(&j, b.f, false);
	for (int i = 0; i <= JSON_MAX_DEPTH; i++)
		json_begin_array(&j);
	assert_int_equal(json_finish(&j), -EINVAL);
	buf_close(&b);
	free(b.data);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compact),
		cmocka_unit_test(test_pretty),
		cmocka_unit_test(test_escaping_numbers),
		cmocka_unit_test(test_misuse),
		cmocka_unit_test(test_deep),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
