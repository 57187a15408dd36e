/* Inside daemon/topology: the plan and the last comparison, hung off
 * sm->topo (topology.c), read by the control command and the metric
 * family (topology_show.c). */
#ifndef IBSMD_TOPOLOGY_PRIV_H
#define IBSMD_TOPOLOGY_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "daemon/topology/topology.h"
#include "lib/fabric.h"
#include "lib/topo_diff.h"

struct topology {
	struct fabric *expected; /* NULL: no plan */
	char *path;		 /* the file it was read from */
	struct topo_diff diff;	 /* of the last comparison */
	bool compared;
	uint64_t sweep;	      /* the sweep that compared (its number) */
	struct timespec when; /* CLOCK_REALTIME */
	uint32_t cut;	      /* links that sweep left out (enforce) */
	uint64_t checks;      /* comparisons so far */
};

/* topology_show.c: `ibsmctl topology diff` and the metric family. */
int topology_show_register(struct sm *sm);
void topology_show_unregister(struct sm *sm);

#endif
