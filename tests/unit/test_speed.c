/* Extended link speeds: PortInfo blocks written with libibmad's field
 * table (IB_PORT_CAPMASK_F, IB_PORT_LINK_SPEED_ACTIVE_F,
 * IB_PORT_LINK_SPEED_EXT_*_F ...) decode, through our PortInfo codec and
 * lib/speed.c, to the lane speed libibmad's own printer names; the
 * extended fields count only when CapabilityMask says so; the XDR fields
 * (not in libibmad 44) sit where rdma-core 50's libibmad/fields.c puts
 * them; rate codes are IBA 15.2.5.16.1's; Mellanox ExtendedPortInfo
 * (FDR10) as libibmad lays it out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <infiniband/mad.h>

#include "lib/speed.h"
#include "mad/smp_port.h"

/* A PortInfo block as libibmad writes it. */
static void pi_make(uint8_t *pi, uint32_t cap, uint16_t cap2, uint8_t width,
		    uint8_t speed, uint8_t ext)
{
	memset(pi, 0, 64);
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, cap);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, cap2);
	mad_set_field(pi, 0, IB_PORT_LINK_WIDTH_ACTIVE_F, width);
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_ACTIVE_F, speed);
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_EXT_ACTIVE_F, ext);
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_EXT_SUPPORTED_F, 0xF);
	mad_set_field(pi, 0, IB_PORT_LINK_SPEED_EXT_ENABLED_F, ext);
}

static enum ib_speed decode(const uint8_t *pi)
{
	struct smp_port_info d;

	assert_int_equal(smp_port_info_decode(&d, pi, 64), 0);
	return ib_speed_decode(
	    d.link_speed_active, d.link_speed_ext_active,
	    d.link_speed_ext_active2,
	    ib_speed_caps(d.capability_mask, d.capability_mask2));
}

/* Every LinkSpeedExtActive value: our lane speed is the one libibmad's
 * printer names (14.0625 Gb/s is FDR, ... 106.25 is NDR). */
static void test_ext_active(void **state)
{
	static const struct {
		uint8_t ext;
		enum ib_speed want;
		const char *ibmad;
	} v[] = {
	    {1, IB_SPEED_FDR, "14.0625 Gbps"},
	    {2, IB_SPEED_EDR, "25.78125 Gbps"},
	    {4, IB_SPEED_HDR, "53.125 Gbps"},
	    {8, IB_SPEED_NDR, "106.25 Gbps"},
	};
	uint8_t pi[64];
	char buf[64];

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int val = v[i].ext;

		pi_make(pi, IB_CAP_IS_EXT_SPEEDS, 0, 2, 4, v[i].ext);
		assert_int_equal(decode(pi), v[i].want);
		mad_dump_linkspeedext(buf, sizeof(buf), &val, sizeof(val));
		assert_string_equal(buf, v[i].ibmad);
	}
}

/* Base speeds, and extended fields a port without IsExtendedSpeeds-
 * Supported holds are ignored (reserved for it). */
static void test_base_and_caps(void **state)
{
	static const struct {
		uint8_t speed;
		enum ib_speed want;
		const char *ibmad;
	} v[] = {
	    {1, IB_SPEED_SDR, "2.5 Gbps"},
	    {2, IB_SPEED_DDR, "5.0 Gbps"},
	    {4, IB_SPEED_QDR, "10.0 Gbps"},
	};
	uint8_t pi[64];
	char buf[64];

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		int val = v[i].speed;

		pi_make(pi, 0, 0, 2, v[i].speed, 0);
		assert_int_equal(decode(pi), v[i].want);
		mad_dump_linkspeed(buf, sizeof(buf), &val, sizeof(val));
		assert_string_equal(buf, v[i].ibmad);
	}
	pi_make(pi, 0, 0, 2, 4, 4); /* HDR bits, no capability: QDR */
	assert_int_equal(decode(pi), IB_SPEED_QDR);
	pi_make(pi, IB_CAP_IS_EXT_SPEEDS, 0, 2, 4, 0); /* capable, none */
	assert_int_equal(decode(pi), IB_SPEED_QDR);
}

/* XDR: LinkSpeedExtActive2 = 1 at bits 449..450 (byte 56, 0x20),
 * Supported2 451..452, Enabled2 453..455, as rdma-core 50's libibmad
 * lists them (BITSOFFS(449, 2) ...), valid with CapabilityMask2
 * IsExtendedSpeeds2Supported (0x0800), itself valid with CapabilityMask
 * IsCapabilityMask2Supported. */
static void test_xdr(void **state)
{
	struct smp_port_info d;
	uint8_t pi[64], back[64] = {0};

	pi_make(pi, IB_CAP_IS_EXT_SPEEDS | IB_CAP_IS_CAP_MASK2,
		IB_CAP2_IS_EXT_SPEEDS2, 2, 4, 8);
	pi[56] = 0x20 | 0x08 | 0x01; /* active 1, supported 1, enabled 1 */
	assert_int_equal(smp_port_info_decode(&d, pi, 64), 0);
	assert_int_equal(d.link_speed_ext_active2, 1);
	assert_int_equal(d.link_speed_ext_supported2, 1);
	assert_int_equal(d.link_speed_ext_enabled2, 1);
	assert_int_equal(decode(pi), IB_SPEED_XDR);
	/* LinkRoundTripLatency (bits 456..479) is untouched by them */
	assert_int_equal(mad_get_field(pi, 0, IB_PORT_LINK_ROUND_TRIP_F), 0);
	assert_int_equal(smp_port_info_encode(&d, back, 64), 0);
	assert_memory_equal(back, pi, 64);
	/* without IsCapabilityMask2Supported, CapabilityMask2 means
	 * nothing: NDR from LinkSpeedExtActive */
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, IB_CAP_IS_EXT_SPEEDS);
	assert_int_equal(decode(pi), IB_SPEED_NDR);
}

/* SA rate codes: the IBA code of the link's nominal bandwidth. */
static void test_rate_codes(void **state)
{
	static const struct {
		uint8_t width;
		enum ib_speed s;
		uint8_t code;
	} v[] = {
	    {1, IB_SPEED_SDR, 2},
	    {2, IB_SPEED_SDR, 3},
	    {8, IB_SPEED_SDR, 4},
	    {2, IB_SPEED_DDR, 6},
	    {2, IB_SPEED_QDR, 7},
	    {8, IB_SPEED_QDR, 10},
	    {2, IB_SPEED_FDR10, 7},
	    {1, IB_SPEED_FDR, 11},
	    {2, IB_SPEED_FDR, 12},
	    {8, IB_SPEED_FDR, 14},
	    {16, IB_SPEED_FDR, 19},
	    {2, IB_SPEED_EDR, 16},
	    {8, IB_SPEED_EDR, 18},
	    {16, IB_SPEED_EDR, 20},
	    {2, IB_SPEED_HDR, 17},
	    {4, IB_SPEED_HDR, 21},
	    {8, IB_SPEED_HDR, 22},
	    {2, IB_SPEED_NDR, 21},
	    {4, IB_SPEED_NDR, 23},
	    {8, IB_SPEED_NDR, 24},
	    {2, IB_SPEED_XDR, 23},
	    {1, IB_SPEED_XDR, 17},
	    /* 8x and 12x XDR have no code of their own: the fastest */
	    {4, IB_SPEED_XDR, 24},
	    {0, IB_SPEED_NONE, 2},
	};

	for (unsigned i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_int_equal(ib_rate_code(v[i].width, v[i].s), v[i].code);
	assert_int_equal(ib_rate_max(), 24);
	assert_true(ib_rate_rank(17) > ib_rate_rank(16));
	assert_true(ib_rate_rank(11) < ib_rate_rank(6)); /* 14 < 20 Gb/s */
	assert_int_equal(ib_rate_rank(1), -1);
	assert_int_equal(ib_rate_gbps10(21), 4000);
}

/* Mellanox ExtendedPortInfo (0xFF90), FDR10's home: our field table
 * against libibmad's IB_MLNX_EXT_PORT_* fields. */
static void test_mlnx_ext_port_info(void **state)
{
	struct smp_mlnx_ext_port_info e;
	uint8_t d[64] = {0};

	mad_set_field(d, 0, IB_MLNX_EXT_PORT_STATE_CHG_ENABLE_F, 0x01);
	mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_SUPPORTED_F, 0x03);
	mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ENABLED_F, 0x02);
	mad_set_field(d, 0, IB_MLNX_EXT_PORT_LINK_SPEED_ACTIVE_F,
		      MLNX_SPEED_FDR10);
	assert_int_equal(smp_mlnx_ext_port_info_decode(&e, d, sizeof(d)), 0);
	assert_int_equal(e.state_change_enable, 0x01);
	assert_int_equal(e.link_speed_supported, 0x03);
	assert_int_equal(e.link_speed_enabled, 0x02);
	assert_int_equal(e.link_speed_active, MLNX_SPEED_FDR10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ext_active),
	    cmocka_unit_test(test_base_and_caps),
	    cmocka_unit_test(test_xdr),
	    cmocka_unit_test(test_rate_codes),
	    cmocka_unit_test(test_mlnx_ext_port_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
