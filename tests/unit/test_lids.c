/* LID assignment (lib/lids.c) on hand-built fabrics: order, stability,
 * keeping valid LIDs, fixing clashes, LMC alignment, guid2lid reuse, and
 * what a LinearFDBCap too small for the fabric leaves out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/fabric.h"
#include "lib/lids.h"

/* S0 - S1 - S2 in a line; H0 on S0 port 5, H1 on S2 port 5, H2 on S1
 * port 6; SM on H0 port 1.  Z is a switch linked to nothing. */
struct line {
	struct fabric f;
	struct ib_node *sw[3], *h[3], *z;
};

static void build(struct line *l)
{
	fabric_init(&l->f);
	for (int i = 0; i < 3; i++) {
		char name[16];
		snprintf(name, sizeof(name), "S%d", i);
		l->sw[i] =
		    fabric_add_node(&l->f, IB_NODE_SWITCH, 0x100 + i, 8, name);
		snprintf(name, sizeof(name), "H%d", i);
		l->h[i] = fabric_add_node(&l->f, IB_NODE_CA, 0x200 + 0x10 * i,
					  2, name);
		assert_int_equal(fabric_set_port_guid(&l->f, &l->h[i]->ports[1],
						      0x201 + 0x10 * i),
				 0);
	}
	l->z = fabric_add_node(&l->f, IB_NODE_SWITCH, 0x999, 4, "Z");
	assert_int_equal(fabric_link(&l->f, l->sw[0], 1, l->sw[1], 1), 0);
	assert_int_equal(fabric_link(&l->f, l->sw[1], 2, l->sw[2], 1), 0);
	assert_int_equal(fabric_link(&l->f, l->sw[0], 5, l->h[0], 1), 0);
	assert_int_equal(fabric_link(&l->f, l->sw[2], 5, l->h[1], 1), 0);
	assert_int_equal(fabric_link(&l->f, l->sw[1], 6, l->h[2], 1), 0);
	l->f.sm_node = l->h[0];
	l->f.sm_port = 1;
}

static uint16_t hl(struct line *l, int i)
{
	return l->h[i]->ports[1].lid;
}
static uint16_t sl(struct line *l, int i)
{
	return l->sw[i]->ports[0].lid;
}

static void test_bfs_order(void **state)
{
	struct line l;
	struct lids_stats st;

	(void)state;
	build(&l);
	assert_int_equal(lids_assign(&l.f, NULL, 0, &st), 0);
	/* H0, S0, then S0's ports: 1 -> S1; 5 is H0 (seen); then S1's
	 * ports: 2 -> S2, 6 -> H2; then S2's port 5 -> H1. */
	assert_int_equal(hl(&l, 0), 1);
	assert_int_equal(sl(&l, 0), 2);
	assert_int_equal(sl(&l, 1), 3);
	assert_int_equal(sl(&l, 2), 4);
	assert_int_equal(hl(&l, 2), 5);
	assert_int_equal(hl(&l, 1), 6);
	assert_int_equal(l.sw[1]->ports[7].lid, 3); /* all switch ports */
	assert_int_equal(l.z->ports[0].lid, 0);	    /* unreachable */
	assert_int_equal(st.ports, 6);
	assert_int_equal(st.fresh, 6);
	assert_int_equal(st.unreachable, 1);
	assert_int_equal(l.f.max_lid, 6);
	assert_ptr_equal(fabric_port_by_lid(&l.f, 6), &l.h[1]->ports[1]);
	/* Stable on re-run: everything is kept. */
	assert_int_equal(lids_assign(&l.f, NULL, 0, &st), 0);
	assert_int_equal(st.kept, 6);
	assert_int_equal(hl(&l, 1), 6);
	fabric_free(&l.f);
}

static void test_keep_and_fix(void **state)
{
	struct line l;
	struct lids_stats st;

	(void)state;
	build(&l);
	fabric_set_lid(&l.f, &l.h[1]->ports[1], 100, 0);
	fabric_set_lid(&l.f, &l.sw[2]->ports[0], 7, 0);
	fabric_set_lid(&l.f, &l.h[2]->ports[1], 7, 0); /* clash: S2 wins */
	fabric_set_lid(&l.f, &l.z->ports[0], 50, 0);   /* unreachable */
	l.sw[0]->ports[0].lid = 0xC005;		       /* multicast */
	assert_int_equal(lids_assign(&l.f, NULL, 0, &st), 0);
	assert_int_equal(hl(&l, 1), 100);
	assert_int_equal(sl(&l, 2), 7);
	assert_int_not_equal(hl(&l, 2), 7);
	assert_int_equal(st.kept, 2);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(l.z->ports[0].lid, 0);
	assert_null(fabric_port_by_lid(&l.f, 50));
	/* All unique, fresh ones from 1 up in BFS order. */
	assert_int_equal(hl(&l, 0), 1);
	assert_int_equal(sl(&l, 0), 2);
	assert_int_equal(sl(&l, 1), 3);
	assert_int_equal(hl(&l, 2), 4);
	assert_int_equal(l.f.max_lid, 100);
	fabric_free(&l.f);
}

static void test_lmc(void **state)
{
	struct line l;
	struct lids_stats st;

	(void)state;
	build(&l);
	fabric_set_lid(&l.f, &l.h[1]->ports[1], 6, 2); /* misaligned for 4 */
	fabric_set_lid(&l.f, &l.h[2]->ports[1], 8, 2); /* aligned: kept */
	assert_int_equal(lids_assign(&l.f, NULL, 2, &st), 0);
	assert_int_equal(hl(&l, 2), 8);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(hl(&l, i) % 4, 0);
		assert_int_equal(l.h[i]->ports[1].lmc, 2);
		for (int k = 0; k < 4; k++)
			assert_ptr_equal(
			    fabric_port_by_lid(&l.f, hl(&l, i) + k),
			    &l.h[i]->ports[1]);
	}
	/* Fresh LIDs go forward from one cursor: H0 is first in BFS order
	 * and takes the first aligned range, 4..7. */
	assert_int_equal(hl(&l, 0), 4);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(l.sw[i]->ports[0].lmc, 0);
		struct ib_port *o = fabric_port_by_lid(&l.f, sl(&l, i));
		assert_ptr_equal(o, &l.sw[i]->ports[0]);
	}
	assert_int_not_equal(hl(&l, 1), 6);
	fabric_free(&l.f);
}

static void test_guid2lid_reuse(void **state)
{
	struct line l;
	struct lids_stats st;
	struct guid2lid m = {0};
	char path[] = "/tmp/test_lids.XXXXXX", err[256];
	int fd = mkstemp(path);
	FILE *fp;

	(void)state;
	assert_true(fd >= 0);
	fp = fdopen(fd, "w");
	/* OpenSM writes a blank line after each entry. */
	fprintf(fp, "0x0000000000000201 0x0020 0x0020\n\n"
		    "0x0000000000000102 0x0030 0x0030\n\n"
		    "# comment\n0x0000000000000221 33 33\n");
	fclose(fp);
	assert_int_equal(guid2lid_read(path, &m, err, sizeof(err)), 0);
	assert_int_equal(m.n, 3);
	assert_int_equal(guid2lid_get(&m, 0x102)->lo, 0x30);
	build(&l);
	fabric_set_lid(&l.f, &l.h[1]->ports[1], 0x30, 0); /* clash with map */
	assert_int_equal(lids_assign(&l.f, &m, 0, &st), 0);
	assert_int_equal(hl(&l, 0), 0x20);
	assert_int_equal(hl(&l, 1), 0x30); /* existing LIDs win over the map */
	assert_int_not_equal(sl(&l, 2), 0x30);
	assert_int_equal(hl(&l, 2), 33);
	assert_int_equal(st.from_map, 2);
	guid2lid_free(&m);
	/* A damaged line is skipped and named; the lines around it count. */
	fp = fopen(path, "w");
	fprintf(fp, "0x0000000000000201 1 1\nbogus\n0x0000000000000202 2 2\n"
		    "0x0000000000000203 7 3\n0x0000000000000201 9 9\n"
		    "0x00000000000002\n");
	fclose(fp);
	assert_int_equal(guid2lid_read(path, &m, err, sizeof(err)), 4);
	assert_non_null(strstr(err, ":2:"));
	assert_int_equal(m.n, 2);
	assert_int_equal(guid2lid_get(&m, 0x201)->lo, 1); /* first line wins */
	assert_int_equal(guid2lid_get(&m, 0x202)->lo, 2);
	assert_null(guid2lid_get(&m, 0x203));
	guid2lid_free(&m);
	unlink(path);
	fabric_free(&l.f);
}

static void test_sm_on_switch(void **state)
{
	struct line l;
	struct lids_stats st;

	(void)state;
	build(&l);
	l.f.sm_node = l.sw[1];
	l.f.sm_port = 0;
	assert_int_equal(lids_assign(&l.f, NULL, 0, &st), 0);
	assert_int_equal(sl(&l, 1), 1);
	assert_int_equal(sl(&l, 0), 2);
	assert_int_equal(sl(&l, 2), 3);
	assert_int_equal(hl(&l, 2), 4);
	assert_int_equal(hl(&l, 0), 5);
	assert_int_equal(hl(&l, 1), 6);
	l.f.sm_node = NULL;
	assert_int_equal(lids_assign(&l.f, NULL, 0, &st), -EINVAL);
	fabric_free(&l.f);
}

/* The map's index: many puts, updates in place, gets after a read. */
static void test_map_index(void **state)
{
	struct guid2lid m = {0};

	(void)state;
	for (uint32_t i = 0; i < 50000; i++)
		assert_int_equal(guid2lid_put(&m, 0x1000 + 7 * (uint64_t)i,
					      (uint16_t)(i % 40000 + 1),
					      (uint16_t)(i % 40000 + 1)),
				 0);
	assert_int_equal(m.n, 50000);
	assert_int_equal(guid2lid_put(&m, 0x1000 + 7 * 123, 9, 9), 0);
	assert_int_equal(m.n, 50000);
	assert_int_equal(guid2lid_get(&m, 0x1000 + 7 * 123)->lo, 9);
	assert_int_equal(guid2lid_get(&m, 0x1000 + 7 * 49999)->lo, 9999 + 1);
	assert_null(guid2lid_get(&m, 0x1001));
	guid2lid_free(&m);
}

/* One switch S of nports ports with LinearFDBCap cap, a host on every
 * port; the SM on H1. */
struct star {
	struct fabric f;
	struct ib_node *sw, *h[255];
	unsigned n;
};

static void build_star(struct star *t, unsigned n, uint16_t cap)
{
	fabric_init(&t->f);
	t->n = n;
	t->sw = fabric_add_node(&t->f, IB_NODE_SWITCH, 0x100, (uint8_t)n, "S");
	t->sw->lft_cap = cap;
	for (unsigned i = 0; i < n; i++) {
		char name[16];
		snprintf(name, sizeof(name), "H%u", i + 1);
		t->h[i] =
		    fabric_add_node(&t->f, IB_NODE_CA, 0x1000 + 2 * i, 1, name);
		assert_int_equal(fabric_set_port_guid(&t->f, &t->h[i]->ports[1],
						      0x1001 + 2 * i),
				 0);
		assert_int_equal(
		    fabric_link(&t->f, t->sw, (uint8_t)(i + 1), t->h[i], 1), 0);
	}
	t->f.sm_node = t->h[0];
	t->f.sm_port = 1;
}

/* 80 hosts and a switch need 81 LIDs; a cap of 100 holds one whole
 * block, LIDs 0..63: the switch and 62 hosts get LIDs, in BFS order, the
 * last 18 hosts none, and the message names the cap. */
static void test_cap_leaves_hosts_out(void **state)
{
	struct star t;
	struct lids_stats st;
	char msg[512];

	(void)state;
	build_star(&t, 80, 100);
	assert_int_equal(lids_assign(&t.f, NULL, 0, &st), 0);
	assert_int_equal(st.limit, 64);
	assert_int_not_equal(t.sw->ports[0].lid, 0);
	assert_int_equal(st.no_lid, 18);
	assert_int_equal(st.needed, 81);
	assert_true(t.f.max_lid < 64);
	for (unsigned i = 0; i < 80; i++) {
		assert_true(t.h[i]->ports[1].lid < 64);
		assert_true((t.h[i]->ports[1].lid != 0) == (i < 62));
		assert_true(lids_link_unrouted(&t.sw->ports[i + 1]) ==
			    (i >= 62));
	}
	assert_int_equal(lids_limit_message(&st, 0, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg,
			       "LinearFDBCap 100 of S is below the 81 "
			       "LIDs this fabric needs: 18 ports get no LID"));
	assert_non_null(strstr(msg, "(H63, H64, H65, H66 and 14 more)"));
	fabric_free(&t.f);
}

/* The same ports win again: with the LIDs kept (a restart under the same
 * switches), and from guid2lid alone (LIDs lost, another BFS order). */
static void test_cap_deterministic(void **state)
{
	struct star a, b;
	struct lids_stats st;
	struct guid2lid m = {0};
	uint16_t first[80];

	(void)state;
	build_star(&a, 80, 64);
	assert_int_equal(lids_assign(&a.f, NULL, 0, &st), 0);
	for (unsigned i = 0; i < 80; i++) {
		first[i] = a.h[i]->ports[1].lid;
		if (first[i])
			assert_int_equal(guid2lid_put(&m, 0x1001 + 2 * i,
						      first[i], first[i]),
					 0);
	}
	assert_int_equal(
	    guid2lid_put(&m, 0x100, a.sw->ports[0].lid, a.sw->ports[0].lid), 0);
	assert_int_equal(lids_assign(&a.f, NULL, 0, &st), 0);
	assert_int_equal(st.kept, 63);
	for (unsigned i = 0; i < 80; i++)
		assert_int_equal(a.h[i]->ports[1].lid, first[i]);
	build_star(&b, 80, 64);
	assert_int_equal(lids_assign(&b.f, &m, 0, &st), 0);
	assert_int_equal(st.from_map, 63);
	for (unsigned i = 0; i < 80; i++)
		assert_int_equal(b.h[i]->ports[1].lid, first[i]);
	/* The SM's own port always gets one: moved to H80, it takes the
	 * lowest free LID before the other hosts claim theirs, and the host
	 * that held it (H1) is the one left out. */
	fabric_free(&b.f);
	build_star(&b, 80, 64);
	b.f.sm_node = b.h[79];
	assert_int_equal(lids_assign(&b.f, &m, 0, &st), 0);
	assert_int_equal(b.h[79]->ports[1].lid, first[0]);
	assert_int_equal(b.h[0]->ports[1].lid, 0);
	for (unsigned i = 1; i < 79; i++)
		assert_int_equal(b.h[i]->ports[1].lid, first[i]);
	guid2lid_free(&m);
	fabric_free(&a.f);
	fabric_free(&b.f);
}

/* LMC 2 for 21 ports needs 88 LFT entries, more than a cap of 64 holds:
 * every port gets LMC 1 instead, and all stay routable. */
static void test_cap_lowers_lmc(void **state)
{
	struct star t;
	struct lids_stats st;
	char msg[512];

	(void)state;
	build_star(&t, 20, 64);
	assert_int_equal(lids_assign(&t.f, NULL, 2, &st), 0);
	assert_int_equal(st.lmc, 1);
	assert_int_equal(st.no_lid, 0);
	for (unsigned i = 0; i < 20; i++) {
		assert_int_equal(t.h[i]->ports[1].lmc, 1);
		assert_int_equal(t.h[i]->ports[1].lid % 2, 0);
		assert_true(t.h[i]->ports[1].lid + 1 < 64);
	}
	assert_int_equal(lids_limit_message(&st, 2, msg, sizeof(msg)), 1);
	assert_non_null(strstr(msg, "LinearFDBCap 64 of S is below the 84 "
				    "LIDs this fabric needs at LMC 2; every "
				    "port gets LMC 1 (2 LIDs) instead"));
	/* what fits says nothing */
	assert_int_equal(lids_assign(&t.f, NULL, 1, &st), 0);
	assert_int_equal(lids_limit_message(&st, 1, msg, sizeof(msg)), 0);
	fabric_free(&t.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bfs_order),
	    cmocka_unit_test(test_keep_and_fix),
	    cmocka_unit_test(test_lmc),
	    cmocka_unit_test(test_guid2lid_reuse),
	    cmocka_unit_test(test_sm_on_switch),
	    cmocka_unit_test(test_map_index),
	    cmocka_unit_test(test_cap_leaves_hosts_out),
	    cmocka_unit_test(test_cap_deterministic),
	    cmocka_unit_test(test_cap_lowers_lmc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
