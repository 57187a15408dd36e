/* Which SL2VL and VLArb blocks the daemon sends (daemon/program/qosplan.c), below
 * the transport: everything once, nothing on an unchanged node, exactly
 * the row and column of a port found reset, only the changed tables after
 * a policy change, the attribute modifiers of each kind of block, and a
 * switch with OptimizedSLtoVLMappingProgramming (which ibsim does not
 * offer) written with one block per output port. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/program/qosplan.h"
#include "lib/config.h"

static void policy(struct qos_policy *p, const char *over)
{
	const char *o[] = {over};
	struct config c;
	char err[256];

	assert_int_equal(
	    config_build(&c, NULL, o, over ? 1 : 0, err, sizeof(err)), 0);
	assert_int_equal(qos_policy_from_config(p, &c, err, sizeof(err)), 0);
	config_free(&c);
}

/* A 4-port switch, ports 1-3 linked, 8 VLs, VLArb caps cap/cap. */
static struct qos_node *sw4(uint8_t cap, bool opt)
{
	struct qos_node *qn = qos_node_new(0x1000, true, 4);

	assert_non_null(qn);
	qn->opt_sl2vl = opt;
	for (unsigned p = 0; p <= 4; p++)
		qn->ports[p] = (struct qos_port){.vl_cap = 4,
						 .op_vls = 4,
						 .high_cap = cap,
						 .low_cap = cap,
						 .linked = p >= 1 && p <= 3,
						 .sl_map = true};
	return qn;
}

struct plan {
	struct qos_items sl, arb;
	uint32_t remapped;
};

static void plan_free(struct plan *pl)
{
	free(pl->sl.v);
	free(pl->arb.v);
	memset(pl, 0, sizeof(*pl));
}

static void plan_sw(const struct qos_policy *p, struct qos_node *qn,
		    struct plan *pl)
{
	plan_free(pl);
	assert_int_equal(
	    qos_plan_switch(p, qn, &pl->sl, &pl->arb, &pl->remapped), 0);
}

static void ack_all(struct qos_node *qn, const struct plan *pl)
{
	for (uint32_t i = 0; i < pl->sl.n; i++)
		qos_item_written(qn, SMP_ATTR_SL2VL_TABLE, &pl->sl.v[i]);
	for (uint32_t i = 0; i < pl->arb.n; i++)
		qos_item_written(qn, SMP_ATTR_VL_ARB_TABLE, &pl->arb.v[i]);
}

static bool has_mod(const struct qos_items *x, uint32_t mod)
{
	for (uint32_t i = 0; i < x->n; i++)
		if (x->v[i].mod == mod)
			return true;
	return false;
}

static void test_switch(void **state)
{
	struct qos_policy p, p2;
	struct qos_node *qn = sw4(8, false);
	struct plan pl = {0};
	uint8_t vl[16];

	(void)state;
	policy(&p, NULL);
	plan_sw(&p, qn, &pl);
	/* outputs 1-3, inputs 0-3: 12 tables; low and high block per port */
	assert_int_equal(pl.sl.n, 12);
	assert_int_equal(pl.arb.n, 6);
	assert_true(has_mod(&pl.sl, 0x0302));	 /* in 3, out 2 */
	assert_true(has_mod(&pl.sl, 0x0001));	 /* in 0, out 1 */
	assert_false(has_mod(&pl.sl, 0x0401));	 /* in 4 is not linked */
	assert_false(has_mod(&pl.sl, 0x0104));	 /* nor out 4 */
	assert_true(has_mod(&pl.arb, 0x10002));	 /* low 0-31, port 2 */
	assert_true(has_mod(&pl.arb, 0x30003));	 /* high 0-31, port 3 */
	assert_false(has_mod(&pl.arb, 0x20002)); /* caps 8: no second block */
	assert_int_equal(smp_sl2vl_decode(vl, pl.sl.v[0].data, 64), 0);
	assert_int_equal(vl[8], 0); /* SL8 on VL0 of 8 */
	assert_int_equal(vl[15], 7);
	ack_all(qn, &pl);
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.sl.n + pl.arb.n, 0); /* unchanged: nothing */
	/* port 2 reset: its row (in 2 to outs 1, 3) and column (ins 0-3 to
	 * out 2), and its VLArb blocks */
	qos_node_forget_port(qn, 2);
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.sl.n, 6);
	assert_int_equal(pl.arb.n, 2);
	ack_all(qn, &pl);
	/* one SL moved: every SL2VL table, no VLArb block */
	policy(&p2, "qos.sl2vl=0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,6");
	plan_sw(&p2, qn, &pl);
	assert_int_equal(pl.sl.n, 12);
	assert_int_equal(pl.arb.n, 0);
	plan_free(&pl);
	qos_policy_free(&p);
	qos_policy_free(&p2);
	qos_node_free(qn);
}

static void test_caps_and_ca(void **state)
{
	struct qos_policy p;
	struct qos_node *qn = sw4(64, false);
	struct qos_node *ca = qos_node_new(0x2000, false, 2);
	struct plan pl = {0};

	(void)state;
	policy(&p, NULL);
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.arb.n, 12); /* caps 64: four blocks per port */
	assert_true(has_mod(&pl.arb, 0x40001));
	ca->ports[2] = (struct qos_port){.vl_cap = 4,
					 .op_vls = 4,
					 .high_cap = 8,
					 .low_cap = 8,
					 .linked = true,
					 .sl_map = true};
	plan_free(&pl);
	assert_int_equal(
	    qos_plan_ca_port(&p, ca, 2, &pl.sl, &pl.arb, &pl.remapped), 0);
	assert_int_equal(pl.sl.n, 1);
	assert_int_equal(pl.sl.v[0].mod, 0); /* a CA ignores the modifier */
	assert_int_equal(pl.arb.n, 2);
	assert_true(has_mod(&pl.arb, 0x10000));
	plan_free(&pl);
	/* no IsSLMappingSupported: VLArb only */
	ca->ports[2].sl_map = false;
	assert_int_equal(
	    qos_plan_ca_port(&p, ca, 2, &pl.sl, &pl.arb, &pl.remapped), 0);
	assert_int_equal(pl.sl.n, 0);
	assert_int_equal(pl.arb.n, 2);
	/* port 1 not linked: nothing */
	plan_free(&pl);
	assert_int_equal(
	    qos_plan_ca_port(&p, ca, 1, &pl.sl, &pl.arb, &pl.remapped), 0);
	assert_int_equal(pl.sl.n + pl.arb.n, 0);
	plan_free(&pl);
	qos_policy_free(&p);
	qos_node_free(qn);
	qos_node_free(ca);
}

static void test_optimized(void **state)
{
	struct qos_policy p;
	struct qos_node *qn = sw4(8, true);
	struct plan pl = {0};

	(void)state;
	policy(&p, NULL);
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.sl.n, 3); /* one per linked output port */
	assert_true(has_mod(&pl.sl, SMP_SL2VL_ALL_IN | 2));
	ack_all(qn, &pl);
	for (unsigned in = 0; in <= 4; in++) /* every input row is known */
		assert_true(qn->sl2vl_known[in * 5 + 3]);
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.sl.n, 0);
	qos_node_forget_port(qn, 1); /* its column and every row from it */
	plan_sw(&p, qn, &pl);
	assert_int_equal(pl.sl.n, 3);
	plan_free(&pl);
	qos_policy_free(&p);
	qos_node_free(qn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_switch),
	    cmocka_unit_test(test_caps_and_ca),
	    cmocka_unit_test(test_optimized),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
