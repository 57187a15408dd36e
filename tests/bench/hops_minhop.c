/* Benchmark helper for tests/bench/hops_minhop.sh: loads a topology, assigns
 * LIDs, then times hop tables and minhop LFTs (wall and CPU) and the LFT
 * walk, and prints one line of key=value pairs with the peak RSS.  Built by
 * the script against the build's archives; not a test. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "lib/fabric.h"
#include "lib/lids.h"
#include "lib/topo.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"

static double clk(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	struct fabric f;
	struct hops h = {0};
	struct lids_stats st;
	struct lft_check k;
	struct rusage ru;
	char err[512];
	double w[4], c[4];
	struct pool *p;

	if (argc != 3) {
		fprintf(stderr, "usage: hops_minhop TOPOLOGY THREADS\n");
		return 2;
	}
	fabric_init(&f);
	if (topo_load(&f, argv[1], err, sizeof(err)) < 0 ||
	    lids_assign(&f, NULL, 0, &st) < 0) {
		fprintf(stderr, "hops_minhop: %s\n", err);
		return 2;
	}
	p = pool_create((unsigned)atoi(argv[2]));
	w[0] = clk(CLOCK_MONOTONIC), c[0] = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (hops_compute(&f, &h, p) < 0)
		return 1;
	w[1] = clk(CLOCK_MONOTONIC), c[1] = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (minhop_fill_lfts(&f, &h, p, err, sizeof(err)) < 0) {
		fprintf(stderr, "hops_minhop: %s\n", err);
		return 1;
	}
	w[2] = clk(CLOCK_MONOTONIC), c[2] = clk(CLOCK_PROCESS_CPUTIME_ID);
	if (verify_lft(&f, &h, p, &k) < 0)
		return 1;
	w[3] = clk(CLOCK_MONOTONIC), c[3] = clk(CLOCK_PROCESS_CPUTIME_ID);
	getrusage(RUSAGE_SELF, &ru);
	printf("switches=%u hosts=%u hops_s=%.4f lfts_s=%.4f total_s=%.4f "
	       "total_cpu_s=%.4f verify_s=%.4f unreachable=%llu max_hops=%u "
	       "peak_rss_mb=%.1f\n",
	       f.n_switches, fabric_count_hosts(&f), w[1] - w[0], w[2] - w[1],
	       w[2] - w[0], c[2] - c[0], w[3] - w[2],
	       (unsigned long long)k.unreachable_pairs, k.max_hops,
	       ru.ru_maxrss / 1024.0);
	hops_free(&h);
	pool_destroy(p);
	fabric_free(&f);
	return k.unreachable_pairs ? 1 : 0;
}
