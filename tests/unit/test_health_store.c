/* health.state (daemon/perf/health_store.c): what is written is read
 * back the same, a description's quote cannot break a line, and a damaged
 * line is skipped while the others are kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon/core/sm.h"
#include "daemon/perf/perf_priv.h"

static char dir[] = "/tmp/test_health_store.XXXXXX";

static struct hlink link_of(uint64_t g, uint8_t p, const char *d0)
{
	struct hlink l = {
	    .guid = {g, g + 1},
	    .port = {p, 1},
	    .value = 1234,
	    .since = 1700000000,
	    .last_bad = 1700000100,
	    .action = HEALTH_ISOLATED,
	    .held = true,
	};

	snprintf(l.desc[0], sizeof(l.desc[0]), "%s", d0);
	snprintf(l.desc[1], sizeof(l.desc[1]), "spine 1");
	snprintf(l.tripped, sizeof(l.tripped), "symbol_errors");
	return l;
}

static void test_round_trip(void **state)
{
	struct sm sm = {0};
	struct perf pf = {.sm = &sm};
	struct health h = {0}, back = {0};
	struct hlink v[2] = {link_of(0x10, 3, "leaf \"A\" 1"),
			     link_of(0x20, 7, "leaf B")};

	(void)state;
	sm.cfg.state_dir = dir;
	h.links = v;
	h.n = h.cap = 2;
	pf.health = &h;
	assert_int_equal(health_store_save(&pf), 0);
	pf.health = &back;
	assert_int_equal(health_store_load(&pf), 0);
	assert_int_equal(back.n, 2);
	assert_string_equal(back.links[0].desc[0], "leaf 'A' 1");
	assert_string_equal(back.links[1].desc[0], "leaf B");
	assert_string_equal(back.links[1].desc[1], "spine 1");
	assert_true(back.links[1].guid[0] == 0x20 && back.links[1].port[0] == 7);
	assert_true(back.links[1].since == 1700000000 &&
		    back.links[1].last_bad == 1700000100);
	assert_int_equal(back.links[1].action, HEALTH_ISOLATED);
	assert_true(back.links[1].held);
	assert_string_equal(back.links[1].tripped, "symbol_errors");
	free(back.links);
}

static void test_damaged(void **state)
{
	struct sm sm = {0};
	struct health h = {0};
	struct perf pf = {.sm = &sm, .health = &h};
	char path[256];
	FILE *f;

	(void)state;
	sm.cfg.state_dir = dir;
	snprintf(path, sizeof(path), "%s/health.state", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "# comment\n"
		   "link 0x10 3 0x11 1 1 1 flaps 6 1 2 \"a\" \"b\"\n"
		   "link 0x10 999 0x11 1 1 1 flaps 6 1 2 \"a\" \"b\"\n"
		   "link 0x10 3 0x11 1 9 1 flaps 6 1 2 \"a\" \"b\"\n"
		   "link garbage\n"
		   "\n"
		   "link 0x30 4 0x31 2 0 0 rcv_errors 150 5 6 \"c\" \"d\"\n");
	fclose(f);
	assert_int_equal(health_store_load(&pf), 0);
	assert_int_equal(h.n, 2);
	assert_string_equal(h.links[0].tripped, "flaps");
	assert_true(h.links[1].guid[0] == 0x30 && h.links[1].value == 150);
	free(h.links);
}

static int teardown(void **state)
{
	char path[256];

	(void)state;
	snprintf(path, sizeof(path), "%s/health.state", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_damaged),
	};

	if (!mkdtemp(dir))
		return 1;
	return cmocka_run_group_tests(tests, NULL, teardown);
}
