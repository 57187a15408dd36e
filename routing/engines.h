/* Every routing engine by the name the configuration and ibsmroute use
 * (routing.unicast, multicast.engine).  The top of routing/: it knows the
 * engine folders (unicast/, mcast/, mr4lms/) and none of them knows it, so
 * the multicast core never reaches up to MR4LMS. */
#ifndef IBSM_ENGINES_H
#define IBSM_ENGINES_H

#include <stdbool.h>

#include "routing/mcast/mcast.h"
#include "routing/unicast/unicast.h"

/* minhop, updown, ftree.  NULL if unknown. */
const struct ucast_engine *ucast_engine_find(const char *name);

/* mr4lms, fulb, minhop, minhop-rr, sssp, sssp-rr (the -rr names set
 * prm.root_rotation).  NULL if unknown. */
const struct mc_engine *mcast_engine_find(const char *name,
					  bool *root_rotation);

/* mcast_create_with() with the engine named (NULL: mr4lms).  0, -EINVAL
 * for an unknown name, or -errno. */
int mcast_create(struct mc_ctx **out, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_params *prm);

#endif
