/* updown engine on hand-built fabrics whose right answers are known: fat
 * trees (roots = top level, paths as short as min-hop), rings and tori
 * (acyclic where min-hop is not), configured roots, BFS vs DFS. */
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

#include "lib/dump.h"
#include "routing/engines.h"
#include "routing/unicast/unicast.h"
#include "routing/unicast/updown.h"
#include "routing/verify/verify.h"
#include "updown_fab.h"

struct routed {
	struct hops h;
	struct ucast_result res;
	int rc;
};

static int route(struct fabric *f, struct pool *pool, const char *dir,
		 const char *const *roots, unsigned n_roots, struct routed *r)
{
	const struct ucast_engine *e = ucast_engine_find("updown");
	struct ucast_params prm = { .updown_roots = roots,
				    .n_updown_roots = n_roots,
				    .updown_direction = dir };

	memset(r, 0, sizeof(*r));
	assert_non_null(e);
	assert_int_equal(hops_compute(f, &r->h, pool), 0);
	r->rc = e->route(f, &r->h, pool, &prm, &r->res);
	if (r->rc)
		print_message("updown: %s\n", r->res.error);
	return r->rc;
}

static void routed_free(struct routed *r)
{
	ucast_result_free(&r->res);
	hops_free(&r->h);
}

/* Roots as a sorted GUID list equal to [first, first + n). */
static void assert_roots(const struct ucast_result *res, uint64_t first,
			 unsigned n)
{
	assert_int_equal(res->n_roots, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(res->roots[i]->guid, first + i);
}

static void assert_clean(const struct routed *r)
{
	assert_int_equal(r->rc, 0);
	assert_int_equal(r->res.cdg_acyclic, 1);
	assert_int_equal(r->res.unreachable_pairs, 0);
}

/* Switch-to-switch LFT walk: hops from switch a to switch b's LID. */
static unsigned walk_sw(const struct fabric *f, struct ib_node *a,
			struct ib_node *b)
{
	unsigned hops = 0;
	uint16_t lid = b->ports[0].lid;

	while (a != b && hops < 64) {
		uint8_t p = a->lft[lid];
		assert_int_not_equal(p, LFT_NO_PORT);
		a = a->ports[p].remote->node;
		hops++;
	}
	return hops;
}

static void test_fattree2(void **state)
{
	struct fabric f;
	struct routed r;
	struct cdg_report mh;
	struct pool *pool = pool_create(2);

	(void)state;
	fab_fattree2(&f, 4, 8, 4);
	route(&f, pool, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x1000, 4);
	assert_int_equal(r.res.max_hops, 4);
	fab_minhop(&f, &r.h);
	assert_int_equal(cdg_verify(&f, pool, NULL, &mh), 0);
	assert_true(r.res.avg_hops <= mh.avg_hops + 1e-9);
	assert_true(r.res.max_link_routes <= mh.max_link_routes);
	routed_free(&r);
	fabric_free(&f);

	/* 648 hosts: where OpenSM 3.3.23 marks every switch a root */
	fab_fattree2(&f, 18, 36, 18);
	route(&f, pool, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x1000, 18);
	assert_int_equal(r.res.max_hops, 4);
	/* perfectly balanced: each leaf up-link carries 18 sources x 35
	 * remote leaves' hosts / 18 up-links */
	assert_int_equal(r.res.max_link_routes, 18 * 35);
	routed_free(&r);
	fabric_free(&f);
	pool_destroy(pool);
}

static void test_fattree3(void **state)
{
	struct fabric f;
	struct routed r;
	struct cdg_report mh;
	struct pool *pool = pool_create(2);
	uint32_t rank[64];

	(void)state;
	for (unsigned k = 4; k <= 8; k += 4) {
		fab_fattree3(&f, k, k / 2);
		route(&f, pool, NULL, NULL, 0, &r);
		assert_clean(&r);
		assert_roots(&r.res, 0x100000, k * k / 4);
		assert_int_equal(r.res.max_hops, 6);
		fab_minhop(&f, &r.h);
		assert_int_equal(cdg_verify(&f, pool, NULL, &mh), 0);
		print_message("fattree3 k=%u: updown avg %.4f max link %u, "
			      "minhop avg %.4f max link %llu\n",
			      k, r.res.avg_hops, r.res.max_link_routes,
			      mh.avg_hops,
			      (unsigned long long)mh.max_link_routes);
		assert_true(r.res.avg_hops <= mh.avg_hops + 1e-9);
		assert_true(r.res.max_link_routes <= mh.max_link_routes);
		routed_free(&r);
		fabric_free(&f);
	}
	/* BFS ranks: core 0, aggregation 1, edge 2 */
	fab_fattree3(&f, 4, 2);
	struct sw_graph g;
	uint32_t order[64];
	struct ib_node *roots[4];
	assert_int_equal(sw_graph_build(&f, &g), 0);
	for (unsigned i = 0; i < 4; i++)
		roots[i] = f.switches[i];
	assert_int_equal(updown_order_bfs(&f, &g, roots, 4, order, rank), 0);
	for (uint32_t s = 0; s < f.n_switches; s++) {
		const char *d = f.switches[s]->desc;
		unsigned want = d[0] == 'c' ? 0 : d[0] == 'a' ? 1 : 2;
		assert_int_equal(rank[s], want);
	}
	assert_int_equal(updown_check_dag(&g, order), 0);
	sw_graph_free(&g);
	fabric_free(&f);
	pool_destroy(pool);
}

/* Pruned/odd fat trees: a core missing a pod, a host on a spine. */
static void test_fattree_irregular(void **state)
{
	struct fabric f;
	struct routed r;

	(void)state;
	fab_fattree3(&f, 4, 2);
	struct ib_node *c0 = fabric_node_by_desc(&f, "core0");
	fabric_unlink(&c0->ports[4]); /* core0 loses its link to pod 3 */
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x100001, 3);
	routed_free(&r);
	fabric_free(&f);

	fab_fattree2(&f, 4, 6, 2);
	struct ib_node *sp0 = fabric_node_by_desc(&f, "spine0");
	/* spine0 has 6 ports all used: drop one leaf link for the host */
	fabric_unlink(&sp0->ports[6]);
	fab_host(&f, sp0, 6);
	fab_lids(&f);
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x1001, 3);
	routed_free(&r);
	fabric_free(&f);
}

static void test_ring(void **state)
{
	struct fabric f;
	struct routed r;
	char why[256];

	(void)state;
	fab_torus(&f, 6, 1, 1, 1);
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x1000, 1); /* symmetric: lowest GUID */
	/* the ring is broken at S3, opposite the root: S2 -> S3 -> S4 is
	 * down then up, so S2 reaches S4 the long way round (4, not 2) */
	struct ib_node *s2 = f.switches[2], *s3 = f.switches[3],
		       *s4 = f.switches[4];
	assert_int_equal(walk_sw(&f, s2, s4), 4);
	assert_int_equal(walk_sw(&f, s2, s3), 1);
	assert_int_not_equal(s2->lft[s4->ports[0].lid],
			     s2->lft[s3->ports[0].lid]);
	fab_minhop(&f, &r.h);
	assert_int_equal(cdg_check(&f, NULL, why, sizeof(why)), 0);
	print_message("minhop ring: %s\n", why);
	assert_non_null(strstr(why, "channel dependency cycle through"));
	routed_free(&r);
	fabric_free(&f);
}

static void test_torus(void **state)
{
	static const unsigned dims[][3] = { { 5, 5, 1 }, { 4, 4, 3 } };
	struct pool *pool = pool_create(2);
	char why[256];

	(void)state;
	for (unsigned i = 0; i < 2; i++) {
		struct fabric f;
		struct routed r;
		fab_torus(&f, dims[i][0], dims[i][1], dims[i][2], 2);
		route(&f, pool, NULL, NULL, 0, &r);
		assert_clean(&r);
		assert_int_equal(r.res.n_roots, 1);
		routed_free(&r);
		route(&f, pool, "dfs", NULL, 0, &r);
		assert_clean(&r);
		fab_minhop(&f, &r.h);
		assert_int_equal(cdg_check(&f, pool, why, sizeof(why)), 0);
		routed_free(&r);
		fabric_free(&f);
	}
	pool_destroy(pool);
}

/* 5-switch ring rooted at S0.  BFS: S2-S3 is an up link from S3 (lower
 * GUID is up on one rank), so S2 -> S3 -> S4 is down then up: S2 reaches
 * S4 the long way.  DFS labels S0..S4 around the ring, which makes S3 -> S4
 * -> S0 illegal instead. */
static void test_bfs_vs_dfs(void **state)
{
	struct fabric f;
	struct routed r;
	struct ib_node **s;

	(void)state;
	fab_torus(&f, 5, 1, 1, 1);
	s = f.switches;
	route(&f, NULL, "bfs", NULL, 0, &r);
	assert_clean(&r);
	assert_int_equal(walk_sw(&f, s[2], s[4]), 3);
	assert_int_equal(walk_sw(&f, s[4], s[2]), 3);
	assert_int_equal(walk_sw(&f, s[3], s[0]), 2);
	assert_int_equal(walk_sw(&f, s[0], s[3]), 2);
	/* S3 -> S2 crosses the same-rank link (S2 has the lower GUID) and
	 * ends there: allowed.  S3 -> S2 -> S1 would climb after it, which
	 * ibdmchk -u calls down-then-up: S3 goes round by S4 and S0. */
	assert_int_equal(walk_sw(&f, s[3], s[2]), 1);
	assert_int_equal(walk_sw(&f, s[3], s[1]), 3);
	routed_free(&r);
	route(&f, NULL, "dfs", NULL, 0, &r);
	assert_clean(&r);
	assert_int_equal(walk_sw(&f, s[2], s[4]), 2);
	assert_int_equal(walk_sw(&f, s[4], s[2]), 2);
	assert_int_equal(walk_sw(&f, s[3], s[0]), 3);
	assert_int_equal(walk_sw(&f, s[0], s[3]), 3);
	routed_free(&r);
	fabric_free(&f);
}

/* On irregular random networks DFS keeps more shortest paths legal. */
static void test_dfs_random(void **state)
{
	struct pool *pool = pool_create(2);
	double sum_bfs = 0, sum_dfs = 0;

	(void)state;
	for (unsigned seed = 1; seed <= 4; seed++) {
		struct fabric f;
		struct routed r;
		fab_random(&f, 48, 8, 2, seed);
		route(&f, pool, "bfs", NULL, 0, &r);
		assert_clean(&r);
		double bfs = r.res.avg_hops;
		sum_bfs += bfs;
		routed_free(&r);
		route(&f, pool, "dfs", NULL, 0, &r);
		assert_clean(&r);
		print_message("random seed %u: bfs avg hops %.4f, dfs %.4f\n",
			      seed, bfs, r.res.avg_hops);
		sum_dfs += r.res.avg_hops;
		routed_free(&r);
		fabric_free(&f);
	}
	assert_true(sum_dfs <= sum_bfs);
	pool_destroy(pool);
}

static void test_configured_roots(void **state)
{
	struct fabric f;
	struct routed r;
	const char *by_name[] = { "spine2" };
	const char *by_guid[] = { "0x0000000000001001", "leaf3" };
	const char *unknown[] = { "spine1", "nosuch" };
	const char *host[] = { "H8" };

	(void)state;
	fab_fattree2(&f, 4, 6, 2);
	assert_int_equal(route(&f, NULL, NULL, by_name, 1, &r), 0);
	assert_clean(&r);
	assert_roots(&r.res, 0x1002, 1);
	routed_free(&r);
	assert_int_equal(route(&f, NULL, NULL, by_guid, 2, &r), 0);
	assert_clean(&r);
	assert_int_equal(r.res.n_roots, 2);
	assert_int_equal(r.res.roots[0]->guid, 0x1001);
	assert_int_equal(r.res.roots[1]->guid, 0x2003);
	routed_free(&r);
	assert_int_equal(route(&f, NULL, NULL, unknown, 2, &r), -ENOENT);
	assert_non_null(strstr(r.res.error, "'nosuch'"));
	routed_free(&r);
	assert_non_null(fabric_node_by_desc(&f, "H8"));
	assert_int_equal(route(&f, NULL, NULL, host, 1, &r), -EINVAL);
	assert_non_null(strstr(r.res.error, "not a switch"));
	routed_free(&r);
	assert_int_equal(route(&f, NULL, "sideways", NULL, 0, &r), -EINVAL);
	routed_free(&r);
	fabric_free(&f);
}

/* Same tables whatever the thread count. */
static void test_deterministic(void **state)
{
	struct fabric f;
	struct routed r;
	struct pool *pool = pool_create(3);

	(void)state;
	fab_random(&f, 40, 8, 2, 7);
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	uint8_t *copy = malloc((size_t)f.n_switches * (f.max_lid + 1u));
	for (uint32_t s = 0; s < f.n_switches; s++)
		memcpy(copy + (size_t)s * (f.max_lid + 1u), f.switches[s]->lft,
		       f.max_lid + 1u);
	routed_free(&r);
	route(&f, pool, NULL, NULL, 0, &r);
	assert_clean(&r);
	for (uint32_t s = 0; s < f.n_switches; s++)
		assert_memory_equal(copy + (size_t)s * (f.max_lid + 1u),
				    f.switches[s]->lft, f.max_lid + 1u);
	free(copy);
	routed_free(&r);
	fabric_free(&f);
	pool_destroy(pool);
}

/* updn-roots.dump as ibdmchk -r reads it: one 0x%016 GUID per line. */
static void test_roots_dump(void **state)
{
	struct fabric f;
	struct routed r;
	char dir[] = "/tmp/test_updown.XXXXXX", path[64], buf[256] = "";

	(void)state;
	assert_non_null(mkdtemp(dir));
	fab_fattree2(&f, 2, 3, 1);
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_int_equal(dump_write_roots(dir, r.res.roots, r.res.n_roots), 0);
	snprintf(path, sizeof(path), "%s/updn-roots.dump", dir);
	FILE *fp = fopen(path, "r");
	assert_non_null(fp);
	assert_true(fread(buf, 1, sizeof(buf) - 1, fp) > 0);
	fclose(fp);
	unlink(path);
	rmdir(dir);
	assert_string_equal(buf, "0x0000000000001000\n0x0000000000001001\n");
	routed_free(&r);
	fabric_free(&f);
}

/* A labelling with a tie gives a link no direction: rejected. */
static void test_check_dag(void **state)
{
	struct fabric f;
	struct sw_graph g;
	uint32_t order[3] = { 0, 1, 1 };

	(void)state;
	fab_torus(&f, 3, 1, 1, 0);
	assert_int_equal(sw_graph_build(&f, &g), 0);
	assert_int_equal(updown_check_dag(&g, order), -ELOOP);
	order[2] = 2;
	assert_int_equal(updown_check_dag(&g, order), 0);
	sw_graph_free(&g);
	fabric_free(&f);
}

/* Switches of more than 64 ports (two mask words) and LMC 1 on hosts. */
static void test_wide_and_lmc(void **state)
{
	struct fabric f;
	struct routed r;

	(void)state;
	fab_fattree2(&f, 3, 70, 1); /* spines have 70 ports */
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	assert_roots(&r.res, 0x1000, 3);
	assert_int_equal(r.res.max_hops, 4);
	routed_free(&r);
	/* LMC 1: every host gets two LIDs, both routed */
	uint16_t lid = (uint16_t)(f.max_lid + 1);
	lid += lid & 1;
	for (uint32_t i = 0; i < f.n_nodes; i++) {
		struct ib_node *n = f.nodes[i];
		if (!node_is_switch(n)) {
			fabric_set_lid(&f, &n->ports[1], lid, 1);
			lid += 2;
		}
	}
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	for (uint32_t i = 0; i < f.n_nodes; i++) {
		struct ib_node *n = f.nodes[i];
		if (node_is_switch(n))
			continue;
		struct ib_node *leaf = n->ports[1].remote->node;
		for (uint32_t s = 0; s < f.n_switches; s++) {
			struct ib_node *sw = f.switches[s];
			assert_int_not_equal(sw->lft[n->ports[1].lid], LFT_NO_PORT);
			assert_int_not_equal(sw->lft[n->ports[1].lid + 1],
					     LFT_NO_PORT);
			if (sw == leaf)
				assert_int_equal(sw->lft[n->ports[1].lid + 1],
						 n->ports[1].remote->num);
		}
	}
	routed_free(&r);
	fabric_free(&f);
}

/* LMC 2 on a 2-level tree whose leaves have as many hosts as up links:
 * the four LIDs of a host take four links, each offset spread evenly. */
static void test_lmc_spread(void **state)
{
	struct fabric f;
	struct routed r;
	const char *fault;

	(void)state;
	fab_fattree2(&f, 6, 12, 6);
	assert_int_equal(fab_relid(&f, 2), 0);
	route(&f, NULL, NULL, NULL, 0, &r);
	assert_clean(&r);
	fault = fab_lmc_fault(&f, 2);
	if (fault)
		fail_msg("%s", fault);
	routed_free(&r);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fattree2),
		cmocka_unit_test(test_fattree3),
		cmocka_unit_test(test_fattree_irregular),
		cmocka_unit_test(test_ring),
		cmocka_unit_test(test_torus),
		cmocka_unit_test(test_bfs_vs_dfs),
		cmocka_unit_test(test_dfs_random),
		cmocka_unit_test(test_configured_roots),
		cmocka_unit_test(test_deterministic),
		cmocka_unit_test(test_roots_dump),
		cmocka_unit_test(test_check_dag),
		cmocka_unit_test(test_wide_and_lmc),
		cmocka_unit_test(test_lmc_spread),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
