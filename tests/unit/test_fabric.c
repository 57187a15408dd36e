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
#include "routing/hops.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_maps),
		cmocka_unit_test(test_hops),
		cmocka_unit_test(test_pool),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
