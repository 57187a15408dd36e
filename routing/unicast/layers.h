/* The result of the layered engine that outlives routing: its layers.
 * Layer L is an up/down orientation of the switch-to-switch links (a
 * label per switch, "up" towards the lower label).  A path may travel in
 * layer L when it never turns from a down link to an up link there; its
 * SL, and its VL on every link, is the lowest such layer.  Every path in
 * one layer is then up* then down* in one orientation, so the
 * dependency graph of each VL is acyclic (docs/design.md §5.3).
 *
 * Nothing per pair is stored: the SL of (source switch, DLID) follows
 * from the LFT path and one 16-bit mask per switch port, so the SA can
 * compute it while it walks a PathRecord's path, and repaired LFTs need
 * no other table. */
#ifndef IBSM_LAYERS_H
#define IBSM_LAYERS_H

#include <stdint.h>

#include "lib/fabric.h"

#define LAYERS_MAX 15 /* data VLs an IB port can run */

struct ucast_layers {
	uint32_t n_switches;
	uint8_t n_layers; /* orientations made, 1..LAYERS_MAX */
	uint8_t used;	  /* highest SL some CA pair uses, plus one */
	/* (switch index s, port p) -> port_base[s] + p; [n_switches + 1] */
	uint32_t *port_base;
	/* bit L: leaving switch s by port p climbs in layer L (the peer has
	 * the lower label); 0 for ports without a switch behind them */
	uint16_t *up;
	/* the index of the switch behind (s, p), UINT32_MAX for none */
	uint32_t *peer;
	/* [n_layers * n_switches]: the label of switch s in layer L */
	uint32_t *order;
	/* [n_layers]: the root each orientation's BFS started from (layer
	 * 0: its first root) */
	struct ib_node **roots;
	/* CA-to-CA pairs (base LIDs) per SL, and destinations whose tree
	 * is layer 0's up/down tree because no mixed tree reached every
	 * switch (layered_tree.c) */
	uint64_t pairs[LAYERS_MAX];
	uint32_t fallback_trees;
	/* destination LIDs with some source switch that no layer legalises
	 * (0 unless the fabric changed under the layers) */
	uint32_t illegal_lids;
	/* a repair's layers oriented afresh (layered_keep.c), bit per layer */
	uint16_t reoriented;
};

/* The SL walk: start at the source switch, one step per switch-to-switch
 * hop (the switch left and its out port), then the SL. */
struct layers_walk {
	uint16_t up;   /* layers where the path has only climbed */
	uint16_t down; /* layers where it has turned down and kept down */
};

static inline void layers_walk_start(const struct ucast_layers *ly,
				     struct layers_walk *w)
{
	w->up = (uint16_t)((1u << ly->n_layers) - 1);
	w->down = 0;
}

static inline void layers_walk_hop(const struct ucast_layers *ly,
				   struct layers_walk *w, uint32_t sw_idx,
				   uint8_t port)
{
	uint16_t u = ly->up[ly->port_base[sw_idx] + port];

	w->down = (uint16_t)((w->up | w->down) & ~u);
	w->up &= u;
}

/* The SL (lowest legal layer), or -1 when no layer is legal. */
static inline int layers_walk_sl(const struct layers_walk *w)
{
	uint16_t m = w->up | w->down;

	return m ? __builtin_ctz(m) : -1;
}

/* The SL the SA answers for a path whose lowest legal layer is l (-1:
 * none, kept): 1 + l when the routes use more than one layer (SL0 and
 * VL0 are multicast's then), else 0. */
static inline int layers_answer_sl(const struct ucast_layers *ly, int l)
{
	return l < 0 ? l : ly->used > 1 ? l + 1 : 0;
}

/* The SL of the LFT path from switch src_sw (an index) to dlid: -1 when
 * no layer is legal, -2 when the LFTs do not deliver dlid. */
int layers_path_sl(const struct ucast_layers *ly, const struct fabric *f,
		   uint32_t src_sw, uint16_t dlid);

/* The same for every source switch at once, reading each switch's LFT
 * entry for dlid: sl[switch index] as above.  0 or -ENOMEM.  For dumps
 * (path-sl.dump) and checks. */
int layers_lid_sls(const struct ucast_layers *ly, const struct fabric *f,
		   uint16_t dlid, int8_t *sl);

void layers_free(struct ucast_layers *ly);

/* Data VLs every linked port of f can run by its VLCap (1, 2, 4, 8 or
 * 15), 0 when no port tells (a topology file): the layered engine's
 * default number of layers. */
unsigned layers_vlcap(const struct fabric *f);

#endif
