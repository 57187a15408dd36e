/* Up/down benchmark program: builds a fabric in memory (fat tree, torus,
 * random), routes it with the updown engine and optionally a reference
 * min-hop, verifies both from the LFTs (cdg.c) and prints one line per
 * engine: hops, max link load, credit loops, roots, time, peak RSS.
 * Built and run by tests/bench/updown.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/log.h"
#include "routing/engines.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "../unit/updown_fab.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static long peak_rss_mb(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_maxrss / 1024;
}

static int build(struct fabric *f, int argc, char **argv, int *used)
{
	const char *k = argv[0];
	unsigned a[4] = { 0 };

	*used = 1;
	for (int i = 0; i < 4 && i + 1 < argc && argv[i + 1][0] != '-'; i++) {
		a[i] = (unsigned)strtoul(argv[i + 1], NULL, 0);
		(*used)++;
	}
	if (!strcmp(k, "fattree2")) {
		fab_fattree2(f, a[0], a[1], a[2]);
	} else if (!strcmp(k, "fattree3")) {
		fab_fattree3(f, a[0], a[1] ? a[1] : a[0] / 2);
	} else if (!strcmp(k, "torus")) {
		fab_torus(f, a[0], a[1], a[2], a[3]);
	} else if (!strcmp(k, "random")) {
		fab_random(f, a[0], a[1], a[2], a[3] ? a[3] : 1);
	} else {
		return -1;
	}
	return 0;
}

/* FNV-1a over every LFT, to compare tables between builds and runs. */
static uint64_t lft_sum(const struct fabric *f)
{
	uint64_t x = 0xcbf29ce484222325ull;

	for (uint32_t s = 0; s < f->n_switches; s++)
		for (uint32_t l = 0; l <= f->max_lid; l++)
			x = (x ^ f->switches[s]->lft[l]) * 0x100000001b3ull;
	return x;
}

static void print_roots(const struct ucast_result *res)
{
	printf(" roots=%u", res->n_roots);
	for (uint32_t i = 0; i < res->n_roots && i < 4; i++)
		printf("%s%s", i ? "," : "[", res->roots[i]->desc);
	if (res->n_roots)
		printf("%s]", res->n_roots > 4 ? ",..." : "");
}

int main(int argc, char **argv)
{
	struct fabric f;
	struct hops h = { 0 };
	struct ucast_params prm = { .updown_direction = "bfs" };
	struct ucast_result res = { 0 };
	struct cdg_report mh;
	unsigned threads = 2;
	int used = 0, minhop = 0;

	if (argc < 2 || build(&f, argc - 1, argv + 1, &used) < 0) {
		fprintf(stderr, "usage: %s fattree2 S L H | fattree3 K [H] | "
				"torus X Y Z H | random N PORTS H [SEED] "
				"[--dfs] [--minhop] [--threads N]\n",
			argv[0]);
		return 2;
	}
	for (int i = 1 + used; i < argc; i++) {
		if (!strcmp(argv[i], "--dfs"))
			prm.updown_direction = "dfs";
		else if (!strcmp(argv[i], "--minhop"))
			minhop = 1;
		else if (!strcmp(argv[i], "--threads") && i + 1 < argc)
			threads = (unsigned)atoi(argv[++i]);
	}
	struct pool *pool = pool_create(threads);
	printf("fabric %s: switches=%u hosts=%u links=%u threads=%u\n",
	       argv[1], f.n_switches, fabric_count_hosts(&f),
	       fabric_count_links(&f), threads);
	double t0 = now();
	hops_compute(&f, &h, pool);
	double t1 = now(), c1 = cpu();
	int rc = ucast_engine_find("updown")->route(&f, &h, pool, &prm, &res);
	double t2 = now(), c2 = cpu();
	if (rc) {
		printf("updown FAILED: %s\n", res.error);
		return 1;
	}
	printf("updown-%s: max_hops=%u avg_hops=%.4f max_link_routes=%u "
	       "cdg_acyclic=%d unreachable=%u",
	       prm.updown_direction, res.max_hops, res.avg_hops,
	       res.max_link_routes, res.cdg_acyclic, res.unreachable_pairs);
	print_roots(&res);
	printf(" verify_s=%.3f", res.verify_seconds);
	printf(" hops_s=%.3f route_s=%.3f route_cpu_s=%.3f "
	       "peak_rss_mb=%ld lft_sum=%016llx\n",
	       t1 - t0, t2 - t1, c2 - c1, peak_rss_mb(),
	       (unsigned long long)lft_sum(&f));
	if (minhop) {
		double m0 = now();
		fab_minhop(&f, &h);
		double m1 = now();
		cdg_verify(&f, pool, NULL, &mh);
		printf("minhop-ref: max_hops=%u avg_hops=%.4f "
		       "max_link_routes=%llu cdg_acyclic=%d unreachable=%llu "
		       "route_s=%.3f\n",
		       mh.max_hops, mh.avg_hops,
		       (unsigned long long)mh.max_link_routes, mh.acyclic,
		       (unsigned long long)mh.unreachable_pairs, m1 - m0);
	}
	ucast_result_free(&res);
	hops_free(&h);
	fabric_free(&f);
	pool_destroy(pool);
	return 0;
}
