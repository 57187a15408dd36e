/* Multicast core and MR4LMS on hand-drawn fabrics whose answers are known:
 * color sharing by disjoint trees, a crossing tree needing a new color,
 * merging with one color, deletion freeing colors, standard-group member
 * additions keeping their MLID, early sharing spared by wider trees to
 * come. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>

#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/mcast/mcast.h"
#include "test_mcast_fab.h"

struct line {
	struct fabric f;
	struct hops h;
	struct ib_node *sw[3]; /* A - B - C */
	struct ib_port *a1, *a2, *b1, *c1, *c2;
	struct mc_ctx *c;
};

static void line_setup(struct line *L, unsigned mft, enum mc_merge merge)
{
	struct mc_params prm;

	memset(L, 0, sizeof(*L));
	fabric_init(&L->f);
	L->sw[0] = fab_sw(&L->f, "A", 8);
	L->sw[1] = fab_sw(&L->f, "B", 8);
	L->sw[2] = fab_sw(&L->f, "C", 8);
	fab_link(&L->f, L->sw[0], 1, L->sw[1], 1);
	fab_link(&L->f, L->sw[1], 2, L->sw[2], 1);
	L->a1 = fab_host(&L->f, "a1", L->sw[0], 5);
	L->a2 = fab_host(&L->f, "a2", L->sw[0], 6);
	L->b1 = fab_host(&L->f, "b1", L->sw[1], 5);
	L->c1 = fab_host(&L->f, "c1", L->sw[2], 5);
	L->c2 = fab_host(&L->f, "c2", L->sw[2], 6);
	assert_int_equal(hops_compute(&L->f, &L->h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = mft;
	prm.merge = merge;
	assert_int_equal(mcast_create(&L->c, &L->f, &L->h, NULL, "mr4lms", &prm), 0);
}

static void line_teardown(struct line *L)
{
	mcast_destroy(L->c);
	hops_free(&L->h);
	fabric_free(&L->f);
}

static void mgid(uint8_t *m, unsigned n)
{
	memset(m, 0, 16);
	m[0] = 0xff;
	m[1] = 0x12;
	m[14] = (uint8_t)(n >> 8);
	m[15] = (uint8_t)n;
}

static uint32_t add(struct mc_ctx *c, unsigned n, struct ib_port *p0,
		    struct ib_port *p1)
{
	uint8_t m[16];
	struct ib_port *mem[2] = { p0, p1 };
	uint32_t gid = MC_NONE;

	mgid(m, n);
	assert_int_equal(mcast_group_add(c, m, mem, p1 ? 2 : 1, &gid), 0);
	return gid;
}

static void verify_ok(struct mc_ctx *c)
{
	char err[256] = "";
	int rc = mcast_verify_thorough(c, err, sizeof(err));

	if (rc)
		fail_msg("verify: %s", err);
}

static void test_disjoint_share_color(void **state)
{
	struct line L;
	uint32_t g1, g2, g3;

	(void)state;
	line_setup(&L, 0, MC_MERGE_EXTEND);
	g1 = add(L.c, 1, L.a1, L.a2);
	g2 = add(L.c, 2, L.c1, L.c2);
	assert_int_equal(mcast_group_mlid(L.c, g1), 0xC000);
	assert_int_equal(mcast_group_mlid(L.c, g2), 0xC000);
	assert_int_equal(mcast_group_tree(L.c, g1)->n_nodes, 1);
	assert_int_equal(mcast_group_tree(L.c, g1)->height, 1);
	/* crossing both: all three switches, color 1 */
	g3 = add(L.c, 3, L.a1, L.c1);
	assert_int_equal(mcast_group_mlid(L.c, g3), 0xC001);
	assert_int_equal(mcast_group_tree(L.c, g3)->n_nodes, 3);
	assert_int_equal(mcast_group_tree(L.c, g3)->height, 2);
	assert_int_equal(mcast_colors_top(L.c), 2);
	verify_ok(L.c);

	/* MFT of B: only color 1, ports 1 and 2 */
	uint64_t mask[MC_MASK_WORDS];
	assert_false(mcast_mft_get(L.c, 1, 0, mask));
	assert_true(mcast_mft_get(L.c, 1, 1, mask));
	assert_int_equal(mask[0], (1ull << 1) | (1ull << 2));

	/* deleting the crossing group frees color 1 everywhere */
	assert_int_equal(mcast_group_remove(L.c, g3), 0);
	assert_int_equal(mcast_colors_top(L.c), 1);
	for (uint32_t s = 0; s < 3; s++)
		assert_false(mcast_mft_get(L.c, s, 1, mask));
	assert_int_equal(L.c->efi[L.c->port_base[1] + 1], 0);
	verify_ok(L.c);
	assert_int_equal(mcast_group_remove(L.c, g1), 0);
	assert_int_equal(mcast_group_remove(L.c, g2), 0);
	assert_int_equal(mcast_colors_top(L.c), 0);
	assert_int_equal(L.c->live_trees, 0);
	line_teardown(&L);
}

static void test_one_color_merges(void **state)
{
	struct line L;
	struct mc_stats st;
	uint32_t g1, g2, g3;

	(void)state;
	line_setup(&L, 1, MC_MERGE_EXTEND);
	g1 = add(L.c, 1, L.a1, L.a2);
	g2 = add(L.c, 2, L.c1, L.c2);
	g3 = add(L.c, 3, L.a1, L.c1);
	/* every group keeps color 0 and all share one tree */
	assert_int_equal(mcast_group_mlid(L.c, g1), 0xC000);
	assert_int_equal(mcast_group_mlid(L.c, g2), 0xC000);
	assert_int_equal(mcast_group_mlid(L.c, g3), 0xC000);
	assert_ptr_equal(mcast_group_tree(L.c, g1), mcast_group_tree(L.c, g3));
	assert_ptr_equal(mcast_group_tree(L.c, g2), mcast_group_tree(L.c, g3));
	mcast_stats(L.c, &st);
	assert_int_equal(st.trees, 1);
	assert_int_equal(st.max_tfi, 3);
	assert_int_equal(st.merged_groups, 3);
	assert_int_equal(st.colors_used, 1);
	/* link A-B carries the three groups */
	assert_int_equal(st.max_efi, 3);
	verify_ok(L.c);
	/* deleting groups one by one: nothing left behind */
	assert_int_equal(mcast_group_remove(L.c, g3), 0);
	verify_ok(L.c);
	assert_int_equal(mcast_group_remove(L.c, g1), 0);
	verify_ok(L.c);
	/* only c1, c2 left: pruned down to switch C... unless C is not the
	 * root; the root stays, so the tree keeps its path to C */
	assert_int_equal(mcast_group_remove(L.c, g2), 0);
	assert_int_equal(mcast_colors_top(L.c), 0);
	for (uint32_t i = 0; i < L.c->port_base[3]; i++)
		assert_int_equal(L.c->efi[i], 0);
	line_teardown(&L);
}

static void test_prune(void **state)
{
	struct line L;
	uint32_t g;
	uint64_t mask[MC_MASK_WORDS];

	(void)state;
	line_setup(&L, 0, MC_MERGE_EXTEND);
	/* root B (the only switch at worst distance 1 from A and C) */
	uint8_t m[16];
	struct ib_port *mem[3] = { L.a1, L.b1, L.c1 };
	mgid(m, 9);
	assert_int_equal(mcast_group_add(L.c, m, mem, 3, &g), 0);
	assert_int_equal(mcast_group_tree(L.c, g)->root, 1);
	assert_int_equal(mcast_member_remove(L.c, g, L.c1), 0);
	/* C has no member left: pruned, B no longer forwards to it */
	assert_false(mcast_mft_get(L.c, 2, 0, mask));
	assert_true(mcast_mft_get(L.c, 1, 0, mask));
	assert_false(mc_mask_test(mask, 2));
	assert_int_equal(mcast_group_tree(L.c, g)->n_nodes, 2);
	verify_ok(L.c);
	line_teardown(&L);
}

/* Standard group: members join one by one, the MLID never changes; the
 * extension meets a tree of the same color, which is merged in. */
static void test_member_add(void **state)
{
	struct line L;
	uint32_t g1, g2;

	(void)state;
	line_setup(&L, 1, MC_MERGE_EXTEND);
	g1 = add(L.c, 1, L.a1, NULL);
	g2 = add(L.c, 2, L.c1, L.c2);
	assert_int_equal(mcast_group_mlid(L.c, g1), 0xC000);
	assert_int_equal(mcast_member_add(L.c, g1, L.a2), 0);
	assert_int_equal(mcast_group_tree(L.c, g1)->n_nodes, 1);
	assert_int_equal(mcast_member_add(L.c, g1, L.b1), 0);
	assert_int_equal(mcast_group_mlid(L.c, g1), 0xC000);
	assert_int_equal(mcast_group_tree(L.c, g1)->n_nodes, 2);
	verify_ok(L.c);
	/* reaching C, held by g2's tree in the same color: merged */
	assert_int_equal(mcast_member_add(L.c, g1, L.c1), 0);
	assert_int_equal(mcast_group_mlid(L.c, g1), 0xC000);
	assert_int_equal(mcast_group_mlid(L.c, g2), 0xC000);
	assert_ptr_equal(mcast_group_tree(L.c, g1), mcast_group_tree(L.c, g2));
	verify_ok(L.c);
	assert_int_equal(mcast_member_add(L.c, g1, L.c1), 0); /* duplicate */
	assert_int_equal(mcast_group_remove(L.c, g1), 0);
	verify_ok(L.c);
	assert_int_equal(mcast_group_remove(L.c, g2), 0);
	assert_int_equal(mcast_colors_top(L.c), 0);
	line_teardown(&L);
}

static void test_errors(void **state)
{
	struct line L;
	uint8_t m[16];
	struct ib_port *none = NULL;

	(void)state;
	line_setup(&L, 0, MC_MERGE_EXTEND);
	mgid(m, 1);
	assert_int_equal(mcast_group_add(L.c, m, &none, 1, NULL), -EINVAL);
	assert_int_equal(mcast_group_add(L.c, m, &none, 0, NULL), -EINVAL);
	assert_int_equal(mcast_group_remove(L.c, 42), -ENOENT);
	assert_null(mcast_engine_find("nope", NULL));
	assert_non_null(mcast_engine_find("sssp-rr", NULL));
	line_teardown(&L);
}

/* Early sharing under a forecast (mr4lms_share.c): on a line of 10
 * switches with MFT 2, two one-switch groups on the first switch meet a
 * shortage there (3 trees still to come, 1 free color).  Where the trees
 * to come are two 10-switch ones, whose sharing frees colors on ten
 * times as many switches, the second small group is spared and gets a
 * tree of its own; where they are small too, it shares the first's. */
static uint32_t spare_case(bool wide)
{
	struct fabric f;
	struct hops h = {0};
	struct mc_params prm;
	struct mc_ctx *c;
	struct ib_node *sw[10];
	struct ib_port *h0a, *h0b;
	uint32_t all[10], g1, g2, other;
	const struct mc_tree *t1, *t2;
	char name[8];

	fabric_init(&f);
	for (unsigned i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "S%u", i);
		sw[i] = fab_sw(&f, name, 8);
		if (i)
			fab_link(&f, sw[i - 1], 2, sw[i], 1);
	}
	h0a = fab_host(&f, "h0a", sw[0], 5);
	h0b = fab_host(&f, "h0b", sw[0], 6);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = 2;
	assert_int_equal(mcast_create(&c, &f, &h, NULL, "mr4lms", &prm), 0);
	for (unsigned i = 0; i < 10; i++)
		all[i] = (uint32_t)sw[i]->sw_idx;
	/* the forecast: the two small trees, then two more of 10 or 1 switch */
	assert_int_equal(mcast_forecast(c, all, 1, 1), 0);
	assert_int_equal(mcast_forecast(c, all, 1, 1), 0);
	assert_int_equal(mcast_forecast(c, all, wide ? 10 : 1, 2), 0);
	mcast_forecast_peak(c, 10);
	g1 = add(c, 1, h0a, NULL);
	assert_int_equal(mcast_forecast(c, all, 1, -1), 0);
	g2 = add(c, 2, h0b, NULL);
	verify_ok(c);
	t1 = mcast_group_tree(c, g1);
	t2 = mcast_group_tree(c, g2);
	assert_non_null(t1);
	assert_non_null(t2);
	other = t1 != t2;
	mcast_destroy(c);
	hops_free(&h);
	fabric_free(&f);
	return other;
}

static void test_share_spared_by_wider(void **state)
{
	(void)state;
	assert_int_equal(spare_case(true), 1);	/* own tree */
	assert_int_equal(spare_case(false), 0); /* shares the first's */
}

/* Width classes: exact below 4, four per doubling, never decreasing. */
static void test_width_class(void **state)
{
	(void)state;
	for (uint32_t n = 0; n < 4; n++)
		assert_int_equal(mc_width_class(n), n);
	for (uint32_t n = 4; n < 100000; n++) {
		assert_true(mc_width_class(n) >= mc_width_class(n - 1));
		if (2 * n < 100000 && mc_width_class(2 * n) < MC_FC_WIDTHS - 1)
			assert_int_equal(mc_width_class(2 * n),
					 mc_width_class(n) + 4);
	}
	assert_int_equal(mc_width_class(UINT32_MAX), MC_FC_WIDTHS - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_disjoint_share_color),
		cmocka_unit_test(test_one_color_merges),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_member_add),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_share_spared_by_wider),
		cmocka_unit_test(test_width_class),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
