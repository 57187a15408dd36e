/* Metrics of LFTs that some other program computed: loads a topology file
 * and an LFT dump in OpenSM's opensm-lfts.dump form (OpenSM's own, or
 * ibsmd's lfts.dump), takes the LIDs from the dump's destination lines
 * (port GUIDs), and runs the same LFT walk and channel-dependency check
 * (routing/verify/cdg.c) as the updown engine.  Lets the benchmark put OpenSM's
 * updn next to ours on the same fabric.
 *   updown_lft_metrics NET LFTS_DUMP */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/topo.h"
#include "routing/verify/verify.h"

static int load_lfts(struct fabric *f, const char *path)
{
	FILE *fp = fopen(path, "r");
	char line[512];
	struct ib_node *sw = NULL;
	unsigned lineno = 0;

	if (!fp) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		char *g;
		lineno++;
		if (!strncmp(line, "Unicast lids", 12)) {
			g = strstr(line, " guid 0x");
			sw = g ? fabric_node_by_guid(f, strtoull(g + 6, NULL, 16))
			       : NULL;
			if (!sw)
				fprintf(stderr, "%s:%u: unknown switch\n", path,
					lineno);
			continue;
		}
		if (strncmp(line, "0x", 2) || !sw)
			continue;
		char *end;
		unsigned long lid = strtoul(line, &end, 16);
		unsigned long port = strtoul(end, &end, 10);
		g = strstr(end, "portguid 0x");
		struct ib_port *p =
			g ? fabric_port_by_guid(f, strtoull(g + 9, NULL, 16))
			  : NULL;
		if (!p || !lid || lid > IB_LID_UCAST_END) {
			fprintf(stderr, "%s:%u: unknown destination\n", path,
				lineno);
			continue;
		}
		if (p->lid != lid && (p->lid == 0 || lid < p->lid))
			fabric_set_lid(f, p, (uint16_t)lid, 0);
		if (node_lft_reserve(sw, (uint16_t)lid) < 0)
			return -1;
		sw->lft[lid] = (uint8_t)port;
	}
	fclose(fp);
	for (uint32_t s = 0; s < f->n_switches; s++)
		if (node_lft_reserve(f->switches[s], f->max_lid) < 0)
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	struct fabric f;
	struct cdg_report r;
	char err[256];

	if (argc != 3) {
		fprintf(stderr, "usage: %s NET LFTS_DUMP\n", argv[0]);
		return 2;
	}
	fabric_init(&f);
	if (topo_load(&f, argv[1], err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (load_lfts(&f, argv[2]) < 0)
		return 1;
	struct pool *pool = pool_create(2);
	if (cdg_verify(&f, pool, NULL, &r) < 0)
		return 1;
	printf("max_hops=%u avg_hops=%.4f max_link_routes=%" PRIu64
	       " cdg_acyclic=%d unreachable=%" PRIu64
	       " ca_to_switch_unreachable=%" PRIu64 "%s%s\n",
	       r.max_hops, r.avg_hops, r.max_link_routes, r.acyclic,
	       r.unreachable_pairs, r.sw_unreachable_pairs,
	       r.why[0] ? " why=" : "", r.why);
	pool_destroy(pool);
	fabric_free(&f);
	return 0;
}
