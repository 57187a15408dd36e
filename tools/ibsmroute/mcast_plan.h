/* The offline planner's forecast of trees per switch (mcast_plan.c). */
#ifndef IBSMROUTE_MCAST_PLAN_H
#define IBSMROUTE_MCAST_PLAN_H

#include "routing/mcast.h"
#include "tools/ibsmroute/mcast_events.h"

struct mc_plan {
	uint64_t
	    *off; /* [events + 1]: event i's switches sw[off[i]..off[i+1]) */
	uint32_t *sw; /* tree switches of each create of the trial */
	uint64_t nsw, cap;
	double seconds;	  /* time of the trial routing */
	uint32_t max_efi; /* the trial's max EFI */
};

/* Routes the events once with engine and no MFT limit and keeps each
 * created group's tree switches.  0 or -errno. */
int mc_plan_make(struct mc_plan *p, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_events *ev);
/* Announces every kept tree to c's forecast. */
int mc_plan_announce(const struct mc_plan *p, struct mc_ctx *c);
/* Takes event i's tree back (its group has been routed). */
int mc_plan_take(const struct mc_plan *p, struct mc_ctx *c, uint32_t i);
void mc_plan_free(struct mc_plan *p);

#endif
