/* minhop engine on hand-built fabrics: every entry a min-hop port, own LID
 * on port 0, balance over parallel links and over neighbours, switch LIDs
 * routed, deterministic results, metrics filled. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric.h"
#include "lib/lids.h"
#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "updown_fab.h"

static struct ib_node *sw_add(struct fabric *f, uint64_t g, int np,
			      const char *name)
{
	struct ib_node *n = fabric_add_node(f, IB_NODE_SWITCH, g, np, name);
	assert_non_null(n);
	return n;
}

static struct ib_node *host_add(struct fabric *f, uint64_t g,
				struct ib_node *sw, int port)
{
	char name[32];
	struct ib_node *n;

	snprintf(name, sizeof(name), "H%llx", (unsigned long long)g);
	n = fabric_add_node(f, IB_NODE_CA, g, 1, name);
	assert_non_null(n);
	assert_int_equal(fabric_set_port_guid(f, &n->ports[1], g + 1), 0);
	assert_int_equal(fabric_link(f, sw, port, n, 1), 0);
	if (!f->sm_node) {
		f->sm_node = n;
		f->sm_port = 1;
	}
	return n;
}

/* Routes f with the real engine and checks what must hold everywhere:
 * own LID on port 0, every other LID out of a min-hop port. */
static void route_and_check(struct fabric *f, struct pool *pool,
			    struct ucast_result *res)
{
	struct lids_stats st;
	struct hops h = {0};
	const struct ucast_engine *e = ucast_engine_find("minhop");

	assert_int_equal(lids_assign(f, NULL, 0, &st), 0);
	assert_int_equal(hops_compute(f, &h, pool), 0);
	memset(res, 0, sizeof(*res));
	assert_non_null(e);
	assert_int_equal(e->route(f, &h, pool, NULL, res), 0);
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		assert_true(sw->lft_size > f->max_lid);
		for (unsigned l = 1; l <= f->max_lid; l++) {
			struct ib_port *dst =
			    fabric_port_by_lid(f, (uint16_t)l);
			uint8_t p = sw->lft[l], best = HOPS_INF;
			if (!dst)
				continue;
			if (dst == &sw->ports[0]) {
				assert_int_equal(p, 0);
				continue;
			}
			for (unsigned q = 1; q <= sw->nports; q++) {
				uint8_t d = hops_via_port(f, &h, sw, q, dst);
				if (d < best)
					best = d;
			}
			assert_true(p >= 1 && p <= sw->nports);
			assert_int_equal(hops_via_port(f, &h, sw, p, dst),
					 best);
		}
	}
	hops_free(&h);
}

/* Two switches joined by two parallel links (ports 3 and 5), two hosts
 * on each: the ibsim example net.2sw2path4hca. */
static void test_parallel_links(void **state)
{
	struct fabric f;
	struct ib_node *s1, *s2;
	struct ucast_result res;
	unsigned on3 = 0, on5 = 0;

	(void)state;
	fabric_init(&f);
	s1 = sw_add(&f, 0x20, 8, "Switch1");
	s2 = sw_add(&f, 0x21, 8, "Switch2");
	host_add(&f, 0x100, s1, 1);
	host_add(&f, 0x110, s1, 2);
	host_add(&f, 0x120, s2, 1);
	host_add(&f, 0x130, s2, 2);
	assert_int_equal(fabric_link(&f, s1, 3, s2, 3), 0);
	assert_int_equal(fabric_link(&f, s1, 5, s2, 5), 0);
	route_and_check(&f, NULL, &res);
	/* Switch2's LID and its two hosts: 3 routes over 2 links. */
	for (unsigned l = 1; l <= f.max_lid; l++) {
		struct ib_port *d = fabric_port_by_lid(&f, (uint16_t)l);
		struct ib_node *home =
		    node_is_switch(d->node) ? d->node : d->remote->node;
		if (home != s2)
			continue;
		on3 += s1->lft[l] == 3;
		on5 += s1->lft[l] == 5;
	}
	assert_int_equal(on3 + on5, 3);
	assert_true(on3 >= 1 && on5 >= 1);
	assert_int_equal(res.unreachable_pairs, 0);
	assert_int_equal(res.max_hops, 3);
	fabric_free(&f);
}

/* S0 reaches S3 through S1 (ports 1, 2: parallel) or S2 (ports 3, 4). */
static void test_neighbour_balance(void **state)
{
	struct fabric f;
	struct ib_node *s[4];
	struct ucast_result res;
	unsigned per_port[5] = {0};

	(void)state;
	fabric_init(&f);
	for (int i = 0; i < 4; i++) {
		char n[16];
		snprintf(n, sizeof(n), "S%d", i);
		s[i] = sw_add(&f, 0x10 + i, 8, n);
	}
	host_add(&f, 0x100, s[0], 8);
	assert_int_equal(fabric_link(&f, s[0], 1, s[1], 1), 0);
	assert_int_equal(fabric_link(&f, s[0], 2, s[1], 2), 0);
	assert_int_equal(fabric_link(&f, s[0], 3, s[2], 1), 0);
	assert_int_equal(fabric_link(&f, s[0], 4, s[2], 2), 0);
	assert_int_equal(fabric_link(&f, s[1], 3, s[3], 1), 0);
	assert_int_equal(fabric_link(&f, s[2], 3, s[3], 2), 0);
	for (int i = 0; i < 3; i++)
		host_add(&f, 0x200 + 0x10 * i, s[3], 5 + i);
	route_and_check(&f, NULL, &res);
	/* S1 and S2 each took one route (their own LIDs); S3's 4 LIDs must
	 * then fill ports 2 and 4 before reusing 1 and 3: one each. */
	for (unsigned l = 1; l <= f.max_lid; l++) {
		struct ib_port *d = fabric_port_by_lid(&f, (uint16_t)l);
		struct ib_node *home =
		    node_is_switch(d->node) ? d->node : d->remote->node;
		if (home == s[3])
			per_port[s[0]->lft[l]]++;
	}
	for (int p = 1; p <= 4; p++)
		assert_int_equal(per_port[p], 1);
	assert_int_equal(res.unreachable_pairs, 0);
	fabric_free(&f);
}

/* A 2-level fat tree: 4 leaves of 3 hosts, 3 spines, one link from every
 * leaf to every spine. */
static void build_fat_tree(struct fabric *f, struct ib_node **leaf,
			   struct ib_node **spine)
{
	fabric_init(f);
	for (int i = 0; i < 4; i++) {
		char n[16];
		snprintf(n, sizeof(n), "L%d", i);
		leaf[i] = sw_add(f, 0x10 + i, 8, n);
		for (int k = 0; k < 3; k++)
			host_add(f, 0x1000 + 0x10 * (i * 3 + k), leaf[i],
				 1 + k);
	}
	for (int j = 0; j < 3; j++) {
		char n[16];
		snprintf(n, sizeof(n), "T%d", j);
		spine[j] = sw_add(f, 0x20 + j, 8, n);
		for (int i = 0; i < 4; i++)
			assert_int_equal(
			    fabric_link(f, leaf[i], 5 + j, spine[j], 1 + i), 0);
	}
}

/* The same fat tree with its nodes added spines first and leaves in
 * reverse: same GUIDs, ports and SM node, so the same LIDs; the tables
 * must not depend on where nodes sit in the model. */
static void build_fat_tree_reversed(struct fabric *f)
{
	struct ib_node *leaf[4], *spine[3];

	fabric_init(f);
	for (int j = 2; j >= 0; j--) {
		char n[16];
		snprintf(n, sizeof(n), "T%d", j);
		spine[j] = sw_add(f, 0x20 + j, 8, n);
	}
	for (int i = 3; i >= 0; i--) {
		char n[16];
		snprintf(n, sizeof(n), "L%d", i);
		leaf[i] = sw_add(f, 0x10 + i, 8, n);
	}
	for (int i = 3; i >= 0; i--)
		for (int k = 2; k >= 0; k--)
			host_add(f, 0x1000 + 0x10 * (i * 3 + k), leaf[i],
				 1 + k);
	for (int j = 0; j < 3; j++)
		for (int i = 0; i < 4; i++)
			assert_int_equal(
			    fabric_link(f, leaf[i], 5 + j, spine[j], 1 + i), 0);
	f->sm_node = fabric_node_by_guid(f, 0x1000);
	f->sm_port = 1;
}

static void test_node_order(void **state)
{
	struct fabric f, g;
	struct ib_node *leaf[4], *spine[3];
	struct ucast_result res;

	(void)state;
	build_fat_tree(&f, leaf, spine);
	build_fat_tree_reversed(&g);
	route_and_check(&f, NULL, &res);
	route_and_check(&g, NULL, &res);
	assert_int_equal(f.max_lid, g.max_lid);
	for (uint32_t s = 0; s < f.n_switches; s++) {
		struct ib_node *a = f.switches[s];
		struct ib_node *b = fabric_node_by_guid(&g, a->guid);
		assert_int_equal(a->ports[0].lid, b->ports[0].lid);
		assert_memory_equal(a->lft, b->lft, f.max_lid + 1);
	}
	fabric_free(&f);
	fabric_free(&g);
}

static void test_fat_tree_balance(void **state)
{
	struct fabric f, g;
	struct ib_node *leaf[4], *spine[3], *leaf2[4], *spine2[3];
	struct ucast_result res;
	struct pool *pool = pool_create(2);

	(void)state;
	build_fat_tree(&f, leaf, spine);
	route_and_check(&f, pool, &res);
	/* Every up port of a leaf carries an equal share of the routes,
	 * give or take one. */
	for (int i = 0; i < 4; i++) {
		unsigned up[3] = {0};
		for (unsigned l = 1; l <= f.max_lid; l++) {
			uint8_t p = leaf[i]->lft[l];
			if (p >= 5 && p <= 7)
				up[p - 5]++;
		}
		unsigned mn = up[0], mx = up[0];
		for (int j = 1; j < 3; j++) {
			mn = up[j] < mn ? up[j] : mn;
			mx = up[j] > mx ? up[j] : mx;
		}
		assert_true(mx - mn <= 1);
		/* the 3 hosts of one remote leaf use 3 different spines */
		for (int r = 0; r < 4; r++) {
			unsigned seen = 0;
			if (r == i)
				continue;
			for (int p = 1; p <= 3; p++) {
				uint16_t lid = leaf[r]->ports[p].remote->lid;
				seen |= 1u << leaf[i]->lft[lid];
			}
			assert_int_equal(__builtin_popcount(seen), 3);
		}
	}
	assert_int_equal(res.unreachable_pairs, 0);
	assert_int_equal(res.max_hops, 4);
	/* A leaf's 9 remote hosts spread over 3 up links, 3 each, each
	 * reached from the leaf's 3 hosts: 9 routes per up link; a spine
	 * takes one host of each leaf from each of 3 other leaves' 3 hosts:
	 * 9 routes per down link. */
	assert_int_equal(res.max_link_routes, 9);
	/* Deterministic: a second fabric built the same way gets the same
	 * tables, with one thread. */
	build_fat_tree(&g, leaf2, spine2);
	route_and_check(&g, NULL, &res);
	for (uint32_t s = 0; s < f.n_switches; s++)
		assert_memory_equal(f.switches[s]->lft, g.switches[s]->lft,
				    f.max_lid + 1);
	fabric_free(&f);
	fabric_free(&g);
	pool_destroy(pool);
}

/* LMC 1: both LIDs of a remote host are routed, over different links. */
static void test_lmc(void **state)
{
	struct fabric f;
	struct ib_node *s1, *s2, *h2;
	struct hops h = {0};
	struct lids_stats st;
	struct lft_check c;
	char err[128];

	(void)state;
	fabric_init(&f);
	s1 = sw_add(&f, 0x20, 8, "Switch1");
	s2 = sw_add(&f, 0x21, 8, "Switch2");
	host_add(&f, 0x100, s1, 1);
	h2 = host_add(&f, 0x120, s2, 1);
	assert_int_equal(fabric_link(&f, s1, 3, s2, 3), 0);
	assert_int_equal(fabric_link(&f, s1, 5, s2, 5), 0);
	assert_int_equal(lids_assign(&f, NULL, 1, &st), 0);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(minhop_fill_lfts(&f, &h, NULL, err, sizeof(err)), 0);
	uint16_t l = h2->ports[1].lid;
	assert_int_equal(l % 2, 0);
	assert_true(s1->lft[l] == 3 || s1->lft[l] == 5);
	assert_true(s1->lft[l + 1] == 3 || s1->lft[l + 1] == 5);
	assert_int_not_equal(s1->lft[l], s1->lft[l + 1]);
	assert_int_equal(s2->lft[l], 1);
	assert_int_equal(s2->lft[l + 1], 1);
	assert_int_equal(verify_lft(&f, &h, NULL, &c), 0);
	assert_int_equal(c.unreachable_pairs, 0);
	assert_int_equal(c.lmc_unreachable, 0);
	assert_int_equal(c.ca_pairs, 2);
	hops_free(&h);
	fabric_free(&f);
}

/* LMC 2 on a 2-level tree whose leaves have as many hosts as up links:
 * taken in rounds, every LID of a host left by the same link; now the
 * four take four links, and each offset is spread evenly. */
static void test_lmc_spread(void **state)
{
	struct fabric f;
	struct hops h = {0};
	const char *fault;
	char err[128];

	(void)state;
	fab_fattree2(&f, 6, 12, 6);
	assert_int_equal(fab_relid(&f, 2), 0);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(minhop_fill_lfts(&f, &h, NULL, err, sizeof(err)), 0);
	fault = fab_lmc_fault(&f, 2);
	if (fault)
		fail_msg("%s", fault);
	hops_free(&h);
	fabric_free(&f);
}

static void test_unreachable_half(void **state)
{
	struct fabric f;
	struct ib_node *s1, *s2;
	struct hops h = {0};
	struct lids_stats st;
	char err[128];
	struct lft_check c;

	(void)state;
	fabric_init(&f);
	s1 = sw_add(&f, 0x20, 4, "A");
	s2 = sw_add(&f, 0x21, 4, "B");
	host_add(&f, 0x100, s1, 1);
	host_add(&f, 0x110, s2, 1);
	assert_int_equal(fabric_link(&f, s1, 3, s2, 3), 0);
	assert_int_equal(lids_assign(&f, NULL, 0, &st), 0);
	fabric_unlink(&s1->ports[3]); /* LIDs stay, the link goes */
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(minhop_fill_lfts(&f, &h, NULL, err, sizeof(err)), 0);
	assert_int_equal(s1->lft[s2->ports[0].lid], LFT_NO_PORT);
	assert_int_equal(verify_lft(&f, &h, NULL, &c), 0);
	assert_int_equal(c.ca_pairs, 2);
	assert_int_equal(c.unreachable_pairs, 2);
	assert_int_equal(c.sw_unreachable, 2);
	assert_true(strlen(c.first_error) > 0);
	hops_free(&h);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parallel_links),
	    cmocka_unit_test(test_neighbour_balance),
	    cmocka_unit_test(test_fat_tree_balance),
	    cmocka_unit_test(test_lmc),
	    cmocka_unit_test(test_lmc_spread),
	    cmocka_unit_test(test_node_order),
	    cmocka_unit_test(test_unreachable_half),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
