/* The offline planner's forecast of trees per switch (mcast_plan.c). */
#ifndef IBSMROUTE_MCAST_PLAN_H
#define IBSMROUTE_MCAST_PLAN_H

#include "routing/mcast/mcast.h"
#include "tools/ibsmroute/mcast_events.h"

struct mc_plan {
	uint64_t
	    *off; /* [events + 1]: event i's switches sw[off[i]..off[i+1]) */
	uint32_t *sw; /* tree switches of each create of the trial */
	uint64_t nsw, cap;
	uint32_t nev;	  /* events */
	double seconds;	  /* time of the trial routing */
	uint32_t max_efi; /* the highest EFI the trial reached */
};

/* Routes the events (in file order) once with engine and no MFT limit
 * and keeps each created group's tree switches.  When that routing uses
 * no more than limit colors it is what the limited routing would be (FBTC
 * never missed a color): its context is handed over in *fits (else NULL)
 * and no further run is needed.  0 or -errno. */
int mc_plan_make(struct mc_plan *p, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_events *ev, uint32_t limit,
		 struct mc_ctx **fits);
/* Announces every kept tree to c's forecast. */
int mc_plan_announce(const struct mc_plan *p, struct mc_ctx *c);
/* Takes back the tree of the event with file-order index seq (its group
 * has been routed). */
int mc_plan_take(const struct mc_plan *p, struct mc_ctx *c, uint32_t seq);
void mc_plan_free(struct mc_plan *p);

#endif
