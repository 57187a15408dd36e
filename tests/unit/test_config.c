/* Configuration: defaults, round trip of the canonical printer, the
 * tests/data/config .in/.ok pairs (a config, optional "#! -o KEY=VALUE"
 * lines, and either the canonical output or the error line expected),
 * overrides, all-or-nothing builds, and that conf/ibsmd.yaml and the key
 * list of man/ibsmd.yaml.5 are exactly what the schema generates.
 * `test_config --regen` rewrites those two files from the schema. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/config.h"
#include "lib/log.h"

static const char *top(void)
{
	const char *t = getenv("TOP");
	return t && *t ? t : ".";
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	char chunk[4096];
	size_t n;

	if (!f)
		return NULL;
	m = open_memstream(&buf, &len);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	fclose(m);
	return buf;
}

static char *print_to_string(const struct config *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	config_print(c, m);
	fclose(m);
	return buf;
}

static char *gen_to_string(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	fn(m);
	fclose(m);
	return buf;
}

static void test_defaults(void **state)
{
	struct config c;

	(void)state;
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(c.port_guid, 0);
	assert_string_equal(c.port_ca, "");
	assert_int_equal(c.routing_unicast, CFG_UCAST_FTREE);
	assert_int_equal(c.routing_updown_roots.n, 0);
	assert_int_equal(c.multicast_engine, CFG_MC_MR4LMS);
	assert_int_equal(c.multicast_merge, CFG_MERGE_EXTEND);
	assert_int_equal(c.multicast_switch_threshold, 20);
	assert_int_equal(c.sm_lmc, 0);
	assert_int_equal(c.mad_window, 64);
	assert_int_equal(c.mad_window_per_node, 16);
	assert_int_equal(c.mad_timeout_ms, 200);
	assert_int_equal(c.mad_retries, 3);
	assert_string_equal(c.state_dir, "/var/lib/ibsmd");
	assert_string_equal(c.control_socket, "/run/ibsmd/ibsmd.sock");
	assert_int_equal(c.log_level, LOG_LVL_NOTICE);
	assert_string_equal(config_enum_name("log.level", c.log_level),
			    "notice");
	char err[256];
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	config_free(&c);
}

/* Print, parse the printout, compare; with every key off its default. */
static void test_round_trip(void **state)
{
	static const char *const over[] = {
		"port.ca=mlx5_0",
		"port.num=2",
		"routing.unicast=updown",
		"routing.updown.roots=S1,0x0002c90300a1b2c3,spine \"A\"\\x",
		"routing.updown.direction=dfs",
		"routing.threads=3",
		"multicast.engine=sssp",
		"multicast.mft_size=0x80",
		"multicast.merge=rebuild",
		"sm.priority=15",
		"sm.lmc=7",
		"mad.window=1024",
		"sa.service_lease_max_s=4294967295",
		"state_dir=/tmp/x y",
		"log.level=debug",
		"partitions=[{name: \"a b\", pkey: 0x7fff, members: all}, "
		"{name: st, pkey: 2, ipoib: on, mtu: 2048, rate: 40g, sl: 15, "
		"members: [H-1, 0x1, \"q\\\"x\"], limited: hosts}]",
	};
	struct config a, b;
	char err[512];
	char *text, *text2;

	(void)state;
	if (config_build(&a, NULL, over, sizeof(over) / sizeof(*over), err,
			 sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(a.multicast_mft_size, 128);
	assert_int_equal(a.routing_updown_roots.n, 3);
	assert_string_equal(a.routing_updown_roots.v[2], "spine \"A\"\\x");
	assert_int_equal(a.partitions.n, 2);
	{
		const struct cfg_partition *p = a.partitions.v;
		assert_string_equal(p[0].name, "a b");
		assert_int_equal(p[1].pkey, 2);
		assert_int_equal(p[1].mtu, 4);	 /* IBA code of 2048 */
		assert_int_equal(p[1].rate, 7); /* IBA code of 40 Gb/s */
		assert_int_equal(p[1].members.n, 3);
		assert_string_equal(p[1].members.v[2], "q\"x");
		assert_int_equal(p[1].limited.n, 1);
	}
	text = print_to_string(&a);
	assert_int_equal(config_defaults(&b), 0);
	if (config_load_string(&b, text, "printed", err, sizeof(err)))
		fail_msg("%s\n%s", err, text);
	assert_true(config_equal(&a, &b));
	text2 = print_to_string(&b);
	assert_string_equal(text, text2);
	free(text);
	free(text2);
	config_free(&a);
	config_free(&b);
}

static int run_case(const char *in, char **out)
{
	char *text = slurp(in), *line, *save = NULL, *copy;
	const char *over[32];
	size_t n = 0;
	struct config c;
	char err[512];
	int r;

	assert_non_null(text);
	copy = strdup(text);
	for (line = strtok_r(copy, "\n", &save); line && n < 32;
	     line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, "#! -o ", 6))
			over[n++] = line + 6;
	r = config_build(&c, in, over, n, err, sizeof(err));
	if (r == 0) {
		*out = print_to_string(&c);
		config_free(&c);
	} else {
		size_t l = strlen(err);
		*out = malloc(l + 2);
		memcpy(*out, err, l);
		memcpy(*out + l, "\n", 2);
	}
	free(copy);
	free(text);
	return r;
}

static void test_pairs(void **state)
{
	char dir[4096], cwd[4096];
	struct dirent **ents;
	int n, checked = 0, failed = 0;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(dir, sizeof(dir), "%s/tests/data/config", top());
	assert_int_equal(chdir(dir), 0); /* messages name "x.in", not paths */
	n = scandir(".", &ents, NULL, alphasort);
	assert_true(n > 0);
	for (int i = 0; i < n; i++) {
		char *name = ents[i]->d_name, ok[512], *want, *got;
		size_t l = strlen(name);
		if (l < 4 || strcmp(name + l - 3, ".in")) {
			free(ents[i]);
			continue;
		}
		snprintf(ok, sizeof(ok), "%.*s.ok", (int)(l - 3), name);
		want = slurp(ok);
		if (!want)
			fail_msg("%s has no %s", name, ok);
		run_case(name, &got);
		if (strcmp(got, want)) {
			print_error("%s:\n got: %s\nwant: %s\n", name, got,
				    want);
			failed++;
		}
		checked++;
		free(got);
		free(want);
		free(ents[i]);
	}
	free(ents);
	assert_int_equal(chdir(cwd), 0);
	assert_true(checked >= 10);
	assert_int_equal(failed, 0);
}

/* routing.unicast: layered runs in the daemon, but not with qos.enable
 * (both would choose the SLs): refused naming both keys. */
static void test_daemon_layered_without_qos(void **state)
{
	struct config c;
	char err[512];

	(void)state;
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(config_override(&c, "routing.unicast=layered", err,
					 sizeof(err)),
			 0);
	assert_int_equal(config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(config_check_daemon(&c, err, sizeof(err)), 0);
	assert_int_equal(config_override(&c, "qos.enable=true", err,
					 sizeof(err)),
			 0);
	assert_int_equal(config_check_daemon(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "qos.enable"));
	config_free(&c);
}

static void test_overrides(void **state)
{
	struct config c;
	char err[512];

	(void)state;
	assert_int_equal(config_defaults(&c), 0);
	assert_int_equal(config_override(&c, "sm.priority=9", err,
					 sizeof(err)), 0);
	assert_int_equal(c.sm_priority, 9);
	assert_int_equal(config_override(&c, "sm.priority=16", err,
					 sizeof(err)), -EINVAL);
	assert_string_equal(err, "-o sm.priority=16: sm.priority: 16 is out "
				 "of range 0..15");
	assert_int_equal(c.sm_priority, 9); /* unchanged by the failure */
	assert_int_equal(config_override(&c, "nokey", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "-o nokey: expected KEY=VALUE");
	assert_int_equal(config_override(&c, "sm.prio=1", err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "-o sm.prio=1: unknown key \"sm.prio\"");
	assert_int_equal(config_override(&c, "routing.updown.roots=a,,b", err,
					 sizeof(err)), -EINVAL);
	assert_int_equal(config_override(&c, "routing.updown.roots=a,b", err,
					 sizeof(err)), 0);
	assert_int_equal(c.routing_updown_roots.n, 2);
	assert_int_equal(config_override(&c, "routing.updown.roots=", err,
					 sizeof(err)), 0);
	assert_int_equal(c.routing_updown_roots.n, 0);
	assert_int_equal(config_override(&c, "port.guid=0002C90300A1B2C3",
					 err, sizeof(err)), 0);
	assert_int_equal(c.port_guid, 0x0002c90300a1b2c3ULL);
	assert_int_equal(config_override(&c, "mad.retries=-1", err,
					 sizeof(err)), -EINVAL);
	assert_int_equal(config_override(&c, "mad.retries=010", err,
					 sizeof(err)), -EINVAL);
	config_free(&c);
}

/* config_build leaves *out alone on any error (commit-whole semantics). */
static void test_build_all_or_nothing(void **state)
{
	struct config live, copy;
	const char *bad[] = { "sm.priority=3", "mad.window=0" };
	char err[512];

	(void)state;
	assert_int_equal(config_build(&live, NULL, NULL, 0, err, sizeof(err)),
			 0);
	assert_int_equal(config_copy(&copy, &live), 0);
	assert_int_equal(config_build(&live, NULL, bad, 2, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err, "-o mad.window=0: mad.window: 0 is out of "
				 "range 1..1024");
	assert_true(config_equal(&live, &copy));
	assert_int_equal(config_build(&live, "/nonexistent/ibsmd.yaml", NULL,
				      0, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "/nonexistent/ibsmd.yaml: No such file or "
				 "directory");
	assert_int_equal(config_build(&live, "/", NULL, 0, err, sizeof(err)),
			 -EISDIR);
	assert_string_equal(err, "/: Is a directory");
	config_free(&live);
	config_free(&copy);
}

static void test_example_file(void **state)
{
	char path[4096], err[512];
	char *want = gen_to_string(config_write_example), *have;
	struct config a, b;

	(void)state;
	snprintf(path, sizeof(path), "%s/conf/ibsmd.yaml", top());
	have = slurp(path);
	assert_non_null(have);
	if (strcmp(have, want))
		fail_msg("conf/ibsmd.yaml differs from the schema; run "
			 "build/tests/unit/test_config --regen");
	/* and it parses to exactly the defaults */
	if (config_build(&a, path, NULL, 0, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(config_defaults(&b), 0);
	assert_true(config_equal(&a, &b));
	config_free(&a);
	config_free(&b);
	free(want);
	free(have);
}

#define MAN_BEGIN ".\\\" BEGIN KEYS"
#define MAN_END ".\\\" END KEYS"

static void test_man_page(void **state)
{
	char path[4096], *man, *b, *e, *keys;
	size_t n;
	const struct cfg_key *schema = config_schema(&n);

	(void)state;
	snprintf(path, sizeof(path), "%s/man/ibsmd.yaml.5", top());
	man = slurp(path);
	assert_non_null(man);
	b = strstr(man, MAN_BEGIN);
	e = strstr(man, MAN_END);
	assert_non_null(b);
	assert_non_null(e);
	b = strchr(b, '\n') + 1;
	keys = gen_to_string(config_write_man_keys);
	if ((size_t)(e - b) != strlen(keys) || strncmp(b, keys, strlen(keys)))
		fail_msg("man/ibsmd.yaml.5 key list differs from the schema; "
			 "run build/tests/unit/test_config --regen");
	for (size_t i = 0; i < n; i++) {
		char needle[160];
		snprintf(needle, sizeof(needle), ".B %s\n", schema[i].key);
		if (!strstr(man, needle))
			fail_msg("%s not described in ibsmd.yaml.5",
				 schema[i].key);
	}
	free(keys);
	free(man);
}

/* Robustness: corrupted variants of a config either load or fail with a
 * "t.yaml:N: " or "configuration: " message; never crash. */
static void mutate(const char *base, uint64_t rs, int rounds)
{
	static const char alphabet[] = ":-[]{},\"'#&*!|>.  \t\n0x9az";
	size_t blen = strlen(base);
	char err[512], *t = malloc(blen + 1);

	assert_non_null(t);
	for (int i = 0; i < rounds; i++) {
		size_t len = blen;
		memcpy(t, base, blen + 1);
		for (int m = 0; m < 1 + i % 3; m++) {
			rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
			size_t pos = (rs >> 33) % len;
			if ((rs >> 60) & 1)
				t[pos] = alphabet[(rs >> 20) %
						  (sizeof(alphabet) - 1)];
			else
				memmove(t + pos, t + pos + 1, len - pos);
			len = strlen(t);
			if (!len)
				break;
		}
		struct config c, d;
		assert_int_equal(config_defaults(&c), 0);
		int r = config_load_string(&c, t, "t.yaml", err, sizeof(err));
		if (r) {
			assert_true(r == -EINVAL && !strncmp(err, "t.yaml:", 7));
		} else {
			/* what loads prints canonically and loads the same */
			char *text = print_to_string(&c);
			assert_int_equal(config_defaults(&d), 0);
			if (config_load_string(&d, text, "p", err, sizeof(err)))
				fail_msg("%s\n%s", err, text);
			assert_true(config_equal(&c, &d));
			config_free(&d);
			free(text);
			r = config_validate(&c, err, sizeof(err));
			if (r)
				assert_true(r == -EINVAL &&
					    !strncmp(err, "configuration: ", 15));
		}
		config_free(&c);
	}
	free(t);
}

static void test_mutations(void **state)
{
	static const char base[] =
		"port:\n  guid: 0x0\n  ca: \"mlx5_0\"\nrouting:\n"
		"  unicast: updown\n  updown:\n    roots: [S1, \"S 2\"]\n"
		"    direction: dfs\nsm.priority: 3\nmad: {window: 8}\n"
		"log:\n  level: info\n";

	(void)state;
	mutate(base, 777, 3000);
}

/* The partitions section through the parser: mutated lists of mappings
 * load or fail with "t.yaml:N: ", never crash, and what loads round-trips
 * through the canonical printer. */
static void test_mutations_partitions(void **state)
{
	static const char base[] =
		"partitions:\n"
		"  - name: default\n    pkey: 0x7fff\n    ipoib: true\n"
		"    mtu: 4096\n    rate: 100g\n    members: all\n"
		"  - name: storage\n    pkey: 0x0002\n    sl: 3\n"
		"    members: [H-1, 0x0002c903000a1b2c, \"switches\"]\n"
		"    limited: [hosts]\n"
		"  - {name: gpu, pkey: 0x10, members: [g1, g2], limited: g3}\n";

	(void)state;
	mutate(base, 4242, 6000);
}

/* The qos section through the parser: corrupted variants as above, and
 * lists made of random valid and invalid items, whose verdict is checked
 * against what each item is. */
static void test_qos_mutations(void **state)
{
	/* the first four of each are good */
	static const char *const vls[] = {"0",	"7", "14",  "0x3", "15",
					  "-1", "a", "1:2", ""};
	static const char *const arbs[] = {
	    "0:4", "14:255", "1:0", "0x1:1", "15:1", "3:256", "3", ":4", "2:x"};
	uint64_t rs = 4242;
	char err[512], yaml[2048];
	int verdicts[2] = {0, 0};

	(void)state;
	mutate("qos:\n  enable: true\n  max_vls: 8\n  high_limit: 4\n"
	       "  sl2vl: [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]\n"
	       "  vlarb_high: [\"0:4\", \"1:0\"]\n"
	       "  vlarb_low:\n    - \"1:4\"\n    - \"2:4\"\n    - 3:4\n"
	       "    - \"4:4\"\n    - 5:4\n    - 6:4\n    - 7:4\n"
	       "  default_sl: 3\n"
	       "  classes: [\"service-id 0x10-0x1f sl 1\", "
	       "\"pkey 0x8001 qos-class 2-4 sl 5\"]\n",
	       99, 3000);
	for (int i = 0; i < 2000; i++) {
		int n = i % 8 ? 16 : 15 + i % 3, m = 1 + i % 5, bad = 0, o;
		o = snprintf(yaml, sizeof(yaml), "qos:\n  sl2vl: [");
		for (int j = 0; j < n; j++) {
			rs = rs * 6364136223846793005ULL +
			     1442695040888963407ULL;
			/* one item in 16 from the whole set */
			unsigned k = (rs >> 33) % ((rs >> 56) % 16 ? 4 : 9);
			bad |= k >= 4;
			o += snprintf(yaml + o, sizeof(yaml) - o, "%s\"%s\"",
				      j ? ", " : "", vls[k]);
		}
		bad |= n != 16;
		o += snprintf(yaml + o, sizeof(yaml) - o, "]\n  vlarb_high: [");
		for (int j = 0; j < m; j++) {
			rs = rs * 6364136223846793005ULL +
			     1442695040888963407ULL;
			unsigned k = (rs >> 33) % ((rs >> 56) % 16 ? 4 : 9);
			bad |= k >= 4;
			o += snprintf(yaml + o, sizeof(yaml) - o, "%s\"%s\"",
				      j ? ", " : "", arbs[k]);
		}
		snprintf(yaml + o, sizeof(yaml) - o,
			 "]\n  vlarb_low: [\"0:1\", \"1:1\", \"2:1\", "
			 "\"3:1\", \"4:1\", \"5:1\", \"6:1\", \"7:1\", "
			 "\"8:1\", \"9:1\", \"10:1\", \"11:1\", \"12:1\", "
			 "\"13:1\", \"14:1\"]\n");
		struct config c;
		assert_int_equal(config_defaults(&c), 0);
		int r =
		    config_load_string(&c, yaml, "t.yaml", err, sizeof(err));
		if (!r)
			r = config_validate(&c, err, sizeof(err));
		if (bad != (r != 0))
			fail_msg("%s: verdict %d, want %s\n%s", yaml, r,
				 bad ? "an error" : "ok", err);
		if (r)
			assert_true(!strncmp(err, "t.yaml:", 7));
		verdicts[bad]++;
		config_free(&c);
	}
	assert_true(verdicts[0] > 200 && verdicts[1] > 200);
}

static int regen(void)
{
	char path[4096], *man, *b, *e, *keys;
	FILE *f;

	snprintf(path, sizeof(path), "%s/conf/ibsmd.yaml", top());
	if (!(f = fopen(path, "w")))
		return perror(path), 1;
	config_write_example(f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/man/ibsmd.yaml.5", top());
	if (!(man = slurp(path)) || !(b = strstr(man, MAN_BEGIN)) ||
	    !(e = strstr(man, MAN_END)))
		return fprintf(stderr, "%s: no key markers\n", path), 1;
	b = strchr(b, '\n') + 1;
	keys = gen_to_string(config_write_man_keys);
	if (!(f = fopen(path, "w")))
		return perror(path), 1;
	fprintf(f, "%.*s%s%s", (int)(b - man), man, keys, e);
	fclose(f);
	free(keys);
	free(man);
	printf("rewrote conf/ibsmd.yaml and man/ibsmd.yaml.5\n");
	return 0;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_round_trip),
	    cmocka_unit_test(test_pairs),
	    cmocka_unit_test(test_overrides),
	    cmocka_unit_test(test_build_all_or_nothing),
	    cmocka_unit_test(test_example_file),
	    cmocka_unit_test(test_daemon_layered_without_qos),
	    cmocka_unit_test(test_man_page),
	    cmocka_unit_test(test_mutations),
	    cmocka_unit_test(test_mutations_partitions),
	    cmocka_unit_test(test_qos_mutations),
	};
	if (argc > 1 && !strcmp(argv[1], "--regen"))
		return regen();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
