/* MR4LMS steps on hand-drawn fabrics (FCTB finding the tree FBTC's build
 * misses, merge extend vs rebuild) and property tests on generated fat
 * trees and tori with random groups and churn. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>

#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/mcast/mcast.h"
#include "routing/mr4lms/mr4lms_priv.h"
#include "test_mcast_fab.h"

static void mgid(uint8_t *m, unsigned n)
{
	memset(m, 0, 16);
	m[0] = 0xff;
	m[1] = 0x12;
	m[13] = (uint8_t)(n >> 16);
	m[14] = (uint8_t)(n >> 8);
	m[15] = (uint8_t)n;
}

static uint32_t add_n(struct mc_ctx *c, unsigned id, struct ib_port **mem,
		      uint32_t n)
{
	uint8_t m[16];
	uint32_t gid = MC_NONE;
	int rc;

	mgid(m, id);
	rc = mcast_group_add(c, m, mem, n, &gid);
	if (rc)
		fail_msg("group %u: add failed: %d", id, rc);
	return gid;
}

static void verify_ok(struct mc_ctx *c, bool thorough)
{
	char err[256] = "";
	int rc = thorough ? mcast_verify_thorough(c, err, sizeof(err))
			  : mcast_verify(c, err, sizeof(err));

	if (rc)
		fail_msg("verify: %s", err);
}

/* X has two shortest ways to the only optimal root R: through A (port 1,
 * taken first on a load tie) or B.  A holds both colors of a 2-entry MFT,
 * so FBTC's tree cannot be colored; FCTB finds the way through B.  The
 * second group also has a member on R: a group of A's switch alone would
 * share the first one's tree (half the colors taken, mr4lms_share.c). */
struct diamond {
	struct fabric f;
	struct hops h;
	struct ib_node *X, *A, *B, *R, *Z, *Y;
	struct ib_port *x, *y, *a1, *r1;
	struct mc_ctx *c;
};

static void diamond_setup(struct diamond *d)
{
	struct mc_params prm;

	memset(d, 0, sizeof(*d));
	fabric_init(&d->f);
	d->X = fab_sw(&d->f, "X", 8);
	d->A = fab_sw(&d->f, "A", 8);
	d->B = fab_sw(&d->f, "B", 8);
	d->R = fab_sw(&d->f, "R", 8);
	d->Z = fab_sw(&d->f, "Z", 8);
	d->Y = fab_sw(&d->f, "Y", 8);
	fab_link(&d->f, d->X, 1, d->A, 1);
	fab_link(&d->f, d->X, 2, d->B, 1);
	fab_link(&d->f, d->A, 2, d->R, 1);
	fab_link(&d->f, d->B, 2, d->R, 2);
	fab_link(&d->f, d->R, 3, d->Z, 1);
	fab_link(&d->f, d->Z, 2, d->Y, 1);
	d->x = fab_host(&d->f, "x", d->X, 5);
	d->y = fab_host(&d->f, "y", d->Y, 5);
	d->a1 = fab_host(&d->f, "a1", d->A, 5);
	d->r1 = fab_host(&d->f, "r1", d->R, 5);
	assert_int_equal(hops_compute(&d->f, &d->h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = 2;
	assert_int_equal(
	    mcast_create(&d->c, &d->f, &d->h, NULL, "mr4lms", &prm), 0);
	struct ib_port *g0[1] = {d->a1}, *g1[2] = {d->a1, d->r1};
	add_n(d->c, 100, g0, 1);
	add_n(d->c, 101, g1, 2);
	assert_int_equal(mcast_colors_top(d->c), 2);
}

static void diamond_teardown(struct diamond *d)
{
	mcast_destroy(d->c);
	hops_free(&d->h);
	fabric_free(&d->f);
}

static void test_fbtc_fails_merges(void **state)
{
	struct diamond d;
	struct ib_port *m[2];
	uint32_t g;

	(void)state;
	diamond_setup(&d);
	m[0] = d.x;
	m[1] = d.y;
	g = add_n(d.c, 1, m, 2);
	assert_int_equal(d.c->st.fbtc_fail, 1);
	assert_true(mcast_group_tree(d.c, g)->n_groups > 1); /* merged */
	assert_int_equal(mr4lms_of(d.c)->alg, MR4LMS_FCTB);
	verify_ok(d.c, true);
	diamond_teardown(&d);
}

static void test_fctb_finds_gcolor_tree(void **state)
{
	struct diamond d;
	struct ib_port *m[2];
	const struct mc_tree *t;
	uint32_t g;

	(void)state;
	diamond_setup(&d);
	mr4lms_of(d.c)->alg = MR4LMS_FCTB;
	m[0] = d.x;
	m[1] = d.y;
	g = add_n(d.c, 1, m, 2);
	t = mcast_group_tree(d.c, g);
	assert_int_equal(t->n_groups, 1);
	assert_int_equal(d.c->st.fctb_ok, 1);
	assert_int_equal(t->root, (uint32_t)d.R->sw_idx);
	assert_non_null(mc_tree_node(t, (uint32_t)d.B->sw_idx));
	assert_null(mc_tree_node(t, (uint32_t)d.A->sw_idx));
	assert_int_equal(t->height, 3);
	assert_int_equal(mcast_group_mlid(d.c, g), 0xC000);
	assert_int_equal(mcast_tree_excess(d.c, t->id), 0);
	verify_ok(d.c, true);
	diamond_teardown(&d);
}

/* Ring A-B-C-D-A, one color: {a,b} and {c,d} share color 0, {a,c}
 * merges both.  Extend keeps the old links A-B and C-D; rebuild gives a
 * lowest tree. */
static void ring_merge(enum mc_merge mode, struct fabric *f, struct hops *h,
		       struct mc_ctx **cp, struct ib_node **sw)
{
	struct mc_params prm;
	struct ib_port *hp[4];
	char name[8];

	fabric_init(f);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%c", 'A' + i);
		sw[i] = fab_sw(f, name, 8);
	}
	for (int i = 0; i < 4; i++)
		fab_link(f, sw[i], 1, sw[(i + 1) % 4], 2);
	for (int i = 0; i < 4; i++) {
		snprintf(name, sizeof(name), "%c", 'a' + i);
		hp[i] = fab_host(f, name, sw[i], 5);
	}
	assert_int_equal(hops_compute(f, h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = 1;
	prm.merge = mode;
	assert_int_equal(mcast_create(cp, f, h, NULL, "mr4lms", &prm), 0);
	struct ib_port *g1[2] = {hp[0], hp[1]}, *g2[2] = {hp[2], hp[3]},
		       *g3[2] = {hp[0], hp[2]};
	add_n(*cp, 1, g1, 2);
	add_n(*cp, 2, g2, 2);
	add_n(*cp, 3, g3, 2);
	assert_int_equal((*cp)->live_trees, 1);
	verify_ok(*cp, true);
}

static bool tree_link(const struct mc_tree *t, const struct ib_node *a,
		      uint8_t pa, const struct ib_node *b, uint8_t pb)
{
	const struct mc_tnode *na = mc_tree_node(t, (uint32_t)a->sw_idx);
	const struct mc_tnode *nb = mc_tree_node(t, (uint32_t)b->sw_idx);
	return na && nb && mc_mask_test(na->mask, pa) &&
	       mc_mask_test(nb->mask, pb);
}

static void test_merge_extend_rebuild(void **state)
{
	struct fabric f;
	struct hops h;
	struct mc_ctx *c;
	struct ib_node *sw[4];
	const struct mc_tree *t;

	(void)state;
	ring_merge(MC_MERGE_EXTEND, &f, &h, &c, sw);
	t = mcast_group_tree(c, 0);
	/* link i: sw[i] port 1 -> sw[i+1] port 2 */
	assert_true(tree_link(t, sw[0], 1, sw[1], 2)); /* A-B kept */
	assert_true(tree_link(t, sw[2], 1, sw[3], 2)); /* C-D kept */
	assert_int_equal(t->n_nodes, 4);
	mcast_destroy(c);
	hops_free(&h);
	fabric_free(&f);

	ring_merge(MC_MERGE_REBUILD, &f, &h, &c, sw);
	t = mcast_group_tree(c, 0);
	assert_int_equal(t->n_nodes, 4);
	assert_int_equal(t->height, 3);
	assert_int_equal(mcast_tree_excess(c, t->id), 0);
	mcast_destroy(c);
	hops_free(&h);
	fabric_free(&f);
}

/* ---- property tests ---- */

static uint64_t rng = 88172645463325252ull;
static uint32_t rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng % n);
}

static uint32_t random_group(struct ib_port **hosts, uint32_t nh,
			     struct ib_port **out, uint32_t maxn)
{
	uint32_t n = 2 + rnd(maxn - 1);
	for (uint32_t i = 0; i < n; i++)
		out[i] = hosts[rnd(nh)];
	return n;
}

static void assert_empty(struct mc_ctx *c)
{
	assert_int_equal(c->live_trees, 0);
	assert_int_equal(c->live_groups, 0);
	assert_int_equal(mcast_colors_top(c), 0);
	for (uint32_t i = 0; i < c->port_base[c->n_sw]; i++)
		assert_int_equal(c->efi[i], 0);
	for (uint32_t s = 0; s < c->n_sw; s++) {
		assert_int_equal(c->sw_load[s], 0);
		for (uint32_t w = 0; w < c->cwords; w++)
			assert_int_equal(c->busy[(size_t)s * c->cwords + w], 0);
	}
	for (uint32_t col = 0; col < c->owner_cap; col++)
		assert_int_equal(c->color_groups[col], 0);
}

/* ngroups random groups, then churn, then delete everything. */
static void run_property(struct fabric *f, struct ib_port **hosts, uint32_t nh,
			 unsigned mft, enum mc_merge merge, struct pool *pool,
			 unsigned ngroups, unsigned maxn)
{
	struct hops h = {0};
	struct mc_params prm;
	struct mc_ctx *c;
	struct ib_port *mem[64];
	uint32_t *gids = calloc(ngroups * 4, sizeof(*gids)), ng = 0;
	unsigned next = 1;

	assert_int_equal(hops_compute(f, &h, pool), 0);
	mcast_params_default(&prm);
	prm.mft_size = mft;
	prm.merge = merge;
	assert_int_equal(mcast_create(&c, f, &h, pool, "mr4lms", &prm), 0);
	for (unsigned i = 0; i < ngroups; i++) {
		uint32_t n = random_group(hosts, nh, mem, maxn);
		gids[ng++] = add_n(c, next++, mem, n);
	}
	verify_ok(c, false);
	for (uint32_t i = 0; i < c->n_trees; i++)
		if (c->trees[i].live && c->trees[i].n_groups == 1)
			assert_int_equal(mcast_tree_excess(c, i), 0);
	if (mft)
		assert_true(mcast_colors_top(c) <= mft);
	struct mc_stats st;
	mcast_stats(c, &st);
	print_message("  mft %u %s: %u groups %u trees %u colors, merged %u, "
		      "max tfi %u, fbtc fail %llu fctb ok %llu\n",
		      mft, merge == MC_MERGE_EXTEND ? "extend" : "rebuild",
		      st.groups, st.trees, st.colors_used, st.merged_groups,
		      st.max_tfi, (unsigned long long)st.fbtc_fail,
		      (unsigned long long)st.fctb_ok);
	if (mft && mft <= 4)
		assert_true(st.merged_groups > 0);
	/* churn: delete a random group or create one */
	for (unsigned op = 0; op < ngroups * 2; op++) {
		if (ng && rnd(2)) {
			uint32_t k = rnd(ng);
			assert_int_equal(mcast_group_remove(c, gids[k]), 0);
			gids[k] = gids[--ng];
		} else {
			uint32_t n = random_group(hosts, nh, mem, maxn);
			gids[ng++] = add_n(c, next++, mem, n);
		}
		if (op % 50 == 0)
			verify_ok(c, false);
	}
	verify_ok(c, false);
	while (ng)
		assert_int_equal(mcast_group_remove(c, gids[--ng]), 0);
	assert_empty(c);
	mcast_destroy(c);
	hops_free(&h);
	free(gids);
}

static void test_property_fat_tree(void **state)
{
	struct fabric f;
	struct ib_port *hosts[256];
	struct pool *pool = pool_create(2);
	uint32_t nh;

	(void)state;
	fabric_init(&f);
	nh = fab_fat3(&f, 8, hosts); /* 80 switches, 128 hosts */
	run_property(&f, hosts, nh, 0, MC_MERGE_EXTEND, pool, 300, 20);
	run_property(&f, hosts, nh, 8, MC_MERGE_EXTEND, pool, 300, 20);
	run_property(&f, hosts, nh, 4, MC_MERGE_REBUILD, pool, 200, 12);
	run_property(&f, hosts, nh, 2, MC_MERGE_EXTEND, NULL, 100, 8);
	fabric_free(&f);
	pool_destroy(pool);
}

static void test_property_torus(void **state)
{
	struct fabric f;
	struct ib_port *hosts[256];
	struct pool *pool = pool_create(2);
	uint32_t nh;

	(void)state;
	fabric_init(&f);
	nh = fab_torus(&f, 4, 4, 3, hosts); /* 48 switches, 96 hosts */
	run_property(&f, hosts, nh, 0, MC_MERGE_EXTEND, pool, 200, 16);
	run_property(&f, hosts, nh, 6, MC_MERGE_EXTEND, pool, 200, 16);
	run_property(&f, hosts, nh, 3, MC_MERGE_REBUILD, NULL, 150, 10);
	fabric_free(&f);
	pool_destroy(pool);
}

static void test_property_fat2(void **state)
{
	struct fabric f;
	struct ib_port *hosts[256];
	struct pool *pool = pool_create(2);

	(void)state;
	fabric_init(&f);
	fab_fat2(&f, 8, 8, 4, hosts);
	run_property(&f, hosts, 64, 0, MC_MERGE_EXTEND, pool, 200, 10);
	run_property(&f, hosts, 64, 3, MC_MERGE_EXTEND, pool, 200, 10);
	fabric_free(&f);
	pool_destroy(pool);
}

/* mcast_color_hint: the hinted color is taken when the new tree can have
 * it (FBTC and FCTB alike), not when a tree of it shares a switch with
 * the new one, and a later group without a hint gets the lowest free
 * color again. */
static void test_color_hint(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct ib_port *hosts[256];
	struct mc_params prm;
	struct mc_ctx *c;
	uint32_t g;

	(void)state;
	fabric_init(&f);
	fab_fat2(&f, 8, 8, 4, hosts); /* leaf i: hosts 8i..8i+7 */
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = 16;
	assert_int_equal(mcast_create(&c, &f, &h, NULL, "mr4lms", &prm), 0);
	struct ib_port *a[2] = {hosts[0], hosts[1]},
		       *b[2] = {hosts[2], hosts[9]},
		       *d[2] = {hosts[16], hosts[17]},
		       *e[2] = {hosts[24], hosts[25]};
	g = add_n(c, 1, a, 2);
	assert_int_equal(mcast_group_mlid(c, g), 0xC000);
	mcast_color_hint(c, 5);
	g = add_n(c, 2, d, 2); /* leaf 2 alone: 5 is free there */
	assert_int_equal(mcast_group_mlid(c, g), 0xC005);
	mcast_color_hint(c, 0);
	g = add_n(c, 3, b, 2); /* leaf 0 holds color 0 */
	assert_int_not_equal(mcast_group_mlid(c, g), 0xC000);
	mr4lms_of(c)->alg = MR4LMS_FCTB;
	mcast_color_hint(c, 9);
	g = add_n(c, 4, e, 2);
	assert_int_equal(mcast_group_mlid(c, g), 0xC009);
	mcast_color_hint(c, MC_NONE);
	mcast_color_hint(c, 99); /* past the MFT: no hint */
	assert_int_equal(c->color_hint, MC_NONE);
	verify_ok(c, true);
	mcast_destroy(c);
	hops_free(&h);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fbtc_fails_merges),
	    cmocka_unit_test(test_fctb_finds_gcolor_tree),
	    cmocka_unit_test(test_merge_extend_rebuild),
	    cmocka_unit_test(test_color_hint),
	    cmocka_unit_test(test_property_fat2),
	    cmocka_unit_test(test_property_fat_tree),
	    cmocka_unit_test(test_property_torus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
