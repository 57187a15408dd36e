/* The LFT walk (routing/verify/verify_lft.c) on tables written by hand, so its
 * answers do not depend on any routing engine: delivery, drops, loops,
 * detours longer than the hop table, hop counts and per-link DLIDs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "lib/fabric.h"
#include "routing/hops/hops.h"
#include "routing/verify/verify.h"

/* A ring of three switches S0 (LID 1), S1 (2), S2 (3): S0.1-S1.1,
 * S1.2-S2.1, S2.2-S0.2; host A (LID 10) on S0.5, host B (LID 11) on
 * S1.5, host C (LID 12) on S2.5. */
struct ring {
	struct fabric f;
	struct ib_node *s[3], *h[3];
	struct hops hp;
};

static void build(struct ring *r)
{
	fabric_init(&r->f);
	memset(&r->hp, 0, sizeof(r->hp));
	for (int i = 0; i < 3; i++) {
		char n[16];
		snprintf(n, sizeof(n), "S%d", i);
		r->s[i] =
		    fabric_add_node(&r->f, IB_NODE_SWITCH, 0x10 + i, 6, n);
		snprintf(n, sizeof(n), "H%d", i);
		r->h[i] = fabric_add_node(&r->f, IB_NODE_CA, 0x20 + i, 1, n);
		fabric_set_port_guid(&r->f, &r->h[i]->ports[1], 0x30 + i);
		fabric_link(&r->f, r->s[i], 5, r->h[i], 1);
		fabric_set_lid(&r->f, &r->s[i]->ports[0], 1 + i, 0);
		fabric_set_lid(&r->f, &r->h[i]->ports[1], 10 + i, 0);
	}
	fabric_link(&r->f, r->s[0], 1, r->s[1], 1);
	fabric_link(&r->f, r->s[1], 2, r->s[2], 1);
	fabric_link(&r->f, r->s[2], 2, r->s[0], 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(node_lft_reserve(r->s[i], r->f.max_lid), 0);
	assert_int_equal(hops_compute(&r->f, &r->hp, NULL), 0);
}

/* Port of switch i towards neighbour switch k (k != i). */
static const uint8_t nb_port[3][3] = {{0, 1, 2}, {1, 0, 2}, {2, 1, 0}};

/* Shortest paths: own LID on port 0, own host on 5, the rest direct. */
static void program_shortest(struct ring *r)
{
	for (int i = 0; i < 3; i++)
		for (int k = 0; k < 3; k++) {
			r->s[i]->lft[1 + k] = k == i ? 0 : nb_port[i][k];
			r->s[i]->lft[10 + k] = k == i ? 5 : nb_port[i][k];
		}
}

static void test_all_good(void **state)
{
	struct ring r;
	struct lft_check c;

	(void)state;
	build(&r);
	program_shortest(&r);
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_string_equal(c.first_error, "");
	assert_int_equal(c.ca_pairs, 6);
	assert_int_equal(c.unreachable_pairs, 0);
	assert_int_equal(c.non_shortest_pairs, 0);
	assert_int_equal(c.max_hops, 3);
	assert_true(c.avg_hops > 2.99 && c.avg_hops < 3.01);
	assert_int_equal(c.sw_pairs, 9);
	assert_int_equal(c.sw_unreachable, 0);
	/* Each directed inter-switch link carries exactly one host LID. */
	assert_int_equal(c.max_link_routes, 1);
	hops_free(&r.hp);
	fabric_free(&r.f);
}

static void test_detour(void **state)
{
	struct ring r;
	struct lft_check c;

	(void)state;
	build(&r);
	program_shortest(&r);
	r.s[0]->lft[12] = 1; /* A -> C the long way, through S1 */
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_int_equal(c.unreachable_pairs, 0);
	assert_int_equal(c.non_shortest_pairs, 1);
	assert_int_equal(c.max_hops, 4);
	assert_int_equal(c.max_link_routes, 2); /* S0->S1 carries B and C */
	assert_int_equal(verify_lft(&r.f, NULL, NULL, &c), 0);
	assert_int_equal(c.non_shortest_pairs, 0); /* no table, no check */
	hops_free(&r.hp);
	fabric_free(&r.f);
}

static void test_loop(void **state)
{
	struct ring r;
	struct lft_check c;
	struct pool *p = pool_create(2);

	(void)state;
	build(&r);
	program_shortest(&r);
	r.s[0]->lft[12] = 1; /* S0 -> S1 */
	r.s[1]->lft[12] = 1; /* S1 -> S0 */
	assert_int_equal(verify_lft(&r.f, &r.hp, p, &c), 0);
	assert_int_equal(c.unreachable_pairs, 2);
	assert_int_equal(c.loop_pairs, 2);
	assert_non_null(strstr(c.first_error, "loop"));
	assert_non_null(strstr(c.first_error, "LID 12"));
	hops_free(&r.hp);
	fabric_free(&r.f);
	pool_destroy(p);
}

/* Everything two switches away sent clockwise: S0->S1->S2, S1->S2->S0,
 * S2->S0->S1 close a channel-dependency cycle; one detour alone does not. */
static void test_credit_loop(void **state)
{
	struct ring r;
	struct lft_check c;

	(void)state;
	build(&r);
	program_shortest(&r);
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_int_equal(c.cdg_acyclic, 1);
	r.s[0]->lft[12] = nb_port[0][1]; /* A -> C via S1 */
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_int_equal(c.cdg_acyclic, 1);
	r.s[1]->lft[10] = nb_port[1][2]; /* B -> A via S2 */
	r.s[2]->lft[11] = nb_port[2][0]; /* C -> B via S0 */
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_int_equal(c.unreachable_pairs, 0);
	assert_int_equal(c.cdg_acyclic, 0);
	assert_non_null(strstr(c.cdg_why, "credit loop"));
	hops_free(&r.hp);
	fabric_free(&r.f);
}

static void test_drops(void **state)
{
	struct ring r;
	struct lft_check c;

	(void)state;
	build(&r);
	program_shortest(&r);
	r.s[2]->lft[10] = LFT_NO_PORT; /* C -> A dropped */
	r.s[2]->lft[11] = 9;	       /* C -> B: no such port */
	r.s[0]->lft[2] = 0;	       /* S0 keeps S1's LID for itself */
	r.s[1]->lft[12] = 3;	       /* S1 port 3 is not linked */
	assert_int_equal(verify_lft(&r.f, &r.hp, NULL, &c), 0);
	assert_int_equal(c.unreachable_pairs, 3);
	assert_int_equal(c.loop_pairs, 0);
	assert_int_equal(c.sw_unreachable, 1);
	assert_non_null(strstr(c.first_error, "LID 2 "));
	assert_non_null(strstr(c.first_error, "dropped"));
	hops_free(&r.hp);
	fabric_free(&r.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_good),	cmocka_unit_test(test_detour),
	    cmocka_unit_test(test_loop),	cmocka_unit_test(test_drops),
	    cmocka_unit_test(test_credit_loop),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
