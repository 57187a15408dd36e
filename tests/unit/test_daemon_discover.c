/* Discovery helpers on a hand-built fabric: the directed route used for
 * Sets to each port, and the minimum number of discovery Gets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "daemon/discover/discover.h"

/* SM host H0 - S0 =(2 links)= S1 - H1, S1 port 8 unlinked. */
static void build(struct fabric *f, struct ib_node **n)
{
	fabric_init(f);
	n[0] = fabric_add_node(f, IB_NODE_CA, 0x100, 1, "H0");
	n[1] = fabric_add_node(f, IB_NODE_SWITCH, 0x200, 8, "S0");
	n[2] = fabric_add_node(f, IB_NODE_SWITCH, 0x300, 8, "S1");
	n[3] = fabric_add_node(f, IB_NODE_CA, 0x400, 2, "H1");
	assert_int_equal(fabric_link(f, n[0], 1, n[1], 1), 0);
	assert_int_equal(fabric_link(f, n[1], 2, n[2], 2), 0);
	assert_int_equal(fabric_link(f, n[1], 3, n[2], 3), 0);
	assert_int_equal(fabric_link(f, n[2], 5, n[3], 2), 0);
	f->sm_node = n[0];
	f->sm_port = 1;
	n[1]->dr_hops = 1;
	n[1]->dr_path[1] = 1;
	n[2]->dr_hops = 2;
	n[2]->dr_path[1] = 1;
	n[2]->dr_path[2] = 2;
}

static void test_port_path(void **state)
{
	struct fabric f;
	struct ib_node *n[4];
	uint8_t path[IB_MAX_DR_HOPS + 1], hops;

	build(&f, n);
	assert_int_equal(disc_port_path(&f, n[0], 1, path, &hops), 0);
	assert_int_equal(hops, 0);
	assert_int_equal(disc_port_path(&f, n[2], 7, path, &hops), 0);
	assert_int_equal(hops, 2);
	assert_memory_equal(path + 1, "\x01\x02", 2);
	/* H1 port 2 through its switch S1 port 5 */
	assert_int_equal(disc_port_path(&f, n[3], 2, path, &hops), 0);
	assert_int_equal(hops, 3);
	assert_memory_equal(path + 1, "\x01\x02\x05", 3);
	/* H1 port 1 is not linked: no route for a Set */
	assert_int_equal(disc_port_path(&f, n[3], 1, path, &hops), -ENOENT);
	fabric_free(&f);
}

static void test_min_gets(void **state)
{
	struct fabric f;
	struct ib_node *n[4];

	build(&f, n);
	/* NodeInfo 1 + 4 links, NodeDesc 4, SwitchInfo 2, PortInfo 9 + 9
	 * switch ports + H0 port 1 + H1 port 2 */
	assert_int_equal(disc_min_gets(&f), 1 + 4 + 4 + 2 + 18 + 2);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_port_path),
	    cmocka_unit_test(test_min_gets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
