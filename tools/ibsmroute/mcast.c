/* ibsmroute's multicast driver — placeholder until the multicast helper's
 * version lands: without --groups there is nothing to do; with --groups it
 * says plainly that multicast routing is not built, so no report pretends
 * to have routed groups. */
#include <errno.h>
#include <stdio.h>

#include "tools/ibsmroute/ibsmroute.h"

int ibsmroute_mcast(const struct ibsmroute_opts *o, struct fabric *f,
		    const struct hops *h, struct pool *pool, FILE *json)
{
	(void)f;
	(void)h;
	(void)pool;
	(void)json;
	if (!o->groups_file)
		return 0;
	fprintf(stderr, "ibsmroute: multicast routing is not built yet\n");
	return -ENOSYS;
}
