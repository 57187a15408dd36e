/* What every unicast engine shares: its result (see unicast.h). */
#include "routing/unicast/unicast.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"

void ucast_state_free(struct ucast_state *st)
{
	if (!st)
		return;
	if (st->free_priv)
		st->free_priv(st->priv);
	free(st);
}

void ucast_result_free(struct ucast_result *res)
{
	ucast_state_free(res->state);
	res->state = NULL;
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

unsigned ucast_lmc_pick(unsigned n, unsigned base, unsigned off,
			bool (*taken)(void *ctx, unsigned i), void *ctx)
{
	for (unsigned k = 0; k < n; k++) {
		unsigned i = (base + off + k) % n;
		if (!taken || !taken(ctx, i))
			return i;
	}
	return (base + off) % n;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

int ucast_verify(const struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 struct ucast_result *res)
{
	struct lft_check chk;
	double t0 = now_s();
	int rc = verify_lft(f, h, pool, &chk);

	if (rc < 0) {
		snprintf(res->error, sizeof(res->error),
			 "LFT verification failed: %s", strerror(-rc));
		return rc;
	}
	ucast_result_from_check(&chk, res);
	res->verify_seconds = now_s() - t0;
	if (chk.unreachable_pairs || chk.sw_unreachable || chk.lmc_unreachable)
		log_warn("%s: %llu CA pairs unreachable (%llu in loops), "
			 "%llu CA-to-switch pairs; first: %s; the fabric is "
			 "partitioned or the hop table is stale",
			 engine, (unsigned long long)chk.unreachable_pairs,
			 (unsigned long long)chk.loop_pairs,
			 (unsigned long long)chk.sw_unreachable,
			 chk.first_error);
	if (!chk.cdg_acyclic)
		log_info("%s: routes have a %s (%s does not avoid credit "
			 "loops; use updown where that matters)",
			 engine, chk.cdg_why, engine);
	return 0;
}
