/* The partition plan (lib/pkeys.c) on a small fabric read from a
 * topology: who is a full or limited member of what, the default
 * partition's rules, which wins when a port is named twice, and the
 * sharing rules the SA answers by (at least one full member). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "lib/pkeys.h"
#include "lib/topo.h"

/* Two leaf switches, four hosts (H4 with two ports), a spine. */
static const char net[] = "Switch 8 \"S1\"\n"
			  "[1] \"H1\"[1]\n[2] \"H2\"[1]\n[8] \"S3\"[1]\n"
			  "Switch 8 \"S2\"\n"
			  "[1] \"H3\"[1]\n[2] \"H4\"[1]\n[3] \"H4\"[2]\n"
			  "[8] \"S3\"[2]\n"
			  "Switch 8 \"S3\"\n[1] \"S1\"[8]\n[2] \"S2\"[8]\n"
			  "Hca 1 \"H1\"\n[1] \"S1\"[1]\n"
			  "Hca 1 \"H2\"\n[1] \"S1\"[2]\n"
			  "Hca 1 \"H3\"\n[1] \"S2\"[1]\n"
			  "Hca 2 \"H4\"\n[1] \"S2\"[2]\n[2] \"S2\"[3]\n";

struct fx {
	struct fabric f;
	struct config c;
	struct pkey_plan pl;
};

static struct ib_port *host(struct fx *x, const char *name, uint8_t pn)
{
	struct ib_node *n = fabric_node_by_desc(&x->f, name);
	assert_non_null(n);
	return &n->ports[pn];
}

static struct ib_port *sw(struct fx *x, const char *name)
{
	return host(x, name, 0);
}

/* Builds the fabric (SM on H1) and the plan of the partitions value. */
static struct fx *setup(const char *parts)
{
	struct fx *x = calloc(1, sizeof(*x));
	char err[512], kv[2048];

	assert_non_null(x);
	fabric_init(&x->f);
	if (topo_load_string(&x->f, net, "t.net", err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(topo_set_sm_node(&x->f, "H1"), 0);
	assert_int_equal(config_defaults(&x->c), 0);
	if (parts) {
		snprintf(kv, sizeof(kv), "partitions=%s", parts);
		if (config_override(&x->c, kv, err, sizeof(err)))
			fail_msg("%s", err);
	}
	assert_int_equal(pkey_plan_build(&x->pl, &x->f, &x->c.partitions, true),
			 0);
	return x;
}

static void teardown(struct fx *x)
{
	pkey_plan_free(&x->pl);
	config_free(&x->c);
	fabric_free(&x->f);
	free(x);
}

/* The entries of a port as "8002 7fff"-style text, for asserts. */
static const char *keys_of(struct fx *x, const struct ib_port *p)
{
	static char buf[256];
	uint32_t n, len = 0;
	const uint16_t *k = pkey_plan_port(&x->pl, p, &n);

	buf[0] = '\0';
	for (uint32_t i = 0; i < n; i++)
		len += (uint32_t)snprintf(buf + len, sizeof(buf) - len,
					  "%s%04x", i ? " " : "", k[i]);
	return buf;
}

/* The default configuration: everyone (switch port 0 too) full in 0x7fff,
 * switch external ports hold nothing. */
static void test_default(void **state)
{
	struct fx *x = setup(NULL);

	(void)state;
	assert_string_equal(keys_of(x, host(x, "H1", 1)), "ffff");
	assert_string_equal(keys_of(x, host(x, "H4", 2)), "ffff");
	assert_string_equal(keys_of(x, sw(x, "S3")), "ffff");
	assert_string_equal(keys_of(x, &sw(x, "S1")->node->ports[1]), "");
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H3", 1)),
	    0xffff);
	assert_int_equal(x->pl.unknown, 0);
	teardown(x);
}

/* No partition listed: every port limited in the default partition, the
 * SM's port full; two hosts share nothing, a host and the SM do. */
static void test_empty(void **state)
{
	struct fx *x = setup("[]");

	(void)state;
	assert_string_equal(keys_of(x, host(x, "H1", 1)), "ffff");
	assert_string_equal(keys_of(x, host(x, "H2", 1)), "7fff");
	assert_string_equal(keys_of(x, sw(x, "S1")), "7fff");
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H3", 1)), 0);
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H1", 1)),
	    0x7fff);
	teardown(x);
}

/* A partition's own SL, by its P_Key with or without the membership
 * bit; auto (the default) and unknown P_Keys give none. */
static void test_partition_sl(void **state)
{
	struct fx *x;

	(void)state;
	x = setup("[{name: default, pkey: 0x7fff, members: all},"
		  " {name: a, pkey: 2, sl: 5, members: [H1]},"
		  " {name: b, pkey: 3, sl: 0, members: [H2]},"
		  " {name: c, pkey: 4, members: [H3]}]");
	assert_int_equal(pkey_plan_sl(&x->pl, 0x0002), 5);
	assert_int_equal(pkey_plan_sl(&x->pl, 0x8002), 5);
	assert_int_equal(pkey_plan_sl(&x->pl, 0x8003), 0);
	assert_int_equal(pkey_plan_sl(&x->pl, 0x8004), -1);
	assert_int_equal(pkey_plan_sl(&x->pl, 0xffff), -1);
	assert_int_equal(pkey_plan_sl(&x->pl, 0x8005), -1);
	assert_int_equal(pkey_plan_sl(NULL, 0x8002), -1);
	teardown(x);
}

/* The two-partition site, with names, GUIDs and kinds. */
static void test_two_partitions(void **state)
{
	char parts[512];
	struct fx *x;

	(void)state;
	x = setup("[]");
	/* H3's port GUID and H4's node GUID, as ibsim makes them */
	snprintf(parts, sizeof(parts),
		 "[{name: default, pkey: 0x7fff, members: all},"
		 " {name: storage, pkey: 2, members: [H1, 0x%016llx, switches],"
		 "  limited: [hosts, 0x%016llx]}]",
		 (unsigned long long)host(x, "H3", 1)->guid,
		 (unsigned long long)fabric_node_by_desc(&x->f, "H4")->guid);
	teardown(x);
	x = setup(parts);
	assert_string_equal(keys_of(x, host(x, "H1", 1)), "8002 ffff");
	assert_string_equal(keys_of(x, host(x, "H2", 1)), "0002 ffff");
	assert_string_equal(keys_of(x, host(x, "H3", 1)), "8002 ffff");
	assert_string_equal(keys_of(x, host(x, "H4", 1)), "0002 ffff");
	assert_string_equal(keys_of(x, host(x, "H4", 2)), "0002 ffff");
	assert_string_equal(keys_of(x, sw(x, "S2")), "8002 ffff");
	/* the lowest shared partition, with the source's membership */
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H1", 1)),
	    0x0002);
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H1", 1), host(x, "H2", 1)),
	    0x8002);
	/* two limited members of storage share only the default one */
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H4", 1)),
	    0xffff);
	assert_false(pkey_plan_share_this(&x->pl, host(x, "H2", 1),
					  host(x, "H4", 1), 0x8002));
	assert_true(pkey_plan_share_this(&x->pl, host(x, "H2", 1),
					 host(x, "H3", 1), 0x0002));
	assert_int_equal(pkey_plan_entry(&x->pl, host(x, "H2", 1), 0x8002),
			 0x0002);
	assert_int_equal(pkey_plan_entry(&x->pl, host(x, "H2", 1), 0x0005), 0);
	teardown(x);
}

/* Disjoint partitions: hosts of one share nothing with the other's. */
static void test_disjoint(void **state)
{
	struct fx *x = setup("[{name: a, pkey: 0x10, members: [H1, H2]},"
			     " {name: b, pkey: 0x11, members: [H3, H4],"
			     "  ipoib: true}]");

	(void)state;
	assert_string_equal(keys_of(x, host(x, "H2", 1)), "8010 7fff");
	assert_string_equal(keys_of(x, host(x, "H3", 1)), "8011 7fff");
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H2", 1), host(x, "H3", 1)), 0);
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H3", 1), host(x, "H4", 2)),
	    0x8011);
	/* the SM (H1) is full in the default partition: it shares that
	 * one with H3, and partition a with H2 */
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H1", 1), host(x, "H3", 1)),
	    0xffff);
	assert_int_equal(
	    pkey_plan_common(&x->pl, host(x, "H1", 1), host(x, "H2", 1)),
	    0x8010);
	teardown(x);
}

/* A name beats a kind in the other list; between equals full wins;
 * unknown names are counted. */
static void test_precedence(void **state)
{
	struct fx *x = setup("[{name: a, pkey: 3, members: all,"
			     "  limited: [H2, nosuch, 0x0badbadbadbadbad]},"
			     " {name: b, pkey: 4, members: [H3],"
			     "  limited: hosts}]");

	(void)state;
	/* b: H3 named full beside the kind hosts limited */
	assert_string_equal(keys_of(x, host(x, "H2", 1)), "0003 0004 7fff");
	assert_string_equal(keys_of(x, host(x, "H1", 1)), "8003 0004 ffff");
	assert_string_equal(keys_of(x, host(x, "H3", 1)), "8003 8004 7fff");
	assert_string_equal(keys_of(x, sw(x, "S1")), "8003 7fff");
	assert_int_equal(x->pl.unknown, 2);
	teardown(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_default),
	    cmocka_unit_test(test_empty),
	    cmocka_unit_test(test_two_partitions),
	    cmocka_unit_test(test_partition_sl),
	    cmocka_unit_test(test_disjoint),
	    cmocka_unit_test(test_precedence),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
