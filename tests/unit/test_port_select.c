/* Local port choice on made-up CA descriptions (no HCA of each kind can be
 * made here): Ethernet (RoCE) ports and SM-disabled plane ports are
 * skipped, ACTIVE beats LinkUp beats the rest, umad's order breaks ties,
 * and a port named exactly that cannot carry the SM is an error. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "mad/port_select.h"

#define IB  "InfiniBand"
#define ETH "Ethernet"

/* A host with a RoCE NIC first (as mlx5_0 usually is), an HCA whose port 1
 * is INIT/LinkUp and port 2 ACTIVE, and a planarized HCA: two GSI-only
 * plane devices (IsSMDisabled) and their SMI device. */
static const struct port_cand host[] = {
    {"mlx5_0", 1, 0xa1, 4, 5, ETH, 0},
    {"mlx5_1", 1, 0xb1, 2, 5, IB, 0},
    {"mlx5_1", 2, 0xb2, 4, 5, IB, 0},
    {"mlx5_2", 1, 0xc1, 4, 5, IB, PORT_CAP_IS_SM_DISABLED},
    {"mlx5_3", 1, 0xc1, 4, 5, IB, PORT_CAP_IS_SM_DISABLED},
    {"mlx5_4", 1, 0xc1, 4, 5, IB, 0},
};
#define N (sizeof(host) / sizeof(host[0]))

static int pick(const struct port_want *w, char *why)
{
	return port_choose(host, N, w, why, 256);
}

static void test_default_skips_roce(void **state)
{
	struct port_want w = {0};
	char why[256];

	/* mlx5_0 is ACTIVE but Ethernet; the first ACTIVE IB port wins. */
	assert_int_equal(pick(&w, why), 2);
}

static void test_ca_prefers_active(void **state)
{
	struct port_want w = {.ca = "mlx5_1"};
	char why[256];

	assert_int_equal(pick(&w, why), 2);
	w.num = 1; /* named exactly: taken though only INIT */
	assert_int_equal(pick(&w, why), 1);
}

static void test_linkup_before_down(void **state)
{
	static const struct port_cand c[] = {
	    {"sim0", 1, 0x1, 1, 3, IB, 0}, /* DOWN, Disabled */
	    {"sim0", 2, 0x2, 2, 5, IB, 0}, /* INIT, LinkUp */
	    {"sim0", 3, 0x3, 1, 2, IB, 0}, /* DOWN, Polling */
	};
	struct port_want w = {0};
	char why[256];

	assert_int_equal(port_choose(c, 3, &w, why, sizeof(why)), 1);
	/* Nothing up: the first port, the SM brings it up. */
	assert_int_equal(port_choose(c + 2, 1, &w, why, sizeof(why)), 0);
}

static void test_roce_named_is_error(void **state)
{
	struct port_want w = {.ca = "mlx5_0", .num = 1};
	char why[256];

	assert_int_equal(pick(&w, why), -1);
	assert_non_null(strstr(why, "mlx5_0 port 1"));
	assert_non_null(strstr(why, "Ethernet"));
	w = (struct port_want){.guid = 0xa1};
	assert_int_equal(pick(&w, why), -1);
	assert_non_null(strstr(why, "Ethernet"));
}

static void test_planes(void **state)
{
	/* The port GUID of a planarized HCA names the planes and the SMI
	 * device alike: only the SMI device qualifies. */
	struct port_want w = {.guid = 0xc1};
	char why[256];

	assert_int_equal(pick(&w, why), 5);
	w = (struct port_want){.ca = "mlx5_2"};
	assert_int_equal(pick(&w, why), -1);
	assert_non_null(strstr(why, "SM-disabled"));
}

static void test_missing(void **state)
{
	struct port_want w = {.guid = 0x99};
	char why[256];

	assert_int_equal(pick(&w, why), -1);
	assert_string_equal(why, "no port with GUID 0x0000000000000099");
	w = (struct port_want){.ca = "mlx5_1", .num = 3};
	assert_int_equal(pick(&w, why), -1);
	assert_string_equal(why, "device mlx5_1 has no port 3");
	w = (struct port_want){.ca = "qib0"};
	assert_int_equal(pick(&w, why), -1);
	assert_string_equal(why, "no InfiniBand device named qib0");
	/* A host with only RoCE: no default port. */
	w = (struct port_want){0};
	assert_int_equal(port_choose(host, 1, &w, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no port can carry the SM"));
}

static void test_missing_link_layer_is_ib(void **state)
{
	/* libibumad says "IB" when sysfs has no link_layer (umad2sim). */
	static const struct port_cand c[] = {{"sim0", 1, 0x1, 2, 5, "IB", 0},
					     {"sim1", 1, 0x2, 2, 5, "", 0}};
	struct port_want w = {.ca = "sim1"};
	char why[256];

	assert_int_equal(port_choose(c, 2, &w, why, sizeof(why)), 1);
	w.ca = NULL;
	assert_int_equal(port_choose(c, 2, &w, why, sizeof(why)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default_skips_roce),
	    cmocka_unit_test(test_ca_prefers_active),
	    cmocka_unit_test(test_linkup_before_down),
	    cmocka_unit_test(test_roce_named_is_error),
	    cmocka_unit_test(test_planes),
	    cmocka_unit_test(test_missing),
	    cmocka_unit_test(test_missing_link_layer_is_ib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
