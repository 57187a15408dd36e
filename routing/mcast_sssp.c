/* Placeholder for the sssp multicast baseline engine (mcbase helper):
 * replace this file's content, keep the symbol mcast_engine_sssp. */
#include <errno.h>

#include "routing/mcast.h"

static int sssp_route(struct mc_ctx *c, struct mc_group *g)
{
	(void)c;
	(void)g;
	return -ENOSYS;
}

const struct mc_engine mcast_engine_sssp = {
	.name = "sssp",
	.route = sssp_route,
};
