/* mcast_sw_changed(): a switch it does not name has the same MFT entries
 * as before.  Random groups, standard members added and removed, groups
 * removed, on a fat tree with a small MFT (so trees merge, in both merge
 * modes): after every operation each switch's whole MFT is read again and
 * compared with the last reading wherever the context says nothing
 * changed.  The MFT programmer (daemon/mcast/mftprog.c) compares only the
 * switches named, so a change missed here would be a stale MFT.  The EFI
 * the context keeps is checked against one counted afresh, too. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>

#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/mcast/mcast.h"
#include "test_mcast_fab.h"

#define NL    8 /* leaves */
#define NH    6 /* hosts per leaf */
#define NS    4 /* spines */
#define MFT   4
#define NG    40 /* group slots */
#define STEPS 3000

struct image {
	uint64_t m[MFT][MC_MASK_WORDS];
};

static void put(void *arg, uint32_t color, const uint64_t mask[MC_MASK_WORDS])
{
	struct image *im = arg;

	if (color < MFT)
		memcpy(im->m[color], mask, sizeof(im->m[color]));
}

/* The EFI the context keeps incrementally (mc_tree_account, and
 * mc_tree_add_member_live for a member on a switch its tree has) equals
 * the EFI counted afresh from every live tree. */
static void check_efi(const struct mc_ctx *c)
{
	uint32_t n = c->port_base[c->n_sw];
	uint32_t *want = calloc(n + 1, sizeof(*want));

	assert_non_null(want);
	for (uint32_t i = 0; i < c->n_trees; i++) {
		const struct mc_tree *t = &c->trees[i];

		for (uint32_t k = 0; t->live && k < t->n_nodes; k++)
			for (unsigned p = 0; p < MC_MASK_WORDS * 64; p++)
				if (mc_mask_test(t->nodes[k].mask, p))
					want[c->port_base[t->nodes[k].sw] +
					     p] += t->n_groups;
	}
	for (uint32_t i = 0; i < n; i++)
		if (want[i] != c->efi[i])
			fail_msg("EFI slot %u: kept %u, counted %u", i,
				 c->efi[i], want[i]);
	free(want);
}

/* Every switch's MFT now; those the context says are unchanged must be
 * what they were. */
static unsigned check(struct mc_ctx *c, struct image *prev, uint32_t n_sw)
{
	unsigned changed = 0;

	for (uint32_t s = 0; s < n_sw; s++) {
		struct image now;

		memset(&now, 0, sizeof(now));
		mcast_mft_foreach(c, s, put, &now);
		if (mcast_sw_changed(c, s))
			changed++;
		else if (memcmp(&now, &prev[s], sizeof(now)))
			fail_msg("switch %u: MFT changed, not reported", s);
		prev[s] = now;
	}
	check_efi(c);
	return changed;
}

static uint32_t rnd(uint32_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 17;
	*x ^= *x << 5;
	return *x;
}

static void mgid(uint8_t *m, unsigned n)
{
	memset(m, 0, 16);
	m[0] = 0xff;
	m[1] = 0x12;
	m[15] = (uint8_t)n;
}

/* One random operation: a group added, a member added or removed, or a
 * group removed. */
static void step(struct mc_ctx *c, uint32_t *gid, struct ib_port **hosts,
		 uint32_t *x)
{
	unsigned k = rnd(x) % NG, op = rnd(x) % 4;
	struct ib_port *mem[8];
	uint8_t m[16];

	if (gid[k] == MC_NONE) {
		unsigned n = 2 + rnd(x) % 6;

		for (unsigned i = 0; i < n; i++)
			mem[i] = hosts[rnd(x) % (NL * NH)];
		mgid(m, k);
		if (mcast_group_add(c, m, mem, n, &gid[k]) < 0)
			gid[k] = MC_NONE; /* no color left: fine */
	} else if (op == 0) {
		assert_int_equal(mcast_group_remove(c, gid[k]), 0);
		gid[k] = MC_NONE;
	} else if (op == 1) {
		mcast_member_remove(c, gid[k], hosts[rnd(x) % (NL * NH)]);
		if (!mcast_group_get(c, gid[k]))
			gid[k] = MC_NONE;
	} else {
		mcast_member_add(c, gid[k], hosts[rnd(x) % (NL * NH)]);
	}
}

static void run(enum mc_merge merge, uint32_t seed)
{
	struct fabric f;
	struct hops h = {0};
	struct ib_port *hosts[NL * NH];
	struct image prev[NL + NS];
	struct mc_params prm;
	struct mc_ctx *c;
	uint32_t gid[NG], x = seed;
	unsigned changed = 0;

	fabric_init(&f);
	fab_fat2(&f, NL, NH, NS, hosts);
	assert_int_equal(hops_compute(&f, &h, NULL), 0);
	mcast_params_default(&prm);
	prm.mft_size = MFT;
	prm.merge = merge;
	assert_int_equal(mcast_create(&c, &f, &h, NULL, "mr4lms", &prm), 0);
	for (unsigned i = 0; i < NG; i++)
		gid[i] = MC_NONE;
	memset(prev, 0, sizeof(prev));
	/* a new context: every switch changed */
	assert_int_equal(check(c, prev, f.n_switches), f.n_switches);
	for (unsigned i = 0; i < STEPS; i++) {
		step(c, gid, hosts, &x);
		changed += check(c, prev, f.n_switches);
	}
	/* not every switch every time: the point of the flags */
	assert_true(changed < STEPS * f.n_switches);
	assert_true(changed > 0);
	mcast_destroy(c);
	hops_free(&h);
	fabric_free(&f);
}

static void test_changed_extend(void **state)
{
	(void)state;
	run(MC_MERGE_EXTEND, 12345);
	run(MC_MERGE_EXTEND, 777);
}

static void test_changed_rebuild(void **state)
{
	(void)state;
	run(MC_MERGE_REBUILD, 4242);
	run(MC_MERGE_REBUILD, 99);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_changed_extend),
	    cmocka_unit_test(test_changed_rebuild),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
