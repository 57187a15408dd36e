/* Topology parser: ibsim short form and ibnetdiscover form, ibsim's GUID
 * and NodeDescription rules, link rates, the SM node, and one test per
 * error with its file:line message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topo.h"

static const char short_form[] =
	"# comment\n"
	"Switch\t8 \"Switch1\"\n"
	"[1]\t\"Hca1\"[1]\n"
	"[3]  \"Switch2\"[3]\tw=8\n"
	"[4] \"Switch2\"[4] s=7\n"
	"\n"
	"Switch 8 \"Switch2\" # \"core switch\"\n"
	"[3]\t\"Switch1\"[3] w=12\n"
	"# a comment inside a record\n"
	"[4]\t\"Switch1\"[4] s=3\n"
	"[5]\t\"Hca2\"\n"
	"\n"
	"Hca\t2 \"Hca1\"\n"
	"[1]\t\"Switch1\"[1]\n"
	"\n"
	"Ca 1 \"Hca2\"\r\n"
	"[1] \"Switch2\"[5]\n";

static void load_ok(struct fabric *f, const char *text)
{
	char err[256];

	fabric_init(f);
	int r = topo_load_string(f, text, "t.net", err, sizeof(err));
	if (r)
		fail_msg("unexpected error: %s", err);
}

static void test_short_form(void **state)
{
	struct fabric f;
	struct ib_node *s1, *s2, *h1, *h2;

	(void)state;
	load_ok(&f, short_form);
	assert_int_equal(f.n_nodes, 4);
	assert_int_equal(f.n_switches, 2);
	s1 = fabric_node_by_guid(&f, 0x200000);
	s2 = fabric_node_by_guid(&f, 0x200001);
	h1 = fabric_node_by_guid(&f, 0x100000);
	h2 = fabric_node_by_guid(&f, 0x100003); /* 0x100000 + 2 ports + 1 */
	assert_non_null(s1);
	assert_non_null(s2);
	assert_non_null(h1);
	assert_non_null(h2);
	assert_string_equal(s1->desc, "Switch1");
	assert_string_equal(s2->desc, "core switch");
	assert_int_equal(h1->ports[1].guid, 0x100001);
	assert_int_equal(h1->ports[2].guid, 0x100002);
	assert_int_equal(h2->ports[1].guid, 0x100004);
	assert_ptr_equal(fabric_port_by_guid(&f, 0x100004), &h2->ports[1]);
	assert_ptr_equal(port_peer_node(s1, 1), h1);
	assert_ptr_equal(s1->ports[3].remote, &s2->ports[3]);
	assert_ptr_equal(s2->ports[5].remote, &h2->ports[1]); /* default [1] */
	assert_null(h1->ports[2].remote);
	assert_int_equal(h1->ports[2].state, IB_PORT_DOWN);
	assert_int_equal(h1->ports[1].state, IB_PORT_ACTIVE);
	/* w=8 and w=12: common 12x (8); s=7 & s=3: DDR (2); default 4xSDR */
	assert_int_equal(s1->ports[3].width_active, 8);
	assert_int_equal(s1->ports[4].speed_active, 2);
	assert_int_equal(s1->ports[1].width_active, 2);
	assert_int_equal(s1->ports[1].speed_active, 1);
	assert_int_equal(fabric_count_links(&f), 4);
	assert_ptr_equal(f.sm_node, s1); /* first node of the file */
	assert_int_equal(f.sm_port, 0);
	fabric_free(&f);
}

static const char discover_form[] =
	"#\n# Topology file: generated on ...\n#\n"
	"vendid=0x2c9\n"
	"devid=0xb924\n"
	"sysimgguid=0x2c90200402fbb\n"
	"switchguid=0x2c90200402fb8(2c90200402fb8)\n"
	"Switch\t24 \"S-0002c90200402fb8\"\t\t# \"MT47396 Infiniscale-III\" "
	"enhanced port 0 lid 2 lmc 0\n"
	"[1]\t\"H-0002c9000100d050\"[1](2c9000100d051) \t\t# \"node1 HCA-1\" "
	"lid 4 4xDDR\n"
	"\n"
	"vendid=0x2c9\n"
	"devid=0x6274\n"
	"sysimgguid=0x2c9000100d053\n"
	"caguid=0x2c9000100d050\n"
	"Ca\t2 \"H-0002c9000100d050\"\t\t# \"node1 HCA-1\"\n"
	"[1](2c9000100d051) \t\"S-0002c90200402fb8\"[1]\t\t# lid 4 lmc 0 "
	"\"MT47396 Infiniscale-III\" lid 2 4xDDR\n";

static void test_discover_form(void **state)
{
	struct fabric f;
	struct ib_node *sw, *ca;

	(void)state;
	load_ok(&f, discover_form);
	sw = fabric_node_by_guid(&f, 0x2c90200402fb8ULL);
	ca = fabric_node_by_guid(&f, 0x2c9000100d050ULL);
	assert_non_null(sw);
	assert_non_null(ca);
	assert_string_equal(sw->desc, "MT47396 Infiniscale-III");
	assert_string_equal(ca->desc, "node1 HCA-1");
	assert_int_equal(sw->nports, 24);
	assert_int_equal(sw->sysguid, 0x2c90200402fbbULL);
	assert_int_equal(sw->vendor_id, 0x2c9);
	assert_int_equal(sw->device_id, 0xb924);
	assert_int_equal(sw->ports[0].lid, 2);
	assert_int_equal(ca->ports[1].lid, 4);
	assert_int_equal(ca->ports[1].guid, 0x2c9000100d051ULL);
	assert_ptr_equal(ca->ports[1].remote, &sw->ports[1]);
	assert_int_equal(ca->ports[1].speed_active, 2); /* DDR */
	assert_int_equal(ca->ports[1].width_active, 2); /* 4x */
	assert_ptr_equal(fabric_port_by_lid(&f, 4), &ca->ports[1]);
	/* SM node by ibnetdiscover id, GUID, description, port GUID */
	assert_int_equal(topo_set_sm_node(&f, "H-0002c9000100d050"), 0);
	assert_ptr_equal(f.sm_node, ca);
	assert_int_equal(f.sm_port, 1);
	assert_int_equal(topo_set_sm_node(&f, "0x2c90200402fb8"), 0);
	assert_ptr_equal(f.sm_node, sw);
	assert_int_equal(topo_set_sm_node(&f, "node1 HCA-1"), 0);
	assert_ptr_equal(f.sm_node, ca);
	assert_int_equal(topo_set_sm_node(&f, "2c9000100d051"), 0);
	assert_int_equal(f.sm_port, 1);
	assert_int_equal(topo_set_sm_node(&f, "nobody"), -ENOENT);
	fabric_free(&f);
}

/* ibsim's GUID base settings: "=" absolute, "+" relative to the base. */
static void test_guid_bases(void **state)
{
	struct fabric f;

	(void)state;
	load_ok(&f, "switchguid=0x1000\n"
		    "Switch 4 \"A\"\n[1] \"B\"[1]\n\n"
		    "Switch 4 \"B\"\n[1] \"A\"[1]\n\n"
		    "switchguid+0x10\n"
		    "Switch 4 \"C\"\n\n"
		    "caguid=0x5000\n"
		    "Hca 1 \"X\"\n\nHca 3 \"Y\"\n\nHca 1 \"Z\"\n");
	assert_non_null(fabric_node_by_guid(&f, 0x1000));
	assert_non_null(fabric_node_by_guid(&f, 0x1001));
	assert_non_null(fabric_node_by_guid(&f, 0x1010));
	assert_non_null(fabric_node_by_guid(&f, 0x5000));
	assert_non_null(fabric_node_by_guid(&f, 0x5002));
	assert_non_null(fabric_node_by_guid(&f, 0x5006));
	assert_string_equal(fabric_node_by_guid(&f, 0x5002)->desc, "Y");
	fabric_free(&f);
	/* ibsim starts routers at GUID 0 (its guids[] stops before them) */
	load_ok(&f, "Rt 2 \"R\"\n\nRt 1 \"Q\"\n");
	assert_string_equal(fabric_node_by_guid(&f, 0)->desc, "R");
	assert_string_equal(fabric_node_by_guid(&f, 3)->desc, "Q");
	assert_int_equal(fabric_node_by_guid(&f, 3)->type, IB_NODE_ROUTER);
	fabric_free(&f);
}

static void test_dump(void **state)
{
	struct fabric f;
	char buf[4096];
	FILE *m = fmemopen(buf, sizeof(buf), "w");

	(void)state;
	load_ok(&f, short_form);
	topo_dump(&f, m);
	fclose(m);
	assert_non_null(strstr(buf, "# 4 nodes, 2 switches, 4 links\n"));
	assert_non_null(strstr(buf, "node 0x0000000000200001 Switch ports=8 "
				    "sysguid=0x0000000000200001 lid=0 "
				    "desc=\"core switch\"\n"));
	assert_non_null(strstr(buf, "link 0x0000000000200000[3] "
				    "0x0000000000200001[3] 12xSDR\n"));
	assert_non_null(strstr(buf, "port 0x0000000000100003[1] "
				    "guid=0x0000000000100004 lid=0\n"));
	fabric_free(&f);
}

struct bad {
	const char *text, *msg;
};

static const struct bad bad_inputs[] = {
	{ "Switch 4 \"A\"\n\nSwitch 4 \"A\"\n",
	  "t.net:3: duplicate node id \"A\" (first at line 1)" },
	{ "switchguid=0x10\nSwitch 4 \"A\"\n\nswitchguid=0x10\n"
	  "Switch 4 \"B\"\n",
	  "t.net:5: node \"B\": GUID 0x0000000000000010 already used by "
	  "\"A\" (line 2)" },
	{ "Switch 4 \"A\"\n[5] \"B\"[1]\n",
	  "t.net:2: port 5 out of range for \"A\" (ports 1..4)" },
	{ "Switch 4 \"A\"\n[1] \"B\"[9]\n\nSwitch 4 \"B\"\n[1] \"A\"[1]\n",
	  "t.net:2: \"A\" port 1: remote port 9 out of range for \"B\" "
	  "(ports 1..4)" },
	{ "Switch 4 \"A\"\n[1] \"B\"[2]\n\nSwitch 4 \"B\"\n[2] \"C\"[1]\n\n"
	  "Switch 4 \"C\"\n[1] \"B\"[2]\n",
	  "t.net:2: \"A\" port 1 -> \"B\"[2], but \"B\" port 2 -> \"C\"[1] "
	  "(line 5)" },
	{ "Switch 4 \"A\"\n[1] \"B\"[2]\n\nSwitch 4 \"B\"\n",
	  "t.net:2: \"A\" port 1 -> \"B\"[2], but \"B\" lists no port 2" },
	{ "Switch 4 \"A\"\n[1] \"Nowhere\"[2]\n",
	  "t.net:2: \"A\" port 1: no node named \"Nowhere\"" },
	{ "Switch 4 \"A\"\n[1] \"A\"[1]\n",
	  "t.net:2: \"A\" port 1 is linked to itself" },
	{ "Switch 4 \"A\"\n[1] \"A\"[2]\n[2] \"A\"[1]\n[1] \"A\"[3]\n",
	  "t.net:4: \"A\" port 1 listed twice (first at line 2)" },
	{ "Switch 4 \"A\"\n\n[1] \"A\"[2]\n",
	  "t.net:3: port line outside a node record (a blank line ends a "
	  "record)" },
	{ "Switch x \"A\"\n",
	  "t.net:1: expected the number of ports after \"Switch\"" },
	{ "Hca 300 \"A\"\n", "t.net:1: number of ports 300 out of range "
			     "1..255" },
	{ "Hca 2 A\n", "t.net:1: expected a quoted node id after the number "
		       "of ports" },
	{ "Switch 4 \"A\"\n[1] \"B\"[1] width=4\n",
	  "t.net:2: unknown port option \"width=4\" (ibsim knows w=N, s=N and "
	  "e=N)" },
	{ "Switch 4 \"A\"\n[1] \"B\"[1] w=1\n\nSwitch 4 \"B\"\n"
	  "[1] \"A\"[1] w=2\n",
	  "t.net:2: no common link width between \"A\" port 1 and \"B\" "
	  "port 1" },
	{ "include \"other.net\"\n",
	  "t.net:1: \"include\" lines are not supported here" },
	{ "Hca 1 \"A\"\n@1 \"x\"\n",
	  "t.net:2: port aliases ('@') are not supported" },
	{ "Hca 1 \"A\"\n[1] \"S\"[1] # lid 5\n\nHca 1 \"B\"\n"
	  "[1] \"S\"[2] # lid 5\n",
	  "t.net:5: LID 5 already used by \"A\"" },
	{ "# nothing\n", "t.net:1: no nodes in the topology" },
};

/* Extended speeds as ibsim takes them (extspeed=, e=N enable masks; the
 * best common one is active) and as ibnetdiscover prints them (4xNDR). */
static void test_ext_speeds(void **state)
{
	struct fabric f;
	struct ib_node *s, *a, *b, *c;

	load_ok(&f, "extspeed=7\n"
		 "Switch 4 \"S\"\n[1] \"A\"[1]\n[2] \"B\"[1] e=3\n"
		 "[3] \"C\"[1]\n\n"
		 "Hca 1 \"A\"\n[1] \"S\"[1]\n\n"
		 "Hca 1 \"B\"\n[1] \"S\"[2]\n\n"
		 "Hca 1 \"C\"\n[1] \"S\"[3] # lid 4 4xNDR\n");
	s = fabric_node_by_desc(&f, "S");
	a = fabric_node_by_desc(&f, "A");
	b = fabric_node_by_desc(&f, "B");
	c = fabric_node_by_desc(&f, "C");
	assert_non_null(s);
	assert_int_equal(port_speed(&a->ports[1]), IB_SPEED_HDR);
	assert_int_equal(port_speed(&s->ports[1]), IB_SPEED_HDR);
	assert_int_equal(port_speed(&b->ports[1]), IB_SPEED_EDR);
	assert_int_equal(port_speed(&c->ports[1]), IB_SPEED_NDR);
	assert_int_equal(port_speed(&s->ports[3]), IB_SPEED_NDR);
	fabric_free(&f);
}

static void test_errors(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(*bad_inputs);
	     i++) {
		struct fabric f;
		char err[256] = "";
		fabric_init(&f);
		int r = topo_load_string(&f, bad_inputs[i].text, "t.net", err,
					 sizeof(err));
		if (r != -EINVAL || strcmp(err, bad_inputs[i].msg) != 0)
			fail_msg("case %zu: r=%d\n got: %s\nwant: %s", i, r,
				 err, bad_inputs[i].msg);
		assert_int_equal(f.n_nodes, 0); /* emptied on error */
		fabric_free(&f);
	}
}

static void test_missing_file(void **state)
{
	struct fabric f;
	char err[256];

	(void)state;
	fabric_init(&f);
	assert_int_equal(topo_load(&f, "/nonexistent/x.net", err,
				   sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/x.net: No such file or "
				 "directory");
}


/* Robustness: thousands of corrupted variants of the two sample texts must
 * each load or fail with a "t.net:N: " message, never crash (run under
 * SAN=1 this also checks memory safety); deterministic seed. */
static void test_mutations(void **state)
{
	static const char alphabet[] = "[]()\"#@=+ \t\n0123456789xSHwsa-";
	const char *src[] = { short_form, discover_form };
	uint64_t rs = 12345;
	char err[256];

	(void)state;
	for (int i = 0; i < 2000; i++) {
		const char *base = src[i % 2];
		size_t len = strlen(base);
		char *t = malloc(len + 16);
		memcpy(t, base, len + 1);
		for (int m = 0; m < 1 + i % 4; m++) {
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			size_t pos = (rs >> 33) % len;
			char c = alphabet[(rs >> 20) % (sizeof(alphabet) - 1)];
			if ((rs >> 60) & 1)
				t[pos] = c;
			else
				memmove(t + pos, t + pos + 1, len - pos);
			len = strlen(t);
			if (!len)
				break;
		}
		struct fabric f;
		fabric_init(&f);
		int r = topo_load_string(&f, t, "t.net", err, sizeof(err));
		if (r)
			assert_true(r == -EINVAL && !strncmp(err, "t.net:", 6));
		fabric_free(&f);
		free(t);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_short_form),
		cmocka_unit_test(test_discover_form),
		cmocka_unit_test(test_guid_bases),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_ext_speeds),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_missing_file),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
