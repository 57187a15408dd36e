/* The offline planner's routing order (mcast_order.c). */
#ifndef IBSMROUTE_MCAST_ORDER_H
#define IBSMROUTE_MCAST_ORDER_H

#include "tools/ibsmroute/mcast_events.h"

/* Reorders a file of creates only (no deletes) so that groups with the
 * same member switches take turns: the first of every such shape, then
 * the second, ...; file order within a shape.  0 or -ENOMEM. */
int mc_events_interleave(struct mc_events *e);

#endif
