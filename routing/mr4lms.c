/* MR4LMS engine entry (placeholder until the algorithm lands): FBTC only. */
#include <errno.h>

#include "routing/mcast.h"

static int mr4lms_route(struct mc_ctx *c, struct mc_group *g)
{
	(void)c;
	(void)g;
	return -ENOSYS;
}

const struct mc_engine mcast_engine_mr4lms = {
	.name = "mr4lms",
	.route = mr4lms_route,
};
