/* Placeholder for the fulb multicast baseline engine (mcbase helper):
 * replace this file's content, keep the symbol mcast_engine_fulb. */
#include <errno.h>

#include "routing/mcast.h"

static int fulb_route(struct mc_ctx *c, struct mc_group *g)
{
	(void)c;
	(void)g;
	return -ENOSYS;
}

const struct mc_engine mcast_engine_fulb = {
	.name = "fulb",
	.route = fulb_route,
};
