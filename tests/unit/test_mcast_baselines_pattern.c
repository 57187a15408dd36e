/* ibsmpattern's generators (grid, random, churn) on a synthetic host list:
 * group counts as the papers give them, distinct members, topology-aware
 * placement, seeded shuffles and a churn that deletes everything.  The
 * tool's sources are compiled in directly (tools are programs, not an
 * archive). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ibsmpattern/emit.c"
#include "tools/ibsmpattern/grid.c"
#include "tools/ibsmpattern/random.c"

#define MAXH 4096
static struct pat_host hosts[MAXH];
static char names[MAXH][16];

static void init_hosts(uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		snprintf(names[i], sizeof(names[i]), "H%u", i);
		hosts[i].desc = names[i];
		hosts[i].guid = 0x1000 + i;
	}
}

struct run {
	char *buf;
	size_t len;
	struct pat_out o;
};

static void run_open(struct run *r, uint32_t n_hosts, bool by_guid)
{
	init_hosts(n_hosts);
	memset(r, 0, sizeof(*r));
	r->o.fp = open_memstream(&r->buf, &r->len);
	assert_non_null(r->o.fp);
	r->o.hosts = hosts;
	r->o.n_hosts = n_hosts;
	r->o.by_guid = by_guid;
	r->o.next_id = 1;
}

static void run_close(struct run *r)
{
	fclose(r->o.fp);
}

/* Number of member tokens on a "+" line and whether any repeats. */
static unsigned line_members(const char *line, bool *dup)
{
	char copy[65536], *save, *tok;
	const char *seen[4096];
	unsigned n = 0;

	snprintf(copy, sizeof(copy), "%.*s", (int)strcspn(line, "\n"), line);
	strtok_r(copy, " ", &save); /* + */
	strtok_r(NULL, " ", &save); /* MGID */
	*dup = false;
	while ((tok = strtok_r(NULL, " ", &save))) {
		for (unsigned i = 0; i < n; i++)
			if (!strcmp(seen[i], tok))
				*dup = true;
		if (n < 4096)
			seen[n] = tok;
		n++;
	}
	return n;
}

static void test_grid_counts(void **state)
{
	struct pat_grid g3 = {{128, 32, 40}, 3, 4, false, 0};
	struct pat_grid g2 = {{256, 34, 0}, 2, 1, false, 0};
	struct pat_grid g1 = {{30, 1, 5}, 3, 1, false, 0};

	(void)state;
	assert_int_equal(pat_grid_count(&g3), 10496); /* the paper's count */
	assert_int_equal(pat_grid_count(&g2), 34 + 256);
	assert_int_equal(pat_grid_count(&g1), 5 + 30);
}

/* 4x3 grid, 2 processes per host, topology order: rows along x hold ranks
 * 0-3 -> hosts 0,1; the first column holds ranks 0,4,8 -> hosts 0,2,4. */
static void test_grid_aware(void **state)
{
	struct pat_grid g = {{4, 3, 0}, 2, 2, false, 0};
	struct run r;

	(void)state;
	run_open(&r, 6, false);
	assert_int_equal(pat_grid_write(&r.o, &g), 0);
	run_close(&r);
	assert_int_equal(r.o.groups, 3 + 4);
	assert_non_null(strstr(r.buf, "+ ff12:601b:ffff::1 H0 H1\n"));
	assert_non_null(strstr(r.buf, "+ ff12:601b:ffff::3 H4 H5\n"));
	assert_non_null(strstr(r.buf, "+ ff12:601b:ffff::4 H0 H2 H4\n"));
	assert_non_null(strstr(r.buf, "+ ff12:601b:ffff::5 H0 H2 H4\n"));
	assert_non_null(strstr(r.buf, "+ ff12:601b:ffff::6 H1 H3 H5\n"));
	free(r.buf);
}

static void test_grid_too_big(void **state)
{
	struct pat_grid g = {{4, 4, 0}, 2, 1, false, 0};
	struct run r;

	(void)state;
	run_open(&r, 15, false);
	assert_int_equal(pat_grid_write(&r.o, &g), -EINVAL);
	run_close(&r);
	free(r.buf);
}

/* Shuffled 3-D grid: same seed, same file; other seed, other file; every
 * group has distinct members and the right size bound. */
static void test_grid_shuffle(void **state)
{
	struct pat_grid g = {{8, 4, 4}, 3, 1, true, 7};
	struct run a, b, c;

	(void)state;
	run_open(&a, 200, true);
	assert_int_equal(pat_grid_write(&a.o, &g), 0);
	run_close(&a);
	run_open(&b, 200, true);
	assert_int_equal(pat_grid_write(&b.o, &g), 0);
	run_close(&b);
	g.seed = 8;
	run_open(&c, 200, true);
	assert_int_equal(pat_grid_write(&c.o, &g), 0);
	run_close(&c);
	assert_string_equal(a.buf, b.buf);
	assert_string_not_equal(a.buf, c.buf);
	assert_int_equal(a.o.groups, 16 + 32 + 32);
	for (char *l = a.buf; *l; l = strchr(l, '\n') + 1) {
		bool dup;
		unsigned n = line_members(l, &dup);

		assert_false(dup);
		assert_true(n == 8 || n == 4);
		assert_non_null(strstr(l, " 0x"));
	}
	free(a.buf);
	free(b.buf);
	free(c.buf);
}

static void test_random(void **state)
{
	struct pat_random p = {.count = 50, .min = 3, .max = 9, .seed = 5};
	struct run r;

	(void)state;
	run_open(&r, 100, false);
	assert_int_equal(pat_random_write(&r.o, &p), 0);
	run_close(&r);
	assert_int_equal(r.o.groups, 50);
	for (char *l = r.buf; *l; l = strchr(l, '\n') + 1) {
		bool dup;
		unsigned n = line_members(l, &dup);

		assert_false(dup);
		assert_in_range(n, 3, 9);
	}
	free(r.buf);
}

/* Every created MGID is deleted exactly once, after its creation, and
 * never more than `live` exist at once. */
static void test_churn(void **state)
{
	struct pat_random p = {.count = 300,
			       .min = 2,
			       .max = 5,
			       .seed = 9,
			       .live = 10,
			       .del_pct = 40};
	static int state_of[400]; /* 0 unseen, 1 live, 2 deleted */
	unsigned live = 0, max_live = 0;
	struct run r;

	(void)state;
	run_open(&r, 30, false);
	assert_int_equal(pat_churn_write(&r.o, &p), 0);
	run_close(&r);
	assert_int_equal(r.o.groups, 300);
	assert_int_equal(r.o.deletes, 300);
	for (char *l = r.buf; *l; l = strchr(l, '\n') + 1) {
		const char *last = strstr(l, "::") + 2;
		unsigned id = (unsigned)strtoul(last, NULL, 16);

		assert_in_range(id, 1, 300);
		if (l[0] == '+') {
			assert_int_equal(state_of[id], 0);
			state_of[id] = 1;
			if (++live > max_live)
				max_live = live;
		} else {
			assert_int_equal(state_of[id], 1);
			state_of[id] = 2;
			live--;
		}
	}
	assert_int_equal(live, 0);
	assert_true(max_live <= 10);
	free(r.buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grid_counts),
	    cmocka_unit_test(test_grid_aware),
	    cmocka_unit_test(test_grid_too_big),
	    cmocka_unit_test(test_grid_shuffle),
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_churn),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
