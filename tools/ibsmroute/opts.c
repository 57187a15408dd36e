/* ibsmroute's command line (docs/design.md §1) and its -o KEY=VALUE overrides.
 * The overrides go through the daemon's configuration schema
 * (lib/config.h): same keys, same validation, same messages.  Keys that
 * only matter to a running SM (port, SA, MAD, state directory) are
 * accepted and have no effect offline.  The explicit options (--routing,
 * --mcast-engine, --mft-size, --threads) win over -o for the same
 * setting. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config.h"
#include "lib/log.h"
#include "routing/engines.h"
#include "routing/mcast/mcast.h"
#include "tools/ibsmroute/opts.h"

static const char *const mc_names[] = {
    [CFG_MC_MR4LMS] = "mr4lms",
    [CFG_MC_FULB] = "fulb",
    [CFG_MC_MINHOP] = "minhop",
    [CFG_MC_SSSP] = "sssp",
};

void ibsmroute_usage(FILE *o)
{
	fputs("usage: ibsmroute TOPOLOGY [--routing ftree|minhop|updown]\n"
	      "          [--mcast-engine mr4lms|fulb|minhop|sssp] [--mft-size "
	      "N]\n"
	      "          [--groups FILE] [--sm-node NAME] [--dump-dir DIR]\n"
	      "          [--json FILE|-] [--threads N] [-o KEY=VALUE]...\n"
	      "          [--port-groups [--pg-cap N] [--pg-whole-sets]]\n"
	      "          [--shifts N] [--cut NODE[:PORT]]...\n"
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

static bool overridden(const struct ibsmroute_opts *o, const char *key)
{
	size_t n = strlen(key);

	for (unsigned i = 0; i < o->n_overrides; i++)
		if (!strncmp(o->overrides[i], key, n) &&
		    o->overrides[i][n] == '=')
			return true;
	return false;
}

/* Settings from the configuration where no explicit option gave them. */
static int apply_config(struct ibsmroute_opts *o, struct route_cfg *c,
			const struct opt_seen *seen)
{
	char err[512];
	struct config *k = &c->cfg;

	if (config_build(k, NULL, o->overrides, o->n_overrides, err,
			 sizeof(err)) < 0) {
		fprintf(stderr, "ibsmroute: %s\n", err);
		return -EINVAL;
	}
	c->have_cfg = true;
	if (!seen->routing)
		o->routing =
		    config_enum_name("routing.unicast", k->routing_unicast);
	if (!seen->mcast && k->multicast_engine >= 0 &&
	    k->multicast_engine <= CFG_MC_SSSP)
		o->mcast_engine = mc_names[k->multicast_engine];
	if (!seen->mft && overridden(o, "multicast.mft_size")) {
		o->mft_size = k->multicast_mft_size;
		o->mft_size_set = 1;
	}
	if (!seen->threads)
		o->threads = k->routing_threads;
	c->n_roots = k->routing_updown_roots.n < ROUTE_CFG_MAX_ROOTS
			 ? k->routing_updown_roots.n
			 : ROUTE_CFG_MAX_ROOTS;
	for (unsigned i = 0; i < c->n_roots; i++)
		c->roots[i] = k->routing_updown_roots.v[i];
	c->direction =
	    k->routing_updown_direction == CFG_UPDN_DFS ? "dfs" : "bfs";
	c->lmc = (uint8_t)k->sm_lmc;
	log_set_level((enum log_level)k->log_level);
	return 0;
}

enum {
	OPT_ROUTING = 256,
	OPT_MCAST,
	OPT_MFT,
	OPT_GROUPS,
	OPT_SM,
	OPT_DUMP,
	OPT_JSON,
	OPT_THREADS,
	OPT_PG,
	OPT_PG_CAP,
	OPT_PG_WHOLE,
	OPT_SHIFTS,
	OPT_CUT
};

static const struct option longopts[] = {
    {"routing", required_argument, NULL, OPT_ROUTING},
    {"mcast-engine", required_argument, NULL, OPT_MCAST},
    {"mft-size", required_argument, NULL, OPT_MFT},
    {"groups", required_argument, NULL, OPT_GROUPS},
    {"sm-node", required_argument, NULL, OPT_SM},
    {"dump-dir", required_argument, NULL, OPT_DUMP},
    {"json", required_argument, NULL, OPT_JSON},
    {"threads", required_argument, NULL, OPT_THREADS},
    {"port-groups", no_argument, NULL, OPT_PG},
    {"pg-cap", required_argument, NULL, OPT_PG_CAP},
    {"pg-whole-sets", no_argument, NULL, OPT_PG_WHOLE},
    {"shifts", required_argument, NULL, OPT_SHIFTS},
    {"cut", required_argument, NULL, OPT_CUT},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int take_opt(struct ibsmroute_opts *o, struct opt_seen *seen, int c,
		    char *arg)
{
	switch (c) {
	case OPT_ROUTING:
		o->routing = arg;
		seen->routing = true;
		break;
	case OPT_MCAST:
		o->mcast_engine = arg;
		seen->mcast = true;
		break;
	case OPT_MFT:
		seen->mft = true;
		if (parse_uint(arg, 16384, &o->mft_size) < 0) {
			fprintf(stderr,
				"ibsmroute: --mft-size %s: expected a "
				"number 0..16384\n",
				arg);
			return -EINVAL;
		}
		o->mft_size_set = 1;
		break;
	case OPT_GROUPS:
		o->groups_file = arg;
		break;
	case OPT_SM:
		o->sm_node = arg;
		break;
	case OPT_DUMP:
		o->dump_dir = arg;
		break;
	case OPT_JSON:
		o->json_path = arg;
		break;
	case OPT_THREADS:
		seen->threads = true;
		if (parse_uint(arg, 1024, &o->threads) < 0) {
			fprintf(stderr,
				"ibsmroute: --threads %s: expected a "
				"number 0..1024 (0 = one per CPU)\n",
				arg);
			return -EINVAL;
		}
		break;
	case OPT_PG:
		o->port_groups = true;
		break;
	case OPT_PG_CAP:
		if (parse_uint(arg, 255, &o->pg_cap) < 0 || !o->pg_cap) {
			fprintf(stderr,
				"ibsmroute: --pg-cap %s: expected a number "
				"1..255\n",
				arg);
			return -EINVAL;
		}
		break;
	case OPT_PG_WHOLE:
		o->pg_whole_sets = true;
		break;
	case OPT_SHIFTS:
		if (parse_uint(arg, 1u << 20, &o->max_shifts) < 0) {
			fprintf(stderr,
				"ibsmroute: --shifts %s: expected a number "
				"(0 = every shift)\n",
				arg);
			return -EINVAL;
		}
		break;
	case OPT_CUT:
		o->cuts[o->n_cuts++] = arg;
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
	struct opt_seen seen = {0};
	int ch;

	memset(o, 0, sizeof(*o));
	memset(c, 0, sizeof(*c));
	o->routing = "minhop";
	o->mcast_engine = "mr4lms";
	o->pg_cap = 255;
	o->max_shifts = 1024;
	c->direction = "bfs";
	o->overrides = calloc((size_t)argc + 1, sizeof(*o->overrides));
	o->cuts = calloc((size_t)argc + 1, sizeof(*o->cuts));
	if (!o->overrides || !o->cuts)
		return -ENOMEM;
	while ((ch = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		if (ch == 'h') {
			ibsmroute_usage(stdout);
			exit(0);
		}
		if (take_opt(o, &seen, ch, optarg) < 0) {
			ibsmroute_usage(stderr);
			return -EINVAL;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, "ibsmroute: %s\n",
			optind >= argc ? "missing TOPOLOGY file"
				       : "more than one TOPOLOGY file");
		ibsmroute_usage(stderr);
		return -EINVAL;
	}
	o->topology = argv[optind];
	if (apply_config(o, c, &seen) < 0)
		return -EINVAL;
	if (!ucast_engine_find(o->routing)) {
		fprintf(stderr,
			"ibsmroute: unknown unicast routing '%s' "
			"(ftree, minhop or updown)\n",
			o->routing);
		return -EINVAL;
	}
	for (size_t i = 0; i < sizeof(mc_names) / sizeof(*mc_names); i++)
		if (!strcmp(o->mcast_engine, mc_names[i]))
			return 0;
	/* the core's root-rotation variants minhop-rr, sssp-rr (benchmarks) */
	if (mcast_engine_find(o->mcast_engine, NULL))
		return 0;
	fprintf(stderr,
		"ibsmroute: unknown multicast engine '%s' (mr4lms, "
		"fulb, minhop, sssp, minhop-rr or sssp-rr)\n",
		o->mcast_engine);
	return -EINVAL;
}

void ibsmroute_opts_free(struct ibsmroute_opts *o, struct route_cfg *c)
{
	if (c->have_cfg)
		config_free(&c->cfg);
	free(o->overrides);
	free(o->cuts);
	o->overrides = NULL;
	o->cuts = NULL;
}
