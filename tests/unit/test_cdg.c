/* cdg_verify / cdg_check on hand-written LFTs: delivery, hop counts, link
 * loads, forwarding loops, down->up turns and dependency cycles. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "routing/verify/verify.h"
#include "updown_fab.h"

/* Line S0 - S1 - S2, one host on S0 and one on S2 (LIDs: switches 1..3,
 * H on S0 = 4, H on S2 = 5). */
static void build_line(struct fabric *f)
{
	fab_torus(f, 3, 1, 1, 0); /* a 3-ring, then cut it to a line */
	fabric_unlink(&f->switches[2]->ports[2]);
	fab_host(f, f->switches[0], fab_free_port(f->switches[0]));
	fab_host(f, f->switches[2], fab_free_port(f->switches[2]));
	fab_lids(f);
	for (uint32_t s = 0; s < 3; s++) {
		node_lft_reserve(f->switches[s], f->max_lid);
		memset(f->switches[s]->lft, LFT_NO_PORT,
		       f->switches[s]->lft_size);
	}
}

/* Port of switch a that leads to switch b. */
static uint8_t port_to(struct ib_node *a, struct ib_node *b)
{
	for (unsigned p = 1; p <= a->nports; p++)
		if (port_peer_node(a, (uint8_t)p) == b)
			return (uint8_t)p;
	fail_msg("no link %s -> %s", a->desc, b->desc);
	return 0;
}

static void route_line(struct fabric *f)
{
	struct ib_node **s = f->switches;

	for (unsigned l = 1; l <= f->max_lid; l++) {
		struct ib_port *d = fabric_port_by_lid(f, (uint16_t)l);
		struct ib_node *dsw = node_is_switch(d->node) ? d->node
							      : d->remote->node;
		for (uint32_t i = 0; i < 3; i++) {
			if (s[i] == dsw)
				s[i]->lft[l] = node_is_switch(d->node)
						       ? 0
						       : d->remote->num;
			else
				s[i]->lft[l] = port_to(
					s[i], s[dsw->sw_idx > s[i]->sw_idx
							? i + 1
							: i - 1]);
		}
	}
}

static void test_line(void **state)
{
	struct fabric f;
	struct cdg_report r;
	uint32_t order[3] = { 0, 1, 2 }; /* S0 top: S0 -> S1 is down */

	(void)state;
	build_line(&f);
	route_line(&f);
	assert_int_equal(cdg_verify(&f, NULL, order, &r), 0);
	assert_int_equal(r.pairs, 2);
	assert_int_equal(r.unreachable_pairs, 0);
	assert_int_equal(r.max_hops, 4);
	assert_true(r.avg_hops == 4.0);
	assert_int_equal(r.max_link_routes, 1);
	assert_int_equal(r.acyclic, 1);
	/* S1 at the bottom: S0 -> S1 is down and S1 -> S2 up, illegal */
	uint32_t bad[3] = { 0, 2, 1 };
	assert_int_equal(cdg_verify(&f, NULL, bad, &r), 0);
	assert_true(r.illegal_turns > 0);
	assert_non_null(strstr(r.why, "down->up"));
	fabric_free(&f);
}

static void test_drop_and_loop(void **state)
{
	struct fabric f;
	struct cdg_report r;
	struct ib_node **s;
	char why[256];

	(void)state;
	build_line(&f);
	route_line(&f);
	s = f.switches;
	/* LID 5 (host on S2): S1 bounces it back to S0 -> loop S0 <-> S1 */
	s[1]->lft[5] = port_to(s[1], s[0]);
	assert_int_equal(cdg_verify(&f, NULL, NULL, &r), 0);
	assert_int_equal(r.unreachable_pairs, 1);
	/* a two-link loop is a dependency cycle S0->S1->S0 */
	assert_int_equal(r.acyclic, 0);
	assert_int_equal(cdg_check(&f, NULL, why, sizeof(why)), 0);
	assert_non_null(strstr(why, "channel dependency cycle through"));
	assert_non_null(strstr(why, "(2 links)"));
	/* a drop instead: no cycle, one pair lost */
	s[1]->lft[5] = LFT_NO_PORT;
	assert_int_equal(cdg_verify(&f, NULL, NULL, &r), 0);
	assert_int_equal(r.unreachable_pairs, 1);
	assert_int_equal(r.acyclic, 1);
	assert_non_null(strstr(r.why, "not delivered"));
	fabric_free(&f);
}

/* Min-hop on a 4x4x3 torus has credit loops, as OpenSM's does under
 * ibsim; a route set that only uses the X dimension of one ring does. */
static void test_torus_minhop_cyclic(void **state)
{
	struct fabric f;
	struct hops h = { 0 };
	struct cdg_report r;
	struct pool *pool = pool_create(2);

	(void)state;
	fab_torus(&f, 4, 4, 3, 1);
	assert_int_equal(hops_compute(&f, &h, pool), 0);
	fab_minhop(&f, &h);
	assert_int_equal(cdg_verify(&f, pool, NULL, &r), 0);
	assert_int_equal(r.unreachable_pairs, 0);
	assert_int_equal(r.acyclic, 0);
	print_message("minhop 4x4x3: %s\n", r.why);
	/* the pairs and the hop bound are those of the torus */
	assert_int_equal(r.pairs, 48 * 47);
	assert_int_equal(r.max_hops, 2 + 2 + 2 + 1);
	hops_free(&h);
	pool_destroy(pool);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line),
		cmocka_unit_test(test_drop_and_loop),
		cmocka_unit_test(test_torus_minhop_cyclic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
