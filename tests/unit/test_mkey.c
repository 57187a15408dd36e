/* M_Key files and per-port keys (lib/mkey.c): SipHash-2-4 against the
 * reference vectors, derived keys, the map, guid2mkey and neighbors
 * round trips in OpenSM's format with damaged lines skipped and named,
 * and the secret made once and read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/mkey.h"

static char dir[] = "/tmp/ibsm-mkey-XXXXXX";

static void path_of(char *p, size_t len, const char *name)
{
	snprintf(p, len, "%s/%s", dir, name);
}

static void put(const char *name, const char *text)
{
	char p[256];
	FILE *fp;

	path_of(p, sizeof(p), name);
	fp = fopen(p, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

/* The paper's vectors: key 00..0f, message 00..len-1. */
static void test_siphash(void **state)
{
	uint8_t key[16], msg[64];

	for (int i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for (int i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	assert_true(mkey_siphash(key, msg, 0) == 0x726fdb47dd0e0e31ull);
	assert_true(mkey_siphash(key, msg, 8) == 0x93f5f5799a932462ull);
	assert_true(mkey_siphash(key, msg, 15) == 0xa129ca6149be45e5ull);
}

static void test_derive(void **state)
{
	uint8_t s1[16] = {1}, s2[16] = {2};

	/* the same port, the same key; other ports and secrets differ */
	assert_true(mkey_derive(s1, 0x0002c903000a1b2cull) ==
		    mkey_derive(s1, 0x0002c903000a1b2cull));
	assert_true(mkey_derive(s1, 0x0002c903000a1b2cull) !=
		    mkey_derive(s1, 0x0002c903000a1b2dull));
	assert_true(mkey_derive(s1, 0x10) != mkey_derive(s2, 0x10));
	for (uint64_t g = 1; g < 2000; g++)
		assert_true(mkey_derive(s1, g) != 0);
}

static void test_map(void **state)
{
	struct mkey_map m = {0};

	assert_true(mkey_map_get(&m, 1, 0) == 0);
	for (uint64_t g = 1; g <= 1000; g++)
		assert_int_equal(mkey_map_set(&m, g, (uint8_t)(g % 3), g * 7),
				 0);
	for (uint64_t g = 1; g <= 1000; g++) {
		assert_true(mkey_map_get(&m, g, (uint8_t)(g % 3)) == g * 7);
		assert_true(mkey_map_get(&m, g, (uint8_t)(g % 3 + 1)) == 0);
	}
	assert_int_equal(mkey_map_set(&m, 500, 500 % 3, 0), 0); /* remove */
	assert_true(mkey_map_get(&m, 500, 500 % 3) == 0);
	assert_true(mkey_map_get(&m, 501, 501 % 3) == 501 * 7);
	mkey_map_free(&m);
}

static void test_db_files(void **state)
{
	struct mkey_map m = {0}, back = {0};
	char p[256], err[256] = "", *text;
	struct stat st;
	FILE *fp;
	long n;

	put("guid2mkey", "0x0000000000000010 0x1111111111111111\n"
			 "# a comment\n"
			 "garbage\n"
			 "0x0000000000000020 0x2222222222222222\n"
			 "0x0000000000000010 0x3333333333333333\n");
	path_of(p, sizeof(p), "guid2mkey");
	assert_int_equal(mkey_db_read(p, &m, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "guid2mkey:3: expected"));
	assert_true(mkey_map_get(&m, 0x10, 0) == 0x1111111111111111ull);
	assert_true(mkey_map_get(&m, 0x20, 0) == 0x2222222222222222ull);
	assert_int_equal(mkey_db_write(p, &m), 0);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	fp = fopen(p, "r");
	text = calloc(1, 4096);
	n = (long)fread(text, 1, 4095, fp);
	fclose(fp);
	assert_true(n > 0);
	assert_string_equal(text, "0x0000000000000010 0x1111111111111111\n"
				  "0x0000000000000020 0x2222222222222222\n");
	free(text);
	assert_int_equal(mkey_db_read(p, &back, err, sizeof(err)), 0);
	assert_true(mkey_map_get(&back, 0x20, 0) == 0x2222222222222222ull);
	path_of(p, sizeof(p), "none");
	assert_int_equal(mkey_db_read(p, &back, err, sizeof(err)), -ENOENT);
	mkey_map_free(&m);
	mkey_map_free(&back);
}

static void test_nbrs(void **state)
{
	struct mkey_map m = {0}, back = {0};
	char p[256], err[256];

	path_of(p, sizeof(p), "neighbors");
	assert_int_equal(mkey_map_set(&m, 0x200, 3, 0x101), 0);
	assert_int_equal(mkey_map_set(&m, 0x200, 4, 0x300), 0);
	assert_int_equal(mkey_nbrs_write(p, &m), 0);
	assert_int_equal(mkey_nbrs_read(p, &back, err, sizeof(err)), 0);
	assert_true(mkey_map_get(&back, 0x200, 3) == 0x101);
	assert_true(mkey_map_get(&back, 0x200, 4) == 0x300);
	put("neighbors", "0x0000000000000200 300 0x0000000000000101\n");
	mkey_map_free(&back);
	assert_int_equal(mkey_nbrs_read(p, &back, err, sizeof(err)), 1);
	mkey_map_free(&m);
	mkey_map_free(&back);
}

static void test_secret(void **state)
{
	uint8_t a[16], b[16];
	char p[256], err[256];

	path_of(p, sizeof(p), "mkey.secret");
	assert_int_equal(mkey_secret_load(p, false, a, err, sizeof(err)),
			 -ENOENT);
	assert_int_equal(mkey_secret_load(p, true, a, err, sizeof(err)), 0);
	assert_int_equal(mkey_secret_load(p, false, b, err, sizeof(err)), 0);
	assert_memory_equal(a, b, 16);
	put("mkey.secret", "not hex at all, but long enough to be read\n");
	assert_int_equal(mkey_secret_load(p, true, b, err, sizeof(err)),
			 -EINVAL);
	assert_non_null(strstr(err, "mkey.secret:1: expected 32"));
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_siphash), cmocka_unit_test(test_derive),
	    cmocka_unit_test(test_map),	    cmocka_unit_test(test_db_files),
	    cmocka_unit_test(test_nbrs),    cmocka_unit_test(test_secret),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
