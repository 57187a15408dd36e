/* SA codecs against libibmad's own field definitions (an implementation
 * we did not write): bytes we encode must decode to the same values with
 * mad_decode_field, and bytes libibmad encodes must decode with ours. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include <infiniband/mad.h>

#include "mad/sa_mad.h"
#include "mad/sa_mcm.h"
#include "mad/sa_multipath.h"
#include "mad/sa_node.h"
#include "mad/sa_path.h"
#include "mad/sa_portinfo.h"
#include "mad/sa_qos.h"
#include "mad/sa_service.h"
#include "mad/sa_tables.h"
#include "mad/sa_wire.h"

static void test_bits(void **state)
{
	uint8_t b[8] = {0};

	(void)state;
	sa_put_bits(b, sizeof(b), 4, 12, 0xABC);
	assert_int_equal(b[0], 0x0A);
	assert_int_equal(b[1], 0xBC);
	assert_int_equal(sa_get_bits(b, sizeof(b), 4, 12), 0xABC);
	sa_put_bits(b, sizeof(b), 15, 2, 3);
	assert_int_equal(b[1], 0xBD);
	assert_int_equal(b[2], 0x80);
	/* out of range reads are 0, writes ignored, never past the buffer */
	assert_int_equal(sa_get_bits(b, sizeof(b), 60, 8), 0);
	sa_put_bits(b, sizeof(b), 60, 8, 0xFF);
	assert_int_equal(b[7], 0);
}

/* Reference bit access, one bit at a time. */
static uint64_t ref_get(const uint8_t *b, unsigned bit, unsigned bits)
{
	uint64_t v = 0;

	for (unsigned i = bit; i < bit + bits; i++)
		v = v << 1 | ((b[i / 8] >> (7 - i % 8)) & 1);
	return v;
}

/* The byte-window fast paths agree with the bit loop everywhere. */
static void test_bits_random(void **state)
{
	uint8_t a[32], b[32];
	unsigned seed = 7;

	(void)state;
	for (int iter = 0; iter < 20000; iter++) {
		unsigned bits = 1 + (seed = seed * 1103515245u + 12345u) % 64;
		unsigned bit =
		    (seed = seed * 1103515245u + 12345u) % (256 - 64);
		uint64_t hi = (seed = seed * 1103515245u + 12345u);
		uint64_t v = hi << 32 ^ (seed = seed * 1103515245u + 12345u);
		uint64_t mask = bits == 64 ? ~0ull : (1ull << bits) - 1;

		for (int i = 0; i < 32; i++)
			a[i] = b[i] = (uint8_t)(seed >> (i % 24));
		sa_put_bits(a, sizeof(a), bit, bits, v);
		assert_true(sa_get_bits(a, sizeof(a), bit, bits) == (v & mask));
		assert_true(ref_get(a, bit, bits) == (v & mask));
		/* nothing outside the field changed */
		for (unsigned i = 0; i < 256; i++)
			if (i < bit || i >= bit + bits)
				assert_int_equal(ref_get(a, i, 1),
						 ref_get(b, i, 1));
	}
}

static void test_header(void **state)
{
	uint8_t mad[256] = {0};
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = 3,
			   .class_version = 2,
			   .method = SA_METHOD_GET_TABLE,
			   .status = 0x0300,
			   .tid = 0x1122334455667788ull,
			   .attr_id = SA_ATTR_PATH_REC,
			   .attr_mod = 7,
			   .rmpp_version = 1,
			   .rmpp_type = 1,
			   .rmpp_flags = 7,
			   .rmpp_data1 = 1,
			   .rmpp_data2 = 212,
			   .sm_key = 0xdeadbeefull,
			   .attr_offset = 8,
			   .comp_mask = 0x30};
	struct sa_hdr d;

	(void)state;
	sa_hdr_encode(&h, mad);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_METHOD_F), 0x12);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_STATUS_F), 0x0300);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRID_F), 0x35);
	assert_int_equal(mad_get_field(mad, 0, IB_MAD_ATTRMOD_F), 7);
	assert_true(mad_get_field64(mad, 0, IB_MAD_TRID_F) ==
		    0x1122334455667788ull);
	assert_int_equal(mad_get_field(mad, 0, IB_SA_RMPP_FLAGS_F), 7);
	assert_int_equal(mad_get_field(mad, 0, IB_SA_RMPP_LEN_F), 212);
	assert_int_equal(mad_get_field(mad, 0, IB_SA_ATTROFFS_F), 8);
	assert_true(mad_get_field64(mad, 0, IB_SA_COMPMASK_F) == 0x30);
	assert_true(mad_get_field64(mad, 0, IB_SA_MKEY_F) == 0xdeadbeefull);
	assert_int_equal(sa_hdr_decode(&d, mad, sizeof(mad)), 0);
	assert_true(d.tid == h.tid && d.sm_key == h.sm_key &&
		    d.comp_mask == h.comp_mask && d.attr_id == h.attr_id &&
		    d.attr_mod == h.attr_mod && d.rmpp_data2 == 212 &&
		    d.method == h.method && d.status == h.status &&
		    d.attr_offset == 8 && d.rmpp_flags == 7);
	assert_int_equal(sa_hdr_decode(&d, mad, 55), -EMSGSIZE);
}

static void test_path_record(void **state)
{
	struct sa_path_rec r = {.dlid = 0x1234,
				.slid = 0x4321,
				.sl = 9,
				.numb_path = 0x7F,
				.reversible = 1,
				.mtu_sel = 2,
				.mtu = 4,
				.rate = 3,
				.pkey = 0xFFFF,
				.flow_label = 0xABCDE,
				.hop_limit = 0x40},
			   d;
	uint8_t w[64] = {0}, v[16];

	(void)state;
	r.dgid[0] = 0xfe;
	r.dgid[15] = 0x11;
	r.sgid[0] = 0xfe;
	r.sgid[15] = 0x22;
	sa_rec_encode(&sa_path_rec_desc, &r, w);
	assert_int_equal(mad_get_field(w, 0, IB_SA_PR_DLID_F), 0x1234);
	assert_int_equal(mad_get_field(w, 0, IB_SA_PR_SLID_F), 0x4321);
	assert_int_equal(mad_get_field(w, 0, IB_SA_PR_SL_F), 9);
	assert_int_equal(mad_get_field(w, 0, IB_SA_PR_NPATH_F), 0x7F);
	mad_decode_field(w, IB_SA_PR_DGID_F, v);
	assert_memory_equal(v, r.dgid, 16);
	mad_decode_field(w, IB_SA_PR_SGID_F, v);
	assert_memory_equal(v, r.sgid, 16);
	assert_int_equal(w[54] >> 6, 2); /* MTU selector, IBA byte 54 */
	assert_int_equal(w[54] & 0x3F, 4);
	assert_int_equal(w[50], 0xFF); /* P_Key bytes 50-51 */
	assert_int_equal(w[49], 0xFF); /* reversible + NumbPath 0x7F */
	assert_int_equal(sa_rec_decode(&sa_path_rec_desc, w, 64, &d), 0);
	assert_true(d.dlid == r.dlid && d.slid == r.slid && d.sl == 9 &&
		    d.numb_path == 0x7F && d.reversible == 1 && d.mtu == 4 &&
		    d.mtu_sel == 2 && d.rate == 3 && d.pkey == 0xFFFF &&
		    d.flow_label == 0xABCDE && d.hop_limit == 0x40);
	assert_memory_equal(d.dgid, r.dgid, 16);
	assert_int_equal(sa_rec_decode(&sa_path_rec_desc, w, 63, &d),
			 -EMSGSIZE);
}

static void test_node_record(void **state)
{
	uint8_t w[112] = {0};
	struct sa_node_rec d;

	(void)state;
	/* libibmad writes NodeInfo fields at their NodeInfo offsets; the
	 * NodeRecord has NodeInfo at byte 4 and NodeDescription at 44. */
	mad_set_field(w + 4, 0, IB_NODE_TYPE_F, 2);
	mad_set_field(w + 4, 0, IB_NODE_NPORTS_F, 36);
	mad_set_field64(w + 4, 0, IB_NODE_GUID_F, 0x0002c90300001234ull);
	mad_set_field64(w + 4, 0, IB_NODE_PORT_GUID_F, 0x0002c90300001235ull);
	mad_set_field(w + 4, 0, IB_NODE_PARTITION_CAP_F, 64);
	mad_set_field(w + 4, 0, IB_NODE_DEVID_F, 0xc738);
	mad_set_field(w + 4, 0, IB_NODE_REVISION_F, 0xA1);
	mad_set_field(w + 4, 0, IB_NODE_LOCAL_PORT_F, 3);
	mad_set_field(w + 4, 0, IB_NODE_VENDORID_F, 0x02c9);
	w[0] = 0x00;
	w[1] = 0x2a;
	memcpy(w + 44, "switch one", 10);
	assert_int_equal(sa_rec_decode(&sa_node_rec_desc, w, 108, &d), 0);
	assert_int_equal(d.lid, 42);
	assert_int_equal(d.node_type, 2);
	assert_int_equal(d.num_ports, 36);
	assert_true(d.node_guid == 0x0002c90300001234ull);
	assert_true(d.port_guid == 0x0002c90300001235ull);
	assert_int_equal(d.partition_cap, 64);
	assert_int_equal(d.device_id, 0xc738);
	assert_int_equal(d.revision, 0xA1);
	assert_int_equal(d.local_port, 3);
	assert_int_equal(d.vendor_id, 0x02c9);
	assert_string_equal((char *)d.desc, "switch one");
	assert_int_equal(sa_rec_stride(&sa_node_rec_desc), 112);
}

static void test_portinfo_offsets(void **state)
{
	uint8_t pi[64] = {0};

	(void)state;
	mad_set_field(pi, 0, IB_PORT_LID_F, 0x77);
	mad_set_field(pi, 0, IB_PORT_SMLID_F, 0x11);
	mad_set_field(pi, 0, IB_PORT_CAPMASK_F, 0x50c048);
	mad_set_field(pi, 0, IB_PORT_STATE_F, 4);
	mad_set_field(pi, 0, IB_PORT_LMC_F, 2);
	mad_set_field(pi, 0, IB_PORT_MTU_CAP_F, 4);
	mad_set_field(pi, 0, IB_PORT_GUID_CAP_F, 32);
	mad_set_field(pi, 0, IB_PORT_SUBN_TIMEOUT_F, 18);
	mad_set_field(pi, 0, IB_PORT_CAPMASK2_F, 0x30);
	assert_int_equal(sa_pi_get(pi, SA_PI_LID, 16), 0x77);
	assert_int_equal(sa_pi_get(pi, SA_PI_SMLID, 16), 0x11);
	assert_int_equal(sa_pi_get(pi, SA_PI_CAPMASK, 32), 0x50c048);
	assert_int_equal(sa_pi_get(pi, SA_PI_STATE, 4), 4);
	assert_int_equal(sa_pi_get(pi, SA_PI_LMC, 3), 2);
	assert_int_equal(sa_pi_get(pi, SA_PI_MTUCAP, 4), 4);
	assert_int_equal(sa_pi_get(pi, SA_PI_GUIDCAP, 8), 32);
	assert_int_equal(sa_pi_get(pi, SA_PI_SUBNTO, 5), 18);
	assert_int_equal(sa_pi_get(pi, SA_PI_CAPMASK2, 16), 0x30);
	/* component rows: PortInfo LID is component 5, 16 bits at 32+128 */
	const struct wire_field *f = sa_rec_comp_field(&sa_portinfo_rec_desc, 5);
	assert_non_null(f);
	assert_int_equal(f->bitoff, 160);
	assert_int_equal(f->width, 16);
}

static void test_mcm_member_count(void **state)
{
	struct sa_mcm_rec r = {.qkey = 0x0B1B,
			       .mlid = 0xC001,
			       .mtu_sel = 2,
			       .mtu = 4,
			       .pkey = 0xFFFF,
			       .rate = 3,
			       .sl = 5,
			       .flow_label = 0x12345,
			       .scope = 2,
			       .join_state = 1,
			       .proxy_join = 1,
			       .member_count = 0x1234},
			  d;
	uint8_t w[56] = {0};

	(void)state;
	r.mgid[0] = 0xff;
	r.mgid[1] = 0x12;
	sa_rec_encode(&sa_mcm_rec_desc, &r, w);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_QKEY_F), 0x0B1B);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_MLID_F), 0xC001);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_SL_F), 5);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_FLOW_LABEL_F), 0x12345);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_JOIN_STATE_F), 1);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_PROXY_JOIN_F), 1);
	assert_int_equal(mad_get_field(w, 0, IB_SA_MCM_PKEY_F), 0xFFFF);
	/* docs/design.md §4.1: MemberCount in bytes 50-51, component bit 18 */
	assert_int_equal(w[50], 0x12);
	assert_int_equal(w[51], 0x34);
	assert_int_equal(sa_rec_comp_field(&sa_mcm_rec_desc, 18)->bitoff, 400);
	sa_rec_decode(&sa_mcm_rec_desc, w, 56, &d);
	assert_int_equal(d.member_count, 0x1234);
	assert_int_equal(d.flow_label, 0x12345);
	assert_int_equal(d.mlid, 0xC001);
	assert_int_equal(d.proxy_join, 1);
	assert_memory_equal(d.mgid, r.mgid, 16);
}

static void test_mcgstate_layout(void **state)
{
	struct sa_mcgstate_rec r = {.mlid = 0xC005,
				    .state = 3,
				    .member_count = 100,
				    .joined_count = 99,
				    .left_count = 1,
				    .tree_groups = 2,
				    .tree_height = 4};
	uint8_t w[32] = {0};

	(void)state;
	r.mgid[15] = 9;
	sa_rec_encode(&sa_mcgstate_rec_desc, &r, w);
	assert_int_equal(w[15], 9);
	assert_int_equal(sa_get16(w + 16), 0xC005);
	assert_int_equal(w[18], 3);
	assert_int_equal(sa_get16(w + 20), 100);
	assert_int_equal(sa_get16(w + 22), 99);
	assert_int_equal(sa_get16(w + 24), 1);
	assert_int_equal(sa_get16(w + 26), 2);
	assert_int_equal(w[28], 4);
}

/* MultiPathRecord's head, byte by byte as OpenSM's ib_multipath_rec_t
 * (iba/ib_types.h) lays it out: hop_flow_raw (4), tclass, num_path
 * (reversible bit 7), pkey (2), qos_class_sl (2), mtu, rate, pkt_life,
 * service_id_8msb, independence, sgid_count, dgid_count,
 * service_id_56lsb (7). */
static void test_multipath_layout(void **state)
{
	struct sa_multipath_rec r = {.raw_traffic = 1,
				     .flow_label = 0xABCDE,
				     .hop_limit = 0x11,
				     .tclass = 0x22,
				     .reversible = 1,
				     .numb_path = 0x33,
				     .pkey = 0x8010,
				     .qos_class = 0x456,
				     .sl = 7,
				     .mtu_sel = 2,
				     .mtu = 4,
				     .rate_sel = 1,
				     .rate = 3,
				     .life_sel = 3,
				     .life = 0x12,
				     .service_id_msb = 0x99,
				     .sgid_count = 2,
				     .dgid_count = 9,
				     .service_id_lsb = 0x11223344556677ull};
	uint8_t w[SA_MPR_HEAD] = {0};

	(void)state;
	assert_int_equal(sa_rec_encode(&sa_multipath_rec_desc, &r, w), 0);
	assert_int_equal(sa_get32(w), 0x8ABCDE11);
	assert_int_equal(w[4], 0x22);
	assert_int_equal(w[5], 0x80 | 0x33);
	assert_int_equal(sa_get16(w + 6), 0x8010);
	assert_int_equal(sa_get16(w + 8), 0x4567);
	assert_int_equal(w[10], 0x84);
	assert_int_equal(w[11], 0x43);
	assert_int_equal(w[12], 0xD2);
	assert_int_equal(w[13], 0x99);
	assert_int_equal(w[15], 2);
	assert_int_equal(w[16], 9);
	assert_int_equal(w[17], 0x11);
	assert_int_equal(w[23], 0x77);
}

static void test_service_and_guidinfo(void **state)
{
	struct sa_service_rec r = {.id = 0x1000000000000001ull,
				   .pkey = 0xFFFF,
				   .lease = 60},
			      d;
	struct sa_guidinfo_rec g = {.lid = 5, .block = 1};
	uint8_t w[176] = {0}, gw[72] = {0}, name[64];

	(void)state;
	memcpy(r.name, "ibsmd-test", 10);
	r.data16[3] = 0xBEEF;
	sa_rec_encode(&sa_service_rec_desc, &r, w);
	assert_true(mad_get_field64(w, 0, IB_SA_SR_ID_F) == r.id);
	assert_int_equal(mad_get_field(w, 0, IB_SA_SR_PKEY_F), 0xFFFF);
	assert_int_equal(mad_get_field(w, 0, IB_SA_SR_LEASE_F), 60);
	mad_decode_field(w, IB_SA_SR_NAME_F, name);
	assert_memory_equal(name, "ibsmd-test", 10);
	assert_int_equal(sa_get16(w + 128 + 6), 0xBEEF); /* ServiceData16 */
	sa_rec_decode(&sa_service_rec_desc, w, 176, &d);
	assert_true(d.id == r.id && d.lease == 60 && d.data16[3] == 0xBEEF);
	assert_memory_equal(d.name, r.name, 64);

	g.guid[2] = 0x123456789ull;
	sa_rec_encode(&sa_guidinfo_rec_desc, &g, gw);
	assert_int_equal(mad_get_field(gw, 0, IB_SA_GIR_LID_F), 5);
	assert_int_equal(mad_get_field(gw, 0, IB_SA_GIR_BLOCKNUM_F), 1);
	assert_true(mad_get_field64(gw, 0, IB_SA_GIR_GUID2_F) ==
		    0x123456789ull);
}

/* SLtoVLMappingTableRecord and VLArbitrationTableRecord byte by byte
 * (libibmad has no fields for them; the offsets are ib_types.h's
 * ib_slvl_table_record_t and ib_vl_arb_table_record_t: LID, the two port
 * bytes, 4 reserved, then the SMP table as is). */
static void test_qos_records(void **state)
{
	struct sa_sl2vl_rec r = {.lid = 0x1234,
				 .in_port = 3,
				 .out_port = 7,
				 .table = 0x0123456789abcde7ull},
			    d;
	struct sa_vlarb_rec v = {.lid = 9, .out_port = 2, .block = 3};
	uint8_t w[16] = {0}, vw[72] = {0};

	(void)state;
	assert_int_equal(sa_sl2vl_rec_desc.size, 16);
	assert_int_equal(sa_vlarb_rec_desc.size, 72);
	sa_rec_encode(&sa_sl2vl_rec_desc, &r, w);
	assert_int_equal(w[0], 0x12);
	assert_int_equal(w[1], 0x34);
	assert_int_equal(w[2], 3);
	assert_int_equal(w[3], 7);
	assert_int_equal(w[8], 0x01); /* SL0 on VL0, SL1 on VL1 */
	assert_int_equal(w[15], 0xe7);
	assert_int_equal(sa_rec_decode(&sa_sl2vl_rec_desc, w, 16, &d), 0);
	assert_true(d.table == r.table && d.out_port == 7);
	v.table[0] = 0x01; /* entry 0: VL1 */
	v.table[1] = 0x40; /* weight 64 */
	sa_rec_encode(&sa_vlarb_rec_desc, &v, vw);
	assert_int_equal(vw[1], 9);
	assert_int_equal(vw[2], 2);
	assert_int_equal(vw[3], 3);
	assert_int_equal(vw[8], 0x01);
	assert_int_equal(vw[9], 0x40);
}

static void test_match(void **state)
{
	struct sa_path_rec a = {.dlid = 5, .slid = 6}, b = a;
	uint8_t wa[64] = {0}, wb[64] = {0};

	(void)state;
	b.slid = 7;
	sa_rec_encode(&sa_path_rec_desc, &a, wa);
	sa_rec_encode(&sa_path_rec_desc, &b, wb);
	assert_true(
	    sa_rec_match(&sa_path_rec_desc, SA_PR_CM(SA_PR_DLID), wa, wb));
	assert_false(sa_rec_match(&sa_path_rec_desc,
				  SA_PR_CM(SA_PR_DLID) | SA_PR_CM(SA_PR_SLID),
				  wa, wb));
	assert_true(sa_rec_match(&sa_path_rec_desc, 0, wa, wb));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bits),
	    cmocka_unit_test(test_bits_random),
	    cmocka_unit_test(test_header),
	    cmocka_unit_test(test_path_record),
	    cmocka_unit_test(test_node_record),
	    cmocka_unit_test(test_portinfo_offsets),
	    cmocka_unit_test(test_mcm_member_count),
	    cmocka_unit_test(test_mcgstate_layout),
	    cmocka_unit_test(test_multipath_layout),
	    cmocka_unit_test(test_qos_records),
	    cmocka_unit_test(test_service_and_guidinfo),
	    cmocka_unit_test(test_match),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
