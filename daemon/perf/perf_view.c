/* The front door's read side (perf.h): the iterations over the ports'
 * counters and the unhealthy links, and the status lines. */
#include <inttypes.h>
#include <string.h>

#include "daemon/perf/perf_priv.h"

void perf_fill_peer(const struct perf *pf, const struct ib_port *pt,
		    struct perf_port_view *v)
{
	v->remote_guid = 0;
	v->remote_port = 0;
	v->remote_desc = "";
	if (pt->remote) {
		v->remote_guid = pt->remote->node->guid;
		v->remote_port = pt->remote->num;
		v->remote_desc = pt->remote->node->desc;
	} else if (pt->held) {
		health_held_peer(pf, v->node_guid, v->port, &v->remote_guid,
				 &v->remote_port, &v->remote_desc);
	}
}

int perf_foreach_port(const struct sm *sm, perf_port_fn fn, void *ctx)
{
	const struct perf *pf = sm->perf;
	const struct fabric *f = sm->fab;
	int rc = 0;

	for (uint32_t i = 0; pf && f && i < f->n_nodes && rc == 0; i++) {
		const struct ib_node *n = f->nodes[i];

		for (unsigned p = 1; p <= n->nports && rc == 0; p++) {
			const struct pm_port *pp =
			    pm_port_find(pf, n->guid, (uint8_t)p);
			struct perf_port_view v = {.node_guid = n->guid,
						   .port = (uint8_t)p,
						   .node_desc = n->desc,
						   .held = n->ports[p].held};

			if (!pp || !pp->s.valid)
				continue;
			perf_fill_peer(pf, &n->ports[p], &v);
			v.total = pp->s.total;
			v.valid = pp->s.valid;
			v.delta_base = pp->prev;
			v.interval_s = pp->interval_s;
			v.last_read = (time_t)pp->s.read_time;
			rc = fn(ctx, &v);
		}
	}
	return rc;
}

int health_foreach_link(const struct sm *sm, health_link_fn fn, void *ctx)
{
	const struct health *h = sm->perf ? sm->perf->health : NULL;
	int rc = 0;

	for (uint32_t i = 0; h && i < h->n && rc == 0; i++) {
		const struct hlink *l = &h->links[i];
		struct health_link_view v = {
		    .guid = {l->guid[0], l->guid[1]},
		    .port = {l->port[0], l->port[1]},
		    .desc = {l->desc[0], l->desc[1]},
		    .tripped = l->tripped,
		    .value = l->value,
		    .since = (time_t)l->since,
		    .last_bad = (time_t)l->last_bad,
		    .action = (enum health_action)l->action,
		};

		rc = fn(ctx, &v);
	}
	return rc;
}

void perf_get_stats(const struct sm *sm, struct perf_stats *st)
{
	memset(st, 0, sizeof(*st));
	if (!sm->perf)
		return;
	*st = sm->perf->st;
	st->unhealthy = health_count(sm->perf);
}

void perf_print_status(const struct sm *sm, FILE *out)
{
	struct perf_stats st;

	perf_get_stats(sm, &st);
	fprintf(out, "perfmgr %s\n", sm->cfg.perfmgr_enable ? "on" : "off");
	fprintf(out, "perfmgr_rounds %" PRIu64 "\n", st.rounds);
	fprintf(out, "perfmgr_ports %u\n", st.ports);
	fprintf(out, "perfmgr_mads %" PRIu64 "\n", st.mads);
	fprintf(out, "perfmgr_errors %" PRIu64 "\n", st.errors);
	fprintf(out, "perfmgr_clears %" PRIu64 "\n", st.clears);
	fprintf(out, "perfmgr_last_mads %" PRIu64 "\n", st.last_mads);
	fprintf(out, "perfmgr_last_ms %.1f\n", st.last_ms);
	fprintf(out, "perfmgr_last_sums %u\n", st.last_sums);
	fprintf(out, "perfmgr_last_sums_moved %u\n", st.last_sums_moved);
	fprintf(out, "health_policy %s\n",
		config_enum_name("health.policy", sm->cfg.health_policy));
	fprintf(out, "health_unhealthy %u\n", st.unhealthy);
}
