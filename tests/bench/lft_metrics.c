/* Bench helper for tests/bench/minhop_vs_opensm.sh and ftree.sh: the
 * metrics of tables another SM computed (OpenSM's guid2lid and
 * opensm-lfts.dump) on a topology file, measured with our LFT walk and
 * shift-permutation walk so that both SMs are counted the same way.
 * Prints one line of key=value pairs. */
#include <stdio.h>
#include <string.h>

#include "lib/dump.h"
#include "lib/fabric.h"
#include "lib/lids.h"
#include "lib/topo.h"
#include "routing/hops/hops.h"
#include "routing/verify/verify.h"

int main(int argc, char **argv)
{
	struct fabric f;
	struct guid2lid m = {0};
	struct lids_stats st;
	struct hops h = {0};
	struct lft_check c;
	struct shift_report sh;
	char err[512];

	if (argc != 4) {
		fprintf(stderr, "usage: lft_metrics TOPOLOGY GUID2LID LFTS\n");
		return 2;
	}
	fabric_init(&f);
	if (topo_load(&f, argv[1], err, sizeof(err)) < 0 ||
	    guid2lid_read(argv[2], &m, err, sizeof(err)) < 0) {
		fprintf(stderr, "lft_metrics: %s\n", err);
		return 2;
	}
	/* The other SM's LIDs: no LID from the file, all from its map. */
	for (uint32_t i = 0; i < f.n_nodes; i++)
		for (unsigned p = 0; p <= f.nodes[i]->nports; p++)
			if (f.nodes[i]->ports[p].lid)
				fabric_set_lid(&f, &f.nodes[i]->ports[p], 0, 0);
	if (lids_assign(&f, &m, 0, &st) < 0 || st.fresh) {
		fprintf(stderr, "lft_metrics: %u ports not in %s\n", st.fresh,
			argv[2]);
		return 1;
	}
	if (hops_compute(&f, &h, NULL) < 0 ||
	    dump_read_lfts(argv[3], &f, err, sizeof(err)) < 0) {
		fprintf(stderr, "lft_metrics: %s\n", err);
		return 1;
	}
	for (uint32_t s = 0; s < f.n_switches; s++)
		if (node_lft_reserve(f.switches[s], f.max_lid) < 0)
			return 1;
	if (verify_lft(&f, &h, NULL, &c) < 0 ||
	    verify_shifts(&f, NULL, 1024, &sh) < 0)
		return 1;
	printf("unreachable_pairs=%llu max_hops=%u avg_hops=%.4f "
	       "max_link_routes=%llu cdg_acyclic=%s non_shortest=%llu "
	       "shifts_mean=%.4f shifts_worst=%u shifts_free=%u "
	       "shifts=%u\n",
	       (unsigned long long)c.unreachable_pairs, c.max_hops, c.avg_hops,
	       (unsigned long long)c.max_link_routes,
	       c.cdg_acyclic ? "true" : "false",
	       (unsigned long long)c.non_shortest_pairs, sh.mean_busiest,
	       sh.worst, sh.congestion_free, sh.shifts);
	guid2lid_free(&m);
	hops_free(&h);
	fabric_free(&f);
	return 0;
}
