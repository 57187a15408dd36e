/* What every unicast engine shares: its result (see unicast.h). */
#include "routing/unicast/unicast.h"
#include "routing/unicast/layers.h"

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
	layers_free(res->layers);
	free(res->layers);
	res->layers = NULL;
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
