/* Dump writers (lib/dump.c) against files OpenSM 3.3.23 wrote for the same
 * fabric under ibsim (net.2sw2path4hca from ibsim's examples, with
 * OpenSM's LIDs and routes set by hand), plus read-back round trips. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/dump.h"
#include "lib/fabric.h"
#include "lib/lids.h"
#include "routing/hops/hops.h"

struct fx {
	struct fabric f;
	struct ib_node *sw[2], *h[4];
	struct hops hp;
	char dir[64];
};

static void build(struct fx *x)
{
	static const char *hn[4] = {"Hca1", "Hca2", "Hca3", "Hca4"};
	/* OpenSM's LIDs: Switch1 1, Hca1 2, Switch2 3, Hca2 4, Hca3 5, Hca4 6
	 */
	static const uint16_t hlid[4] = {2, 4, 5, 6};
	/* OpenSM's routes, LIDs 1..6 */
	static const uint8_t lft[2][7] = {{255, 0, 1, 3, 3, 2, 5},
					  {255, 3, 3, 0, 1, 5, 2}};

	fabric_init(&x->f);
	memset(&x->hp, 0, sizeof(x->hp));
	x->sw[0] =
	    fabric_add_node(&x->f, IB_NODE_SWITCH, 0x200000, 8, "Switch1");
	x->sw[1] =
	    fabric_add_node(&x->f, IB_NODE_SWITCH, 0x200001, 8, "Switch2");
	for (int i = 0; i < 4; i++) {
		x->h[i] = fabric_add_node(&x->f, IB_NODE_CA, 0x100000 + 3 * i,
					  2, hn[i]);
		fabric_set_port_guid(&x->f, &x->h[i]->ports[1],
				     0x100001 + 3 * i);
		fabric_link(&x->f, x->sw[i % 2], 1 + i / 2, x->h[i], 1);
		fabric_set_lid(&x->f, &x->h[i]->ports[1], hlid[i], 0);
	}
	fabric_link(&x->f, x->sw[0], 3, x->sw[1], 3);
	fabric_link(&x->f, x->sw[0], 5, x->sw[1], 5);
	fabric_set_lid(&x->f, &x->sw[0]->ports[0], 1, 0);
	fabric_set_lid(&x->f, &x->sw[1]->ports[0], 3, 0);
	for (int s = 0; s < 2; s++) {
		assert_int_equal(node_lft_reserve(x->sw[s], x->f.max_lid), 0);
		memcpy(x->sw[s]->lft, lft[s], 7);
	}
	assert_int_equal(hops_compute(&x->f, &x->hp, NULL), 0);
	snprintf(x->dir, sizeof(x->dir), "/tmp/test_dump.XXXXXX");
	assert_non_null(mkdtemp(x->dir));
}

static char *slurp(const char *dir, const char *name)
{
	char p[128], *buf = calloc(1, 1 << 16);
	FILE *fp;
	size_t n;

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	fp = fopen(p, "r");
	assert_non_null(fp);
	n = fread(buf, 1, (1 << 16) - 1, fp);
	buf[n] = 0;
	fclose(fp);
	return buf;
}

static void cleanup(struct fx *x)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", x->dir);
	assert_int_equal(system(cmd), 0);
	hops_free(&x->hp);
	fabric_free(&x->f);
}

static void test_fdbs_and_lfts(void **state)
{
	struct fx x;
	struct hops_fdbs_ctx c;
	char *s;

	(void)state;
	build(&x);
	c.f = &x.f;
	c.h = &x.hp;
	assert_int_equal(dump_write_fdbs(x.dir, &x.f, hops_fdbs_cb, &c), 0);
	s = slurp(x.dir, "fdbs");
	assert_string_equal(s, "dump_ucast_routes: Switch 0x0000000000200000\n"
			       "LID    : Port : Hops : Optimal\n"
			       "0x0001 : 000  : 00   : yes\n"
			       "0x0002 : 001  : 01   : yes\n"
			       "0x0003 : 003  : 01   : yes\n"
			       "0x0004 : 003  : 02   : yes\n"
			       "0x0005 : 002  : 01   : yes\n"
			       "0x0006 : 005  : 02   : yes\n"
			       "dump_ucast_routes: Switch 0x0000000000200001\n"
			       "LID    : Port : Hops : Optimal\n"
			       "0x0001 : 003  : 01   : yes\n"
			       "0x0002 : 003  : 02   : yes\n"
			       "0x0003 : 000  : 00   : yes\n"
			       "0x0004 : 001  : 01   : yes\n"
			       "0x0005 : 005  : 02   : yes\n"
			       "0x0006 : 002  : 01   : yes\n");
	free(s);
	assert_int_equal(dump_write_lfts(x.dir, &x.f), 0);
	s = slurp(x.dir, "lfts.dump");
	const char *sw1 =
	    "Unicast lids [0-6] of switch Lid 1 guid 0x0000000000200000 "
	    "('Switch1'):\n"
	    "0x0001 000 # Switch portguid 0x0000000000200000: 'Switch1'\n"
	    "0x0002 001 # Channel Adapter portguid 0x0000000000100001: 'Hca1'\n"
	    "0x0003 003 # Switch portguid 0x0000000000200001: 'Switch2'\n"
	    "0x0004 003 # Channel Adapter portguid 0x0000000000100004: 'Hca2'\n"
	    "0x0005 002 # Channel Adapter portguid 0x0000000000100007: 'Hca3'\n"
	    "0x0006 005 # Channel Adapter portguid 0x000000000010000a: 'Hca4'\n"
	    "6 lids dumped\n";
	assert_memory_equal(s, sw1, strlen(sw1));
	free(s);
	/* Read back into a cleared fabric: same tables. */
	uint8_t keep[2][7];
	char path[128], err[128];
	for (int i = 0; i < 2; i++) {
		memcpy(keep[i], x.sw[i]->lft, 7);
		memset(x.sw[i]->lft, 7, 7);
	}
	snprintf(path, sizeof(path), "%s/lfts.dump", x.dir);
	assert_int_equal(dump_read_lfts(path, &x.f, err, sizeof(err)), 0);
	for (int i = 0; i < 2; i++)
		assert_memory_equal(keep[i], x.sw[i]->lft, 7);
	cleanup(&x);
}

static void test_subnet_lst(void **state)
{
	struct fx x;
	char *s;

	(void)state;
	build(&x);
	/* A switch and host the SM cannot reach have no LIDs: left out. */
	struct ib_node *z = fabric_add_node(&x.f, IB_NODE_SWITCH, 0x999, 4, "Z");
	struct ib_node *zh = fabric_add_node(&x.f, IB_NODE_CA, 0x998, 1, "ZH");
	fabric_link(&x.f, z, 1, zh, 1);
	assert_int_equal(dump_write_subnet_lst(x.dir, &x.f), 0);
	s = slurp(x.dir, "subnet.lst");
	/* OpenSM's line for Switch2 port 3 (it marks its own node SW-SM;
	 * ibdmchk only reads the first two letters). */
	const char *want =
	    "{ SW Ports:08 SystemGUID:0000000000200001 "
	    "NodeGUID:0000000000200001 "
	    "PortGUID:0000000000200001 VenID:000000 DevID:0000 Rev:00000000 "
	    "{Switch2} LID:0003 PN:03 } { SW Ports:08 "
	    "SystemGUID:0000000000200000 "
	    "NodeGUID:0000000000200000 PortGUID:0000000000200000 "
	    "VenID:00000000 "
	    "DevID:0000 Rev:00000000 {Switch1} LID:0001 PN:03 } PHY=4x LOG=ACT "
	    "SPD=2.5\n";
	assert_non_null(strstr(s, want));
	assert_non_null(
	    strstr(s, "{ CA Ports:02 SystemGUID:0000000000100009 "
		      "NodeGUID:0000000000100009 PortGUID:000000000010000a "
		      "VenID:000000 DevID:0000 Rev:00000000 {Hca4} LID:0006 "
		      "PN:01 } { SW Ports:08"));
	int lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	assert_int_equal(lines, 12); /* 6 links, both directions */
	assert_null(strstr(s, "{Z}"));
	free(s);
	cleanup(&x);
}

static void test_guid2lid_roots(void **state)
{
	struct fx x;
	struct guid2lid m = {0};
	char path[128], err[128], *s;

	(void)state;
	build(&x);
	assert_int_equal(dump_write_guid2lid(x.dir, &x.f), 0);
	s = slurp(x.dir, "guid2lid");
	assert_non_null(strstr(s, "0x0000000000100004 0x0004 0x0004\n\n"));
	assert_non_null(strstr(s, "0x0000000000200001 0x0003 0x0003\n\n"));
	free(s);
	snprintf(path, sizeof(path), "%s/guid2lid", x.dir);
	assert_int_equal(guid2lid_read(path, &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 6);
	assert_int_equal(guid2lid_get(&m, 0x10000a)->lo, 6);
	guid2lid_free(&m);
	assert_int_equal(dump_write_roots(x.dir, x.sw, 2), 0);
	s = slurp(x.dir, "updn-roots.dump");
	assert_string_equal(s, "0x0000000000200000\n0x0000000000200001\n");
	free(s);
	struct stat sb;
	snprintf(path, sizeof(path), "%s/guid2lid", x.dir);
	assert_int_equal(stat(path, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0644);
	/* no temporary files left behind */
	snprintf(path, sizeof(path), "ls %s | grep -q tmp", x.dir);
	assert_int_not_equal(system(path), 0);
	cleanup(&x);
}

/* Two MLIDs on Switch1: 0xC000 to ports 1 and 3, 0xC001 nowhere (not
 * written), nothing on Switch2 (no header). */
static int mft_entry(void *ctx, const struct ib_node *sw, uint32_t i,
		     uint16_t *mlid, uint64_t mask[4])
{
	(void)ctx;
	if (sw->guid != 0x200000 || i > 1)
		return 0;
	*mlid = (uint16_t)(0xC000 + i);
	memset(mask, 0, 4 * sizeof(uint64_t));
	if (i == 0)
		mask[0] = 1u << 1 | 1u << 3;
	return 1;
}

static void test_mfts(void **state)
{
	struct fx x;
	char *s;

	(void)state;
	build(&x);
	assert_int_equal(dump_write_mfts(x.dir, &x.f, mft_entry, NULL), 0);
	s = slurp(x.dir, "mfts.dump");
	assert_string_equal(
	    s, "\nSwitch 0x0000000000200000\nLID    : Out Port(s)\n"
	       "0xC000 : 0x001  0x003 \n");
	free(s);
	cleanup(&x);
}

static void test_bad_dir(void **state)
{
	struct fx x;

	(void)state;
	build(&x);
	assert_int_equal(dump_write_lfts("/nonexistent/dir", &x.f), -ENOENT);
	cleanup(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fdbs_and_lfts),
	    cmocka_unit_test(test_subnet_lst),
	    cmocka_unit_test(test_guid2lid_roots),
	    cmocka_unit_test(test_mfts),
	    cmocka_unit_test(test_bad_dir),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
