/* Expected against discovered cabling (lib/topo_diff.c) on a small fat
 * tree built twice: identical, two uplinks swapped at the spine, a cable
 * pulled, a cable added, a host moved to a port the plan leaves dark, and
 * nodes with other GUIDs but the planned names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/topo_diff.h"

/* Two leaves L1, L2 (8 ports) with hosts on ports 1-2, both linked to
 * spines S1, S2 on ports 5, 6; GUIDs from base. */
static void build(struct fabric *f, uint64_t base)
{
	struct ib_node *l[2], *s[2];
	char name[16];

	fabric_init(f);
	for (int i = 0; i < 2; i++) {
		snprintf(name, sizeof(name), "L%d", i + 1);
		l[i] = fabric_add_node(f, IB_NODE_SWITCH, base + 0x10 + i, 8,
				       name);
		snprintf(name, sizeof(name), "S%d", i + 1);
		s[i] = fabric_add_node(f, IB_NODE_SWITCH, base + 0x20 + i, 8,
				       name);
	}
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 2; j++) {
			struct ib_node *h;
			snprintf(name, sizeof(name), "H%d", 2 * i + j + 1);
			h = fabric_add_node(f, IB_NODE_CA,
					    base + 0x100 + 2 * i + j, 1, name);
			assert_int_equal(fabric_link(f, l[i], j + 1, h, 1), 0);
			assert_int_equal(
			    fabric_link(f, l[i], 5 + j, s[j], 1 + i), 0);
		}
}

static struct ib_node *node(struct fabric *f, const char *desc)
{
	struct ib_node *n = fabric_node_by_desc(f, desc);

	assert_non_null(n);
	return n;
}

static void check(struct fabric *e, struct fabric *f, uint32_t missing,
		  uint32_t extra, uint32_t miswired, const char *first)
{
	struct topo_diff d = {0};
	char line[512];

	assert_int_equal(topo_diff(e, f, &d), 0);
	for (uint32_t i = 0; i < d.n; i++) {
		topo_diff_line(&d.v[i], line, sizeof(line));
		print_message("  %s\n", line);
	}
	assert_int_equal(d.expected_links, 8);
	assert_int_equal(d.count[TOPO_MISSING], missing);
	assert_int_equal(d.count[TOPO_EXTRA], extra);
	assert_int_equal(d.count[TOPO_MISWIRED], miswired);
	if (first) {
		topo_diff_line(&d.v[0], line, sizeof(line));
		assert_string_equal(line, first);
	}
	topo_diff_free(&d);
	fabric_free(e);
	fabric_free(f);
}

static void test_same(void **state)
{
	struct fabric e, f;

	build(&e, 0x1000);
	build(&f, 0x1000);
	check(&e, &f, 0, 0, 0, NULL);
}

/* L1[5] and L2[5] swapped at S1: each found link has a planned peer
 * elsewhere, and no planned link is missing. */
static void test_swap(void **state)
{
	struct fabric e, f;

	build(&e, 0x1000);
	build(&f, 0x1000);
	assert_int_equal(fabric_link(&f, node(&f, "L1"), 5, node(&f, "S1"), 2),
			 0);
	assert_int_equal(fabric_link(&f, node(&f, "L2"), 5, node(&f, "S1"), 1),
			 0);
	check(&e, &f, 0, 0, 2,
	      "miswired \"L1\"[5](0x0000000000001010) -- "
	      "\"S1\"[2](0x0000000000001020): expected \"L1\"[5] -- "
	      "\"S1\"[1], \"S1\"[2] -- \"L2\"[5]");
}

static void test_pulled_added(void **state)
{
	struct fabric e, f;

	build(&e, 0x1000);
	build(&f, 0x1000);
	fabric_unlink(&node(&f, "L2")->ports[6]);
	check(&e, &f, 1, 0, 0,
	      "missing \"L2\"[6](0x0000000000001011) -- "
	      "\"S2\"[2](0x0000000000001021)");
	build(&e, 0x1000);
	build(&f, 0x1000);
	assert_int_equal(fabric_link(&f, node(&f, "S1"), 7, node(&f, "S2"), 7),
			 0);
	check(&e, &f, 0, 1, 0,
	      "extra \"S1\"[7](0x0000000000001020) -- "
	      "\"S2\"[7](0x0000000000001021)");
}

/* H1 on L1[8], dark in the plan: one miswiring, nothing missing. */
static void test_moved_host(void **state)
{
	struct fabric e, f;

	build(&e, 0x1000);
	build(&f, 0x1000);
	assert_int_equal(fabric_link(&f, node(&f, "L1"), 8, node(&f, "H1"), 1),
			 0);
	check(&e, &f, 0, 0, 1,
	      "miswired \"L1\"[8](0x0000000000001010) -- "
	      "\"H1\"[1](0x0000000000001100): expected \"L1\"[8] unlinked, "
	      "\"H1\"[1] -- \"L1\"[1]");
}

/* Other GUIDs, the planned names: paired by name, nothing differs. */
static void test_by_name(void **state)
{
	struct fabric e, f;

	build(&e, 0x1000);
	build(&f, 0x9000);
	check(&e, &f, 0, 0, 0, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_same),
	    cmocka_unit_test(test_swap),
	    cmocka_unit_test(test_pulled_added),
	    cmocka_unit_test(test_moved_host),
	    cmocka_unit_test(test_by_name),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
