/* Placeholder for the minhop multicast baseline engine (mcbase helper):
 * replace this file's content, keep the symbol mcast_engine_minhop. */
#include <errno.h>

#include "routing/mcast.h"

static int minhop_route(struct mc_ctx *c, struct mc_group *g)
{
	(void)c;
	(void)g;
	return -ENOSYS;
}

const struct mc_engine mcast_engine_minhop = {
	.name = "minhop",
	.route = minhop_route,
};
