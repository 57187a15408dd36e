/* Port groups (routing/pgroup/pgroup.h) on hand-drawn and generated fabrics:
 * candidate sets, sharing of identical sets, subset choice under a small
 * cap, the static port inside every group, up/down groups that keep the
 * channel-dependency graph acyclic, and the same tables for any thread
 * count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "routing/engines.h"
#include "routing/pgroup/pgroup.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "updown_fab.h"

struct routed {
	struct hops h;
	struct ucast_result res;
	struct pgroup_table t;
};

static void route(struct fabric *f, struct pool *pool, const char *engine,
		  unsigned cap, bool whole, struct routed *r)
{
	const struct ucast_engine *e = ucast_engine_find(engine);
	struct pgroup_params prm = { .cap = cap, .whole_sets_only = whole };

	memset(r, 0, sizeof(*r));
	assert_int_equal(hops_compute(f, &r->h, pool), 0);
	assert_int_equal(e->route(f, &r->h, pool, NULL, &r->res), 0);
	prm.order = r->res.updown_order;
	prm.rank = r->res.updown_rank;
	assert_int_equal(pgroup_compute(f, &r->h, pool, &prm, &r->t), 0);
	assert_int_equal(r->t.mismatch, 0);
}

static void routed_free(struct routed *r)
{
	pgroup_free(&r->t);
	ucast_result_free(&r->res);
	hops_free(&r->h);
}

static uint16_t lid_of(struct fabric *f, const char *desc)
{
	struct ib_node *n = fabric_node_by_desc(f, desc);

	assert_non_null(n);
	return node_port(n, 1)->lid;
}

static unsigned port_to(const struct ib_node *a, const struct ib_node *b,
			unsigned nth)
{
	for (unsigned p = 1; p <= a->nports; p++)
		if (port_peer_node(a, (uint8_t)p) == b && !nth--)
			return p;
	fail_msg("%s has no link to %s", a->desc, b->desc);
	return 0;
}

/* A -- B, A == C (two cables), B -- D, C -- D; hosts on A and D. */
static void diamond(struct fabric *f, struct ib_node **sw)
{
	fabric_init(f);
	for (unsigned i = 0; i < 4; i++)
		sw[i] = fab_sw(f, 0x1000 + i, 8, "X", i);
	fab_connect(f, sw[0], sw[1]);
	fab_connect(f, sw[0], sw[2]);
	fab_connect(f, sw[0], sw[2]);
	fab_connect(f, sw[1], sw[3]);
	fab_connect(f, sw[2], sw[3]);
	fab_host(f, sw[0], fab_free_port(sw[0]));
	fab_host(f, sw[3], fab_free_port(sw[3]));
	fab_host(f, sw[3], fab_free_port(sw[3]));
	fab_lids(f);
}

static void test_candidate_sets(void **state)
{
	struct fabric f;
	struct ib_node *sw[4];
	struct routed r;
	struct pg_set want = { { 0 } };

	(void)state;
	diamond(&f, sw);
	route(&f, NULL, "minhop", 255, false, &r);
	/* A reaches D's hosts over B and over both cables to C */
	pg_add(&want, port_to(sw[0], sw[1], 0));
	pg_add(&want, port_to(sw[0], sw[2], 0));
	pg_add(&want, port_to(sw[0], sw[2], 1));
	uint16_t h2 = lid_of(&f, "H5"), h3 = lid_of(&f, "H6");
	const struct pg_set *g2 = pgroup_of(&r.t, 0, h2);
	const struct pg_set *g3 = pgroup_of(&r.t, 0, h3);
	assert_non_null(g2);
	assert_memory_equal(g2, &want, sizeof(want));
	/* identical sets share one id: D's two hosts and D itself */
	assert_ptr_equal(g2, g3);
	assert_ptr_equal(g2, pgroup_of(&r.t, 0, sw[3]->ports[0].lid));
	/* and C's own LID has the two parallel cables: two groups, D's
	 * first (three DLIDs against one) */
	assert_int_equal(r.t.sw[0].n_groups, 2);
	assert_ptr_equal(g2, &r.t.sw[0].groups[0]);
	assert_int_equal(pg_count(pgroup_of(&r.t, 0, sw[2]->ports[0].lid)), 2);
	/* B has one path to D: no group; nor does D for its own hosts */
	assert_null(pgroup_of(&r.t, 1, h2));
	assert_null(pgroup_of(&r.t, 3, h2));
	/* the other way round, D reaches A's host over B and C */
	assert_non_null(pgroup_of(&r.t, 3, lid_of(&f, "H4")));
	assert_int_equal(pg_count(pgroup_of(&r.t, 3, lid_of(&f, "H4"))), 2);
	assert_true(pgroup_coverage(&r.t) == 1.0);
	routed_free(&r);
	fabric_free(&f);
}

/* Four 3-port sets over ports 1..4, each used by DLIDs with one static
 * port: two whole sets cover half; the pairs {1,2} and {3,4} cover all. */
static void test_subset_choice(void **state)
{
	struct pg_set sets[4] = { { { 0 } } }, out[2];
	static const unsigned in[4][3] = {
	    { 1, 2, 3 }, { 1, 2, 4 }, { 1, 3, 4 }, { 2, 3, 4 } };
	struct pg_elem el[4] = {
	    { 0, 1, 10 }, { 1, 2, 10 }, { 2, 3, 10 }, { 3, 4, 10 } };
	int32_t choice[4];
	int ng;

	(void)state;
	for (unsigned s = 0; s < 4; s++)
		for (unsigned k = 0; k < 3; k++)
			pg_add(&sets[s], in[s][k]);
	ng = pgroup_select(sets, 4, el, 4, 2, true, out, choice);
	assert_int_equal(ng, 2);
	unsigned whole = 0, sub = 0;
	for (unsigned e = 0; e < 4; e++)
		whole += choice[e] >= 0 ? el[e].weight : 0;
	assert_int_equal(whole, 20);
	ng = pgroup_select(sets, 4, el, 4, 2, false, out, choice);
	assert_int_equal(ng, 2);
	for (unsigned e = 0; e < 4; e++) {
		assert_true(choice[e] >= 0);
		const struct pg_set *g = &out[choice[e]];
		assert_true(pg_has(g, el[e].port));
		assert_true(pg_subset(g, &sets[el[e].set]));
		assert_true(pg_count(g) >= 2);
		sub += el[e].weight;
	}
	assert_int_equal(sub, 40);
}

/* Every group holds the LID's static port, at least one more, and only
 * min-hop ports (minhop) -- checked against the hop table. */
static void check_groups(struct fabric *f, const struct routed *r,
			 bool minhop)
{
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		for (uint32_t l = 1; l <= f->max_lid; l++) {
			const struct pg_set *g = pgroup_of(&r->t, s, (uint16_t)l);
			struct ib_port *dst = fabric_port_by_lid(f, (uint16_t)l);
			if (!g)
				continue;
			assert_true(pg_has(g, sw->lft[l]));
			assert_true(pg_count(g) >= 2);
			if (!minhop)
				continue;
			uint8_t best = hops_via_port(f, &r->h, sw, sw->lft[l], dst);
			for (unsigned p = 1; p <= sw->nports; p++)
				if (pg_has(g, p))
					assert_int_equal(
					    hops_via_port(f, &r->h, sw,
							  (uint8_t)p, dst),
					    best);
		}
	}
}

static void test_fattree_full_coverage(void **state)
{
	struct pool *pool = pool_create(2);
	const char *eng[2] = { "minhop", "updown" };

	(void)state;
	for (unsigned e = 0; e < 2; e++) {
		struct fabric f;
		struct routed r;
		fab_fattree3(&f, 8, 4);
		route(&f, pool, eng[e], 8, false, &r);
		assert_true(r.t.multi > 0);
		assert_true(pgroup_coverage(&r.t) == 1.0);
		check_groups(&f, &r, e == 0);
		routed_free(&r);
		fabric_free(&f);
		fab_fattree2(&f, 6, 10, 3);
		route(&f, pool, eng[e], 255, false, &r);
		assert_true(pgroup_coverage(&r.t) == 1.0);
		check_groups(&f, &r, e == 0);
		routed_free(&r);
		fabric_free(&f);
	}
	pool_destroy(pool);
}

/* Random fabrics of 64 switches, 8 switch links each, cap 8: whole sets
 * leave many pairs out; subsets cover at least 60 %. */
static void test_random_cap8(void **state)
{
	struct pool *pool = pool_create(2);

	(void)state;
	for (unsigned seed = 1; seed <= 3; seed++) {
		struct fabric f;
		struct routed whole, sub;
		fab_random(&f, 64, 12, 4, seed);
		route(&f, pool, "minhop", 8, true, &whole);
		route(&f, pool, "minhop", 8, false, &sub);
		print_message("random seed %u: whole sets %.3f, subsets %.3f, "
			      "max sets %u\n",
			      seed, pgroup_coverage(&whole.t),
			      pgroup_coverage(&sub.t), sub.t.max_sets);
		assert_true(sub.t.max_sets > 8);
		assert_true(pgroup_coverage(&sub.t) >= 0.6);
		assert_true(pgroup_coverage(&sub.t) >
			    pgroup_coverage(&whole.t));
		assert_true(sub.t.max_groups <= 8);
		check_groups(&f, &sub, true);
		routed_free(&whole);
		routed_free(&sub);
		fabric_free(&f);
	}
	pool_destroy(pool);
}

/* Ids are ordered by how many DLIDs use them. */
static void test_id_order(void **state)
{
	struct fabric f;
	struct routed r;

	(void)state;
	fab_torus(&f, 4, 4, 3, 2);
	route(&f, NULL, "minhop", 255, false, &r);
	for (uint32_t s = 0; s < f.n_switches; s++) {
		const struct pgroup_sw *w = &r.t.sw[s];
		uint32_t cnt[256] = { 0 };
		for (uint32_t l = 0; l < w->ft_size; l++)
			cnt[w->ft[l]]++;
		for (unsigned g = 1; g < w->n_groups; g++)
			assert_true(cnt[g] >= cnt[g + 1]);
		for (unsigned g = 1; g <= w->n_groups; g++)
			assert_true(cnt[g] > 0);
	}
	routed_free(&r);
	fabric_free(&f);
}

struct set_ctx {
	const struct fabric *f;
	const struct pgroup_table *t;
};

static void group_or_static(void *ctx, uint32_t sw, uint16_t lid,
			    uint64_t out[4])
{
	const struct set_ctx *c = ctx;
	const struct ib_node *n = c->f->switches[sw];
	const struct pg_set *g = pgroup_of(c->t, sw, lid);

	if (g)
		memcpy(out, g->m, sizeof(g->m));
	if (lid < n->lft_size && n->lft[lid] != LFT_NO_PORT)
		out[n->lft[lid] >> 6] |= 1ull << (n->lft[lid] & 63);
}

/* Up/down groups on cyclic fabrics: every port of every group in the
 * dependency graph, still acyclic.  The min-hop groups of the same tori
 * are not (the check can fail). */
static void test_updown_cdg(void **state)
{
	struct pool *pool = pool_create(2);
	char why[256];

	(void)state;
	for (unsigned k = 0; k < 4; k++) {
		struct fabric f;
		struct routed r;
		struct set_ctx c = { &f, NULL };
		if (k < 2)
			fab_torus(&f, 4 + k, 3, 3, 1);
		else
			fab_random(&f, 24, 8, 2, k);
		route(&f, pool, "updown", 255, false, &r);
		c.t = &r.t;
		assert_true(r.t.multi > 0);
		assert_int_equal(cdg_check_sets(&f, group_or_static, &c, why,
						sizeof(why)), 1);
		check_groups(&f, &r, false);
		routed_free(&r);
		if (k < 2) {
			route(&f, pool, "minhop", 255, false, &r);
			c.t = &r.t;
			assert_int_equal(cdg_check_sets(&f, group_or_static,
							&c, why, sizeof(why)),
					 0);
			routed_free(&r);
		}
		fabric_free(&f);
	}
	pool_destroy(pool);
}

static void same_tables(const struct pgroup_table *a,
			const struct pgroup_table *b)
{
	assert_int_equal(a->n, b->n);
	for (uint32_t s = 0; s < a->n; s++) {
		assert_int_equal(a->sw[s].n_groups, b->sw[s].n_groups);
		assert_int_equal(a->sw[s].ft_size, b->sw[s].ft_size);
		assert_memory_equal(a->sw[s].ft, b->sw[s].ft, a->sw[s].ft_size);
		if (a->sw[s].n_groups)
			assert_memory_equal(a->sw[s].groups, b->sw[s].groups,
					    a->sw[s].n_groups *
						sizeof(struct pg_set));
	}
}

static void test_threads(void **state)
{
	struct pool *p3 = pool_create(3);
	const char *eng[2] = { "minhop", "updown" };

	(void)state;
	for (unsigned e = 0; e < 2; e++) {
		struct fabric f;
		struct routed a, b;
		fab_random(&f, 40, 10, 3, 11);
		route(&f, NULL, eng[e], 6, false, &a);
		route(&f, p3, eng[e], 6, false, &b);
		same_tables(&a.t, &b.t);
		routed_free(&a);
		routed_free(&b);
		fabric_free(&f);
	}
	pool_destroy(p3);
}

/* A per-switch cap of 0 means "no port groups" (the switch does not
 * implement them); PortGroupFDBCap cuts the table. */
static void test_switch_caps(void **state)
{
	struct fabric f;
	struct hops h = { 0 };
	struct ucast_result res = { 0 };
	struct pgroup_table t;
	uint8_t caps[64];
	uint16_t fdb[64];

	(void)state;
	fab_fattree2(&f, 4, 6, 20);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	assert_int_equal(ucast_engine_find("minhop")->route(&f, &h, NULL, NULL,
							    &res), 0);
	for (uint32_t s = 0; s < f.n_switches; s++) {
		caps[s] = s == 0 ? 0 : 8;
		fdb[s] = 64;
	}
	struct pgroup_params prm = { .sw_cap = caps, .sw_fdb = fdb };
	assert_int_equal(pgroup_compute(&f, &h, NULL, &prm, &t), 0);
	assert_false(t.sw[0].enabled);
	assert_null(t.sw[0].ft);
	for (uint32_t s = 1; s < f.n_switches; s++) {
		assert_int_equal(t.sw[s].ft_size, 64);
		assert_null(pgroup_of(&t, s, 100));
	}
	assert_true(f.max_lid > 64);
	assert_true(pgroup_coverage(&t) < 1.0);
	pgroup_free(&t);
	hops_free(&h);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_candidate_sets),
		cmocka_unit_test(test_subset_choice),
		cmocka_unit_test(test_fattree_full_coverage),
		cmocka_unit_test(test_random_cap8),
		cmocka_unit_test(test_id_order),
		cmocka_unit_test(test_updown_cdg),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_switch_caps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
