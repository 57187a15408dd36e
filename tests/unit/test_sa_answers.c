/* The SA's answer cache (daemon/sa_daemon/sa_answers.c): an answer comes back for
 * the same request with the asker's TID, not for a request differing in
 * any other byte of its key (header and record) or from another LID, also
 * when the bytes after the record differ; not after a clear, never for a
 * GetTable or without a key; a later answer to a request that maps to the
 * same slot replaces the earlier one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "daemon/sa_daemon/sa_answers.h"
#include "mad/sa_mad.h"

#define KLEN (SA_HDR_SIZE + 64) /* a PathRecord request's header and record */

static void request(uint8_t *req, uint8_t method, uint64_t tid, uint16_t dlid)
{
	memset(req, 0, SA_MAD_SIZE);
	req[0] = 1;
	req[1] = SA_MGMT_CLASS;
	req[2] = SA_CLASS_VERSION;
	req[3] = method;
	for (int i = 0; i < 8; i++)
		req[8 + i] = (uint8_t)(tid >> (56 - 8 * i));
	req[16] = 0x00;
	req[17] = 0x35; /* PathRecord */
	req[SA_HDR_SIZE + 10] = (uint8_t)(dlid >> 8);
	req[SA_HDR_SIZE + 11] = (uint8_t)dlid;
}

static void test_hit_miss(void **state)
{
	struct sa_answers *c = sa_answers_new();
	uint8_t req[SA_MAD_SIZE], ans[SA_MAD_SIZE], got[SA_MAD_SIZE];

	assert_non_null(c);
	request(req, SA_METHOD_GET, 0x1111, 7);
	memcpy(ans, req, sizeof(ans));
	ans[3] = 0x81; /* GetResp */
	ans[SA_HDR_SIZE + 40] = 0xAB;
	assert_false(sa_answers_get(c, req, KLEN, 3, got));
	sa_answers_put(c, req, KLEN, 3, ans, sizeof(ans));
	/* asked again with another TID: the answer carries the new TID */
	request(req, SA_METHOD_GET, 0x2222, 7);
	assert_true(sa_answers_get(c, req, KLEN, 3, got));
	assert_int_equal(got[SA_HDR_SIZE + 40], 0xAB);
	assert_int_equal(got[3], 0x81);
	assert_memory_equal(got + 8, req + 8, 8);
	/* the padding after the record is not part of the question */
	req[KLEN + 5] = 0x77;
	assert_true(sa_answers_get(c, req, KLEN, 3, got));
	/* another requester, another destination: no answer */
	assert_false(sa_answers_get(c, req, KLEN, 4, got));
	request(req, SA_METHOD_GET, 0x2222, 8);
	assert_false(sa_answers_get(c, req, KLEN, 3, got));
	/* a clear forgets it */
	request(req, SA_METHOD_GET, 0x3333, 7);
	assert_true(sa_answers_get(c, req, KLEN, 3, got));
	sa_answers_clear(c);
	assert_false(sa_answers_get(c, req, KLEN, 3, got));
	sa_answers_free(c);
}

static void test_not_cached(void **state)
{
	struct sa_answers *c = sa_answers_new();
	uint8_t req[SA_MAD_SIZE], got[SA_MAD_SIZE];

	assert_non_null(c);
	request(req, SA_METHOD_GET_TABLE, 1, 7);
	sa_answers_put(c, req, KLEN, 3, req, sizeof(req));
	assert_false(sa_answers_get(c, req, KLEN, 3, got));
	request(req, SA_METHOD_GET, 1, 7);
	sa_answers_put(c, req, 0, 3, req,
		       sizeof(req)); /* no key: unknown attribute */
	assert_false(sa_answers_get(c, req, 0, 3, got));
	sa_answers_put(c, req, KLEN, 3, req, 300); /* not one MAD */
	assert_false(sa_answers_get(c, req, KLEN, 3, got));
	sa_answers_free(c);
	/* no cache (out of memory at start): never an answer */
	assert_false(sa_answers_get(NULL, req, KLEN, 3, got));
	sa_answers_put(NULL, req, KLEN, 3, req, sizeof(req));
	sa_answers_clear(NULL);
}

/* Many requests: each either misses or returns its own answer. */
static void test_replacement(void **state)
{
	struct sa_answers *c = sa_answers_new();
	uint8_t req[SA_MAD_SIZE], ans[SA_MAD_SIZE], got[SA_MAD_SIZE];
	unsigned hits = 0;

	assert_non_null(c);
	for (uint16_t d = 1; d <= 20000; d++) {
		request(req, SA_METHOD_GET, d, d);
		memcpy(ans, req, sizeof(ans));
		ans[SA_HDR_SIZE + 50] = (uint8_t)d;
		sa_answers_put(c, req, KLEN, 1, ans, sizeof(ans));
	}
	for (uint16_t d = 1; d <= 20000; d++) {
		request(req, SA_METHOD_GET, 99, d);
		if (!sa_answers_get(c, req, KLEN, 1, got))
			continue;
		hits++;
		assert_int_equal(got[SA_HDR_SIZE + 50], (uint8_t)d);
		assert_int_equal(got[SA_HDR_SIZE + 11], (uint8_t)d);
	}
	assert_true(hits > 0 && hits < 20000);
	sa_answers_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_hit_miss),
	    cmocka_unit_test(test_not_cached),
	    cmocka_unit_test(test_replacement),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
