/* PathRecord on the fixture fabric (sa_fixture.h).  The full "world"
 * table (64 paths) is checked record by record here, below the transport:
 * under ibsim (no RMPP) a client would only ever see the first 3. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "sa_fixture.h"
#include "lib/config.h"
#include "lib/qos.h"
#include "mad/sa_path.h"

#define CM(c) (1ull << (c))

/* Expected from the fixture's construction, not from the code: the only
 * 1024-MTU port is Hca5 (LID 8); the only 1X link is Switch2-Switch3, on
 * every path between {Switch3, Hca5} (LIDs 7, 8) and the rest. */
static uint8_t want_mtu(uint16_t s, uint16_t d)
{
	return s == 8 || d == 8 ? 3 : 4;
}
static uint8_t want_rate(uint16_t s, uint16_t d)
{
	return (s >= 7) != (d >= 7) ? 2 : 3;
}

static void test_world_table(void **state)
{
	struct fx *x = *state;
	bool seen[9][9] = {{false}};

	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PATH_REC, 0, NULL, NULL), 0);
	assert_int_equal(x->out.records, 64);
	for (uint32_t i = 0; i < 64; i++) {
		struct sa_path_rec r = {0};
		struct ib_port *sp, *dp;

		fx_rec(x, &sa_path_rec_desc, i, &r);
		assert_true(r.slid >= 1 && r.slid <= 8 && r.dlid >= 1 &&
			    r.dlid <= 8);
		assert_false(seen[r.slid][r.dlid]);
		seen[r.slid][r.dlid] = true;
		sp = fabric_port_by_lid(&x->f, r.slid);
		dp = fabric_port_by_lid(&x->f, r.dlid);
		assert_true(sa_get64(r.sgid) == 0xfe80000000000000ull);
		assert_true(sa_get64(r.sgid + 8) ==
			    node_port(sp->node, sp->num)->guid);
		assert_true(sa_get64(r.dgid + 8) ==
			    node_port(dp->node, dp->num)->guid);
		assert_int_equal(r.mtu, want_mtu(r.slid, r.dlid));
		assert_int_equal(r.rate, want_rate(r.slid, r.dlid));
		assert_int_equal(r.mtu_sel, SA_SEL_EQ);
		assert_int_equal(r.rate_sel, SA_SEL_EQ);
		assert_int_equal(r.life, r.slid == r.dlid ? 0 : 18);
		assert_int_equal(r.pkey, 0xFFFF);
		assert_int_equal(r.sl, 0);
		assert_int_equal(r.reversible, 1);
		assert_int_equal(r.hop_limit, 0);
	}
	/* a table past the SA's size limit: ERR_NO_RESOURCES, not a crash
	 * or a gigabyte answer */
	x->sa.max_response = SA_HDR_SIZE + 10 * 64;
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PATH_REC, 0, NULL, NULL),
	    SA_MAD_STATUS(SA_STATUS_NO_RESOURCES));
	x->sa.max_response = SA_RESP_MAX;
	/* a Get of the world matches many */
	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, 0, NULL, NULL),
	    SA_MAD_STATUS(SA_STATUS_TOO_MANY_RECORDS));
}

static void test_by_lid_and_gid(void **state)
{
	struct fx *x = *state;
	struct sa_path_rec q = {.slid = 2, .dlid = 8}, r = {0};

	assert_int_equal(
	    fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
		   CM(SA_PR_SLID) | CM(SA_PR_DLID) | CM(SA_PR_NUMBPATH),
		   &sa_path_rec_desc, &q),
	    0);
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	assert_int_equal(r.mtu, 3);
	assert_int_equal(r.rate, 2);
	memset(&q, 0, sizeof(q));
	sa_put64(q.sgid, 0xfe80000000000000ull);
	sa_put64(q.sgid + 8, 0x100007); /* Hca3 */
	sa_put64(q.dgid, 0xfe80000000000000ull);
	sa_put64(q.dgid + 8, 0x100004); /* Hca2 */
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				CM(SA_PR_SGID) | CM(SA_PR_DGID),
				&sa_path_rec_desc, &q),
			 0);
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	assert_int_equal(r.slid, 5);
	assert_int_equal(r.dlid, 4);
	assert_int_equal(r.mtu, 4);
	/* only the destination: a path from every end port */
	assert_int_equal(fx_ask(x, SA_METHOD_GET_TABLE, SA_ATTR_PATH_REC,
				CM(SA_PR_DGID), &sa_path_rec_desc, &q),
			 0);
	assert_int_equal(x->out.records, 8);
	/* an unknown GID or one of another subnet: no records */
	sa_put64(q.dgid + 8, 0x999999);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				CM(SA_PR_SGID) | CM(SA_PR_DGID),
				&sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	sa_put64(q.dgid, 0xfe80000000000001ull);
	sa_put64(q.dgid + 8, 0x100004);
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				CM(SA_PR_SGID) | CM(SA_PR_DGID),
				&sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
}

/* Asks 2 -> dlid with one selector; returns the answered value or -1. */
static int ask_sel(struct fx *x, uint16_t dlid, unsigned vcomp, unsigned scomp,
		   uint8_t sel, uint8_t val)
{
	struct sa_path_rec q = {.slid = 2, .dlid = dlid}, r = {0};
	uint64_t m = CM(SA_PR_SLID) | CM(SA_PR_DLID) | CM(vcomp) | CM(scomp);

	if (vcomp == SA_PR_MTU) {
		q.mtu = val;
		q.mtu_sel = sel;
	} else if (vcomp == SA_PR_RATE) {
		q.rate = val;
		q.rate_sel = sel;
	} else {
		q.life = val;
		q.life_sel = sel;
	}
	if (fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, m, &sa_path_rec_desc,
		   &q))
		return -1;
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	return vcomp == SA_PR_MTU    ? r.mtu
	       : vcomp == SA_PR_RATE ? r.rate
				     : r.life;
}

static void test_selectors(void **state)
{
	struct fx *x = *state;

	/* MTU: path 2->4 can do 2048 (4), 2->8 only 1024 (3) */
	assert_int_equal(ask_sel(x, 8, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_GT, 3),
			 -1);
	assert_int_equal(ask_sel(x, 4, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_GT, 3),
			 4);
	assert_int_equal(ask_sel(x, 4, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_LT, 4),
			 3);
	assert_int_equal(ask_sel(x, 8, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_LT, 5),
			 3);
	assert_int_equal(ask_sel(x, 4, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_EQ, 3),
			 3);
	assert_int_equal(ask_sel(x, 4, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_EQ, 5),
			 -1);
	assert_int_equal(
	    ask_sel(x, 8, SA_PR_MTU, SA_PR_MTU_SEL, SA_SEL_BEST, 0), 3);
	/* rate codes are not ordered numerically: 3 (10G) > 5 (5G) > 2 */
	assert_int_equal(
	    ask_sel(x, 4, SA_PR_RATE, SA_PR_RATE_SEL, SA_SEL_LT, 3), 5);
	assert_int_equal(
	    ask_sel(x, 4, SA_PR_RATE, SA_PR_RATE_SEL, SA_SEL_GT, 5), 3);
	assert_int_equal(
	    ask_sel(x, 8, SA_PR_RATE, SA_PR_RATE_SEL, SA_SEL_GT, 2), -1);
	assert_int_equal(
	    ask_sel(x, 8, SA_PR_RATE, SA_PR_RATE_SEL, SA_SEL_EQ, 3), -1);
	assert_int_equal(
	    ask_sel(x, 4, SA_PR_RATE, SA_PR_RATE_SEL, SA_SEL_EQ, 2), 2);
	/* packet lifetime 18 on a real path */
	assert_int_equal(
	    ask_sel(x, 4, SA_PR_LIFE, SA_PR_LIFE_SEL, SA_SEL_LT, 19), 18);
	assert_int_equal(
	    ask_sel(x, 4, SA_PR_LIFE, SA_PR_LIFE_SEL, SA_SEL_GT, 18), -1);
}

static void test_unsatisfiable(void **state)
{
	struct fx *x = *state;
	struct sa_path_rec q = {.slid = 2, .dlid = 4, .pkey = 0x8001};
	uint64_t m = CM(SA_PR_SLID) | CM(SA_PR_DLID);

	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				m | CM(SA_PR_PKEY), &sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	q.pkey = 0x7FFF; /* limited member of the default partition: fine */
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				m | CM(SA_PR_PKEY), &sa_path_rec_desc, &q),
			 0);
	/* a hole in the LFTs: no path, and not reversible the other way */
	x->sw[0]->lft[4] = LFT_NO_PORT;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				&sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	q.slid = 4;
	q.dlid = 2;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				&sa_path_rec_desc, &q),
			 0);
	q.reversible = 1;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC,
				m | CM(SA_PR_REVERSIBLE), &sa_path_rec_desc,
				&q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
	/* a forwarding loop ends, it does not hang */
	x->sw[0]->lft[4] = 3;
	x->sw[1]->lft[4] = 3;
	q.slid = 2;
	q.dlid = 4;
	assert_int_equal(fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, m,
				&sa_path_rec_desc, &q),
			 SA_MAD_STATUS(SA_STATUS_NO_RECORDS));
}

/* The SL of one path (slid 2 to dlid 4), -1 for no record. */
static int ask_sl(struct fx *x, uint64_t mask, const struct sa_path_rec *in)
{
	struct sa_path_rec q = *in, r = {0};

	q.slid = 2;
	q.dlid = 4;
	mask |= CM(SA_PR_SLID) | CM(SA_PR_DLID);
	if (fx_ask(x, SA_METHOD_GET, SA_ATTR_PATH_REC, mask, &sa_path_rec_desc,
		   &q))
		return -1;
	fx_rec(x, &sa_path_rec_desc, 0, &r);
	return r.sl;
}

/* PathRecord SLs from the qos keys (lib/qos.h): classes first, in order,
 * then qos.default_sl; a requested SL is answered unless a class pins
 * another one. */
static void test_qos_sl(void **state)
{
	static const char *const over[] = {
	    "qos.default_sl=3",
	    "qos.classes=service-id 0x100-0x1ff sl 5,pkey 0x7fff qos-class 2 "
	    "sl 6,qos-class 7-9 sl 7",
	};
	struct fx *x = *state;
	struct config c;
	struct qos_policy p;
	struct sa_path_rec q = {0};
	char err[256];
	uint64_t sid = CM(SA_PR_SERVICEID_MSB) | CM(SA_PR_SERVICEID_LSB);

	/* without a policy (the SA alone), every path is on SL 0 and a
	 * requested SL is answered */
	assert_int_equal(ask_sl(x, 0, &q), 0);
	q.sl = 1;
	assert_int_equal(ask_sl(x, CM(SA_PR_SL), &q), 1);
	assert_int_equal(config_build(&c, NULL, over, 2, err, sizeof(err)), 0);
	assert_int_equal(qos_policy_from_config(&p, &c, err, sizeof(err)), 0);
	x->sa.qos = &p;
	q = (struct sa_path_rec){0};
	assert_int_equal(ask_sl(x, 0, &q), 3);
	q.service_id = 0x180;
	assert_int_equal(ask_sl(x, sid, &q), 5);
	q.service_id = 0x200;
	assert_int_equal(ask_sl(x, sid, &q), 3);
	q.pkey = 0xFFFF; /* the class matches without the membership bit */
	q.qos_class = 2;
	assert_int_equal(ask_sl(x, CM(SA_PR_PKEY) | CM(SA_PR_QOS_CLASS), &q),
			 6);
	assert_int_equal(ask_sl(x, CM(SA_PR_QOS_CLASS), &q), 3);
	q.qos_class = 8;
	assert_int_equal(ask_sl(x, CM(SA_PR_QOS_CLASS), &q), 7);
	q.sl = 7; /* what the class gives: fine */
	assert_int_equal(ask_sl(x, CM(SA_PR_QOS_CLASS) | CM(SA_PR_SL), &q), 7);
	q.sl = 4; /* pinned to 7 by the class: no path */
	assert_int_equal(ask_sl(x, CM(SA_PR_QOS_CLASS) | CM(SA_PR_SL), &q), -1);
	assert_int_equal(ask_sl(x, CM(SA_PR_SL), &q), 4); /* no class: ok */
	x->sa.qos = NULL;
	qos_policy_free(&p);
	config_free(&c);
}

#define T(f) cmocka_unit_test_setup_teardown(f, fx_setup, fx_teardown)
int main(void)
{
	const struct CMUnitTest tests[] = {
	    T(test_world_table),
	    T(test_by_lid_and_gid),
	    T(test_qos_sl),
	    T(test_selectors),
	    T(test_unsatisfiable),
	};
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
