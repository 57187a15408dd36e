/* Which port-group blocks the daemon sends (daemon/program/pgblocks.c), below the
 * transport: everything when the switch's content is unknown, nothing
 * when unchanged, exactly the blocks that differ otherwise, stale groups
 * past a lowered Top cleared; and the PortGroupTable block encoding
 * (port p = bit p of a 256-bit big-endian number). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "daemon/program/pgprog.h"

static void test_table_blocks(void **state)
{
	struct pg_set a[256], b[256];
	uint32_t out[130];

	(void)state;
	memset(a, 0, sizeof(a));
	for (unsigned g = 1; g <= 5; g++) {
		pg_add(&a[g], 1);
		pg_add(&a[g], g + 1);
	}
	memcpy(b, a, sizeof(b));
	/* unknown: groups 0..5 are blocks 0..2 */
	assert_int_equal(pg_table_blocks(NULL, 0, a, 5, out), 3);
	assert_int_equal(out[0], 0);
	assert_int_equal(out[2], 2);
	assert_int_equal(pg_table_blocks(a, 5, b, 5, out), 0);
	pg_add(&b[3], 9); /* group 3 is in block 1 */
	assert_int_equal(pg_table_blocks(a, 5, b, 5, out), 1);
	assert_int_equal(out[0], 1);
	/* Top lowered to 2: groups 3..5 must be cleared, blocks 1 and 2 */
	memcpy(b, a, sizeof(b));
	memset(&b[3], 0, 3 * sizeof(b[0]));
	assert_int_equal(pg_table_blocks(a, 5, b, 2, out), 2);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[1], 2);
	assert_int_equal(pg_table_blocks(NULL, 0, a, 0, out), 0);
}

static void test_ft_blocks(void **state)
{
	uint8_t a[300] = { 0 }, b[300] = { 0 };
	uint32_t out[8];

	(void)state;
	for (unsigned l = 0; l < 200; l++)
		a[l] = b[l] = (uint8_t)(l % 3);
	assert_int_equal(pg_ft_blocks(NULL, 0, a, 200, out), 4);
	assert_int_equal(pg_ft_blocks(a, 200, b, 200, out), 0);
	b[130] = 7;
	assert_int_equal(pg_ft_blocks(a, 200, b, 200, out), 1);
	assert_int_equal(out[0], 2);
	/* fewer LIDs now: the old entries past the new end are cleared */
	memset(b, 0, sizeof(b));
	memcpy(b, a, 64);
	assert_int_equal(pg_ft_blocks(a, 200, b, 64, out), 3);
	assert_int_equal(out[0], 1);
	assert_int_equal(out[2], 3);
}

static void test_table_encoding(void **state)
{
	struct pg_set m[256];
	uint8_t data[64];

	(void)state;
	memset(m, 0, sizeof(m));
	pg_add(&m[0], 3); /* group 0 is "none": never sent */
	pg_add(&m[1], 0);
	pg_add(&m[1], 9);
	pg_add(&m[1], 255);
	pg_add(&m[3], 17);
	pg_table_block_encode(m, 0, data);
	for (unsigned i = 0; i < 32; i++)
		assert_int_equal(data[i], 0);
	/* group 1 in bytes 32..63: port p at byte 31 - p/8, bit p%8 */
	assert_int_equal(data[32 + 31], 0x01);
	assert_int_equal(data[32 + 30], 0x02);
	assert_int_equal(data[32 + 0], 0x80);
	pg_table_block_encode(m, 1, data);
	assert_int_equal(data[32 + 29], 0x02); /* group 3, port 17 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_blocks),
		cmocka_unit_test(test_ft_blocks),
		cmocka_unit_test(test_table_encoding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
