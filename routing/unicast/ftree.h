/* Fat-tree routing internals shared by ftree_tree.c (the tree: levels,
 * neighbour groups, the up-reach table), ftree_chain.c (every destination
 * LID's chain of switches), ftree_fill.c (the LFTs), ftree_keep.c (what a
 * repair keeps) and ftree.c (the engine); updown.c uses them on trees
 * whose roots are the top level.  docs/design.md §5 says why the tables
 * are congestion-free. */
#ifndef IBSM_FTREE_H
#define IBSM_FTREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"

#define FT_MAX_LEVELS 16
#define FT_NONE	      0xFF /* via: no monotone path */
#define FT_AMBIG      0xFE /* via: several up groups lead there */
#define FT_MAX_GROUPS 0xFD

/* The switches of a leveled tree: a leaf (level 0) is a switch with a
 * host; a switch's level is its hop distance to the nearest leaf; every
 * switch-to-switch link joins adjacent levels.  A switch's neighbour
 * switches are its groups (parallel links to one neighbour are one
 * group), up groups first, both halves in column order: by the column key
 * of the neighbour, then its GUID.  A top's key is its rank by GUID;
 * below, a switch's key is the least key of its up neighbours, so the
 * switches of one column in every pod (those cabled to the same upper
 * switches) sort alike whatever their GUIDs. */
struct ft_tree {
	uint32_t n;	 /* switches (fabric order) */
	uint8_t height;	 /* level of the tops */
	uint8_t *level;	 /* [n] */
	uint32_t *key;	 /* [n] column key */
	uint32_t *order; /* [n] switch indexes, tops first, then by level */
	uint32_t above[FT_MAX_LEVELS + 1]; /* switches above level l */
	uint32_t *gstart; /* [n + 1] groups of s: gstart[s] .. gstart[s + 1] */
	uint8_t *nup;	  /* [n] the first nup[s] of them go up */
	uint32_t *gpeer;  /* [groups] neighbour switch */
	uint32_t *pstart; /* [groups + 1] ports of group g */
	uint8_t *gport;	  /* [ports] */
	/* via[x * n + v], for v above x: the up group of x (its index among
	 * x's groups) that starts every up-only path from x to v, FT_AMBIG
	 * if several do, FT_NONE if none; for v a down neighbour of x: that
	 * group.  n * n bytes, like the hop table. */
	uint8_t *via;
};

/* Recognizes the tree.  0; -ENOTSUP with why set when the fabric is not a
 * leveled tree (then nothing is allocated); -ENOMEM. */
int ft_tree_build(const struct fabric *f, const struct hops *h,
		  struct pool *pool, struct ft_tree *t, char *why, size_t len);
void ft_tree_free(struct ft_tree *t);

static inline uint8_t ft_via(const struct ft_tree *t, uint32_t x, uint32_t v)
{
	return t->via[(size_t)x * t->n + v];
}

/* One destination: a CA or router LID. */
struct ft_dest {
	uint16_t lid, base; /* base: the first LID of its port's range */
	uint8_t off;	    /* lid - base */
	uint8_t port;	    /* the leaf's port to it */
	uint8_t len;	    /* chain elements v_0 .. v_{len-1} */
	uint8_t lmc;	    /* its port's LMC (a copy: hot in the fill) */
	bool moved;	    /* keep_lft: on a new chain */
	uint32_t leaf;	    /* v_0 */
	struct ib_port *owner;
};

/* The plan: every destination's chain v_0 (its leaf), v_1, ... up to a
 * top, each an up neighbour of the one before; v_i routes the LID down to
 * v_{i-1}, and every other switch climbs towards the chain (ftree_fill.c).
 * digit_i is v_i's index among v_{i-1}'s up groups. */
struct ft_plan {
	uint32_t n;	   /* destinations */
	struct ft_dest *d; /* by leaf (GUID order), then offset, then port */
	uint32_t *chain;   /* [n * stride] switch indexes */
	uint8_t *digit;	   /* [n * stride] */
	uint32_t stride;   /* height + 1 */
	uint32_t *lid2d;   /* [max_lid + 1] destination index, UINT32_MAX */
	uint32_t *leaves;  /* switches with destinations, by GUID */
	uint32_t *dstart;  /* [n_leaves + 1] destinations of leaves[i] */
	uint32_t n_leaves;
	uint32_t *sw_by_guid; /* every switch, by GUID */
	uint16_t *sw_lid;     /* their LIDs, in that order */
	uint8_t passes;	      /* 2^largest LMC */
};

/* Destinations, grouped by leaf in fill order (LID offset, then port).
 * 0 or -ENOMEM. */
int ft_plan_init(const struct fabric *f, const struct ft_tree *t,
		 struct ft_plan *p);
void ft_plan_free(struct ft_plan *p);

/* Chains for every destination not given one by ft_keep_chains(): LID
 * offset by offset, hosts in cabling order; each step takes the up group
 * whose link down has carried the fewest chains (then the neighbour with
 * the fewest, then column order rotated by the offset); the first step of
 * a LID at offset > 0 is its base LID's turned by the offset
 * (ucast_lmc_pick()).  0 or -ENOMEM. */
int ft_chains(const struct fabric *f, const struct ft_tree *t,
	      struct ft_plan *p, const bool *have);

/* Fills every switch's LFT.  keep: the LFTs hold the routes of the plan
 * before (an edited copy of the fabric): a destination still on its old
 * chain (not moved) keeps every entry still on a min-hop link; one on a
 * new chain takes the chain's links, and elsewhere keeps its entries
 * still on min-hop links; the other entries are routed afresh.  as_is: switch
 * LIDs, and host LIDs at switches their chain does not place, keep the entries
 * the tables hold (updown routed them with legal up*-then-down* paths).  0 or
 * -ENOMEM. */
int ft_fill(struct fabric *f, const struct hops *h, struct pool *pool,
	    const struct ft_tree *t, const struct ft_plan *p, bool keep,
	    bool as_is);

/* ftree_keep.c: the state handed to the next run (chains by GUID), and
 * from it the chains still whole on this fabric: have[d] set and d not
 * moved. */
int ft_state_save(const struct fabric *f, const struct ft_plan *p,
		  struct ucast_state **out);
int ft_keep_chains(const struct fabric *f, const struct ft_tree *t,
		   struct ft_plan *p, const struct ucast_state *prev,
		   bool *have);

/* The whole LFT computation on a recognized tree (plan, chains, fill,
 * state), for ftree and for updown on trees.  prev/keep as
 * ucast_params; as_is as ft_fill().  0 or -errno with res->error
 * set. */
int ft_route_tree(struct fabric *f, const struct hops *h, struct pool *pool,
		  const struct ft_tree *t, const struct ucast_params *prm,
		  bool as_is, struct ucast_result *res);

#endif
