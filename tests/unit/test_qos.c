/* The QoS policy (lib/qos.c): OperationalVLs from both ends' VLCap, the
 * per-port SL2VL and VLArb tables for every OperationalVLs and capacity,
 * and PathRecord SLs.  Expected tables are written out by hand from the
 * IBA encodings and OpenSM 3.3.23's QoS defaults (what it writes with
 * qos TRUE: VLs masked to the port's), not from the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/config.h"
#include "lib/qos.h"

static void policy(struct qos_policy *p, const char *const *over, size_t n)
{
	struct config c;
	char err[256];

	if (config_build(&c, NULL, over, n, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(qos_policy_from_config(p, &c, err, sizeof(err)), 0);
	config_free(&c);
}

static void test_op_vls(void **state)
{
	static const char *const four[] = {"qos.max_vls=4"};
	struct qos_policy p;

	(void)state;
	policy(&p, NULL, 0);
	assert_int_equal(qos_op_vls(&p, 4, 4), 4); /* VL0-7 both ends */
	assert_int_equal(qos_op_vls(&p, 5, 3), 3); /* the smaller end */
	assert_int_equal(qos_op_vls(&p, 3, 5), 3);
	assert_int_equal(qos_op_vls(&p, 5, 0), 5); /* no peer */
	assert_int_equal(qos_op_vls(&p, 0, 4), 1); /* broken VLCap: VL0 */
	qos_policy_free(&p);
	policy(&p, four, 1);
	assert_int_equal(qos_op_vls(&p, 4, 4), 3); /* 4 VLs: VL0-3 */
	assert_int_equal(qos_op_vls(&p, 5, 5), 3);
	assert_int_equal(qos_op_vls(&p, 2, 5), 2);
	qos_policy_free(&p);
	assert_int_equal(qos_vls_of(1), 1);
	assert_int_equal(qos_vls_of(3), 4);
	assert_int_equal(qos_vls_of(5), 15);
	assert_int_equal(qos_vls_of(6), 0);
}

/* OpenSM's default with QoS on, on a VL0-7 port with caps 8/8 (ibsim's
 * ports): SL8-14 folded onto VL0-6, SL15 on VL7; low table VL0:0
 * VL1-7:4, high table VL0:4 VL1-7:0. */
static void test_default_tables(void **state)
{
	static const uint8_t sl2vl8[16] = {0, 1, 2, 3, 4, 5, 6, 7,
					   0, 1, 2, 3, 4, 5, 6, 7};
	static const uint8_t sl2vl4[16] = {0, 1, 2, 3, 0, 1, 2, 3,
					   0, 1, 2, 3, 0, 1, 2, 3};
	static const uint8_t sl2vl15[16] = {0, 1, 2,  3,  4,  5,  6,  7,
					    8, 9, 10, 11, 12, 13, 14, 7};
	struct qos_policy p;
	struct qos_port_tables t;

	(void)state;
	policy(&p, NULL, 0);
	qos_port_tables(&p, 4, 8, 8, &t);
	assert_memory_equal(t.sl2vl, sl2vl8, 16);
	assert_int_equal(t.n_low, 8);
	assert_int_equal(t.n_high, 8);
	for (unsigned i = 0; i < 8; i++) {
		assert_int_equal(t.low[i].vl, i);
		assert_int_equal(t.low[i].weight, i ? 4 : 0);
		assert_int_equal(t.high[i].vl, i);
		assert_int_equal(t.high[i].weight, i ? 0 : 4);
	}
	assert_int_equal(t.remapped, 0);
	qos_port_tables(&p, 3, 8, 8, &t); /* VL0-3: VL v -> v mod 4 */
	assert_memory_equal(t.sl2vl, sl2vl4, 16);
	assert_int_equal(t.low[5].vl, 1);
	qos_port_tables(&p, 5, 64, 64, &t);
	assert_memory_equal(t.sl2vl, sl2vl15, 16);
	assert_int_equal(t.n_low, 64);
	assert_int_equal(t.low[14].vl, 14);
	assert_int_equal(t.low[15].weight, 0); /* past the 15 given */
	qos_port_tables(&p, 1, 8, 8, &t);      /* one VL: everything on VL0 */
	for (unsigned sl = 0; sl < 16; sl++)
		assert_int_equal(t.sl2vl[sl], 0);
	qos_policy_free(&p);
}

/* VL0-14 on a port that holds 8 entries a table: VL8-14 have no weight,
 * so SLs 8-14 go to the lowest VL served (VL0, high table), not to a VL
 * the port would never send. */
static void test_cut_by_caps(void **state)
{
	static const char *const none[] = {"qos.vlarb_high=0:0",
					   "qos.vlarb_low=14:1,0:1,1:1,2:1,3:1,"
					   "4:1,5:1,6:1,7:1,8:1,9:1,10:1,11:1,"
					   "12:1,13:1"};
	struct qos_policy p;
	struct qos_port_tables t;

	(void)state;
	policy(&p, NULL, 0);
	qos_port_tables(&p, 5, 8, 8, &t);
	for (unsigned sl = 0; sl < 8; sl++)
		assert_int_equal(t.sl2vl[sl], sl);
	for (unsigned sl = 8; sl < 15; sl++)
		assert_int_equal(t.sl2vl[sl], 0);
	assert_int_equal(t.sl2vl[15], 7);
	assert_int_equal(t.remapped, 7);
	qos_port_tables(&p, 5, 0, 0, &t); /* no VLArb tables: as mapped */
	assert_int_equal(t.sl2vl[9], 9);
	assert_int_equal(t.remapped, 0);
	qos_policy_free(&p);
	/* a cap of 1 keeps only "14:1": SLs go to VL14 (the one served) */
	policy(&p, none, 2);
	qos_port_tables(&p, 5, 1, 1, &t);
	for (unsigned sl = 0; sl < 16; sl++)
		assert_int_equal(t.sl2vl[sl], 14);
	qos_policy_free(&p);
}

static void test_path_sl(void **state)
{
	static const char *const over[] = {
	    "qos.default_sl=2",
	    "qos.classes=pkey 0x0010-0x0020 sl 9,service-id 0x10 sl 4"};
	struct qos_policy p;
	struct qos_path_req r = {0};
	bool pinned;

	(void)state;
	policy(&p, over, 2);
	assert_int_equal(qos_path_sl(&p, &r, QOS_SL_NONE, &pinned), 2);
	assert_false(pinned);
	assert_int_equal(qos_path_sl(&p, &r, 6, &pinned), 6); /* partition */
	r.has_pkey = true;
	r.pkey = 0x8015;
	assert_int_equal(qos_path_sl(&p, &r, 6, &pinned), 9);
	assert_true(pinned);
	r.pkey = 0x8021;
	r.has_sid = true;
	r.sid = 0x10;
	assert_int_equal(qos_path_sl(&p, &r, 6, &pinned), 4);
	r.sid = 0x11;
	assert_int_equal(qos_path_sl(&p, &r, QOS_SL_NONE, NULL), 2);
	qos_policy_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_op_vls),
	    cmocka_unit_test(test_default_tables),
	    cmocka_unit_test(test_cut_by_caps),
	    cmocka_unit_test(test_path_sl),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
