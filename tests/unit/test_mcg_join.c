/* The multicast manager's MCMemberRecord Set/Delete and MCGStateRecord
 * answers through the SA server (sa_handle), on the SA fixture's fabric,
 * without MADs: standard create/join (MLID kept), zero-MGID create,
 * refusals, JoinState bits and partial leaves, collective groups
 * (MLID 0 until Ready, idempotent rejoin, (N+1)-th port and MemberCount
 * conflicts refused, routing in a slice of the event loop). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>
#include <systemd/sd-event.h>

#include "daemon/mcast/mcg.h"
#include "daemon/core/sm.h"
#include "mad/sa_mcm.h"
#include "tests/unit/sa_fixture.h"

#define C(x) (1ull << (x))
#define CREATE                                                                 \
	(C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE) |       \
	 C(SA_MCMR_QKEY) | C(SA_MCMR_PKEY) | C(SA_MCMR_TCLASS) |               \
	 C(SA_MCMR_FLOW) | C(SA_MCMR_SL))
#define ST(code) (SA_MAD_STATUS(code))

static struct sm sm;

static char dir[] = "/tmp/test_mcg.XXXXXX";

static int setup(void **state)
{
	struct fx *x;
	char kv[64], err[256];
	const char *ov[1] = {kv};

	fx_setup(state);
	x = *state;
	memset(&sm, 0, sizeof(sm));
	assert_non_null(mkdtemp(dir));
	snprintf(kv, sizeof(kv), "state_dir=%s", dir);
	assert_int_equal(config_build(&sm.cfg, NULL, ov, 1, err, sizeof(err)),
			 0);
	assert_true(sd_event_new(&sm.ev) >= 0);
	sm.fab = &x->f;
	assert_int_equal(hops_compute(&x->f, &sm.hops, NULL), 0);
	x->sa.sm.subnet_prefix = 0xfe80000000000000ull;
	assert_int_equal(mcg_init_sa(&sm, &x->sa), 0);
	sm_publish(&sm, SM_EV_FABRIC_REPLACED, NULL); /* what a sweep does */
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	mcg_fini(&sm);
	hops_free(&sm.hops);
	sm.ev = sd_event_unref(sm.ev);
	config_free(&sm.cfg);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd)) {
	}
	strcpy(dir, "/tmp/test_mcg.XXXXXX");
	return fx_teardown(state);
}

static struct sa_mcm_rec rec(uint16_t grp, uint64_t port_guid, uint8_t js)
{
	struct sa_mcm_rec r = {.pkey = 0xFFFF, .join_state = js};

	r.mgid[0] = 0xff;
	r.mgid[1] = 0x12;
	r.mgid[2] = 0x60;
	r.mgid[3] = 0x1b;
	sa_put16(r.mgid + 14, grp);
	sa_put64(r.port_gid, 0xfe80000000000000ull);
	sa_put64(r.port_gid + 8, port_guid);
	return r;
}

static int ask(struct fx *x, uint8_t method, uint64_t mask,
	       const struct sa_mcm_rec *r, struct sa_mcm_rec *out)
{
	int st =
	    fx_ask(x, method, SA_ATTR_MCMEMBER_REC, mask, &sa_mcm_rec_desc, r);

	if (out) {
		memset(out, 0, sizeof(*out));
		fx_rec(x, &sa_mcm_rec_desc, 0, out);
	}
	return st;
}

static int state_of(struct fx *x, const uint8_t mgid[16],
		    struct sa_mcgstate_rec *out)
{
	struct sa_mcgstate_rec q = {0};
	int st;

	memcpy(q.mgid, mgid, 16);
	st = fx_ask(x, SA_METHOD_GET, SA_ATTR_MCGSTATE_REC, C(SA_MCGS_MGID),
		    &sa_mcgstate_rec_desc, &q);
	memset(out, 0, sizeof(*out));
	if (st == 0)
		fx_rec(x, &sa_mcgstate_rec_desc, 0, out);
	return st;
}

static void test_standard(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec r = rec(1, 0x100001, SA_JOIN_FULL), a;
	struct sa_mcgstate_rec s;
	uint16_t mlid;

	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	mlid = a.mlid;
	assert_true(mlid >= 0xC000);
	r = rec(1, 0x100004, SA_JOIN_FULL);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.mlid, mlid);
	assert_int_equal(a.proxy_join, 1); /* from LID 2, not this port */
	r = rec(1, 0x10000d, SA_JOIN_FULL);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.mlid, mlid);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.state, MCG_READY);
	assert_int_equal(s.joined_count, 3);
	assert_int_equal(s.left_count, 0);
	assert_int_equal(s.mlid, mlid);
	/* a member leaves and joins again: JoinedCount - LeftCount is the
	 * members there are */
	r = rec(1, 0x100004, SA_JOIN_FULL);
	assert_int_equal(
	    ask(x, SA_METHOD_DELETE,
		C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE),
		&r, &a),
	    0);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.joined_count, 3);
	assert_int_equal(s.left_count, 1);
	assert_int_equal(s.state, MCG_READY);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.joined_count - s.left_count, 3);
	assert_int_equal(s.mlid, mlid);
}

static void test_zero_mgid_and_refusals(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec r = rec(0, 0x100001, SA_JOIN_FULL), a;

	memset(r.mgid, 0, 16);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.mgid[0], 0xff);
	assert_int_equal(a.mgid[2], 0xa0);
	assert_int_equal(a.mgid[3], 0x1b);
	assert_true(a.mlid >= 0xC000);
	r = rec(2, 0x100001, SA_JOIN_FULL);
	assert_int_equal(
	    ask(x, SA_METHOD_SET, CREATE & ~C(SA_MCMR_QKEY), &r, NULL),
	    ST(SA_STATUS_INSUF_COMPS));
	r.join_state = SA_JOIN_NON;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	r = rec(2, 0x999999, SA_JOIN_FULL);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	r = rec(2, 0x100001, SA_JOIN_FULL);
	r.mgid[0] = 0xfe;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_INVALID_GID));
	r = rec(2, 0x100001, SA_JOIN_FULL);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL), 0);
	r = rec(2, 0x100004, SA_JOIN_FULL);
	r.qkey = 5;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	r.qkey = 0;
	r.member_count = 2;
	assert_int_equal(
	    ask(x, SA_METHOD_SET, CREATE | C(SA_MCMR_MEMBER_COUNT), &r, NULL),
	    ST(SA_STATUS_REQ_INVALID));
}

static void test_partial_leave(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec r = rec(3, 0x100001, SA_JOIN_SENDONLY_FULL), a;
	struct sa_mcgstate_rec s;
	uint64_t lm =
	    C(SA_MCMR_MGID) | C(SA_MCMR_PORT_GID) | C(SA_MCMR_JOIN_STATE);

	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	r.join_state = SA_JOIN_FULL;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.join_state, 9);
	r.join_state = SA_JOIN_SENDONLY_FULL;
	assert_int_equal(ask(x, SA_METHOD_DELETE, lm, &r, &a), 0);
	assert_int_equal(a.join_state, 1);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	r.join_state = SA_JOIN_FULL;
	assert_int_equal(ask(x, SA_METHOD_DELETE, lm, &r, &a), 0);
	assert_int_equal(state_of(x, r.mgid, &s), ST(SA_STATUS_NO_RECORDS));
	assert_int_equal(ask(x, SA_METHOD_DELETE, lm, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
}

static void test_collective(void **state)
{
	struct fx *x = *state;
	static const uint64_t g[] = {0x100001, 0x100004, 0x100007, 0x10000a};
	uint64_t m = CREATE | C(SA_MCMR_MEMBER_COUNT);
	struct sa_mcm_rec r, a;
	struct sa_mcgstate_rec s;

	for (int i = 0; i < 2; i++) {
		r = rec(4, g[i], SA_JOIN_FULL);
		r.member_count = 3;
		assert_int_equal(ask(x, SA_METHOD_SET, m, &r, &a), 0);
		assert_int_equal(a.mlid, 0);
	}
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.state, MCG_RECEIVING_JOIN_REQ);
	assert_int_equal(s.joined_count, 2);
	assert_int_equal(s.member_count, 3);
	/* idempotent */
	assert_int_equal(ask(x, SA_METHOD_SET, m, &r, &a), 0);
	r.member_count = 4;
	assert_int_equal(ask(x, SA_METHOD_SET, m, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	r = rec(4, g[2], SA_JOIN_FULL);
	r.member_count = 3;
	assert_int_equal(ask(x, SA_METHOD_SET, m, &r, &a), 0);
	assert_int_equal(a.mlid, 0);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.state, MCG_COMPUTING_ROUTES);
	r = rec(4, g[3], SA_JOIN_FULL);
	r.member_count = 3;
	assert_int_equal(ask(x, SA_METHOD_SET, m, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	/* the loop routes it in a slice; without MADs it never becomes
	 * Ready (no switch acknowledged), and answers keep MLID 0 */
	for (int i = 0; i < 5; i++)
		sd_event_run(sm.ev, 0);
	assert_int_equal(state_of(x, r.mgid, &s), 0);
	assert_int_equal(s.state, MCG_COMPUTING_ROUTES);
	assert_int_equal(s.mlid, 0); /* routed, but not in the switches yet */
	assert_true(s.tree_height > 0);
	r = rec(4, g[0], SA_JOIN_FULL);
	r.member_count = 3;
	assert_int_equal(ask(x, SA_METHOD_SET, m, &r, &a), 0);
	assert_int_equal(a.mlid, 0);
}

/* A membership made by the port itself is changed or left only by it or
 * a trusted requester; one made by proxy by any port (sa.proxy_join:
 * partition, every port sharing the default partition); with
 * sa.proxy_join: trusted a proxy join needs the SM_Key (0x1234). */
static void test_own_records(void **state)
{
	struct fx *x = *state;
	struct sa_mcm_rec r = rec(7, 0x100004, SA_JOIN_FULL), a;

	x->from_lid = 4; /* Hca2 joins for itself */
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.proxy_join, 0);
	x->from_lid = 2; /* Hca1 may not leave it for Hca2 */
	assert_int_equal(ask(x, SA_METHOD_DELETE, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	/* a proxy join, and its leave, from Hca1 for Hca4 */
	r = rec(7, 0x10000a, SA_JOIN_FULL);
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, &a), 0);
	assert_int_equal(a.proxy_join, 1);
	assert_int_equal(ask(x, SA_METHOD_DELETE, CREATE, &r, NULL), 0);
	/* only trusted proxies */
	x->sa.sm.proxy_trusted_only = true;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL),
			 ST(SA_STATUS_REQ_INVALID));
	x->sm_key = 0x1234;
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL), 0);
	r = rec(7, 0x100004, SA_JOIN_FULL); /* and Hca2's own membership */
	assert_int_equal(ask(x, SA_METHOD_DELETE, CREATE, &r, NULL), 0);
	x->sm_key = 0;
	r = rec(7, 0x100001, SA_JOIN_FULL); /* Hca1 for itself: always */
	assert_int_equal(ask(x, SA_METHOD_SET, CREATE, &r, NULL), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_standard, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_zero_mgid_and_refusals, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_partial_leave, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_collective, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_own_records, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
