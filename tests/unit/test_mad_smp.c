/* SMP header and attribute codecs checked against libibmad, which knows
 * the IBA layouts independently: every field of every table is placed
 * alone at its offset and compared byte for byte with mad_set_field, and
 * random values round-trip through both.  Fixed byte vectors cover the
 * tables libibmad does not describe (LFT/MFT blocks, port groups). */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <infiniband/mad.h>
#include <infiniband/umad_sm.h>

#include "mad/smp.h"
#include "mad/smp_node.h"
#include "mad/smp_pgroup.h"
#include "mad/smp_port.h"
#include "mad/smp_qos.h"
#include "mad/smp_sm.h"
#include "mad/smp_switch.h"

/* Compile-time checks in the manner of rdma-core's umad_compile_test:
 * our wire constants agree with the kernel/rdma-core ABI headers. */
_Static_assert(MAD_SIZE == 256, "MAD size");
_Static_assert(SMP_DATA_OFF == offsetof(struct umad_smp, data), "SMP data");
_Static_assert(SMP_DATA_SIZE == (int)UMAD_LEN_SMP_DATA, "SMP data size");
_Static_assert(MAD_SIZE - SMP_PATH_SIZE ==
		   offsetof(struct umad_smp, return_path),
	       "SMP return path");
_Static_assert(MAD_SIZE - 2 * SMP_PATH_SIZE ==
		   offsetof(struct umad_smp, initial_path),
	       "SMP initial path");
_Static_assert(sizeof(struct umad_smp) == MAD_SIZE, "umad_smp size");
_Static_assert((int)SMP_ATTR_LFT == (int)UMAD_SM_ATTR_LINEAR_FT, "LFT id");
_Static_assert((int)SMP_ATTR_MFT == (int)UMAD_SM_ATTR_MCAST_FT, "MFT id");
_Static_assert((int)SMP_ATTR_PORT_INFO == (int)UMAD_SM_ATTR_PORT_INFO, "PI id");
_Static_assert((int)SMP_ATTR_SM_INFO == (int)UMAD_SM_ATTR_SM_INFO, "SMInfo id");

struct table {
	const char *what;
	const struct wire_field *f;
	size_t n;
	size_t objsize;
	enum MAD_FIELDS (*ibmad)(size_t i); /* libibmad field of entry i */
};

static enum MAD_FIELDS node_f(size_t i)
{
	return IB_NODE_FIRST_F + i;
}
static enum MAD_FIELDS sw_f(size_t i)
{
	return IB_SW_FIRST_F + i;
}
static enum MAD_FIELDS sminfo_f(size_t i)
{
	return IB_SMINFO_GUID_F + i;
}
static enum MAD_FIELDS notice_f(size_t i)
{
	return IB_NOTICE_IS_GENERIC_F + i;
}
static enum MAD_FIELDS port_f(size_t i)
{
	size_t base = IB_PORT_LAST_F - IB_PORT_FIRST_F;

	return i < base ? IB_PORT_FIRST_F + i : IB_PORT_CAPMASK2_F + (i - base);
}

static const struct table *tables(size_t *n)
{
	static struct table t[5];

	t[0] = (struct table){"NodeInfo", smp_node_info_fields,
			      smp_node_info_nfields,
			      sizeof(struct smp_node_info), node_f};
	t[1] = (struct table){"PortInfo", smp_port_info_fields,
			      smp_port_info_nfields,
			      sizeof(struct smp_port_info), port_f};
	t[2] = (struct table){"SwitchInfo", smp_switch_info_fields,
			      smp_switch_info_nfields,
			      sizeof(struct smp_switch_info), sw_f};
	t[3] = (struct table){"SMInfo", smp_sm_info_fields, smp_sm_info_nfields,
			      sizeof(struct smp_sm_info), sminfo_f};
	t[4] = (struct table){"Notice", smp_notice_fields, smp_notice_nfields,
			      sizeof(struct smp_notice), notice_f};
	*n = 5;
	return t;
}

static uint64_t ones(unsigned width)
{
	return width >= 64 ? ~0ULL : (1ULL << width) - 1;
}

static void ibmad_set(uint8_t *buf, enum MAD_FIELDS f, unsigned width,
		      uint64_t v)
{
	if (width > 32)
		mad_set_field64(buf, 0, f, v);
	else
		mad_set_field(buf, 0, f, (uint32_t)v);
}

static uint64_t ibmad_get(uint8_t *buf, enum MAD_FIELDS f, unsigned width)
{
	return width > 32 ? mad_get_field64(buf, 0, f)
			  : mad_get_field(buf, 0, f);
}

/* The number of table entries matches libibmad's field ranges. */
static void test_field_counts(void **state)
{
	(void)state;
	assert_int_equal(smp_node_info_nfields,
			 IB_NODE_LAST_F - IB_NODE_FIRST_F);
	assert_int_equal(smp_switch_info_nfields, IB_SW_LAST_F - IB_SW_FIRST_F);
	assert_int_equal(
	    smp_port_info_nfields,
	    (IB_PORT_LAST_F - IB_PORT_FIRST_F) +
		(IB_PORT_LINK_SPEED_EXT_LAST_F - IB_PORT_CAPMASK2_F));
	assert_int_equal(smp_sm_info_nfields,
			 IB_SMINFO_STATE_F - IB_SMINFO_GUID_F + 1);
}

/* Each field alone, all ones: same bytes as libibmad, and libibmad reads
 * back exactly width one-bits (so the width is right too). */
static void test_each_field_position(void **state)
{
	size_t nt;
	const struct table *t = tables(&nt);

	(void)state;
	for (size_t k = 0; k < nt; k++) {
		for (size_t i = 0; i < t[k].n; i++) {
			const struct wire_field *f = &t[k].f[i];
			enum MAD_FIELDS mf = t[k].ibmad(i);
			uint8_t mine[64] = {0}, ref[64] = {0}, obj[128] = {0};

			wire_member_set(f, obj, ones(f->width));
			assert_int_equal(wire_encode(f, 1, obj, mine, 64), 0);
			ibmad_set(ref, mf, f->width, ones(f->width));
			if (memcmp(mine, ref, 64))
				fail_msg("%s.%s: bytes differ from libibmad %s",
					 t[k].what, f->name,
					 mad_field_name(mf));
			if (ibmad_get(ref, mf, 64) != ones(f->width) &&
			    ibmad_get(ref, mf, f->width) != ones(f->width))
				fail_msg("%s.%s: width %u disagrees", t[k].what,
					 f->name, f->width);
		}
	}
}

/* Random values for every field: encode with ours, read with libibmad;
 * write with libibmad, decode with ours. */
static void test_random_roundtrip(void **state)
{
	size_t nt;
	const struct table *t = tables(&nt);

	(void)state;
	srand(42);
	for (int round = 0; round < 50; round++) {
		for (size_t k = 0; k < nt; k++) {
			uint8_t obj[128] = {0}, back[128] = {0};
			uint8_t buf[64] = {0}, ref[64] = {0};

			for (size_t i = 0; i < t[k].n; i++) {
				const struct wire_field *f = &t[k].f[i];
				uint64_t v = ((uint64_t)rand() << 33) ^
					     ((uint64_t)rand() << 11) ^
					     (uint64_t)rand();

				v &= ones(f->width);
				wire_member_set(f, obj, v);
				ibmad_set(ref, t[k].ibmad(i), f->width, v);
			}
			assert_int_equal(
			    wire_encode(t[k].f, t[k].n, obj, buf, 64), 0);
			for (size_t i = 0; i < t[k].n; i++) {
				const struct wire_field *f = &t[k].f[i];
				assert_true(
				    ibmad_get(buf, t[k].ibmad(i), f->width) ==
				    wire_member_get(f, obj));
			}
			assert_int_equal(
			    wire_decode(t[k].f, t[k].n, ref, 64, back), 0);
			for (size_t i = 0; i < t[k].n; i++)
				assert_true(wire_member_get(&t[k].f[i], back) ==
					    wire_member_get(&t[k].f[i], obj));
		}
	}
}

static void test_typed_codecs(void **state)
{
	uint8_t d[64] = {0};
	struct smp_port_info pi = {0}, pi2;
	struct smp_node_info ni;
	struct smp_switch_info si;

	(void)state;
	pi.lid = 0x1234;
	pi.lmc = 7;
	pi.port_state = 4;
	pi.master_sm_lid = 1;
	assert_int_equal(smp_port_info_encode(&pi, d, sizeof(d)), 0);
	assert_int_equal(mad_get_field(d, 0, IB_PORT_LID_F), 0x1234);
	assert_int_equal(mad_get_field(d, 0, IB_PORT_LMC_F), 7);
	assert_int_equal(mad_get_field(d, 0, IB_PORT_STATE_F), 4);
	assert_int_equal(smp_port_info_decode(&pi2, d, sizeof(d)), 0);
	assert_int_equal(pi2.lid, 0x1234);
	pi.lmc = 8; /* does not fit 3 bits */
	assert_int_equal(smp_port_info_encode(&pi, d, sizeof(d)), -ERANGE);
	assert_int_equal(smp_port_info_decode(&pi2, d, 40), -EOVERFLOW);

	memset(d, 0, sizeof(d));
	mad_set_field64(d, 0, IB_NODE_GUID_F, 0x0002c90200401234ULL);
	mad_set_field(d, 0, IB_NODE_TYPE_F, 2);
	mad_set_field(d, 0, IB_NODE_NPORTS_F, 36);
	mad_set_field(d, 0, IB_NODE_VENDORID_F, 0x2c9);
	assert_int_equal(smp_node_info_decode(&ni, d, sizeof(d)), 0);
	assert_true(ni.node_guid == 0x0002c90200401234ULL);
	assert_int_equal(ni.node_type, 2);
	assert_int_equal(ni.num_ports, 36);
	assert_int_equal(ni.vendor_id, 0x2c9);

	memset(d, 0, sizeof(d));
	mad_set_field(d, 0, IB_SW_LINEAR_FDB_TOP_F, 0x2ff);
	mad_set_field(d, 0, IB_SW_MCAST_FDB_CAP_F, 1024);
	mad_set_field(d, 0, IB_SW_STATE_CHANGE_F, 1);
	mad_set_field(d, 0, IB_SW_LIFE_TIME_F, 18);
	assert_int_equal(smp_switch_info_decode(&si, d, sizeof(d)), 0);
	assert_int_equal(si.lft_top, 0x2ff);
	assert_int_equal(si.mft_cap, 1024);
	assert_int_equal(si.port_state_change, 1);
	assert_int_equal(si.life_time_value, 18);
}

static void test_node_desc(void **state)
{
	uint8_t d[64];
	char out[SMP_NODE_DESC_LEN + 1];
	char ref[65];

	(void)state;
	assert_int_equal(smp_node_desc_encode("S1 leaf", d, sizeof(d)), 0);
	mad_decode_field(d, IB_NODE_DESC_F, ref);
	assert_string_equal(ref, "S1 leaf");
	assert_int_equal(smp_node_desc_decode(out, d, sizeof(d)), 0);
	assert_string_equal(out, "S1 leaf");
	memset(d, 'x', sizeof(d)); /* all 64 used, no NUL */
	assert_int_equal(smp_node_desc_decode(out, d, sizeof(d)), 0);
	assert_int_equal(strlen(out), 64);
	memcpy(d, "H1  ", 4);
	memset(d + 4, ' ', 60);
	assert_int_equal(smp_node_desc_decode(out, d, sizeof(d)), 0);
	assert_string_equal(out, "H1");
}

static void test_dr_header(void **state)
{
	struct smp s, r;
	uint8_t buf[MAD_SIZE];
	uint8_t path[4] = {0, 1, 3, 5};
	uint8_t p[64];

	(void)state;
	smp_init_dr(&s, MAD_METHOD_GET, SMP_ATTR_NODE_INFO, 0, path, 3);
	s.hdr.tid = 0x1122334455667788ULL;
	s.mkey = 0xA1A2A3A4A5A6A7A8ULL;
	s.data[0] = 0xEE;
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_BASEVER_F), 1);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_MGMTCLASS_F), 0x81);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_CLASSVER_F), 1);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_METHOD_F), 1);
	assert_int_equal(mad_get_field(buf, 0, IB_DRSMP_HOPCNT_F), 3);
	assert_int_equal(mad_get_field(buf, 0, IB_DRSMP_HOPPTR_F), 0);
	assert_int_equal(mad_get_field(buf, 0, IB_DRSMP_DIRECTION_F), 0);
	assert_true(mad_get_field64(buf, 0, IB_MAD_TRID_F) ==
		    0x1122334455667788ULL);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_ATTRID_F), 0x11);
	assert_true(mad_get_field64(buf, 0, IB_MAD_MKEY_F) ==
		    0xA1A2A3A4A5A6A7A8ULL);
	assert_int_equal(mad_get_field(buf, 0, IB_DRSMP_DRSLID_F), 0xFFFF);
	assert_int_equal(mad_get_field(buf, 0, IB_DRSMP_DRDLID_F), 0xFFFF);
	mad_decode_field(buf, IB_DRSMP_PATH_F, p);
	assert_memory_equal(p, path, 4);
	assert_int_equal(buf[SMP_DATA_OFF], 0xEE);

	/* a response coming back: D bit and status split, hop pointer kept */
	mad_set_field(buf, 0, IB_DRSMP_DIRECTION_F, 1);
	mad_set_field(buf, 0, IB_DRSMP_STATUS_F, 0x001C);
	mad_set_field(buf, 0, IB_DRSMP_HOPPTR_F, 4);
	buf[3] = MAD_METHOD_GET_RESP;
	assert_int_equal(smp_decode(&r, buf, sizeof(buf)), 0);
	assert_true(r.direction);
	assert_int_equal(r.status, 0x001C);
	assert_int_equal(r.hop_ptr, 4);
	assert_int_equal(r.hop_cnt, 3);
	assert_memory_equal(r.initial_path, path, 4);
	assert_true(r.hdr.tid == s.hdr.tid);
	assert_int_equal(smp_encode(&r, p, 64), -EOVERFLOW);

	/* validation */
	buf[0] = 2;
	assert_int_equal(smp_decode(&r, buf, sizeof(buf)), -EPROTO);
	buf[0] = 1;
	assert_int_equal(smp_decode(&r, buf, 100), -EOVERFLOW);
	buf[7] = 64; /* hop count */
	assert_int_equal(smp_decode(&r, buf, sizeof(buf)), -EPROTO);
}

static void test_lid_header_and_response(void **state)
{
	struct smp s, r;
	uint8_t buf[MAD_SIZE];

	(void)state;
	smp_init_lid(&s, MAD_METHOD_SET, SMP_ATTR_MFT, smp_mft_mod(5, 2));
	assert_int_equal(smp_encode(&s, buf, sizeof(buf)), 0);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_MGMTCLASS_F), 0x01);
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_ATTRMOD_F), 0x20000005);
	assert_int_equal(smp_mft_mod_block(s.hdr.attr_mod), 5);
	assert_int_equal(smp_mft_mod_position(s.hdr.attr_mod), 2);
	assert_int_equal(smp_decode(&r, buf, sizeof(buf)), 0);
	smp_make_response(&r, 0x0004);
	assert_int_equal(smp_encode(&r, buf, sizeof(buf)), 0);
	assert_int_equal(buf[3], 0x81); /* libibmad splits R from the method */
	assert_int_equal(mad_get_field(buf, 0, IB_MAD_STATUS_F), 0x0004);
}

static void test_lft_mft_blocks(void **state)
{
	uint8_t ports[64], back[64], d[64];
	uint16_t masks[32], mback[32];

	(void)state;
	for (int i = 0; i < 64; i++)
		ports[i] = (uint8_t)(i * 3);
	assert_int_equal(smp_lft_encode(ports, d, sizeof(d)), 0);
	assert_memory_equal(d, ports, 64); /* entry i at byte i */
	assert_int_equal(smp_lft_decode(back, d, sizeof(d)), 0);
	assert_memory_equal(back, ports, 64);
	assert_int_equal(lft_block_of(130), 2);

	for (int i = 0; i < 32; i++)
		masks[i] = (uint16_t)(0x8001 + i);
	assert_int_equal(smp_mft_encode(masks, d, sizeof(d)), 0);
	assert_int_equal(d[0], 0x80);
	assert_int_equal(d[1], 0x01);
	assert_int_equal(d[62], 0x80);
	assert_int_equal(d[63], 0x20);
	assert_int_equal(smp_mft_decode(mback, d, sizeof(d)), 0);
	assert_memory_equal(mback, masks, sizeof(masks));
	assert_int_equal(smp_mft_decode(mback, d, 60), -EOVERFLOW);
}

static void test_notice_traps(void **state)
{
	uint8_t d[64] = {0};
	struct smp_notice n;
	struct smp_trap144 t;
	uint16_t lid;

	(void)state;
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TYPE_F, 1);
	mad_set_field(d, 0, IB_NOTICE_PRODUCER_F, 2);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, 128);
	mad_set_field(d, 0, IB_NOTICE_ISSUER_LID_F, 7);
	mad_set_field(d, 0, IB_NOTICE_DATA_LID_F, 7);
	assert_int_equal(smp_notice_decode(&n, d, sizeof(d)), 0);
	assert_int_equal(n.is_generic, 1);
	assert_int_equal(n.trap_num, 128);
	assert_int_equal(n.issuer_lid, 7);
	assert_int_equal(smp_trap128_lid(&n, &lid), 0);
	assert_int_equal(lid, 7);
	assert_int_equal(smp_trap144_decode(&n, &t), -EINVAL);

	memset(d, 0, sizeof(d));
	mad_set_field(d, 0, IB_NOTICE_IS_GENERIC_F, 1);
	mad_set_field(d, 0, IB_NOTICE_TRAP_NUMBER_F, 144);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_LID_F, 0x33);
	mad_set_field(d, 0, IB_NOTICE_DATA_144_CAPMASK_F, 0x02510868);
	assert_int_equal(smp_notice_decode(&n, d, sizeof(d)), 0);
	assert_int_equal(smp_trap144_decode(&n, &t), 0);
	assert_int_equal(t.lid, 0x33);
	assert_int_equal(t.new_cap_mask, 0x02510868);
	/* encode gives back the same bytes */
	uint8_t e[64] = {0};
	assert_int_equal(smp_notice_encode(&n, e, sizeof(e)), 0);
	assert_memory_equal(e, d, 64);
}

static void test_trap_repress(void **state)
{
	struct smp s;

	(void)state;
	smp_init_lid(&s, MAD_METHOD_TRAP, SMP_ATTR_NOTICE, 0);
	s.hdr.tid = 99;
	smp_make_trap_repress(&s);
	assert_int_equal(s.hdr.method, MAD_METHOD_TRAP_REPRESS);
	assert_int_equal(s.hdr.attr_id, SMP_ATTR_NOTICE);
	assert_true(s.hdr.tid == 99);
}

/* docs/design.md §4.3 layouts, written out byte by byte. */
static void test_port_groups(void **state)
{
	uint8_t d[64] = {0};
	struct smp_pgroup_info pg = {.cap = 16,
				     .top = 5,
				     .fdb_cap = 0x0C00,
				     .enable = 1,
				     .algorithm = 2,
				     .threshold = 0x40},
			       pg2;
	struct pgroup_mask m[2], mb[2];
	uint8_t ids[64], idb[64];

	(void)state;
	assert_int_equal(smp_pgroup_info_encode(&pg, d, sizeof(d)), 0);
	const uint8_t want[6] = {16, 5, 0x0C, 0x00, 0x82, 0x40};
	assert_memory_equal(d, want, 6);
	assert_int_equal(smp_pgroup_info_decode(&pg2, d, sizeof(d)), 0);
	assert_int_equal(pg2.algorithm, 2);
	assert_int_equal(pg2.enable, 1);
	assert_int_equal(pg2.fdb_cap, 0x0C00);

	memset(m, 0, sizeof(m));
	pgroup_mask_set(&m[0], 1);
	pgroup_mask_set(&m[0], 9);
	pgroup_mask_set(&m[1], 255);
	memset(d, 0, sizeof(d));
	assert_int_equal(smp_pgroup_table_encode(m, d, sizeof(d)), 0);
	assert_int_equal(d[31], 0x02); /* port 1: byte 31, bit 1 */
	assert_int_equal(d[30], 0x02); /* port 9: byte 30, bit 1 */
	assert_int_equal(d[32], 0x80); /* group 2b+1, port 255: byte 0, bit 7 */
	assert_int_equal(smp_pgroup_table_decode(mb, d, sizeof(d)), 0);
	assert_true(pgroup_mask_test(&mb[0], 9));
	assert_false(pgroup_mask_test(&mb[0], 8));
	assert_true(pgroup_mask_test(&mb[1], 255));

	for (int i = 0; i < 64; i++)
		ids[i] = (uint8_t)(i % 5);
	assert_int_equal(smp_pgroup_ft_encode(ids, d, sizeof(d)), 0);
	assert_memory_equal(d, ids, 64);
	assert_int_equal(smp_pgroup_ft_decode(idb, d, sizeof(d)), 0);
	assert_memory_equal(idb, ids, 64);
}

static void test_names(void **state)
{
	char b[64];
	uint8_t path[3] = {0, 1, 12};

	(void)state;
	assert_string_equal(smp_attr_name(0x11), "NodeInfo");
	assert_string_equal(smp_attr_name(0x1234), "0x1234");
	assert_string_equal(smp_path_str(path, 2, b, sizeof(b)), "0,1,12");
}

/* SL2VL and VLArb blocks against libibmad's dumpers (what smpquery
 * sl2vl/vlarb print): random tables encoded by us, printed by libibmad,
 * parsed back. */
static void test_qos_tables(void **state)
{
	uint64_t rs = 12345;
	char buf[1024];

	(void)state;
	for (int round = 0; round < 200; round++) {
		uint8_t vl[SMP_NUM_SLS], back[SMP_NUM_SLS];
		uint8_t data[SMP_DATA_SIZE] = {0};
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK], eb[SMP_VLARB_BLOCK];
		char *p;

		for (unsigned i = 0; i < SMP_NUM_SLS; i++) {
			rs = rs * 6364136223846793005ULL + 1;
			vl[i] = (uint8_t)(rs >> 60);
		}
		assert_int_equal(smp_sl2vl_encode(vl, data, sizeof(data)), 0);
		mad_dump_sltovl(buf, sizeof(buf), data, SMP_SL2VL_SIZE);
		p = buf;
		for (unsigned i = 0; i < SMP_NUM_SLS; i++) {
			p = strchr(p, '|');
			assert_non_null(p);
			assert_int_equal(strtoul(p + 1, &p, 10), vl[i]);
		}
		assert_int_equal(smp_sl2vl_decode(back, data, sizeof(data)), 0);
		assert_memory_equal(back, vl, sizeof(vl));

		for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
			rs = rs * 6364136223846793005ULL + 1;
			e[i].vl = (uint8_t)(rs >> 60);
			e[i].weight = (uint8_t)(rs >> 40);
		}
		memset(data, 0, sizeof(data));
		assert_int_equal(smp_vlarb_encode(e, data, sizeof(data)), 0);
		mad_dump_vlarbitration(buf, sizeof(buf), data, 64);
		p = strstr(buf, "VL");
		assert_non_null(p);
		for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
			p = strchr(p, '|');
			assert_non_null(p);
			assert_int_equal(strtoul(p + 1, &p, 16), e[i].vl);
		}
		p = strstr(p, "WEIGHT");
		assert_non_null(p);
		for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
			p = strchr(p, '|');
			assert_non_null(p);
			assert_int_equal(strtoul(p + 1, &p, 16), e[i].weight);
		}
		assert_int_equal(smp_vlarb_decode(eb, data, sizeof(data)), 0);
		assert_memory_equal(eb, e, sizeof(e));
	}
	/* fixed bytes: SL 0 in the high nibble; VL in the low nibble of an
	 * entry's first byte */
	{
		uint8_t vl[SMP_NUM_SLS] = {1, 2,  3,  4,  5,  6,  7,  8,
					   9, 10, 11, 12, 13, 14, 15, 0};
		uint8_t data[SMP_DATA_SIZE] = {0};
		struct smp_vlarb_entry e[SMP_VLARB_BLOCK] = {{3, 0x40}};
		assert_int_equal(smp_sl2vl_encode(vl, data, sizeof(data)), 0);
		assert_int_equal(data[0], 0x12);
		assert_int_equal(data[7], 0xF0);
		assert_int_equal(smp_vlarb_encode(e, data, sizeof(data)), 0);
		assert_int_equal(data[0], 0x03);
		assert_int_equal(data[1], 0x40);
		vl[3] = 16;
		assert_int_equal(smp_sl2vl_encode(vl, data, sizeof(data)),
				 -ERANGE);
		assert_int_equal(smp_sl2vl_decode(vl, data, 7), -EOVERFLOW);
		assert_int_equal(smp_vlarb_decode(e, data, 63), -EOVERFLOW);
		assert_int_equal(smp_sl2vl_mod(3, 7), 0x0307);
		assert_int_equal(smp_vlarb_mod(SMP_VLARB_HIGH_32, 12), 0x4000C);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_field_counts),
	    cmocka_unit_test(test_each_field_position),
	    cmocka_unit_test(test_random_roundtrip),
	    cmocka_unit_test(test_typed_codecs),
	    cmocka_unit_test(test_node_desc),
	    cmocka_unit_test(test_dr_header),
	    cmocka_unit_test(test_lid_header_and_response),
	    cmocka_unit_test(test_lft_mft_blocks),
	    cmocka_unit_test(test_notice_traps),
	    cmocka_unit_test(test_trap_repress),
	    cmocka_unit_test(test_port_groups),
	    cmocka_unit_test(test_qos_tables),
	    cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
