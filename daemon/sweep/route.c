/* LIDs, hop tables and unicast routing for a swept model, and what is
 * written to the state directory afterwards: see sweep_priv.h. */
#include "daemon/sweep/sweep_priv.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/dump.h"
#include "lib/log.h"
#include "routing/engines.h"
#include "routing/unicast/layers.h"
#include "routing/unicast/unicast.h"

/* What did not fit below the switches' LinearFDBCap, said once: logged
 * when it first appears or changes, kept for `ibsmctl status` and for
 * --once's exit (docs/design.md §3.4). */
static void report_limit(struct sm *sm, const struct lids_stats *st)
{
	char msg[sizeof(sm->lid_limit)] = "";

	lids_limit_message(st, (uint8_t)sm->cfg.sm_lmc, msg, sizeof(msg));
	if (!strcmp(msg, sm->lid_limit))
		return;
	if (!msg[0])
		log_notice("LIDs: every port fits the switches' "
			   "LinearFDBCap again");
	else if (!sm->once) /* --once exits with it, said once */
		log_err("LIDs: %s", msg);
	snprintf(sm->lid_limit, sizeof(sm->lid_limit), "%s", msg);
}

static int assign_lids(struct sm *sm, struct fabric *f, char *err, size_t len)
{
	struct lids_stats st;
	struct ib_port *smp;
	int rc = lids_assign(f, &sm->g2l, (uint8_t)sm->cfg.sm_lmc, &st);

	if (rc < 0) {
		snprintf(err, len, "LID assignment failed: %s", strerror(-rc));
		return rc;
	}
	log_info("LIDs: %u ports, %u kept, %u from guid2lid, %u new, %u "
		 "dropped, max LID %u",
		 st.ports, st.kept, st.from_map, st.fresh, st.dropped,
		 f->max_lid);
	report_limit(sm, &st);
	smp = node_port(f->sm_node, f->sm_port);
	sm->sm_lid = smp->lid;
	return 0;
}

static void layers_drop(struct ucast_layers **ly)
{
	layers_free(*ly);
	free(*ly);
	*ly = NULL;
}

/* The layers the layered engine may make (docs/design.md §5.3): what
 * routing.layered.max_vls asks (0: all), within every port's VLCap and
 * qos.max_vls (OperationalVLs is set to no more), less the VL multicast
 * keeps to itself when paths take more than one layer. */
static unsigned layered_vls(const struct sm *sm, const struct fabric *f)
{
	unsigned data = layers_vlcap(f), want = sm->cfg.routing_layered_max_vls;

	if (!data)
		data = 8;
	if (data > (unsigned)sm->cfg.qos_max_vls)
		data = (unsigned)sm->cfg.qos_max_vls;
	if (data <= 1)
		return 1;
	if (!want || want > data - 1) {
		if (want > data - 1)
			log_notice("layered: routing.layered.max_vls is %u, but "
				   "the ports run %u data VLs and multicast "
				   "keeps one: %u layers",
				   want, data, data - 1);
		return data - 1;
	}
	return want;
}

int route_compute(struct sm *sm, struct fabric *f, bool keep, char *err,
		  size_t len)
{
	const struct ucast_engine *eng = ucast_engine_find(
	    config_enum_name("routing.unicast", sm->cfg.routing_unicast));
	struct ucast_params prm = {
	    .updown_roots = (const char *const *)sm->cfg.routing_updown_roots.v,
	    .n_updown_roots = sm->cfg.routing_updown_roots.n,
	    .updown_direction = sm->cfg.routing_updown_direction == CFG_UPDN_DFS
				    ? "dfs"
				    : "bfs",
	    .keep_lft = keep,
	    .prev = keep ? sm->ucast_state : NULL,
	    .layered_max_vls = sm->cfg.routing_unicast == CFG_UCAST_LAYERED
				   ? layered_vls(sm, f)
				   : 0,
	};
	struct ucast_result res = {0};
	int64_t t0;
	int rc;

	if (!eng) {
		snprintf(err, len, "unknown routing engine '%s'",
			 config_enum_name("routing.unicast",
					  sm->cfg.routing_unicast));
		return -EINVAL;
	}
	rc = assign_lids(sm, f, err, len);
	if (rc < 0)
		return rc;
	t0 = txn_now_us();
	hops_free(&sm->next_hops);
	rc = hops_compute(f, &sm->next_hops, sm->pool);
	if (rc < 0) {
		snprintf(err, len, "hop tables: %s", strerror(-rc));
		return rc;
	}
	rc = eng->route(f, &sm->next_hops, sm->pool, &prm, &res);
	if (rc < 0) {
		snprintf(err, len, "routing engine %s: %s", eng->name,
			 res.error[0] ? res.error : strerror(-rc));
		ucast_result_free(&res);
		return rc;
	}
	log_info("routing: %s, %u switches, max LID %u, %u unreachable host "
		 "pairs, max hops %u, %.1f ms",
		 eng->name, f->n_switches, f->max_lid, res.unreachable_pairs,
		 res.max_hops, (txn_now_us() - t0) / 1000.0);
	pgprog_routed(sm, &res); /* keeps the updown order for port groups */
	/* updn-roots.dump (docs/design.md §4.4): the roots the routes were
	 * built on */
	if (res.n_roots &&
	    dump_write_roots(sm->cfg.state_dir, res.roots, res.n_roots) < 0)
		log_warn("cannot write %s/updn-roots.dump; ibdmchk -u needs it",
			 sm->cfg.state_dir);
	/* the hosts' order the routes follow, for job launchers: written
	 * with the other dumps once this model is adopted (dumps.c) */
	sm->next_ca_order = res.ca_order;
	/* kept with the model: the SA answers SLs from fab's layers until
	 * this model replaces it (route_after_sweep) */
	layers_drop(&sm->next_layers);
	sm->next_layers = res.layers;
	res.layers = NULL;
	if (sm->next_layers)
		log_info("layered: %u layers made, %u used by host pairs",
			 sm->next_layers->n_layers, sm->next_layers->used);
	ucast_state_free(sm->next_ucast_state);
	sm->next_ucast_state = res.state;
	res.state = NULL;
	ucast_result_free(&res);
	return 0;
}

bool layers_need_tables(const struct sm *sm)
{
	return sm->next_layers && sm->next_layers->used > 1 &&
	       !(sm->layers && sm->layers->used > 1);
}

static void remember_lids(struct sm *sm)
{
	const struct fabric *f = sm->fab;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		for (unsigned p = node_is_switch(n) ? 0 : 1;
		     p <= (node_is_switch(n) ? 0u : n->nports); p++) {
			const struct ib_port *pt = &n->ports[p];
			uint64_t g = node_is_switch(n) ? n->guid : pt->guid;
			if (pt->lid && g)
				guid2lid_put(
				    &sm->g2l, g, pt->lid,
				    (uint16_t)(pt->lid + (1u << pt->lmc) - 1));
		}
	}
}

void route_after_sweep(struct sm *sm)
{
	char path[512];
	int rc;

	hops_free(&sm->hops); /* adopt_model joined the dump helper */
	sm->hops = sm->next_hops;
	memset(&sm->next_hops, 0, sizeof(sm->next_hops));
	ucast_state_free(sm->ucast_state);
	sm->ucast_state = sm->next_ucast_state;
	sm->next_ucast_state = NULL;
	sm->ca_order = sm->next_ca_order;
	layers_drop(&sm->layers);
	sm->layers = sm->next_layers;
	sm->next_layers = NULL;

	remember_lids(sm);
	snprintf(path, sizeof(path), "%s/guid2lid", sm->cfg.state_dir);
	/* guid2lid is state, not a dump: it carries LIDs across restarts. */
	rc = dumps_after_sweep(sm);
	if (rc < 0)
		log_err("cannot write %s: %s; LIDs may change at the next "
			"start",
			path, strerror(-rc));
}

void route_fini(struct sm *sm)
{
	ucast_state_free(sm->ucast_state);
	ucast_state_free(sm->next_ucast_state);
	sm->ucast_state = sm->next_ucast_state = NULL;
	layers_drop(&sm->layers);
	layers_drop(&sm->next_layers);
}

int route_load_guid2lid(struct sm *sm)
{
	char path[512], err[256] = "";
	int rc;

	snprintf(path, sizeof(path), "%s/guid2lid", sm->cfg.state_dir);
	rc = guid2lid_read(path, &sm->g2l, err, sizeof(err));
	if (rc == -ENOENT)
		return 0;
	if (rc < 0) {
		log_warn("%s; LIDs are assigned without it",
			 err[0] ? err : strerror(-rc));
		guid2lid_free(&sm->g2l);
		return 0;
	}
	if (rc > 0)
		log_warn("%s: %d damaged lines skipped, %u LIDs used", path, rc,
			 sm->g2l.n);
	log_info("read %u LIDs from %s", sm->g2l.n, path);
	return 0;
}
