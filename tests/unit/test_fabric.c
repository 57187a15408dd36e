/* Fabric model, GUID/LID maps, thread pool and hop tables on hand-built
 * fabrics whose answers are known. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

/* A line of three switches S0-S1-S2, a host on each end switch. */
static void build_line(struct fabric *f, struct ib_node **sw,
		       struct ib_node **h)
{
	fabric_init(f);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "S%d", i);
		sw[i] = fabric_add_node(f, IB_NODE_SWITCH, 0x100 + i, 8, name);
		assert_non_null(sw[i]);
	}
	h[0] = fabric_add_node(f, IB_NODE_CA, 0x200, 2, "H0");
	h[1] = fabric_add_node(f, IB_NODE_CA, 0x210, 2, "H1");
	assert_int_equal(fabric_set_port_guid(f, &h[0]->ports[1], 0x201), 0);
	assert_int_equal(fabric_set_port_guid(f, &h[1]->ports[1], 0x211), 0);
	assert_int_equal(fabric_link(f, sw[0], 1, sw[1], 1), 0);
	assert_int_equal(fabric_link(f, sw[1], 2, sw[2], 1), 0);
	assert_int_equal(fabric_link(f, sw[0], 5, h[0], 1), 0);
	assert_int_equal(fabric_link(f, sw[2], 5, h[1], 1), 0);
}

static void test_maps(void **state)
{
	struct fabric f;
	struct ib_node *sw[3], *h[2];

	(void)state;
	build_line(&f, sw, h);
	assert_ptr_equal(fabric_node_by_guid(&f, 0x101), sw[1]);
	assert_null(fabric_node_by_guid(&f, 0x999));
	assert_ptr_equal(fabric_port_by_guid(&f, 0x211), &h[1]->ports[1]);
	assert_ptr_equal(fabric_port_by_guid(&f, 0x102), &sw[2]->ports[0]);
	assert_null(fabric_add_node(&f, IB_NODE_CA, 0x200, 1, "dup"));
	assert_int_equal(fabric_count_links(&f), 4);
	assert_int_equal(fabric_count_hosts(&f), 2);
	fabric_set_lid(&f, &sw[1]->ports[3], 7, 0);
	assert_int_equal(sw[1]->ports[0].lid, 7);
	assert_int_equal(sw[1]->ports[8].lid, 7);
	assert_ptr_equal(fabric_port_by_lid(&f, 7), &sw[1]->ports[0]);
	fabric_set_lid(&f, &sw[1]->ports[0], 9, 0);
	assert_null(fabric_port_by_lid(&f, 7));
	assert_ptr_equal(fabric_node_by_desc(&f, "H1"), h[1]);
	fabric_remove_node(&f, sw[1]);
	assert_int_equal(f.n_switches, 2);
	assert_int_equal(sw[2]->sw_idx, 1);
	assert_null(sw[0]->ports[1].remote);
	assert_null(fabric_port_by_lid(&f, 9));
	assert_null(fabric_node_by_guid(&f, 0x101));
	assert_ptr_equal(fabric_node_by_guid(&f, 0x102), sw[2]);
	fabric_free(&f);
}

/* The copy is deep (a link removed from it stays in the original) and the
 * directed routes follow the copy's links: with S0-S2 linked too, cutting
 * S0-S1 sends S1's route through S2. */
static void test_copy_dr(void **state)
{
	struct fabric f, c;
	struct ib_node *sw[3], *h[2];

	(void)state;
	build_line(&f, sw, h);
	assert_int_equal(fabric_link(&f, sw[0], 2, sw[2], 2), 0);
	f.sm_node = h[0];
	f.sm_port = 1;
	fabric_set_lid(&f, &h[0]->ports[1], 1, 0);
	fabric_set_lid(&f, &sw[1]->ports[0], 3, 0);
	assert_int_equal(node_lft_reserve(sw[1], 3), 0);
	sw[1]->lft[1] = 1;
	assert_int_equal(fabric_dr_paths(&f), 0);
	assert_int_equal(sw[1]->dr_hops, 2); /* H0 -> S0 -> S1 */
	assert_int_equal(sw[1]->dr_path[2], 1);
	assert_int_equal(fabric_copy(&c, &f), 0);
	assert_int_equal(c.n_nodes, f.n_nodes);
	assert_int_equal(fabric_count_links(&c), fabric_count_links(&f));
	assert_ptr_equal(fabric_port_by_lid(&c, 3), &c.nodes[1]->ports[0]);
	assert_ptr_equal(fabric_port_by_guid(&c, 0x211), &c.nodes[4]->ports[1]);
	assert_int_equal(c.nodes[1]->lft[1], 1);
	assert_ptr_equal(c.sm_node, c.nodes[3]);
	fabric_unlink(&c.nodes[0]->ports[1]);
	assert_non_null(sw[0]->ports[1].remote); /* the original keeps it */
	assert_int_equal(fabric_dr_paths(&c), 0);
	assert_int_equal(c.nodes[1]->dr_hops, 3); /* H0 -> S0 -> S2 -> S1 */
	assert_int_equal(c.nodes[1]->dr_path[2], 2);
	assert_int_equal(c.nodes[1]->dr_path[3], 1);
	fabric_unlink(&c.nodes[2]->ports[1]); /* S1 now unreachable */
	assert_int_equal(fabric_dr_paths(&c), 1);
	fabric_free(&c);
	fabric_free(&f);
}

static void test_hops(void **state)
{
	struct fabric f;
	struct ib_node *sw[3], *h[2];
	struct hops hp = { 0 };
	struct pool *p = pool_create(2);

	(void)state;
	build_line(&f, sw, h);
	assert_int_equal(hops_compute(&f, &hp, p), 0);
	assert_int_equal(hops_sw(&hp, 0, 2), 2);
	assert_int_equal(hops_sw(&hp, 2, 1), 1);
	assert_int_equal(hops_to_node(&f, &hp, sw[0], h[1]), 3);
	assert_int_equal(hops_via_port(&f, &hp, sw[0], 1, &h[1]->ports[1]), 3);
	assert_int_equal(hops_via_port(&f, &hp, sw[0], 5, &h[1]->ports[1]),
			 HOPS_INF);
	assert_int_equal(hops_via_port(&f, &hp, sw[0], 5, &h[0]->ports[1]), 1);
	fabric_unlink(&sw[1]->ports[2]);
	assert_int_equal(hops_compute(&f, &hp, p), 0);
	assert_int_equal(hops_sw(&hp, 0, 2), HOPS_INF);
	hops_free(&hp);
	pool_destroy(p);
	fabric_free(&f);
}

static void add_one(void *arg, size_t i, unsigned w)
{
	(void)w;
	__atomic_fetch_add((size_t *)arg, i + 1, __ATOMIC_RELAXED);
}

static void test_pool(void **state)
{
	struct pool *p = pool_create(3);
	size_t sum = 0;

	(void)state;
	for (int r = 0; r < 50; r++) {
		sum = 0;
		pool_for(p, 1000, add_one, &sum);
		assert_int_equal(sum, 500500);
	}
	pool_destroy(p);
}

/* A switch's external ports take their capabilities from port 0. */
static void test_ext_speed_caps(void **state)
{
	struct fabric f;
	struct ib_node *sw, *ca;

	fabric_init(&f);
	sw = fabric_add_node(&f, IB_NODE_SWITCH, 0x10, 4, "S");
	ca = fabric_add_node(&f, IB_NODE_CA, 0x20, 1, "H");
	sw->ports[1].width_active = ca->ports[1].width_active = 2;
	sw->ports[1].speed_active = ca->ports[1].speed_active = 4;
	sw->ports[1].speed_ext_active = ca->ports[1].speed_ext_active = 8;
	assert_int_equal(port_speed(&sw->ports[1]), IB_SPEED_QDR);
	sw->ports[0].speed_caps = IB_SPEED_CAP_EXT;
	ca->ports[1].speed_caps = IB_SPEED_CAP_EXT;
	assert_int_equal(port_speed(&sw->ports[1]), IB_SPEED_NDR);
	assert_int_equal(port_speed(&ca->ports[1]), IB_SPEED_NDR);
	assert_string_equal(ib_speed_spd(port_speed(&ca->ports[1])), "100");
	assert_string_equal(ib_speed_spd(IB_SPEED_FDR10), "FDR10");
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ext_speed_caps),
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_copy_dr),
		cmocka_unit_test(test_hops),
		cmocka_unit_test(test_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
