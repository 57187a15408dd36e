/* The layered engine (routing/unicast/layered*.c) on families of fabrics:
 * 2-D and 3-D tori (odd and even sizes, 1 and 2 hosts per switch), HyperX,
 * dragonflies, random networks and fat trees, for max_vls 1, 2, 4 and 8.
 * Every table is checked by code that is not the engine's: the LFT walk
 * (every CA pair and switch LID delivered), and the (link, VL)
 * dependency graph of routing/verify with each pair's SL taken from the
 * plain one-path SL walk of layers.h.  Also: a fat tree needs one
 * layer, the SL walks agree, VLCap caps the layers, every LID of an LMC
 * range is routed, and the pair check does find min-hop's cycle. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/unicast/layers.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "direct_fab.h"

struct walk_ctx {
	const struct ucast_layers *ly;
	const struct fabric *f;
};

/* Each source switch's SL by walking its path alone (layers_path_sl):
 * the engine's own per-LID walk is not used to check the engine. */
static void walk_sls(void *arg, unsigned worker, uint16_t lid,
		     const uint8_t *col, int8_t *sl)
{
	const struct walk_ctx *c = arg;

	(void)worker, (void)col;
	for (uint32_t x = 0; x < c->f->n_switches; x++) {
		int v = layers_path_sl(c->ly, c->f, x, lid);
		sl[x] = (int8_t)(v < 0 ? -1 : v);
	}
}

static void route(struct fabric *f, struct hops *h, unsigned vls,
		  struct ucast_result *res)
{
	const struct ucast_engine *e = ucast_engine_find("layered");
	struct ucast_params prm = {.layered_max_vls = vls};

	assert_non_null(e);
	assert_int_equal(hops_compute(f, h, NULL), 0);
	memset(res, 0, sizeof(*res));
	if (e->route(f, h, NULL, &prm, res))
		fail_msg("layered, max_vls %u: %s", vls, res->error);
}

/* Delivered everywhere, and deadlock-free with these SLs. */
static void check(struct fabric *f, const struct hops *h,
		  const struct ucast_result *res, unsigned vls,
		  const char *what)
{
	struct lft_check lc;
	struct cdg_vl_report r;
	struct walk_ctx c = {.ly = res->layers, .f = f};

	assert_non_null(res->layers);
	assert_int_equal(verify_lft(f, h, NULL, &lc), 0);
	if (lc.unreachable_pairs || lc.sw_unreachable || lc.lmc_unreachable)
		fail_msg("%s, max_vls %u: not delivered: %s", what, vls,
			 lc.first_error);
	assert_int_equal(
	    cdg_check_vl_pairs(f, NULL, walk_sls, &c, NULL, NULL, &r), 0);
	if (!r.acyclic || r.no_sl_pairs)
		fail_msg("%s, max_vls %u: %s, %llu pairs without SL", what, vls,
			 r.why, (unsigned long long)r.no_sl_pairs);
	assert_int_equal(res->layers->n_layers, vls);
	assert_true(res->layers->used <= vls);
	assert_true(r.sls_used >> vls == 0);
}

static void
family(void (*build)(struct fabric *, unsigned, unsigned, unsigned, unsigned),
       unsigned a, unsigned b, unsigned c, unsigned hosts, const char *what)
{
	static const unsigned vls[] = {1, 2, 4, 8};

	for (unsigned i = 0; i < 4; i++) {
		struct fabric f;
		struct hops h = {0};
		struct ucast_result res;
		build(&f, a, b, c, hosts);
		route(&f, &h, vls[i], &res);
		check(&f, &h, &res, vls[i], what);
		ucast_result_free(&res);
		hops_free(&h);
		fabric_free(&f);
	}
}

static void torus(struct fabric *f, unsigned a, unsigned b, unsigned c,
		  unsigned hosts)
{
	fab_torus(f, a, b, c, hosts);
}

static void hyperx(struct fabric *f, unsigned a, unsigned b, unsigned c,
		   unsigned hosts)
{
	(void)c;
	fab_hyperx(f, a, b, hosts);
}

static void dragonfly(struct fabric *f, unsigned a, unsigned b, unsigned c,
		      unsigned hosts)
{
	(void)c;
	fab_dragonfly(f, a, b, hosts);
}

static void random_net(struct fabric *f, unsigned a, unsigned b, unsigned c,
		       unsigned hosts)
{
	fab_random(f, a, b, hosts, c);
}

static void fattree2(struct fabric *f, unsigned a, unsigned b, unsigned c,
		     unsigned hosts)
{
	(void)c;
	fab_fattree2(f, a, b, hosts);
}

static void fattree3(struct fabric *f, unsigned a, unsigned b, unsigned c,
		     unsigned hosts)
{
	(void)b, (void)c;
	fab_fattree3(f, a, hosts);
}

static void test_tori(void **state)
{
	(void)state;
	family(torus, 4, 4, 1, 1, "torus 4x4");
	family(torus, 5, 5, 1, 2, "torus 5x5, 2 hosts");
	family(torus, 6, 6, 1, 1, "torus 6x6");
	family(torus, 3, 3, 3, 1, "torus 3x3x3");
	family(torus, 4, 4, 4, 2, "torus 4x4x4, 2 hosts");
	family(torus, 3, 4, 5, 1, "torus 3x4x5");
}

static void test_direct(void **state)
{
	(void)state;
	family(hyperx, 4, 4, 0, 2, "hyperx 4x4, 2 hosts");
	family(hyperx, 5, 3, 0, 1, "hyperx 5x3");
	family(dragonfly, 4, 2, 0, 1, "dragonfly a=4 h=2");
	family(dragonfly, 3, 1, 0, 2, "dragonfly a=3 h=1, 2 hosts");
	family(random_net, 24, 8, 5, 2, "random 24 switches");
	family(random_net, 40, 6, 11, 1, "random 40 switches");
}

static void test_fat_trees(void **state)
{
	(void)state;
	family(fattree2, 4, 8, 0, 4, "fat tree 2 levels");
	family(fattree3, 4, 0, 0, 2, "fat tree 3 levels");
}

/* Every fat-tree path is up then down from the spines (layer 0's
 * roots), so one SL serves every pair. */
static void test_fat_tree_one_layer(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ucast_result res;

	(void)state;
	fab_fattree3(&f, 6, 3);
	route(&f, &h, 8, &res);
	assert_int_equal(res.layers->used, 1);
	assert_int_equal(res.layers->fallback_trees, 0);
	ucast_result_free(&res);
	hops_free(&h);
	fabric_free(&f);
}

/* The SL of each pair is the same whether walked alone or with every
 * source of a LID at once. */
static void test_sl_walks_agree(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ucast_result res;
	int8_t *sl;

	(void)state;
	fab_dragonfly(&f, 4, 2, 1);
	route(&f, &h, 4, &res);
	sl = malloc(f.n_switches);
	for (uint16_t lid = 1; lid <= f.max_lid; lid++) {
		assert_int_equal(layers_lid_sls(res.layers, &f, lid, sl), 0);
		for (uint32_t x = 0; x < f.n_switches; x++)
			assert_int_equal(
			    sl[x], layers_path_sl(res.layers, &f, x, lid));
	}
	free(sl);
	ucast_result_free(&res);
	hops_free(&h);
	fabric_free(&f);
}

static void set_vlcap(struct fabric *f, uint8_t code)
{
	for (uint32_t i = 0; i < f->n_nodes; i++)
		for (unsigned p = 1; p <= f->nodes[i]->nports; p++)
			f->nodes[i]->ports[p].vl_cap = code;
}

/* No more layers than every port's VLCap allows, whatever max_vls
 * says; 0 takes the VLCap. */
static void test_vlcap(void **state)
{
	static const struct {
		uint8_t code;
		unsigned want, made;
	} c[] = {{3, 0, 4}, {3, 8, 4}, {3, 2, 2}, {4, 0, 8}, {5, 15, 15}};

	(void)state;
	for (unsigned i = 0; i < sizeof(c) / sizeof(*c); i++) {
		struct fabric f;
		struct hops h = {0};
		struct ucast_result res;
		fab_torus(&f, 4, 4, 1, 1);
		set_vlcap(&f, c[i].code);
		route(&f, &h, c[i].want, &res);
		assert_int_equal(res.layers->n_layers, c[i].made);
		check(&f, &h, &res, c[i].made, "torus 4x4 with VLCap");
		ucast_result_free(&res);
		hops_free(&h);
		fabric_free(&f);
	}
}

/* LMC 1: every LID of a CA's range gets a tree and a legal SL. */
static void test_lmc(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ucast_result res;
	uint16_t lid;

	(void)state;
	fab_torus(&f, 4, 3, 1, 2);
	lid = (uint16_t)(f.n_switches + 2) & ~1u; /* after the switches' */
	for (uint32_t i = 0; i < f.n_nodes; i++) {
		struct ib_node *n = f.nodes[i];
		if (!node_is_switch(n)) {
			fabric_set_lid(&f, &n->ports[1], lid, 1);
			lid += 2;
		}
	}
	route(&f, &h, 4, &res);
	check(&f, &h, &res, 4, "torus 4x3, LMC 1");
	ucast_result_free(&res);
	hops_free(&h);
	fabric_free(&f);
}

static void one_sl(void *arg, unsigned worker, uint16_t lid, const uint8_t *col,
		   int8_t *sl)
{
	const struct fabric *f = arg;

	(void)worker, (void)lid, (void)col;
	memset(sl, 0, f->n_switches);
}

/* The negative control: min-hop tables on a torus, every pair on SL 0,
 * have a cycle of buffers. */
static void test_pairs_check_finds_cycle(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct cdg_vl_report r;

	(void)state;
	fab_torus(&f, 5, 5, 1, 1);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	fab_minhop(&f, &h);
	assert_int_equal(
	    cdg_check_vl_pairs(&f, NULL, one_sl, &f, NULL, NULL, &r), 0);
	assert_int_equal(r.acyclic, 0);
	assert_non_null(strstr(r.why, "VL 0"));
	hops_free(&h);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tori),
	    cmocka_unit_test(test_direct),
	    cmocka_unit_test(test_fat_trees),
	    cmocka_unit_test(test_fat_tree_one_layer),
	    cmocka_unit_test(test_sl_walks_agree),
	    cmocka_unit_test(test_vlcap),
	    cmocka_unit_test(test_lmc),
	    cmocka_unit_test(test_pairs_check_finds_cycle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
