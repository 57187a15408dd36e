/* Helpers shared by the baseline multicast engines (MINIHOP-MC, SSSP-MC,
 * FULB-MC): root choice as OpenSM makes it or with root rotation, chain
 * materialisation from a parent map, and coloring without merging. */
#ifndef IBSM_MCAST_BASELINE_H
#define IBSM_MCAST_BASELINE_H

#include "routing/mcast/mcast.h"

/* Root of g among the switches with the least worst-case hop count to its
 * members (the same set as mc_optimal_roots, computed here in one
 * vectorised pass without sorting): with rotate, the least loaded (sw_load,
 * then index, as mc_optimal_roots orders them); without, the one with the
 * lowest node GUID, the first one OpenSM's mcast_mgr_find_optimal_switch
 * meets in its GUID-ordered switch table.  MC_NONE (and an error logged) if
 * members are unreachable from every switch. */
uint32_t mcb_pick_root(struct mc_ctx *c, const struct mc_group *g, bool rotate,
		       const char *engine);

/* Adds the chain from switch sw up to the first switch already in t,
 * following parent[] / up_port[] (child's port) and down[] (parent's port),
 * parents before children.  chain is scratch of n_sw entries. */
int mcb_add_chain(struct mc_tree *t, uint32_t sw, const uint32_t *parent,
		  const uint8_t *up_port, const uint8_t *down, uint32_t *chain);

/* Colors the built tree t with the first color free on all its switches and
 * commits it with g.  Baselines do not merge: when no color is free, t is
 * dropped and -ENOSPC returned after logging why. */
int mcb_color_commit(struct mc_ctx *c, struct mc_tree *t, struct mc_group *g,
		     const char *engine);

/* MGID in inet_ntop form, for log messages. */
const char *mcb_mgid_str(const struct mc_group *g, char *buf, size_t len);

/* Engine-private buffers (c->engine_priv), shared init/fini of the three
 * baselines. */
struct mcb_priv {
	uint32_t *msw; /* member switches, grown as needed */
	uint32_t cap_msw;
	uint32_t *chain; /* [n_sw] chain scratch */
	uint32_t *path;	 /* [n_sw] path scratch (MINIHOP top-down) */
	uint8_t *down;	 /* [n_sw] parent's port towards the switch */
	uint8_t *worst;	 /* [n_sw] worst-case hops to the members */
};

int mcb_init(struct mc_ctx *c);
void mcb_fini(struct mc_ctx *c);

#endif
