/* Multicast metrics of DESIGN §6 (placeholder). */
#include <string.h>

#include "routing/mcast.h"

void mcast_stats(struct mc_ctx *c, struct mc_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->groups = c->live_groups;
	st->trees = c->live_trees;
}
