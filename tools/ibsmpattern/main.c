/* ibsmpattern: writes multicast event files (docs/design.md §6) for ibsmroute
 * --groups: the papers' 2-D/3-D grid patterns, random groups and a churn
 * mix, over the hosts of a topology file in file order. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric.h"
#include "lib/topo.h"
#include "tools/ibsmpattern/pattern.h"

static const char usage[] =
    "usage: ibsmpattern TOPOLOGY grid XxY[xZ] [--ppn N] [--shuffle SEED]\n"
    "       ibsmpattern TOPOLOGY random --count N --size MIN[-MAX] [--seed S]\n"
    "       ibsmpattern TOPOLOGY churn --count N --size MIN[-MAX] [--live L]\n"
    "                   [--delete-pct P] [--seed S]\n"
    "common options: [--members auto|desc|guid] [-o FILE] [--count-only]\n"
    "\n"
    "Writes one event per line: '+ MGID MEMBER...' creates a group, '- MGID'\n"
    "deletes it.  MGIDs are ff12:601b:ffff:0:<counter>, counter from 1, in\n"
    "inet_ntop form (ff12:601b:ffff::1).  Members are host NodeDescriptions\n"
    "(--members desc) or 0x port GUIDs (guid); auto uses descriptions when\n"
    "every host has a unique one without blanks.  Hosts are the linked CA\n"
    "ports in topology-file order (a CA's first linked port).\n"
    "\n"
    "grid: processes X*Y(*Z), rank = x + X*(y + Y*z); one group per line "
    "along\n"
    "  each axis (2-D: rows and columns; 3-D: lines along x, y and z).  Rank "
    "r\n"
    "  runs on slot r (host r / ppn) in topology order, or on a seeded random\n"
    "  slot with --shuffle SEED (topology-unaware).  Members of a group are\n"
    "  the distinct hosts of its processes.\n"
    "random: N groups, size uniform in [MIN, MAX], distinct random hosts.\n"
    "churn: N creates of random groups mixed with deletes (probability P%,\n"
    "  default 40; never more than L live, default 64); all deleted at the "
    "end.\n"
    "--count-only prints the number of groups a grid makes and exits.\n";

struct args {
	const char *topo, *kind, *out, *members;
	struct pat_grid grid;
	struct pat_random rnd;
	bool count_only;
};

static int parse_dims(const char *s, struct pat_grid *g)
{
	char *end;

	g->ndim = 0;
	while (g->ndim < 3) {
		unsigned long v = strtoul(s, &end, 10);

		if (end == s || !v || v > UINT32_MAX)
			return -EINVAL;
		g->dim[g->ndim++] = (uint32_t)v;
		if (!*end)
			return g->ndim >= 2 ? 0 : -EINVAL;
		if (*end != 'x' && *end != 'X')
			return -EINVAL;
		s = end + 1;
	}
	return -EINVAL;
}

static int parse_size(const char *s, struct pat_random *r)
{
	char *end;
	unsigned long lo = strtoul(s, &end, 10), hi = lo;

	if (end == s)
		return -EINVAL;
	if (*end == '-')
		hi = strtoul(end + 1, &end, 10);
	if (*end || !lo || hi < lo || hi > UINT32_MAX)
		return -EINVAL;
	r->min = (uint32_t)lo;
	r->max = (uint32_t)hi;
	return 0;
}

static int parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 0);
	return (end == s || *end || errno) ? -EINVAL : 0;
}

enum {
	OPT_PPN = 256,
	OPT_SHUFFLE,
	OPT_COUNT,
	OPT_SIZE,
	OPT_SEED,
	OPT_LIVE,
	OPT_DEL,
	OPT_MEMBERS,
	OPT_COUNT_ONLY
};

static int parse_opt(struct args *a, int c, const char *v)
{
	uint64_t x = 0;

	if (c != 'o' && c != OPT_MEMBERS && c != OPT_SIZE &&
	    c != OPT_COUNT_ONLY && parse_u64(v, &x))
		return -EINVAL;
	switch (c) {
	case 'o':
		a->out = v;
		return 0;
	case OPT_MEMBERS:
		a->members = v;
		return 0;
	case OPT_SIZE:
		return parse_size(v, &a->rnd);
	case OPT_COUNT_ONLY:
		a->count_only = true;
		return 0;
	case OPT_PPN:
		a->grid.ppn = (unsigned)x;
		return x && x < 1024 ? 0 : -EINVAL;
	case OPT_SHUFFLE:
		a->grid.shuffle = true;
		a->grid.seed = x;
		return 0;
	case OPT_COUNT:
		a->rnd.count = x;
		return 0;
	case OPT_SEED:
		a->rnd.seed = x;
		return 0;
	case OPT_LIVE:
		a->rnd.live = x;
		return x ? 0 : -EINVAL;
	case OPT_DEL:
		a->rnd.del_pct = (unsigned)x;
		return x < 100 ? 0 : -EINVAL;
	}
	return -EINVAL;
}

static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
	    {"ppn", 1, NULL, OPT_PPN},
	    {"shuffle", 1, NULL, OPT_SHUFFLE},
	    {"count", 1, NULL, OPT_COUNT},
	    {"size", 1, NULL, OPT_SIZE},
	    {"seed", 1, NULL, OPT_SEED},
	    {"live", 1, NULL, OPT_LIVE},
	    {"delete-pct", 1, NULL, OPT_DEL},
	    {"members", 1, NULL, OPT_MEMBERS},
	    {"count-only", 0, NULL, OPT_COUNT_ONLY},
	    {"help", 0, NULL, 'h'},
	    {NULL, 0, NULL, 0}};
	int c;

	a->grid.ppn = 1;
	a->rnd.live = 64;
	a->rnd.del_pct = 40;
	a->rnd.seed = 1;
	a->members = "auto";
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		if (c == 'h' || c == '?' || parse_opt(a, c, optarg)) {
			if (c != 'h' && c != '?')
				fprintf(stderr, "ibsmpattern: bad value '%s'\n",
					optarg);
			return -EINVAL;
		}
	}
	if (argc - optind < 2)
		return -EINVAL;
	a->topo = argv[optind];
	a->kind = argv[optind + 1];
	if (!strcmp(a->kind, "grid"))
		return argc - optind == 3
			   ? parse_dims(argv[optind + 2], &a->grid)
			   : -EINVAL;
	if (argc - optind != 2)
		return -EINVAL;
	if (strcmp(a->kind, "random") && strcmp(a->kind, "churn"))
		return -EINVAL;
	return a->rnd.count && a->rnd.max ? 0 : -EINVAL;
}

/* Hosts: the first linked port of every CA/router, in fabric (file) order. */
static struct pat_host *collect_hosts(const struct fabric *f, uint32_t *n)
{
	struct pat_host *h = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*h));

	*n = 0;
	if (!h)
		return NULL;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *nd = f->nodes[i];

		if (node_is_switch(nd))
			continue;
		for (unsigned p = 1; p <= nd->nports; p++) {
			if (!nd->ports[p].remote)
				continue;
			h[*n].desc = nd->desc;
			h[(*n)++].guid = nd->ports[p].guid;
			break;
		}
	}
	return h;
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* True when descriptions can name members unambiguously on one line. */
static bool descs_usable(const struct pat_host *h, uint32_t n)
{
	const char **v = malloc((n ? n : 1) * sizeof(*v));
	bool ok = v != NULL;

	for (uint32_t i = 0; ok && i < n; i++) {
		v[i] = h[i].desc;
		ok = *v[i] && !strpbrk(v[i], " \t") && strncmp(v[i], "0x", 2);
	}
	if (ok) {
		qsort(v, n, sizeof(*v), cmp_desc);
		for (uint32_t i = 1; ok && i < n; i++)
			ok = strcmp(v[i - 1], v[i]) != 0;
	}
	free(v);
	return ok;
}

static int choose_members(struct pat_out *o, const char *mode)
{
	bool usable = descs_usable(o->hosts, o->n_hosts);

	if (!strcmp(mode, "guid") || (!strcmp(mode, "auto") && !usable)) {
		o->by_guid = true;
		return 0;
	}
	if (strcmp(mode, "desc") && strcmp(mode, "auto"))
		return -EINVAL;
	if (!usable) {
		fprintf(stderr,
			"ibsmpattern: host NodeDescriptions are not unique "
			"or contain blanks; use --members guid\n");
		return -EINVAL;
	}
	return 0;
}

static int generate(struct args *a, struct pat_out *o)
{
	if (!strcmp(a->kind, "grid"))
		return pat_grid_write(o, &a->grid);
	if (!strcmp(a->kind, "random"))
		return pat_random_write(o, &a->rnd);
	return pat_churn_write(o, &a->rnd);
}

int main(int argc, char **argv)
{
	struct args a = {0};
	struct fabric f;
	struct pat_out o = {.next_id = 1};
	int ret;

	if (parse_args(argc, argv, &a)) {
		fputs(usage, stderr);
		return 2;
	}
	if (a.count_only && !strcmp(a.kind, "grid")) {
		printf("%" PRIu64 "\n", pat_grid_count(&a.grid));
		return 0;
	}
	char err[512] = "";

	fabric_init(&f);
	ret = topo_load(&f, a.topo, err, sizeof(err));
	if (ret < 0) {
		fprintf(stderr, "ibsmpattern: cannot load topology %s: %s\n",
			a.topo, err[0] ? err : strerror(-ret));
		return 1;
	}
	struct pat_host *hosts = collect_hosts(&f, &o.n_hosts);

	o.hosts = hosts;
	o.fp = a.out ? fopen(a.out, "w") : stdout;
	ret = !hosts ? -ENOMEM : !o.fp ? -errno : choose_members(&o, a.members);
	if (!ret)
		ret = generate(&a, &o);
	if (o.fp && o.fp != stdout && fclose(o.fp) && !ret)
		ret = -EIO;
	if (ret)
		fprintf(stderr, "ibsmpattern: %s pattern not written: %s\n",
			a.kind, strerror(-ret));
	else
		fprintf(stderr,
			"ibsmpattern: %u hosts, %" PRIu64 " groups, %" PRIu64
			" deletes\n",
			o.n_hosts, o.groups, o.deletes);
	free(hosts);
	fabric_free(&f);
	return ret ? 1 : 0;
}
