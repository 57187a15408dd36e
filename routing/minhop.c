/* minhop unicast engine — placeholder until implemented: it refuses to route
 * and says so, so nothing downstream mistakes it for a result. */
#include <errno.h>
#include <stdio.h>

#include "routing/ucast.h"

static int minhop_route(struct fabric *f, const struct hops *h,
			struct pool *pool, const struct ucast_params *prm,
			struct ucast_result *res)
{
	snprintf(res->error, sizeof(res->error),
		 "routing engine 'minhop' is not implemented yet");
	return -ENOSYS;
}

const struct ucast_engine ucast_minhop = { .name = "minhop", .route = minhop_route };
