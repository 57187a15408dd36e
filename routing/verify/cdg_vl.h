/* Channel-dependency check over virtual lanes (docs/design.md §5.2): one
 * vertex per (directed switch-to-switch link, VL), an edge from (a->b, v)
 * to (b->c, w) when some LFT route to a LID crosses b from a to c and a
 * packet of some SL travels a->b on VL v and b->c on VL w, the VLs read
 * from the SL2VL tables the caller gives.  Deadlock needs a cycle of
 * buffers, so a fabric whose routes and SL2VL tables give an acyclic
 * graph here cannot deadlock, whatever SLs its paths use. */
#ifndef IBSM_CDG_VL_H
#define IBSM_CDG_VL_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"

/* The VL switch sw sends SL sl on out port out, for a packet that came
 * in on port in (0..15). */
typedef uint8_t (*cdg_sl2vl_fn)(void *ctx, const struct ib_node *sw, uint8_t in,
				uint8_t out, uint8_t sl);

/* 1 acyclic, 0 a cycle (why names a link and VL on or behind it),
 * -ENOMEM.  The VL a packet has on a link is taken over every input port
 * packets to that LID enter the switch by (sources and upstream
 * switches). */
int cdg_check_vl(const struct fabric *f, cdg_sl2vl_fn fn, void *ctx, char *why,
		 size_t whylen);

#endif
