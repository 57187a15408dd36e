/* Between discovery and programming: LIDs (lib/lids: keep valid ones, then
 * the state directory's guid2lid, then fresh ones), hop tables and the
 * configured unicast engine; after the sweep, the guid2lid file and the
 * dumps in the state directory. */
#ifndef IBSMD_ROUTE_H
#define IBSMD_ROUTE_H

#include <stddef.h>

#include "daemon/sm.h"

/* Fills f's LIDs and LFTs and sm->sm_lid.  0 or -errno with err set. */
/* keep: f's LFTs hold the routes in force; keep those still right
 * (incremental sweep; see ucast_params.keep_lft). */
int route_compute(struct sm *sm, struct fabric *f, bool keep, char *err,
		  size_t len);
/* After sm->fab was replaced by a swept model: takes its hop tables,
 * remembers its LIDs, writes guid2lid and the dumps. */
void route_after_sweep(struct sm *sm);
/* Frees what route_compute() kept at exit. */
void route_fini(struct sm *sm);
/* Reads <state_dir>/guid2lid into sm->g2l (missing file: empty). */
int route_load_guid2lid(struct sm *sm);

#endif
