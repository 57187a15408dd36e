/* Builds a routed fabric from a topology file for SA tests and benches:
 * topology parser (lib/topo.h), LIDs as the daemon assigns them
 * (lib/lids.h), hop tables and minhop LFTs (routing/).  Ports are marked
 * ACTIVE 4X SDR with a 2048 MTU where the file does not say otherwise. */
#ifndef SA_TOPO_H
#define SA_TOPO_H

#include <errno.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/lids.h"
#include "lib/pool.h"
#include "lib/topo.h"
#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"

static int sa_topo_build(struct fabric *f, const char *path)
{
	char err[256] = "";
	struct lids_stats st;
	struct hops h = {0};
	struct ucast_params prm = {0};
	struct ucast_result res = {0};
	struct pool *pool;
	const struct ucast_engine *eng = ucast_engine_find("minhop");
	int rc;

	fabric_init(f);
	rc = topo_load(f, path, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", path, err);
		return rc;
	}
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];

		for (unsigned p = 0; p <= n->nports; p++) {
			struct ib_port *pt = &n->ports[p];

			if (!pt->remote && !(p == 0 && node_is_switch(n)))
				continue;
			pt->state = IB_PORT_ACTIVE;
			pt->phys_state = 5;
			if (!pt->width_active)
				pt->width_active = 2;
			if (!pt->speed_active)
				pt->speed_active = 1;
			if (!pt->mtu_cap)
				pt->mtu_cap = 4;
		}
	}
	if (!f->sm_node && f->n_nodes)
		topo_set_sm_node(f, f->nodes[0]->desc);
	rc = lids_assign(f, NULL, 0, &st);
	pool = pool_create(1);
	if (!rc)
		rc = hops_compute(f, &h, pool);
	if (!rc)
		rc = eng ? eng->route(f, &h, pool, &prm, &res) : -ENOENT;
	for (uint32_t i = 0; i < f->n_switches; i++)
		f->switches[i]->lft_top = f->max_lid;
	ucast_result_free(&res);
	hops_free(&h);
	pool_destroy(pool);
	return rc;
}

#endif
