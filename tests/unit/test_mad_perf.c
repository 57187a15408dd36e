/* The PerfMgt codec (mad/perf.c) against libibmad's IB_PC_* fields: each
 * counter written by libibmad at a distinct value is read back by ours
 * at its place and width, and the CounterSelect bits of a clear are the
 * ones libibmad (and ibsim) read. */
#include <errno.h>
#include <infiniband/mad.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "mad/perf.h"
#include "mad/smp.h"

/* Our counters in libibmad's names (the extended ones after). */
static const struct {
	enum perf_counter c;
	enum MAD_FIELDS pc, ext;
} MAP[] = {
    {PC_SYMBOL_ERRORS, IB_PC_ERR_SYM_F, 0},
    {PC_LINK_ERROR_RECOVERY, IB_PC_LINK_RECOVERS_F, 0},
    {PC_LINK_DOWNED, IB_PC_LINK_DOWNED_F, 0},
    {PC_RCV_ERRORS, IB_PC_ERR_RCV_F, 0},
    {PC_RCV_REMOTE_PHYSICAL_ERRORS, IB_PC_ERR_PHYSRCV_F, 0},
    {PC_RCV_SWITCH_RELAY_ERRORS, IB_PC_ERR_SWITCH_REL_F, 0},
    {PC_XMIT_DISCARDS, IB_PC_XMT_DISCARDS_F, 0},
    {PC_XMIT_CONSTRAINT_ERRORS, IB_PC_ERR_XMTCONSTR_F, 0},
    {PC_RCV_CONSTRAINT_ERRORS, IB_PC_ERR_RCVCONSTR_F, 0},
    {PC_LOCAL_LINK_INTEGRITY_ERRORS, IB_PC_ERR_LOCALINTEG_F, 0},
    {PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS, IB_PC_ERR_EXCESS_OVR_F, 0},
    {PC_VL15_DROPPED, IB_PC_VL15_DROPPED_F, 0},
    {PC_XMIT_DATA, IB_PC_XMT_BYTES_F, IB_PC_EXT_XMT_BYTES_F},
    {PC_RCV_DATA, IB_PC_RCV_BYTES_F, IB_PC_EXT_RCV_BYTES_F},
    {PC_XMIT_PKTS, IB_PC_XMT_PKTS_F, IB_PC_EXT_XMT_PKTS_F},
    {PC_RCV_PKTS, IB_PC_RCV_PKTS_F, IB_PC_EXT_RCV_PKTS_F},
    {PC_XMIT_WAIT, IB_PC_XMT_WAIT_F, 0},
    {PC_UNICAST_XMIT_PKTS, 0, IB_PC_EXT_XMT_UPKTS_F},
    {PC_UNICAST_RCV_PKTS, 0, IB_PC_EXT_RCV_UPKTS_F},
    {PC_MULTICAST_XMIT_PKTS, 0, IB_PC_EXT_XMT_MPKTS_F},
    {PC_MULTICAST_RCV_PKTS, 0, IB_PC_EXT_RCV_MPKTS_F},
};
#define N_MAP (sizeof(MAP) / sizeof(MAP[0]))

/* A GetResp of attr with every field set through libibmad. */
static void answer(uint8_t *mad, uint16_t attr, bool ext)
{
	struct mad_hdr h = {.base_version = 1,
			    .mgmt_class = PERF_MGMT_CLASS,
			    .class_version = 1,
			    .method = MAD_METHOD_GET_RESP,
			    .attr_id = attr};
	uint8_t *d = mad + IB_PC_DATA_OFFS;

	memset(mad, 0, MAD_SIZE);
	assert_int_equal(mad_hdr_encode(&h, mad, MAD_SIZE), 0);
	for (size_t i = 0; i < N_MAP; i++) {
		const struct perf_counter_desc *pd = &perf_counters[MAP[i].c];

		if (ext && MAP[i].ext)
			mad_set_field64(d, 0, MAP[i].ext, 0x0102030405060700ull + i);
		else if (!ext && MAP[i].pc)
			mad_set_field(d, 0, MAP[i].pc,
				      (uint32_t)((i + 1) & ((1ull << pd->pc_width) - 1)));
	}
}

static void test_port_counters(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct perf_sample s = {0};

	(void)state;
	assert_int_equal(PERF_COUNTERS, N_MAP);
	answer(mad, PERF_ATTR_PORT_COUNTERS, false);
	assert_int_equal(perf_decode_pc(mad, sizeof(mad), &s), 0);
	for (size_t i = 0; i < N_MAP; i++) {
		const struct perf_counter_desc *pd = &perf_counters[MAP[i].c];

		if (!MAP[i].pc) {
			assert_int_equal(s.width[MAP[i].c], 0);
			continue;
		}
		assert_int_equal(s.width[MAP[i].c], pd->pc_width);
		assert_int_equal(s.v[MAP[i].c], (i + 1) & ((1ull << pd->pc_width) - 1));
	}
}

static void test_extended(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct perf_sample s = {0}, n = {0};

	(void)state;
	answer(mad, PERF_ATTR_PORT_COUNTERS_EXT, true);
	assert_int_equal(perf_decode_pc_ext(mad, sizeof(mad), false, &s), 0);
	assert_int_equal(perf_decode_pc_ext(mad, sizeof(mad), true, &n), 0);
	for (size_t i = 0; i < N_MAP; i++) {
		enum perf_counter c = MAP[i].c;

		if (!MAP[i].ext) {
			assert_int_equal(s.width[c], 0);
			continue;
		}
		assert_int_equal(s.width[c], 64);
		assert_true(s.v[c] == 0x0102030405060700ull + i);
		/* NoIETF: the first four only */
		assert_int_equal(n.width[c], c <= PC_RCV_PKTS ? 64 : 0);
	}
}

/* A clear of each counter alone sets the CounterSelect bit libibmad's
 * reader (and ibsim's pc_reset) take for it. */
static void test_clear_select(void **state)
{
	static const uint32_t pc_mask[] = {
	    [PC_SYMBOL_ERRORS] = 1 << 0,  [PC_LINK_ERROR_RECOVERY] = 1 << 1,
	    [PC_LINK_DOWNED] = 1 << 2,	  [PC_RCV_ERRORS] = 1 << 3,
	    [PC_XMIT_DISCARDS] = 1 << 6,  [PC_LOCAL_LINK_INTEGRITY_ERRORS] = 1 << 9,
	    [PC_XMIT_DATA] = 1 << 12,	  [PC_RCV_PKTS] = 1 << 15,
	};
	uint8_t mad[MAD_SIZE];

	(void)state;
	for (unsigned c = 0; c < sizeof(pc_mask) / sizeof(pc_mask[0]); c++) {
		if (!pc_mask[c])
			continue;
		assert_int_equal(perf_encode(mad, sizeof(mad), MAD_METHOD_SET,
					     PERF_ATTR_PORT_COUNTERS, 7, 1u << c),
				 0);
		assert_int_equal(mad_get_field(mad + IB_PC_DATA_OFFS, 0,
					       IB_PC_PORT_SELECT_F),
				 7);
		assert_int_equal(mad_get_field(mad + IB_PC_DATA_OFFS, 0,
					       IB_PC_COUNTER_SELECT_F),
				 pc_mask[c]);
	}
	assert_int_equal(perf_encode(mad, sizeof(mad), MAD_METHOD_SET,
				     PERF_ATTR_PORT_COUNTERS, 1,
				     1u << PC_XMIT_WAIT),
			 0);
	assert_int_equal(
	    mad_get_field(mad + IB_PC_DATA_OFFS, 0, IB_PC_COUNTER_SELECT2_F), 1);
	/* a Get clears nothing */
	assert_int_equal(perf_encode(mad, sizeof(mad), MAD_METHOD_GET,
				     PERF_ATTR_PORT_COUNTERS, 1, ~0u),
			 0);
	assert_int_equal(
	    mad_get_field(mad + IB_PC_DATA_OFFS, 0, IB_PC_COUNTER_SELECT_F), 0);
}

static void test_bad_answers(void **state)
{
	uint8_t mad[MAD_SIZE];
	struct perf_sample s = {0};
	uint16_t cap;

	(void)state;
	answer(mad, PERF_ATTR_PORT_COUNTERS, false);
	assert_int_equal(perf_decode_pc(mad, 100, &s), -EPROTO); /* short */
	assert_int_equal(perf_decode_pc_ext(mad, sizeof(mad), false, &s),
			 -EPROTO); /* another attribute */
	mad[4] = 0;
	mad[5] = 0x0c; /* status: attribute unsupported */
	assert_int_equal(perf_decode_pc(mad, sizeof(mad), &s), -EREMOTEIO);
	answer(mad, PERF_ATTR_CPI, false);
	mad_set_field(mad + IB_PC_DATA_OFFS, 0, IB_CPI_CAPMASK_F,
		      PERF_CAP_EXT_WIDTH | PERF_CAP_XMIT_WAIT);
	assert_int_equal(perf_decode_cpi(mad, sizeof(mad), &cap), 0);
	assert_int_equal(cap, PERF_CAP_EXT_WIDTH | PERF_CAP_XMIT_WAIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_port_counters),
	    cmocka_unit_test(test_extended),
	    cmocka_unit_test(test_clear_select),
	    cmocka_unit_test(test_bad_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
