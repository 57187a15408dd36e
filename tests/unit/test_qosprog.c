/* What the port setup's PortInfo Set carries for QoS (daemon/program/qosprog.c),
 * below the transport: OperationalVLs from both ends' VLCap and
 * qos.max_vls, VLHighLimit from qos.high_limit (ibsim does not store
 * VLHighLimit, so tests/integration/qos_tables.sh cannot read it back),
 * nothing for port 0 or an unlinked port; checked in the encoded bytes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "daemon/discover/discover.h"
#include "daemon/program/qosprog.h"

static void policy(struct sm *sm, const char *const *over, size_t n)
{
	char err[256];

	if (config_build(&sm->cfg, NULL, over, n, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(
	    qos_policy_from_config(&sm->qos, &sm->cfg, err, sizeof(err)), 0);
}

static void test_portinfo_set(void **state)
{
	static const char *const over[] = {
	    "qos.enable=true", "qos.high_limit=16", "qos.max_vls=8"};
	static const char *const off[] = {"qos.enable=false"};
	struct sm sm = {0};
	struct fabric f;
	struct prog_pass s = {0};
	struct dnode dn = {0};
	struct smp_port_info pi = {0};
	struct ib_node *sw, *ca;
	uint8_t data[SMP_DATA_SIZE] = {0};

	(void)state;
	fabric_init(&f);
	sw = fabric_add_node(&f, IB_NODE_SWITCH, 0x200000, 4, "S1");
	ca = fabric_add_node(&f, IB_NODE_CA, 0x100000, 1, "H1");
	assert_int_equal(fabric_link(&f, sw, 1, ca, 1), 0);
	sw->ports[1].vl_cap = 5; /* VL0-14 */
	ca->ports[1].vl_cap = 3; /* VL0-3: the link runs 4 VLs */
	policy(&sm, over, 3);
	s.sm = &sm;
	s.f = &f;
	dn.node = sw;
	pi.vl_cap = 5;
	pi.operational_vls = 5;
	assert_true(qosprog_portinfo(&s, &dn, 1, &pi));
	assert_int_equal(pi.operational_vls, 3);
	assert_int_equal(pi.vl_high_limit, 16);
	assert_int_equal(smp_port_info_encode(&pi, data, sizeof(data)), 0);
	assert_int_equal(data[43] >> 4, 3); /* OperationalVLs, bits 344-347 */
	assert_int_equal(data[38], 16);	    /* VLHighLimit, bits 304-311 */
	assert_false(qosprog_portinfo(&s, &dn, 1, &pi)); /* already right */
	assert_false(qosprog_portinfo(&s, &dn, 2, &pi)); /* unlinked */
	assert_false(qosprog_portinfo(&s, &dn, 0, &pi)); /* port 0 */
	/* the CA end: its own VLCap 3 and the switch's 5 */
	dn.node = ca;
	pi.vl_cap = 3;
	pi.operational_vls = 1;
	assert_true(qosprog_portinfo(&s, &dn, 1, &pi));
	assert_int_equal(pi.operational_vls, 3);
	/* qos.enable false: OperationalVLs still set, VLHighLimit left */
	config_free(&sm.cfg);
	qos_policy_free(&sm.qos);
	policy(&sm, off, 1);
	pi.vl_high_limit = 7;
	pi.operational_vls = 1;
	assert_true(qosprog_portinfo(&s, &dn, 1, &pi));
	assert_int_equal(pi.operational_vls, 3);
	assert_int_equal(pi.vl_high_limit, 7);
	config_free(&sm.cfg);
	qos_policy_free(&sm.qos);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_portinfo_set),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
