/* P_Key programming below the transport (daemon/program/pkeyblocks.c): where the
 * entries go (indexes kept across changes, the default partition at
 * index 0, what does not fit), which blocks are sent, and which switch
 * ports enforce partitions.  The PortInfo enforcement bits cannot be read
 * back under ibsim (its PortInfo Set ignores them), so they are checked
 * here on the encoded PortInfo. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "daemon/program/pkeyprog.h"
#include "mad/smp.h"
#include "mad/smp_pkey.h"
#include "mad/smp_port.h"

/* A fresh ibsim HCA: 0xffff at index 0, 64 entries. */
static void test_fresh_port(void **state)
{
	uint16_t cur[64] = {0xffff}, out[64];
	const uint16_t want[] = {0x8002, 0xffff};
	uint32_t blocks[2];

	(void)state;
	assert_int_equal(pkey_layout(cur, 64, want, 2, out), 0);
	assert_int_equal(out[0], 0xffff);
	assert_int_equal(out[1], 0x8002);
	for (int i = 2; i < 64; i++)
		assert_int_equal(out[i], 0);
	assert_int_equal(pkey_changed_blocks(cur, out, 64, blocks), 1);
	assert_int_equal(blocks[0], 0);
	/* the same again: nothing to send */
	assert_int_equal(pkey_layout(out, 64, want, 2, cur), 0);
	assert_int_equal(pkey_changed_blocks(out, cur, 64, blocks), 0);
}

/* Entries keep their index; a removed one leaves a hole that the next
 * new one fills; a membership change rewrites the entry in place. */
static void test_indexes_kept(void **state)
{
	uint16_t cur[64] = {0}, out[64];
	const uint16_t want[] = {0x0003, 0x8005, 0x7fff};
	uint32_t blocks[2];

	(void)state;
	cur[0] = 0xffff;
	cur[1] = 0x8002;
	cur[2] = 0x8003;
	cur[40] = 0x8005; /* block 1 */
	assert_int_equal(pkey_layout(cur, 64, want, 3, out), 0);
	assert_int_equal(out[0], 0x7fff); /* now limited, same index */
	assert_int_equal(out[1], 0);	  /* 0x0002 gone */
	assert_int_equal(out[2], 0x0003);
	assert_int_equal(out[40], 0x8005);
	assert_int_equal(pkey_changed_blocks(cur, out, 64, blocks), 1);
	assert_int_equal(blocks[0], 0); /* block 1 untouched */
	/* a new partition takes the lowest free index */
	const uint16_t more[] = {0x8001, 0x0003, 0x8005, 0x7fff};
	memcpy(cur, out, sizeof(cur));
	assert_int_equal(pkey_layout(cur, 64, more, 4, out), 0);
	assert_int_equal(out[1], 0x8001);
}

/* The default partition goes to index 0 when free; what does not fit is
 * counted; an unknown table (NULL) is written whole. */
static void test_default_first_and_full(void **state)
{
	uint16_t out[8];
	const uint16_t want[] = {0x8001, 0x8002, 0x8003, 0x8004, 0x8005,
				 0x8006, 0x8007, 0x8008, 0xffff};
	uint32_t blocks[1];

	(void)state;
	assert_int_equal(pkey_layout(NULL, 8, want, 9, out), 1);
	assert_int_equal(out[0], 0xffff);
	assert_int_equal(out[1], 0x8001);
	assert_int_equal(out[7], 0x8007);
	assert_int_equal(pkey_changed_blocks(NULL, out, 8, blocks), 1);
	/* a partial last block compares only its entries */
	uint16_t same[8];
	memcpy(same, out, sizeof(same));
	assert_int_equal(pkey_changed_blocks(same, out, 8, blocks), 0);
}

/* Enforcement: switch external ports facing an end port of a switch
 * that can enforce, with the peer's entries fitting. */
static void test_enforced(void **state)
{
	struct ib_port sp[3] = {{0}}, hp[2] = {{0}}, tp[2] = {{0}};
	struct ib_node sw = {.type = IB_NODE_SWITCH,
			     .nports = 2,
			     .ports = sp,
			     .pkey_enf_cap = 32,
			     .pkey_enf_in = 1,
			     .pkey_enf_out = 1};
	struct ib_node h = {.type = IB_NODE_CA, .nports = 1, .ports = hp};
	struct ib_node t = {.type = IB_NODE_SWITCH, .nports = 1, .ports = tp};
	uint8_t in, out;

	(void)state;
	sp[1].node = &sw;
	sp[2].node = &sw;
	hp[1].node = &h;
	tp[1].node = &t;
	sp[1].remote = &hp[1];
	sp[2].remote = &tp[1];
	assert_true(pkey_enforced(&sw, 1, 2, &in, &out));
	assert_int_equal(in, 1);
	assert_int_equal(out, 1);
	assert_false(pkey_enforced(&sw, 2, 2, &in, &out)); /* switch link */
	assert_false(pkey_enforced(&sw, 0, 2, &in, &out));
	assert_false(pkey_enforced(&sw, 1, 33, &in, &out)); /* too many */
	sw.pkey_enf_in = 0; /* ibsim's SwitchInfo: no Inbound/Outbound cap */
	sw.pkey_enf_out = 0;
	assert_false(pkey_enforced(&sw, 1, 2, &in, &out));
	sw.pkey_enf_out = 1;
	assert_true(pkey_enforced(&sw, 1, 2, &in, &out));
	assert_int_equal(in, 0);
	assert_int_equal(out, 1);
	/* and the bits land where the IBA puts them: PortInfo byte 43,
	 * bits 3 (inbound) and 2 (outbound) */
	struct smp_port_info pi = {.partition_enf_inbound = 1,
				   .partition_enf_outbound = 1};
	uint8_t data[SMP_DATA_SIZE] = {0};
	assert_int_equal(smp_port_info_encode(&pi, data, sizeof(data)), 0);
	assert_int_equal(data[43], 0x0c);
}

/* The block codec: 32 big-endian P_Keys; the modifier names the switch
 * port in its high half. */
static void test_codec(void **state)
{
	uint16_t k[PKEY_BLOCK_SIZE] = {0xffff, 0x8002}, back[PKEY_BLOCK_SIZE];
	uint8_t data[SMP_DATA_SIZE] = {0};

	(void)state;
	k[31] = 0x0011;
	assert_int_equal(smp_pkey_encode(k, data, sizeof(data)), 0);
	assert_int_equal(data[0], 0xff);
	assert_int_equal(data[2], 0x80);
	assert_int_equal(data[3], 0x02);
	assert_int_equal(data[63], 0x11);
	assert_int_equal(smp_pkey_decode(back, data, sizeof(data)), 0);
	assert_memory_equal(k, back, sizeof(k));
	assert_int_equal(smp_pkey_decode(back, data, 63), -EOVERFLOW);
	assert_int_equal(smp_pkey_mod(5, 1), 0x00050001);
	assert_int_equal(smp_pkey_mod_port(0x00050001), 5);
	assert_int_equal(smp_pkey_mod_block(0x00050001), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fresh_port),
	    cmocka_unit_test(test_indexes_kept),
	    cmocka_unit_test(test_default_first_and_full),
	    cmocka_unit_test(test_enforced),
	    cmocka_unit_test(test_codec),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
