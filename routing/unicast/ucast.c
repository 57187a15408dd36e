/* What every unicast engine shares: its result (see unicast.h). */
#include "routing/unicast/unicast.h"

#include <stdlib.h>
#include <stdint.h>

void ucast_result_free(struct ucast_result *res)
{
	free(res->roots);
	res->roots = NULL;
	res->n_roots = 0;
	free(res->updown_order);
	free(res->updown_rank);
	res->updown_order = res->updown_rank = NULL;
}

void ucast_result_from_check(const struct lft_check *c,
			     struct ucast_result *r)
{
	r->unreachable_pairs = c->unreachable_pairs > UINT32_MAX
				   ? UINT32_MAX
				   : (uint32_t)c->unreachable_pairs;
	r->max_hops = c->max_hops;
	r->cdg_acyclic = c->cdg_acyclic;
	r->avg_hops = c->avg_hops;
	r->max_link_routes = c->max_link_routes > UINT32_MAX
				 ? UINT32_MAX
				 : (uint32_t)c->max_link_routes;
}

uint32_t ucast_host_lids(const struct ib_node *sw, ucast_lid_fn fn, void *ctx)
{
	uint32_t k = 0;

	for (unsigned l = 0; l < 128; l++) {
		bool more = false;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (!r || node_is_switch(r->node) || !r->lid ||
			    l >= 1u << r->lmc)
				continue;
			if (fn)
				fn(ctx, r, (uint8_t)p, (uint8_t)l);
			k++;
			more |= l + 1 < 1u << r->lmc;
		}
		if (!more)
			break;
	}
	return k;
}
