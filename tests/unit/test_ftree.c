/* ftree engine on hand-built fat trees whose right answers are known:
 * every shift congestion-free and all pairs at the lower bound on full
 * trees of 2 and 3 levels, the LIDs of an LMC range on different links,
 * a repair that moves only what the failure touched, routing as minhop off
 * trees, tables independent of the model's node order; updown with the
 * top level as roots gets the same host routes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ca_order.h"
#include "routing/engines.h"
#include "routing/unicast/ftree.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "updown_fab.h"

struct routed {
	struct hops h;
	struct ucast_result res;
	struct lft_check chk;
	struct shift_report sh;
};

static void route_with(struct fabric *f, const char *engine,
		       const struct ucast_params *prm, struct routed *r)
{
	const struct ucast_engine *e = ucast_engine_find(engine);

	assert_non_null(e);
	memset(r, 0, sizeof(*r));
	assert_int_equal(hops_compute(f, &r->h, NULL), 0);
	assert_int_equal(e->route(f, &r->h, NULL, prm, &r->res), 0);
	assert_int_equal(verify_lft(f, &r->h, NULL, &r->chk), 0);
	assert_int_equal(verify_shifts(f, NULL, 0, &r->sh), 0);
	assert_int_equal(r->chk.unreachable_pairs, 0);
	assert_int_equal(r->chk.non_shortest_pairs, 0);
	assert_int_equal(r->sh.undelivered, 0);
}

static void routed_free(struct routed *r)
{
	ucast_result_free(&r->res);
	hops_free(&r->h);
}

/* Full trees: every shift congestion-free; the busiest link of all pairs
 * is what a leaf's hosts send out, N - hosts per leaf over as many up
 * links (124 for k = 8, against 448 with minhop). */
static void test_full_trees(void **state)
{
	static const unsigned ks[] = {4, 6, 8};
	struct fabric f;
	struct routed r;

	(void)state;
	for (size_t i = 0; i < sizeof(ks) / sizeof(*ks); i++) {
		unsigned k = ks[i], n = k * k * k / 4;
		fab_fattree3(&f, k, k / 2);
		route_with(&f, "ftree", NULL, &r);
		assert_int_equal(r.sh.hosts, n);
		assert_int_equal(r.sh.congestion_free, n - 1);
		assert_int_equal(r.sh.worst, 1);
		assert_int_equal(r.chk.max_link_routes, n - k / 2);
		assert_true(r.res.ca_order);
		assert_non_null(r.res.state);
		routed_free(&r);
		fabric_free(&f);
	}
	fab_fattree2(&f, 8, 16, 8);
	route_with(&f, "ftree", NULL, &r);
	assert_int_equal(r.sh.congestion_free, 127);
	assert_int_equal(r.chk.max_link_routes, 120);
	routed_free(&r);
	fabric_free(&f);
}

/* The same trees are congested with minhop: what the engine is for. */
static void test_minhop_congests(void **state)
{
	struct fabric f;
	struct routed r;

	(void)state;
	fab_fattree3(&f, 8, 4);
	route_with(&f, "minhop", NULL, &r);
	assert_true(r.sh.congestion_free < r.sh.shifts);
	assert_true(r.chk.max_link_routes > 124);
	routed_free(&r);
	fabric_free(&f);
}

/* LMC 2: each LID offset is routed as well as the base LIDs, and at every
 * leaf the four LIDs of a remote host leave by four up links. */
static void test_lmc(void **state)
{
	struct fabric f;
	struct routed r;
	struct ca_slot *hosts;
	uint32_t n;

	(void)state;
	fab_fattree3(&f, 8, 4);
	assert_int_equal(fab_relid(&f, 2), 0);
	route_with(&f, "ftree", NULL, &r);
	assert_int_equal(r.sh.congestion_free, 127);
	assert_int_equal(r.chk.lmc_unreachable, 0);
	assert_int_equal(ca_order(&f, &hosts, &n), 0);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t b = 0; b < n; b++) {
			const struct ib_node *leaf = hosts[a].sw;
			uint16_t lid = hosts[b].port->lid;
			uint8_t p[4];
			if (hosts[b].sw == leaf)
				continue;
			for (int o = 0; o < 4; o++)
				p[o] = leaf->lft[lid + o];
			for (int o = 0; o < 4; o++)
				for (int q = o + 1; q < 4; q++)
					assert_int_not_equal(p[o], p[q]);
		}
	free(hosts);
	routed_free(&r);
	fabric_free(&f);
}

/* LMC 2 on a 2-level tree: each offset spread over a leaf's up links as
 * evenly as the base LIDs, the four LIDs of a host on four links. */
static void test_lmc_spread(void **state)
{
	struct fabric f;
	struct routed r;
	const char *fault;

	(void)state;
	fab_fattree2(&f, 6, 12, 6);
	assert_int_equal(fab_relid(&f, 2), 0);
	route_with(&f, "ftree", NULL, &r);
	fault = fab_lmc_fault(&f, 2);
	if (fault)
		fail_msg("%s", fault);
	routed_free(&r);
	fabric_free(&f);
}

/* A leaf loses an up link: routed with keep_lft and the state, as the
 * daemon's incremental sweep routes, the entries that change are a few of
 * those a fresh computation changes, and the busiest links are the same. */
static void test_repair(void **state)
{
	struct fabric f, keep, fresh;
	struct routed r, rk, rf;
	struct ucast_params prm = {.keep_lft = true};
	struct ib_node *leaf = NULL;
	uint64_t ck = 0, cf = 0;

	(void)state;
	fab_fattree3(&f, 8, 4);
	route_with(&f, "ftree", NULL, &r);
	assert_int_equal(fabric_copy(&keep, &f), 0);
	for (uint32_t s = 0; !leaf && s < keep.n_switches; s++)
		if (!strcmp(keep.switches[s]->desc, "edge0"))
			leaf = keep.switches[s];
	assert_non_null(leaf);
	fabric_unlink(&leaf->ports[1]); /* its first up link */
	assert_int_equal(fabric_copy(&fresh, &keep), 0);
	prm.prev = r.res.state;
	route_with(&keep, "ftree", &prm, &rk);
	route_with(&fresh, "ftree", NULL, &rf);
	for (uint32_t s = 0; s < f.n_switches; s++)
		for (uint32_t l = 1; l <= f.max_lid; l++) {
			ck += f.switches[s]->lft[l] != keep.switches[s]->lft[l];
			cf +=
			    f.switches[s]->lft[l] != fresh.switches[s]->lft[l];
		}
	assert_true(ck > 0 && ck * 5 < cf);
	assert_true(rk.chk.max_link_routes * 10 <= rf.chk.max_link_routes * 11);
	assert_true(rk.sh.mean_busiest <= rf.sh.mean_busiest * 1.1);
	routed_free(&r);
	routed_free(&rk);
	routed_free(&rf);
	fabric_free(&f);
	fabric_free(&keep);
	fabric_free(&fresh);
}

/* Off trees (a torus) ftree routes exactly as minhop. */
static void test_not_a_tree(void **state)
{
	struct fabric a, b;
	struct routed ra, rb;
	struct ft_tree t;
	struct hops h = {0};
	char why[160];

	(void)state;
	fab_torus(&a, 3, 3, 1, 1);
	fab_torus(&b, 3, 3, 1, 1);
	assert_int_equal(hops_compute(&a, &h, NULL), 0);
	assert_int_equal(ft_tree_build(&a, &h, NULL, &t, why, sizeof(why)),
			 -ENOTSUP);
	hops_free(&h);
	route_with(&a, "ftree", NULL, &ra);
	route_with(&b, "minhop", NULL, &rb);
	for (uint32_t s = 0; s < a.n_switches; s++)
		assert_memory_equal(a.switches[s]->lft, b.switches[s]->lft,
				    a.max_lid + 1);
	assert_false(ra.res.ca_order);
	routed_free(&ra);
	routed_free(&rb);
	fabric_free(&a);
	fabric_free(&b);
}

/* Levels and groups: leaves 0, aggregation 1, cores 2; a leaf's up groups
 * are its pod's aggregation switches; via finds the core above. */
static void test_levels(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ft_tree t;
	char why[160];

	(void)state;
	fab_fattree3(&f, 4, 2);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(ft_tree_build(&f, &h, NULL, &t, why, sizeof(why)), 0);
	assert_int_equal(t.height, 2);
	for (uint32_t s = 0; s < f.n_switches; s++) {
		const char *d = f.switches[s]->desc;
		unsigned want = !strncmp(d, "edge", 4)	? 0
				: !strncmp(d, "agg", 3) ? 1
							: 2;
		assert_int_equal(t.level[s], want);
		assert_int_equal(t.nup[s], want == 2 ? 0 : 2);
		if (want == 0) /* a leaf reaches every core, each one way */
			for (uint32_t c = 0; c < f.n_switches; c++)
				if (t.level[c] == 2)
					assert_true(ft_via(&t, s, c) < 2);
	}
	ft_tree_free(&t);
	hops_free(&h);
	fabric_free(&f);
}

/* A link between two switches of one level (two leaves) is no tree. */
static void test_cross_link(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ft_tree t;
	struct ib_node *a = NULL, *b = NULL;
	char why[160];

	(void)state;
	fab_fattree2(&f, 2, 3, 2);
	for (uint32_t s = 0; s < f.n_switches; s++)
		if (!strncmp(f.switches[s]->desc, "leaf", 4))
			*(a ? &b : &a) = f.switches[s];
	fabric_unlink(&a->ports[4]); /* a host each */
	fabric_unlink(&b->ports[4]);
	assert_int_equal(fabric_link(&f, a, 4, b, 4), 0);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(ft_tree_build(&f, &h, NULL, &t, why, sizeof(why)),
			 -ENOTSUP);
	assert_non_null(strstr(why, "joins levels 0 and 0"));
	hops_free(&h);
	fabric_free(&f);
}

/* The daemon's model holds nodes in discovery order, ibsmroute's in file
 * order: the tables must not depend on it. */
static void test_node_order(void **state)
{
	struct fabric a, b;
	struct routed ra, rb;

	(void)state;
	fab_fattree3(&a, 6, 3);
	fab_fattree3(&b, 6, 3);
	/* b: the same nodes, switches in reverse order */
	for (uint32_t i = 0; i < b.n_switches / 2; i++) {
		struct ib_node *x = b.switches[i];
		uint32_t j = b.n_switches - 1 - i;
		b.switches[i] = b.switches[j];
		b.switches[j] = x;
		b.switches[i]->sw_idx = (int32_t)i;
		b.switches[j]->sw_idx = (int32_t)j;
	}
	route_with(&a, "ftree", NULL, &ra);
	route_with(&b, "ftree", NULL, &rb);
	for (uint32_t s = 0; s < a.n_switches; s++) {
		const struct ib_node *sa = a.switches[s];
		const struct ib_node *sb = fabric_node_by_guid(&b, sa->guid);
		assert_memory_equal(sa->lft, sb->lft, a.max_lid + 1);
	}
	routed_free(&ra);
	routed_free(&rb);
	fabric_free(&a);
	fabric_free(&b);
}

/* updown on a fat tree: roots = the top level, the same host routes as
 * ftree where host traffic goes (the leaves send every remote host up its
 * chain's column; switches off every chain keep updown's own choice), the
 * same loads, and its own check passes. */
static void test_updown_on_tree(void **state)
{
	struct fabric a, b;
	struct routed ra, rb;

	(void)state;
	fab_fattree3(&a, 8, 4);
	fab_fattree3(&b, 8, 4);
	route_with(&a, "ftree", NULL, &ra);
	route_with(&b, "updown", NULL, &rb);
	assert_int_equal(rb.res.n_roots, 16);
	assert_int_equal(rb.res.cdg_acyclic, 1);
	assert_int_equal(rb.sh.congestion_free, 127);
	assert_int_equal(rb.chk.max_link_routes, ra.chk.max_link_routes);
	for (uint32_t s = 0; s < a.n_switches; s++)
		for (uint32_t i = 0;
		     !strncmp(a.switches[s]->desc, "edge", 4) && i < a.n_nodes;
		     i++) {
			const struct ib_node *h = a.nodes[i];
			uint16_t lid = h->ports[1].lid;
			if (!node_is_switch(h))
				assert_int_equal(a.switches[s]->lft[lid],
						 b.switches[s]->lft[lid]);
		}
	routed_free(&ra);
	routed_free(&rb);
	fabric_free(&a);
	fabric_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_full_trees),
	    cmocka_unit_test(test_minhop_congests),
	    cmocka_unit_test(test_lmc),
	    cmocka_unit_test(test_lmc_spread),
	    cmocka_unit_test(test_repair),
	    cmocka_unit_test(test_not_a_tree),
	    cmocka_unit_test(test_levels),
	    cmocka_unit_test(test_cross_link),
	    cmocka_unit_test(test_node_order),
	    cmocka_unit_test(test_updown_on_tree),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
