/* The VL-aware channel-dependency check (routing/verify/cdg_vl.c) and what
 * docs/design.md §5.2 argues from it: up/down tables stay acyclic over
 * (link, VL) with ibsmd's default SL2VL tables, with any qos.sl2vl, and
 * with arbitrary per-hop VL changes, on fat trees, tori and random
 * networks; min-hop tables on a torus keep their cycle; and on a ring
 * whose routes form a cycle, moving the second hop to another VL breaks
 * it (the check follows the VL per hop, not per path).  The same check
 * with each pair's own SL (cdg_pairs.c): a min-hop ring on one SL has its
 * cycle, and the dateline rule (paths that cross one link on SL1, the
 * others on SL0) removes it, by SL alone or through per-hop tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/config.h"
#include "lib/qos.h"
#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "updown_fab.h"

struct tables {
	struct qos_port_tables t;
	bool random;
};

/* What ibsmd programs: the out port's table, whatever the in port. */
static uint8_t programmed(void *ctx, const struct ib_node *sw, uint8_t in,
			  uint8_t out, uint8_t sl)
{
	const struct tables *tb = ctx;

	if (tb->random) { /* any VL per (switch, in, out, SL) */
		uint64_t h = (sw->guid * 0x9E3779B97F4A7C15ull) ^
			     ((uint64_t)in << 40 | (uint64_t)out << 20 | sl);
		h *= 0xBF58476D1CE4E5B9ull;
		return (uint8_t)((h >> 40) % 15);
	}
	return tb->t.sl2vl[sl];
}

static void route_updown(struct fabric *f, struct hops *h)
{
	const struct ucast_engine *e = ucast_engine_find("updown");
	struct ucast_params prm = {.updown_direction = "bfs"};
	struct ucast_result res = {0};

	assert_int_equal(hops_compute(f, h, NULL), 0);
	if (e->route(f, h, NULL, &prm, &res))
		fail_msg("updown: %s", res.error);
	ucast_result_free(&res);
}

static void policy(struct qos_policy *p, const char *sl2vl)
{
	char over[128], err[256];
	const char *o[] = {over};
	struct config c;

	snprintf(over, sizeof(over), "qos.sl2vl=%s", sl2vl);
	assert_int_equal(config_build(&c, NULL, o, 1, err, sizeof(err)), 0);
	assert_int_equal(qos_policy_from_config(p, &c, err, sizeof(err)), 0);
	config_free(&c);
}

static void check_family(struct fabric *f, const char *what)
{
	static const char *const maps[] = {
	    "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7", /* the default */
	    "0,0,0,0,0,0,0,0,1,1,1,1,1,1,1,1",
	    "14,3,9,0,7,7,2,11,5,1,13,6,4,12,8,10",
	};
	struct hops h = {0};
	char why[256];

	route_updown(f, &h);
	assert_int_equal(cdg_check(f, NULL, why, sizeof(why)), 1);
	for (unsigned m = 0; m < 3; m++)
		for (uint8_t ops = 1; ops <= 5; ops++) {
			struct qos_policy p;
			struct tables tb = {.random = false};
			policy(&p, maps[m]);
			qos_port_tables(&p, ops, 64, 64, &tb.t);
			if (cdg_check_vl(f, programmed, &tb, why,
					 sizeof(why)) != 1)
				fail_msg("%s, map %u, OperationalVLs %u: %s",
					 what, m, ops, why);
			qos_policy_free(&p);
		}
	struct tables rnd = {.random = true};
	if (cdg_check_vl(f, programmed, &rnd, why, sizeof(why)) != 1)
		fail_msg("%s, per-hop random VLs: %s", what, why);
	hops_free(&h);
}

static void test_updown_any_sl2vl(void **state)
{
	struct fabric f;

	(void)state;
	fab_fattree2(&f, 4, 8, 3);
	check_family(&f, "fattree2 4x8");
	fabric_free(&f);
	fab_fattree3(&f, 4, 2);
	check_family(&f, "fattree3 k=4");
	fabric_free(&f);
	fab_torus(&f, 3, 3, 3, 1);
	check_family(&f, "torus 3x3x3");
	fabric_free(&f);
	fab_torus(&f, 5, 4, 1, 2);
	check_family(&f, "torus 5x4");
	fabric_free(&f);
	fab_random(&f, 16, 8, 2, 7);
	check_family(&f, "random 16");
	fabric_free(&f);
	fab_random(&f, 24, 6, 1, 3);
	check_family(&f, "random 24");
	fabric_free(&f);
}

/* Min-hop on a torus has credit loops; VLs chosen per SL alone cannot
 * remove them, and the check says so. */
static void test_minhop_torus_cycle(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct qos_policy p;
	struct tables tb = {.random = false};
	char why[256] = "";

	(void)state;
	fab_torus(&f, 4, 4, 1, 1);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	fab_minhop(&f, &h);
	assert_int_equal(cdg_check(&f, NULL, why, sizeof(why)), 0);
	policy(&p, "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,7");
	qos_port_tables(&p, 4, 8, 8, &tb.t);
	assert_int_equal(cdg_check_vl(&f, programmed, &tb, why, sizeof(why)),
			 0);
	assert_non_null(strstr(why, "VL"));
	qos_policy_free(&p);
	hops_free(&h);
	fabric_free(&f);
}

/* Three switches in a ring, each routing to the hosts two hops on
 * clockwise: the links form a dependency cycle.  On one VL it stays; when
 * the second hop goes on VL1 (a switch maps packets that came from the
 * ring to VL1, its own hosts' to VL0) it is gone. */
static uint8_t second_hop_vl1(void *ctx, const struct ib_node *sw, uint8_t in,
			      uint8_t out, uint8_t sl)
{
	const struct ib_port *rp = in ? sw->ports[in].remote : NULL;

	(void)ctx;
	(void)out;
	(void)sl;
	return rp && node_is_switch(rp->node) ? 1 : 0;
}

static uint8_t one_vl(void *ctx, const struct ib_node *sw, uint8_t in,
		      uint8_t out, uint8_t sl)
{
	return 0;
}

static void test_ring_broken_by_vls(void **state)
{
	struct fabric f;
	struct ib_node *s[3], *hst[3];
	char why[256];

	(void)state;
	fabric_init(&f);
	for (unsigned i = 0; i < 3; i++)
		s[i] = fab_sw(&f, 0x1000 + i, 3, "S", i);
	/* port 1: to the next switch clockwise, port 2: from the previous */
	for (unsigned i = 0; i < 3; i++)
		fabric_link(&f, s[i], 1, s[(i + 1) % 3], 2);
	for (unsigned i = 0; i < 3; i++)
		hst[i] = fab_host(&f, s[i], 3);
	fab_lids(&f);
	for (unsigned i = 0; i < 3; i++) {
		node_lft_reserve(s[i], f.max_lid);
		memset(s[i]->lft, 1, s[i]->lft_size); /* clockwise */
		s[i]->lft[s[i]->ports[0].lid] = 0;
		s[i]->lft[hst[i]->ports[1].lid] = 3;
	}
	assert_int_equal(cdg_check(&f, NULL, why, sizeof(why)), 0);
	assert_int_equal(cdg_check_vl(&f, one_vl, NULL, why, sizeof(why)), 0);
	assert_int_equal(
	    cdg_check_vl(&f, second_hop_vl1, NULL, why, sizeof(why)), 1);
	fabric_free(&f);
}

/* Does the min-hop path from switch x to lid cross the link between
 * switches 0 and n-1 of a ring (the dateline)? */
static bool crosses(const struct fabric *f, uint32_t x, uint16_t lid)
{
	const struct ib_node *sw = f->switches[x];

	for (unsigned hop = 0; hop < f->n_switches; hop++) {
		uint8_t p = sw->lft[lid];
		const struct ib_node *nx = port_peer_node(sw, p);
		if (!p || p == LFT_NO_PORT || !node_is_switch(nx))
			return false;
		if ((uint32_t)(sw->sw_idx + nx->sw_idx) == f->n_switches - 1 &&
		    (sw->sw_idx == 0 || nx->sw_idx == 0))
			return true;
		sw = nx;
	}
	return false;
}

struct ring {
	const struct fabric *f;
	bool dateline;
};

static void ring_sls(void *arg, unsigned worker, uint16_t lid,
		     const uint8_t *col, int8_t *sl)
{
	const struct ring *r = arg;

	(void)worker, (void)col;
	for (uint32_t x = 0; x < r->f->n_switches; x++)
		sl[x] = (int8_t)(r->dateline && crosses(r->f, x, lid));
}

static uint8_t sl_is_vl(void *ctx, const struct ib_node *sw, uint8_t in,
			uint8_t out, uint8_t sl)
{
	(void)ctx, (void)sw, (void)in, (void)out;
	return sl;
}

static void test_pairs_dateline(void **state)
{
	struct fabric f;
	struct hops h = {0};
	struct cdg_vl_report r;
	struct ring one = {&f, false}, two = {&f, true};

	(void)state;
	fab_torus(&f, 6, 1, 1, 1);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	fab_minhop(&f, &h);
	assert_int_equal(
	    cdg_check_vl_pairs(&f, NULL, ring_sls, &one, NULL, NULL, &r), 0);
	assert_int_equal(r.acyclic, 0);
	assert_int_equal(r.vls_used, 1);
	assert_int_equal(
	    cdg_check_vl_pairs(&f, NULL, ring_sls, &two, NULL, NULL, &r), 0);
	assert_int_equal(r.acyclic, 1);
	assert_int_equal(r.vls_used, 3);
	assert_int_equal(r.no_sl_pairs, 0);
	/* the per-hop path of the check, with the same mapping */
	assert_int_equal(
	    cdg_check_vl_pairs(&f, NULL, ring_sls, &two, sl_is_vl, NULL, &r),
	    0);
	assert_int_equal(r.acyclic, 1);
	/* and with every SL put on VL0 the cycle is back */
	assert_int_equal(
	    cdg_check_vl_pairs(&f, NULL, ring_sls, &two, one_vl, NULL, &r), 0);
	assert_int_equal(r.acyclic, 0);
	hops_free(&h);
	fabric_free(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_updown_any_sl2vl),
	    cmocka_unit_test(test_minhop_torus_cycle),
	    cmocka_unit_test(test_ring_broken_by_vls),
	    cmocka_unit_test(test_pairs_dateline),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
