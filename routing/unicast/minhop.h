/* The minhop engine's LFT filler, apart from the engine ops (ucast.h), for
 * callers that time or test routing without the verification walk. */
#ifndef IBSM_MINHOP_H
#define IBSM_MINHOP_H

#include <stddef.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

/* Fills every switch's LFT (LIDs 0..f->max_lid) with min-hop ports, least
 * loaded first (see minhop.c).  0, or negative errno with err set. */
int minhop_fill_lfts(struct fabric *f, const struct hops *h, struct pool *pool,
		     char *err, size_t errlen);

#endif
