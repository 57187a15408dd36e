/* SA server: request validation (one test per rule), status codes, and
 * the simple record families on the fixture fabric (sa_fixture.h).
 * Multi-record answers are checked here, below the transport, because
 * ibsim has no RMPP and cuts every table answer to its first MAD. */
#include <setjmp.h>
#include <stdarg.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sa_fixture.h"
#include "daemon/sa/sa_mcm.h"
#include "mad/sa_cpi.h"
#include "mad/sa_link.h"
#include "mad/sa_mcm.h"
#include "mad/sa_node.h"
#include "mad/sa_portinfo.h"
#include "mad/sa_sminfo.h"
#include "mad/sa_switch.h"
#include "mad/sa_tables.h"

#define CM(c) (1ull << (c))

static int raw_ask(struct fx *x, uint8_t *mad, size_t len)
{
	struct sa_peer from = {.lid = 2};

	if (sa_handle(&x->sa, &from, mad, len, &x->out) < 0)
		return -1;
	return sa_get16(x->out.buf + 4);
}

static void test_validation(void **state)
{
	struct fx *x = *state;
	uint8_t mad[SA_MAD_SIZE];
	unsigned long dropped = x->sa.stats.dropped;

	/* truncated below the SA header: dropped, counted */
	fx_req(mad, SA_METHOD_GET, SA_ATTR_NODE_REC, 0, NULL, NULL);
	assert_int_equal(raw_ask(x, mad, 40), -1);
	/* another class */
	mad[1] = 0x81;
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), -1);
	/* a response method is never answered */
	fx_req(mad, SA_METHOD_GET_RESP, SA_ATTR_NODE_REC, 0, NULL, NULL);
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), -1);
	/* bad base / class version: dropped (no agent for it) */
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC, 0, NULL, NULL);
	mad[2] = 1;
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), -1);
	mad[2] = 2;
	mad[0] = 2;
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), -1);
	assert_int_equal(x->sa.stats.dropped, dropped + 5);
	/* unknown method, method not allowed for the attribute, unknown
	 * attribute */
	assert_int_equal(fx_ask(x, 0x07, SA_ATTR_NODE_REC, 0, NULL, NULL),
			 MAD_STATUS_METHOD_UNSUPP);
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TRACE_TABLE, SA_ATTR_PATH_REC,
				0, NULL, NULL),
			 MAD_STATUS_METHOD_UNSUPP);
	/* GetMulti is MultiPathRecord's alone */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_MULTI, SA_ATTR_PATH_REC, 0, NULL, NULL),
	    MAD_STATUS_METHOD_ATTR_UNSUPP);
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET, SA_ATTR_MULTIPATH_REC, 0, NULL, NULL),
	    MAD_STATUS_METHOD_ATTR_UNSUPP);
	assert_int_equal(
	    fx_ask(x, SA_METHOD_SET, SA_ATTR_NODE_REC, 0, NULL, NULL),
	    MAD_STATUS_METHOD_ATTR_UNSUPP);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, 0x0099, 0, NULL, NULL),
			 MAD_STATUS_METHOD_ATTR_UNSUPP);
	/* record cut short: the request cannot hold a ServiceRecord */
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_SERVICE_REC, 0, NULL, NULL);
	assert_int_equal(raw_ask(x, mad, SA_HDR_SIZE + 100),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	/* attribute offset neither 0 nor the record's */
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC, 0, NULL, NULL);
	sa_put16(mad + 44, 3);
	assert_int_equal(raw_ask(x, mad, sizeof(mad)),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	sa_put16(mad + 44, 14);
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), 0);
	/* component bits the record does not define */
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC,
				CM(15), NULL, NULL),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	/* RMPP control packets are the transport's business */
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC, 0, NULL, NULL);
	mad[25] = RMPP_TYPE_ACK;
	mad[26] = RMPP_FLAG_ACTIVE;
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), -1);
	/* the answer keeps the TID */
	fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC, 0, NULL, NULL);
	assert_int_equal(sa_get64(x->out.buf + 8), 0xabcd0001);
}

static void test_node_records(void **state)
{
	struct fx *x = *state;
	struct sa_node_rec q = {.lid = 4}, r = {0};
	bool seen[9] = {false};

	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_NODE_REC,
				CM(SA_NR_LID), &sa_node_rec_desc, &q),
			 0);
	fx_rec(x, &sa_node_rec_desc, 0, &r);
	assert_int_equal(r.lid, 4);
	assert_true(r.node_guid == 0x100003 && r.port_guid == 0x100004);
	assert_int_equal(r.node_type, IB_NODE_CA);
	assert_int_equal(r.local_port, 1);
	assert_string_equal((char *)r.desc, "Hca2");
	/* Get matching several: ERR_TOO_MANY_RECORDS; none: NO_RECORDS */
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_NODE_REC, 0,
				&sa_node_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_TOO_MANY_RECORDS));
	q.lid = 99;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_NODE_REC,
				CM(SA_NR_LID), &sa_node_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	/* a GetTable with no match is an empty table, not an error */
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC,
				CM(SA_NR_LID), &sa_node_rec_desc, &q),
			 0);
	assert_int_equal(x->out.records, 0);
	/* the whole table: 8 records (more than one MAD holds), each LID
	 * once, every field consistent with the fabric */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_NODE_REC, 0, NULL, NULL), 0);
	assert_int_equal(x->out.records, 8);
	assert_int_equal(sa_get16(x->out.buf + 44), 112 / 8);
	assert_int_equal(sa_get32(x->out.buf + 32), 20 + 8 * 112);
	assert_true(x->out.len >= SA_HDR_SIZE + 8 * 112);
	for (uint32_t i = 0; i < 8; i++) {
		struct ib_port *p;

		fx_rec(x, &sa_node_rec_desc, i, &r);
		assert_true(r.lid >= 1 && r.lid <= 8 && !seen[r.lid]);
		seen[r.lid] = true;
		p = fabric_port_by_lid(&x->f, r.lid);
		assert_true(r.node_guid == p->node->guid);
		assert_int_equal(r.node_type, p->node->type);
		assert_string_equal((char *)r.desc, p->node->desc);
	}
	/* by name, as saquery -N filters: component NodeDescription */
	memset(&q, 0, sizeof(q));
	memcpy(q.desc, "Switch2", 7);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_NODE_REC,
				CM(SA_NR_NODE_DESC), &sa_node_rec_desc, &q),
			 0);
	fx_rec(x, &sa_node_rec_desc, 0, &r);
	assert_int_equal(r.lid, 3);
}

static void test_portinfo_records(void **state)
{
	struct fx *x = *state;
	struct sa_portinfo_rec q = {.lid = 1}, r = {0};

	/* switch: every port, all with the switch's LID; external ports keep
	 * GID prefix 0 (no GID) as switches report them */
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PORTINFO_REC,
				CM(SA_PIR_LID), &sa_portinfo_rec_desc, &q),
			 0);
	assert_int_equal(x->out.records, 9);
	for (uint32_t i = 0; i < 9; i++) {
		fx_rec(x, &sa_portinfo_rec_desc, i, &r);
		assert_int_equal(r.lid, 1);
		assert_int_equal(r.port_num, i);
	}
	fx_rec(x, &sa_portinfo_rec_desc, 0, &r);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_LID, 16), 1);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_SMLID, 16), 1);
	assert_true(sa_pi_get(r.port_info, SA_PI_CAPMASK, 32) & 0x2); /* IsSM */
	assert_true(sa_pi_get(r.port_info, SA_PI_GIDPREFIX, 64) ==
		    0xfe80000000000000ull);
	fx_rec(x, &sa_portinfo_rec_desc, 3, &r);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_STATE, 4),
			 IB_PORT_ACTIVE);
	assert_true(sa_pi_get(r.port_info, SA_PI_GIDPREFIX, 64) == 0);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_LOCALPORT, 8), 3);
	/* CA port by LID and port number: a Get */
	q.lid = 8;
	q.port_num = 1;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PORTINFO_REC,
				CM(SA_PIR_LID) | CM(SA_PIR_PORTNUM),
				&sa_portinfo_rec_desc, &q),
			 0);
	fx_rec(x, &sa_portinfo_rec_desc, 0, &r);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_MTUCAP, 4), 3);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_LID, 16), 8);
	/* CapabilityMask matches on bits set: only the SM's port has IsSM */
	memset(&q, 0, sizeof(q));
	sa_pi_set(q.port_info, SA_PI_CAPMASK, 32, 0x2);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PORTINFO_REC,
				CM(SA_PIR_CAPMASK), &sa_portinfo_rec_desc, &q),
			 0);
	fx_rec(x, &sa_portinfo_rec_desc, 0, &r);
	assert_int_equal(r.lid, 1);
	/* all ports: 3 switches x 9 + 5 linked CA ports */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PORTINFO_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 32);
}

static void test_raw_cache(void **state)
{
	struct fx *x = *state;
	struct sa_portinfo_rec q = {.lid = 2, .port_num = 1}, r = {0};
	uint8_t pi[64] = {0};

	/* what discovery read is reported, the SM's fields overlaid */
	sa_pi_set(pi, SA_PI_CAPMASK, 32, 0x50c048);
	sa_pi_set(pi, SA_PI_LID, 16, 0);
	sa_pi_set(pi, SA_PI_SUBNTO, 5, 18);
	assert_int_equal(sa_cache_put(&x->sa, 0x100000, 1, 0x15, pi, 64), 0);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PORTINFO_REC,
				CM(SA_PIR_LID) | CM(SA_PIR_PORTNUM),
				&sa_portinfo_rec_desc, &q),
			 0);
	fx_rec(x, &sa_portinfo_rec_desc, 0, &r);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_CAPMASK, 32), 0x50c048);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_SUBNTO, 5), 18);
	assert_int_equal(sa_pi_get(r.port_info, SA_PI_LID, 16), 2);
	assert_int_equal(sa_cache_put(&x->sa, 1, 1, 0x15, pi, 65), -EINVAL);
}

static void test_link_records(void **state)
{
	struct fx *x = *state;
	struct sa_link_rec r = {0};
	unsigned links = 0;

	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_LINK_REC, 0, NULL, NULL), 0);
	/* every direction of every link: 8 links, 16 records */
	assert_int_equal(x->out.records, 16);
	for (uint32_t i = 0; i < 16; i++) {
		struct ib_port *from, *to;

		fx_rec(x, &sa_link_rec_desc, i, &r);
		from = fabric_port_by_lid(&x->f, r.from_lid);
		to = fabric_port_by_lid(&x->f, r.to_lid);
		assert_non_null(from);
		assert_non_null(to);
		assert_ptr_equal(from->node->ports[r.from_port].remote,
				 &to->node->ports[r.to_port]);
		links++;
	}
	assert_int_equal(links, 2 * fabric_count_links(&x->f));
	r = (struct sa_link_rec){.from_lid = 3, .from_port = 6};
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_LINK_REC,
				CM(SA_LR_FROM_LID) | CM(SA_LR_FROM_PORT),
				&sa_link_rec_desc, &r),
			 0);
	fx_rec(x, &sa_link_rec_desc, 0, &r);
	assert_int_equal(r.to_lid, 7);
	assert_int_equal(r.to_port, 2);
}

static void test_switch_records(void **state)
{
	struct fx *x = *state;
	struct sa_switchinfo_rec s = {0};
	struct sa_lft_rec l = {.lid = 3};

	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SWITCHINFO_REC,
				0, NULL, NULL),
			 0);
	assert_int_equal(x->out.records, 3);
	fx_rec(x, &sa_switchinfo_rec_desc, 0, &s);
	assert_int_equal(sa_get16(s.switch_info), 0x7800);
	assert_int_equal(sa_get16(s.switch_info + 6), 8); /* LinearFDBTop */
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_LFT_REC,
				CM(SA_LFTR_LID) | CM(SA_LFTR_BLOCK),
				&sa_lft_rec_desc, &l),
			 0);
	fx_rec(x, &sa_lft_rec_desc, 0, &l);
	for (unsigned lid = 0; lid < 64; lid++)
		assert_int_equal(l.lft[lid],
				 lid <= 8 ? x->sw[1]->lft[lid] : LFT_NO_PORT);
	assert_int_equal(l.lft[7], 6);
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_LFT_REC, 0, NULL, NULL), 0);
	assert_int_equal(x->out.records, 3);
	/* no MFTs known yet: an empty table */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_MFT_REC, 0, NULL, NULL), 0);
	assert_int_equal(x->out.records, 0);
}

static void test_sm_records(void **state)
{
	struct fx *x = *state;
	struct sa_sminfo_rec r = {0};
	struct sa_cpi c = {0};
	uint8_t mad[SA_MAD_SIZE];

	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_SMINFO_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 1);
	fx_rec(x, &sa_sminfo_rec_desc, 0, &r);
	assert_int_equal(r.lid, 1);
	assert_true(r.guid == 0x200000);
	assert_true(r.sm_key == 0); /* not trusted: key hidden */
	assert_int_equal(r.act_count, 42);
	assert_int_equal(r.state, 3);
	/* trusted requester (right SM_Key) sees the key */
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_SMINFO_REC, 0, NULL, NULL);
	sa_put64(mad + 36, 0x1234);
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), 0);
	fx_rec(x, &sa_sminfo_rec_desc, 0, &r);
	assert_true(r.sm_key == 0x1234);
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET, SA_ATTR_CLASS_PORT_INFO, 0, NULL, NULL),
	    0);
	fx_rec(x, &sa_cpi_desc, 0, &c);
	assert_int_equal(c.base_version, 1);
	assert_int_equal(c.class_version, 2);
	assert_int_equal(c.resp_time, 16);
	assert_int_equal(x->out.buf[3], SA_METHOD_GET_RESP);
}

static void test_table_records(void **state)
{
	struct fx *x = *state;
	struct sa_guidinfo_rec g = {.lid = 2};
	struct sa_pkey_rec p = {.lid = 2};
	uint8_t mad[SA_MAD_SIZE];

	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_GUIDINFO_REC,
				CM(SA_GIR_LID), &sa_guidinfo_rec_desc, &g),
			 0);
	assert_int_equal(x->out.records, 4); /* GUIDCap 32: 4 blocks */
	fx_rec(x, &sa_guidinfo_rec_desc, 0, &g);
	assert_true(g.guid[0] == 0x100001);
	/* P_Key tables need the SM_Key (as OpenSM) */
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PKEY_TABLE_REC,
				CM(SA_PKR_LID), &sa_pkey_rec_desc, &p),
			 SA_MAD_STATUS(SA_STATUS_REQ_INVALID));
	fx_req(mad, SA_METHOD_GET_TABLE, SA_ATTR_PKEY_TABLE_REC, CM(SA_PKR_LID),
	       &sa_pkey_rec_desc, &p);
	sa_put64(mad + 36, 0x1234);
	assert_int_equal(raw_ask(x, mad, sizeof(mad)), 0);
	assert_int_equal(x->out.records, 2);
	fx_rec(x, &sa_pkey_rec_desc, 0, &p);
	assert_int_equal(p.pkey[0], 0xFFFF);
}

static void test_mcm_records(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec r = {0};
	struct sa_mcgstate_rec s = {0};
	struct sa_mcg *g;
	uint8_t gid[16] = {0xfe, 0x80};

	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_MCMEMBER_REC, 0, NULL, NULL),
	    0);
	assert_int_equal(x->out.records, 1);
	fx_rec(x, &sa_mcm_rec_desc, 0, &r);
	assert_memory_equal(r.mgid, sa_ipoib_bcast_mgid, 16);
	assert_int_equal(r.qkey, 0x0B1B);
	assert_int_equal(r.mlid, 0xC000);
	assert_int_equal(r.pkey, 0xFFFF);
	assert_int_equal(r.mtu, 3);  /* Hca5 limits the fabric to 1024 */
	assert_int_equal(r.rate, 3); /* 10 Gb/s CA links */
	assert_int_equal(r.scope, 2);
	/* the group table API (for the multicast manager) */
	g = sa_mcg_find(&x->sa, sa_ipoib_bcast_mgid);
	assert_non_null(g);
	gid[15] = 1;
	assert_int_equal(sa_mcg_member_set(g, gid, SA_JOIN_FULL, 0), 0);
	gid[15] = 2;
	assert_int_equal(sa_mcg_member_set(g, gid, SA_JOIN_NON, 0), 0);
	memset(&r, 0, sizeof(r));
	r.join_state = SA_JOIN_NON;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_MCMEMBER_REC,
				CM(SA_MCMR_JOIN_STATE), &sa_mcm_rec_desc, &r),
			 0);
	fx_rec(x, &sa_mcm_rec_desc, 0, &r);
	assert_int_equal(r.port_gid[15], 2);
	/* joins need the multicast manager */
	assert_int_equal(fx_ask(x, SA_METHOD_SET, SA_ATTR_MCMEMBER_REC, 0,
				&sa_mcm_rec_desc, &r),
			 MAD_STATUS_METHOD_ATTR_UNSUPP);
	/* MCGStateRecord: by MGID, and unknown MGID */
	memcpy(s.mgid, sa_ipoib_bcast_mgid, 16);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_MCGSTATE_REC,
				CM(SA_MCGS_MGID), &sa_mcgstate_rec_desc, &s),
			 0);
	fx_rec(x, &sa_mcgstate_rec_desc, 0, &s);
	assert_int_equal(s.state, MCG_READY);
	assert_int_equal(s.mlid, 0xC000);
	s.mgid[3] = 0x77;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_MCGSTATE_REC,
				CM(SA_MCGS_MGID), &sa_mcgstate_rec_desc, &s),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	assert_int_equal(sa_mcg_member_del(g, gid), 0);
	assert_int_equal(sa_mcg_member_del(g, gid), -ENOENT);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_validation), T(test_node_records),  T(test_portinfo_records),
	    T(test_raw_cache),	T(test_link_records),  T(test_switch_records),
	    T(test_sm_records), T(test_table_records), T(test_mcm_records),
	};
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
