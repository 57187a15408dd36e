/* ibsmroute's command line (DESIGN §1) and its -o KEY=VALUE overrides.
 * Until the shared configuration schema (lib/config.h) is wired in, the
 * keys that change offline routing are handled here; the other keys of
 * the daemon's key space are accepted and ignored (they configure MADs,
 * the SM or the state directory, none of which exist offline), and an
 * unknown key is an error, as in the daemon. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "tools/ibsmroute/opts.h"

static const char *const ignored_keys[] = {
	"port.guid", "port.ca", "port.num", "multicast.merge",
	"multicast.join_timeout_ms", "multicast.leave_timeout_ms",
	"sm.priority", "sm.sweep_interval_ms", "mad.window", "mad.timeout_ms",
	"mad.retries", "state_dir",
};

void ibsmroute_usage(FILE *o)
{
	fputs("usage: ibsmroute TOPOLOGY [--routing minhop|updown]\n"
	      "          [--mcast-engine mr4lms|fulb|minhop|sssp] [--mft-size N]\n"
	      "          [--groups FILE] [--sm-node NAME] [--dump-dir DIR]\n"
	      "          [--json FILE|-] [--threads N] [-o KEY=VALUE]...\n"
	      "See ibsmroute(1).\n",
	      o);
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *e;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &e, 0);
	if (!*s || *e || errno || v > max || s[0] == '-')
		return -EINVAL;
	*out = (unsigned)v;
	return 0;
}

/* Splits "a,b,c" into the roots list (the string is kept, not copied). */
static int set_roots(struct route_cfg *c, char *v)
{
	char *save = NULL;

	c->n_roots = 0;
	for (char *t = strtok_r(v, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->n_roots == ROUTE_CFG_MAX_ROOTS)
			return -E2BIG;
		c->roots[c->n_roots++] = t;
	}
	return 0;
}

static int apply_one(struct ibsmroute_opts *o, struct route_cfg *c,
		     char *kv)
{
	char *v = strchr(kv, '=');

	if (!v) {
		fprintf(stderr, "ibsmroute: -o %s: expected KEY=VALUE\n", kv);
		return -EINVAL;
	}
	*v++ = 0;
	if (!strcmp(kv, "routing.unicast")) {
		o->routing = v;
	} else if (!strcmp(kv, "routing.updown.roots")) {
		if (set_roots(c, v) < 0) {
			fprintf(stderr, "ibsmroute: -o routing.updown.roots: "
				"more than %d roots\n", ROUTE_CFG_MAX_ROOTS);
			return -EINVAL;
		}
	} else if (!strcmp(kv, "routing.updown.direction")) {
		if (strcmp(v, "bfs") && strcmp(v, "dfs")) {
			fprintf(stderr, "ibsmroute: -o routing.updown.direction"
				"=%s: expected bfs or dfs\n", v);
			return -EINVAL;
		}
		c->direction = v;
	} else if (!strcmp(kv, "multicast.engine")) {
		o->mcast_engine = v;
	} else if (!strcmp(kv, "multicast.mft_size")) {
		if (parse_uint(v, 16384, &o->mft_size) < 0) {
			fprintf(stderr, "ibsmroute: -o multicast.mft_size=%s: "
				"expected a number 0..16384\n", v);
			return -EINVAL;
		}
		o->mft_size_set = 1;
	} else if (!strcmp(kv, "log.level")) {
		int l = log_level_parse(v);
		if (l < 0) {
			fprintf(stderr, "ibsmroute: -o log.level=%s: expected "
				"error, warn, notice, info or debug\n", v);
			return -EINVAL;
		}
		log_set_level((enum log_level)l);
	} else {
		for (size_t i = 0; i < sizeof(ignored_keys) / sizeof(*ignored_keys); i++)
			if (!strcmp(kv, ignored_keys[i]))
				return 0;
		fprintf(stderr, "ibsmroute: -o %s: unknown configuration key\n",
			kv);
		return -EINVAL;
	}
	return 0;
}

/* Overrides apply in order, after the options, so "-o routing.unicast"
 * wins over --routing only when given later: both name the same key and
 * the command line is read left to right. */
static int apply_overrides(struct ibsmroute_opts *o, struct route_cfg *c)
{
	for (unsigned i = 0; i < o->n_overrides; i++) {
		char *kv = strdup(o->overrides[i]);
		if (!kv || apply_one(o, c, kv) < 0)
			return -EINVAL; /* kv is kept: roots point into it */
	}
	return 0;
}

enum { OPT_ROUTING = 256, OPT_MCAST, OPT_MFT, OPT_GROUPS, OPT_SM,
       OPT_DUMP, OPT_JSON, OPT_THREADS };

static const struct option longopts[] = {
	{ "routing", required_argument, NULL, OPT_ROUTING },
	{ "mcast-engine", required_argument, NULL, OPT_MCAST },
	{ "mft-size", required_argument, NULL, OPT_MFT },
	{ "groups", required_argument, NULL, OPT_GROUPS },
	{ "sm-node", required_argument, NULL, OPT_SM },
	{ "dump-dir", required_argument, NULL, OPT_DUMP },
	{ "json", required_argument, NULL, OPT_JSON },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int take_opt(struct ibsmroute_opts *o, int c, char *arg)
{
	switch (c) {
	case OPT_ROUTING: o->routing = arg; break;
	case OPT_MCAST: o->mcast_engine = arg; break;
	case OPT_MFT:
		if (parse_uint(arg, 16384, &o->mft_size) < 0) {
			fprintf(stderr, "ibsmroute: --mft-size %s: expected a "
				"number 0..16384\n", arg);
			return -EINVAL;
		}
		o->mft_size_set = 1;
		break;
	case OPT_GROUPS: o->groups_file = arg; break;
	case OPT_SM: o->sm_node = arg; break;
	case OPT_DUMP: o->dump_dir = arg; break;
	case OPT_JSON: o->json_path = arg; break;
	case OPT_THREADS:
		if (parse_uint(arg, 1024, &o->threads) < 0) {
			fprintf(stderr, "ibsmroute: --threads %s: expected a "
				"number 0..1024 (0 = one per CPU)\n", arg);
			return -EINVAL;
		}
		break;
	case 'o':
		o->overrides[o->n_overrides++] = arg;
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int ibsmroute_parse(int argc, char **argv, struct ibsmroute_opts *o,
		    struct route_cfg *c)
{
	int ch;

	memset(o, 0, sizeof(*o));
	memset(c, 0, sizeof(*c));
	o->routing = "minhop";
	o->mcast_engine = "mr4lms";
	c->direction = "bfs";
	o->overrides = calloc((size_t)argc + 1, sizeof(*o->overrides));
	if (!o->overrides)
		return -ENOMEM;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			ibsmroute_usage(stdout);
			exit(0);
		}
		if (take_opt(o, ch, optarg) < 0) {
			ibsmroute_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ibsmroute: %s\n", optind >= argc
			? "missing TOPOLOGY file" : "more than one TOPOLOGY file");
		ibsmroute_usage(stderr);
		return -EINVAL;
	}
	o->topology = argv[optind];
	if (apply_overrides(o, c) < 0)
		return -EINVAL;
	if (strcmp(o->routing, "minhop") && strcmp(o->routing, "updown")) {
		fprintf(stderr, "ibsmroute: unknown unicast routing '%s' "
			"(minhop or updown)\n", o->routing);
		return -EINVAL;
	}
	return 0;
}
