/* Cursor primitives: big-endian order, sticky bounds errors, read-only
 * cursors refusing writes, and IBA bit fields that straddle bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "mad/cursor.h"

static void test_be_order(void **state)
{
	uint8_t b[15] = {0};
	struct cur c;

	(void)state;
	cur_wr(&c, b, sizeof(b));
	cur_put_u8(&c, 0x01);
	cur_put_u16(&c, 0x0203);
	cur_put_u32(&c, 0x04050607);
	cur_put_u64(&c, 0x08090a0b0c0d0e0fULL);
	assert_int_equal(cur_err(&c), 0);
	for (unsigned i = 0; i < sizeof(b); i++)
		assert_int_equal(b[i], i + 1);
	cur_rd(&c, b, sizeof(b));
	assert_int_equal(cur_get_u8(&c), 0x01);
	assert_int_equal(cur_get_u16(&c), 0x0203);
	assert_int_equal(cur_get_u32(&c), 0x04050607);
	assert_true(cur_get_u64(&c) == 0x08090a0b0c0d0e0fULL);
	assert_int_equal(cur_err(&c), 0);
}

static void test_bounds_sticky(void **state)
{
	uint8_t b[3] = {1, 2, 3};
	struct cur c;

	(void)state;
	cur_rd(&c, b, sizeof(b));
	assert_int_equal(cur_get_u16(&c), 0x0102);
	assert_int_equal(cur_get_u16(&c), 0); /* only 1 byte left */
	assert_int_equal(cur_err(&c), -EOVERFLOW);
	assert_int_equal(cur_get_u8(&c), 3); /* later reads still bounded */
	assert_int_equal(cur_err(&c), -EOVERFLOW);
	cur_rd(&c, b, sizeof(b));
	cur_seek(&c, 4);
	assert_int_equal(cur_err(&c), -EOVERFLOW);
	cur_rd(&c, b, sizeof(b));
	assert_int_equal(cur_get_bits(&c, 20, 5), 0);
	assert_int_equal(cur_err(&c), -EOVERFLOW);
}

static void test_readonly(void **state)
{
	uint8_t b[4] = {0};
	struct cur c;

	(void)state;
	cur_rd(&c, b, sizeof(b));
	cur_put_u8(&c, 1);
	assert_int_equal(cur_err(&c), -EROFS);
	assert_int_equal(b[0], 0);
}

static void test_bits(void **state)
{
	uint8_t b[8] = {0};
	struct cur c;

	(void)state;
	cur_wr(&c, b, sizeof(b));
	cur_put_bits(&c, 0, 1, 1);     /* MSB of byte 0 */
	cur_put_bits(&c, 1, 7, 0x05);  /* rest of byte 0 */
	cur_put_bits(&c, 12, 8, 0xAB); /* straddles bytes 1-2 */
	cur_put_bits(&c, 29, 5, 0x1F); /* bits 29..33 */
	assert_int_equal(cur_err(&c), 0);
	assert_int_equal(b[0], 0x85);
	assert_int_equal(b[1], 0x0A);
	assert_int_equal(b[2], 0xB0);
	assert_int_equal(b[3], 0x07);
	assert_int_equal(b[4], 0xC0);
	assert_int_equal(cur_get_bits(&c, 1, 7), 0x05);
	assert_int_equal(cur_get_bits(&c, 12, 8), 0xAB);
	assert_int_equal(cur_get_bits(&c, 29, 5), 0x1F);
	assert_int_equal(cur_get_bits(&c, 32, 32), 0xC0000000u);
	cur_put_bits(&c, 40, 3, 8); /* does not fit */
	assert_int_equal(cur_err(&c), -ERANGE);
	assert_int_equal(b[5], 0);
}

static void test_bytes(void **state)
{
	uint8_t b[6] = {9, 9, 9, 9, 9, 9}, out[4];
	struct cur c;

	(void)state;
	cur_wr(&c, b, sizeof(b));
	cur_put_zero(&c, 2);
	cur_put_bytes(&c, "ab", 2);
	cur_put_u24(&c, 0x1000000);
	assert_int_equal(cur_err(&c), -ERANGE);
	assert_int_equal(b[0], 0);
	assert_int_equal(b[2], 'a');
	cur_rd(&c, b, sizeof(b));
	cur_skip(&c, 2);
	cur_get_bytes(&c, out, 4);
	assert_int_equal(out[1], 'b');
	cur_get_bytes(&c, out, 1);
	assert_int_equal(cur_err(&c), -EOVERFLOW);
	assert_int_equal(out[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_be_order),
	    cmocka_unit_test(test_bounds_sticky),
	    cmocka_unit_test(test_readonly),
	    cmocka_unit_test(test_bits),
	    cmocka_unit_test(test_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
