/* The LFT walk (routing/verify/verify_lft.c) and the shift permutations'
 * link loads (verify_shift.c) on tables written by hand, so their answers
 * do not depend on any routing engine: delivery, drops, loops, detours
 * longer than the hop table, hop counts and per-link DLIDs; the hosts'
 * cabling order (lib/ca_order.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "lib/ca_order.h"
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

/* Shortest paths on the ring: in shift 1 (H0->H1, H1->H2, H2->H0) and
 * shift 2 every flow has a link of its own. */
static void test_shifts_shortest(void **state)
{
	struct ring r;
	struct shift_report sr;

	(void)state;
	build(&r);
	program_shortest(&r);
	assert_int_equal(verify_shifts(&r.f, NULL, 0, &sr), 0);
	assert_int_equal(sr.hosts, 3);
	assert_int_equal(sr.shifts, 2);
	assert_int_equal(sr.shifts_total, 2);
	assert_int_equal(sr.worst, 1);
	assert_int_equal(sr.congestion_free, 2);
	assert_int_equal(sr.undelivered, 0);
	hops_free(&r.hp);
	fabric_free(&r.f);
}

/* Detours: S0 sends H2's LID by S1, S2 sends H1's by S0.  Shift 1 still
 * has a link per flow; in shift 2, H0->H2 and H2->H1 both cross S0->S1. */
static void test_shifts_detour(void **state)
{
	struct ring r;
	struct shift_report sr;

	(void)state;
	build(&r);
	program_shortest(&r);
	r.s[0]->lft[12] = nb_port[0][1];
	r.s[2]->lft[11] = nb_port[2][0];
	assert_int_equal(verify_shifts(&r.f, NULL, 0, &sr), 0);
	assert_int_equal(sr.worst, 2);
	assert_int_equal(sr.congestion_free, 1);
	assert_true(sr.mean_busiest > 1.49 && sr.mean_busiest < 1.51);
	/* one shift of the two, the first */
	assert_int_equal(verify_shifts(&r.f, NULL, 1, &sr), 0);
	assert_int_equal(sr.shifts, 1);
	assert_int_equal(sr.worst, 1);
	/* a dropped flow is counted, not walked */
	r.s[1]->lft[10] = LFT_NO_PORT;
	assert_int_equal(verify_shifts(&r.f, NULL, 0, &sr), 0);
	assert_int_equal(sr.undelivered, 1);
	hops_free(&r.hp);
	fabric_free(&r.f);
}

/* Cabling order: by the GUID of the host's switch, then its port, not by
 * the model's order. */
static void test_ca_order(void **state)
{
	struct ring r;
	struct ca_slot *v;
	uint32_t n;

	(void)state;
	build(&r);
	r.s[0]->guid = 0x99; /* S0 now sorts last */
	assert_int_equal(ca_order(&r.f, &v, &n), 0);
	assert_int_equal(n, 3);
	assert_ptr_equal(v[0].port, &r.h[1]->ports[1]);
	assert_ptr_equal(v[1].port, &r.h[2]->ports[1]);
	assert_ptr_equal(v[2].port, &r.h[0]->ports[1]);
	assert_int_equal(v[2].sw_port, 5);
	free(v);
	hops_free(&r.hp);
	fabric_free(&r.f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_all_good),	cmocka_unit_test(test_detour),
	    cmocka_unit_test(test_loop),	cmocka_unit_test(test_drops),
	    cmocka_unit_test(test_credit_loop),
	    cmocka_unit_test(test_shifts_shortest),
	    cmocka_unit_test(test_shifts_detour),
	    cmocka_unit_test(test_ca_order),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
