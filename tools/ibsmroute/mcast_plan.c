/* The offline planner's forecast: before routing with a limited MFT, the
 * same events are routed once with no limit (the MR4LMS paper's own way
 * of sizing Ncolor, §4.5), and each created group's tree switches are
 * kept.  The limited run announces them all (mcast_forecast) and takes
 * each back once its group is routed, so the engine knows on which
 * switches more trees are coming than colors are left.  The trial's time
 * is part of the multicast routing time reported. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "routing/engines.h"
#include "tools/ibsmroute/mcast_plan.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Appends the switches of group gid's tree as create event i's entry
 * (i in file order: the events are routed in file order here). */
static int plan_keep(struct mc_plan *p, const struct mc_ctx *c, uint32_t i,
		     uint32_t gid)
{
	const struct mc_tree *t = mcast_group_tree(c, gid);
	uint32_t n = t ? t->n_nodes : 0;

	if (p->nsw + n > p->cap) {
		uint64_t nc = (p->nsw + n) * 2;
		uint32_t *ns = realloc(p->sw, nc * sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		p->sw = ns;
		p->cap = nc;
	}
	p->off[i] = p->nsw;
	for (uint32_t k = 0; k < n; k++)
		p->sw[p->nsw++] = t->nodes[k].sw;
	p->off[i + 1] = p->nsw;
	return 0;
}

int mc_plan_make(struct mc_plan *p, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_events *ev, uint32_t limit,
		 struct mc_ctx **fits)
{
	struct mc_params prm;
	struct mgid_map map = {0};
	struct mc_ctx *c = NULL;
	double t0 = now_s();
	uint32_t bad = 0; /* events the trial could not apply */
	int rc;

	*p = (struct mc_plan){0};
	*fits = NULL;
	mcast_params_default(&prm);
	if (!(p->off = calloc(ev->n + 1, sizeof(*p->off))))
		return -ENOMEM;
	p->nev = ev->n;
	if ((rc = mcast_create(&c, f, h, pool, engine, &prm)) < 0)
		goto out;
	for (uint32_t i = 0; i < ev->n && rc >= 0; i++) {
		const struct mc_event *e = &ev->ev[i];
		uint32_t gid = mgid_map_get(&map, e->mgid);
		p->off[i + 1] = p->off[i] = p->nsw;
		if (e->op == '-') {
			if (gid == UINT32_MAX) {
				bad++; /* the limited run reports it */
				continue;
			}
			mgid_map_del(&map, e->mgid);
			rc = mcast_group_remove(c, gid);
			continue;
		}
		if (gid != UINT32_MAX ||
		    mcast_group_add(c, e->mgid, ev->ports + e->first, e->n,
				    &gid) < 0) {
			bad++;
			continue;
		}
		if ((rc = plan_keep(p, c, i, gid)) == 0)
			rc = mgid_map_put(&map, e->mgid, gid);
	}
	if (rc >= 0) {
		/* the highest EFI reached: the max EFI unless groups left */
		p->max_efi = c->efi_high;
		if (!bad && mcast_colors_top(c) <= limit) {
			*fits = c; /* the limited routing would be this one */
			c = NULL;
		}
	}
out:
	mcast_destroy(c);
	mgid_map_free(&map);
	p->seconds = now_s() - t0;
	if (rc < 0)
		mc_plan_free(p);
	return rc < 0 ? rc : 0;
}

int mc_plan_announce(const struct mc_plan *p, struct mc_ctx *c)
{
	int rc = 0;

	mcast_forecast_peak(c, p->max_efi);
	for (uint32_t i = 0; i < p->nev && rc == 0; i++)
		rc = mcast_forecast(c, p->sw + p->off[i],
				    (uint32_t)(p->off[i + 1] - p->off[i]), 1);
	return rc;
}

int mc_plan_take(const struct mc_plan *p, struct mc_ctx *c, uint32_t seq)
{
	return mcast_forecast(c, p->sw + p->off[seq],
			      (uint32_t)(p->off[seq + 1] - p->off[seq]), -1);
}

void mc_plan_free(struct mc_plan *p)
{
	free(p->off);
	free(p->sw);
	*p = (struct mc_plan){0};
}
