/* A multicast group's members: random joins, changes and leaves on groups
 * growing past the size where the member index is kept, each checked
 * against a plain list: every member found with its JoinState, none that
 * left, and the count right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/sa/sa_mcm.h"

#define PORTS 3000
#define STEPS 40000

static void gid(uint8_t g[16], uint32_t port)
{
	memset(g, 0, 16);
	g[0] = 0xfe;
	g[1] = 0x80;
	/* GUIDs close together, as ibsim and real fabrics number them */
	g[13] = (uint8_t)(port >> 16);
	g[14] = (uint8_t)(port >> 8);
	g[15] = (uint8_t)port;
}

static void check(struct sa_mcg *g, const uint8_t *js)
{
	uint32_t n = 0;
	uint8_t q[16];

	for (uint32_t p = 0; p < PORTS; p++) {
		struct sa_mcg_member *m;

		gid(q, p);
		m = sa_mcg_member_find(g, q);
		if (js[p]) {
			assert_non_null(m);
			assert_int_equal(m->join_state, js[p]);
			assert_memory_equal(m->port_gid, q, 16);
			n++;
		} else {
			assert_null(m);
		}
	}
	assert_int_equal(g->n_members, n);
}

static void run(uint32_t seed, uint32_t range)
{
	struct sa_mcg g;
	uint8_t js[PORTS] = {0}, q[16];
	uint32_t x = seed;

	memset(&g, 0, sizeof(g));
	for (unsigned s = 0; s < STEPS; s++) {
		uint32_t p, r;

		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		p = x % range;
		r = (x >> 20) % 3;
		gid(q, p);
		if (r < 2) {
			js[p] = (uint8_t)(1 + (x >> 8) % 7);
			assert_int_equal(sa_mcg_member_set(&g, q, js[p], 0), 0);
		} else {
			assert_int_equal(sa_mcg_member_del(&g, q),
					 js[p] ? 0 : -ENOENT);
			js[p] = 0;
		}
		if (s % 1000 == 0)
			check(&g, js);
	}
	check(&g, js);
	sa_mcg_members_clear(&g);
	memset(js, 0, sizeof(js));
	check(&g, js);
	free(g.members);
	free(g.midx);
}

static void test_members(void **state)
{
	(void)state;
	run(1, 20);    /* stays small: no index */
	run(2, 200);   /* around the index's threshold */
	run(3, PORTS); /* large */
	run(4, 64);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_members),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
