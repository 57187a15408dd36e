/* The layered engine's internals, shared by layered_orient.c (the layers'
 * orientations), layered_tree.c (one forwarding tree per destination LID)
 * and layered.c (the engine).  Exposed so unit tests can drive each step. */
#ifndef IBSM_LAYERED_H
#define IBSM_LAYERED_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/unicast/layers.h"
#include "routing/unicast/unicast.h"

/* Allocates ly for f's switches with n_layers orientations (labels and up
 * masks still empty).  0 or -ENOMEM. */
int layers_alloc(struct ucast_layers *ly, const struct fabric *f,
		 unsigned n_layers);

/* The tie-break between switches of one BFS rank in layer l (a hash of
 * the GUID and l): layered_orient.c orders by it, layered_cover.c
 * predicts that order without sorting. */
static inline uint64_t lay_tie(uint64_t guid, uint32_t l)
{
	uint64_t z = guid ^ (l * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Makes every orientation of ly: layer 0 from the updown engine's roots
 * (routing.updown.roots, else its automatic choice: res->roots), each
 * further layer from one more root (layered_orient.c), then the up
 * masks.  0, or negative errno with res->error set. */
int layers_orient(struct ucast_layers *ly, const struct fabric *f,
		  const struct sw_graph *g, const struct hops *h,
		  struct pool *pool, const struct ucast_params *prm,
		  struct ucast_result *res);

/* The coverage of sampled host pairs by the layers' shortest legal paths
 * (layered_cover.c), for choosing each further layer's root. */
struct layers_cover;
int layers_cover_init(struct layers_cover **c, const struct fabric *f,
		      const struct sw_graph *g, const struct hops *h);
void layers_cover_free(struct layers_cover *c);
/* Marks the pairs layer l of root r, or the layer of labels order[],
 * gives a shortest legal path. */
void layers_cover_mark_order(struct layers_cover *c, const uint32_t *order);
void layers_cover_mark(struct layers_cover *c, uint32_t r, uint32_t l);
/* The candidate root whose layer l covers the most pairs not yet
 * covered (ties: the farthest from the roots so far by mind[]), -1 when
 * none covers one more. */
int64_t layers_cover_pick(struct layers_cover *c, uint32_t l,
			  const uint8_t *mind);

/* The trees (layered_tree.c grows them, layered_balance.c rebalances
 * them, layered_repair.c mends a tree that did not reach every switch). */
#define LAY_D_INF     0xFFFFu
#define LAY_NO_REQ    UINT32_MAX /* no source behind a switch yet */
#define LAY_LID_BLOCK 64

/* A switch graph link: the CA-to-CA routes over it (fewer than 2^32:
 * (port, LID) pairs), the switch it leads to, and the layers in which it
 * climbs; 8 bytes, so a 12,000-switch torus's links and trees stay in a
 * core's 1 MB cache (its port is g->port[k], needed only for the LFT). */
struct lay_edge {
	uint32_t load;
	uint16_t peer; /* the engine routes at most 65,535 switches */
	uint16_t up;
};

/* A switch in one destination's tree (what a step looks at together). */
struct lay_node {
	uint32_t pcost; /* load of the path to the destination (saturating) */
	uint32_t nk;	/* the link to the next hop, a switch graph index */
	uint16_t dist;	/* path length, LAY_D_INF: not in the tree */
	uint16_t legal; /* layers where the path is legal */
	uint16_t down;	/* layers where it only descends */
};

struct lay_trees {
	struct fabric *f;
	const struct sw_graph *g;
	const struct hops *h;
	struct ucast_layers *ly;
	uint16_t all; /* every layer */
	/* per switch graph link k (g->start[x] <= k < g->start[x + 1]),
	 * what a step reads of it together */
	struct lay_edge *e;
	uint32_t *kof; /* by ly->port_base[x] + p: the link, or UINT32_MAX */
	/* one tree, indexed by switch */
	const uint8_t *row; /* the hop table's distances to the destination */
	uint32_t *att;	    /* the tree's switches, parents first */
	uint32_t n_att;
	bool by_dist; /* att[] is also in order of distance */
	struct lay_node *nd;
	uint32_t *snk; /* the scaffold's next hops (the grown tree's) */
	/* growing (layered_grow.c) */
	uint32_t *bfs;	/* switches by hops from the destination */
	uint32_t *pend; /* switches that could not join yet */
	/* balancing (layered_balance.c) */
	uint32_t *far;	  /* tree switches farthest first */
	uint32_t *bucket; /* counting sort */
	/* set to LAY_NO_REQ and the hosts by whatever fills att[] */
	uint32_t *req; /* what the sources behind need, (U << 16 | D) */
	uint32_t *cnt; /* CA sources behind the switch */
	/* repair (layered_repair.c): the escape tree */
	uint16_t *ddown;  /* down-only distance in the escape layer */
	uint16_t *fdist;  /* escape path length */
	uint32_t *fnk;	  /* escape next hop (link) */
	uint8_t *forced;  /* must descend */
	uint8_t *escaped; /* on an escape path */
	uint32_t *lorder; /* switches by label in the escape layer */
	uint32_t *kids;	  /* [n + 1] + [n]: children lists */
	/* a tree routed before, being taken off (layered_tree.c) */
	uint32_t *ok;	   /* its links */
	uint16_t *odepth;  /* its path lengths */
	uint32_t n_old;	   /* its switches but the destination, in far[] */
	uint8_t *shortest; /* per destination switch: its trees' paths are all
			    shortest (depths = the hop table's) */
	/* a repair's mended tree: switches balancing may move (NULL: all) */
	uint8_t *mov;
	/* the LFT columns of a batch of LIDs (layered_tree.c) */
	uint8_t *col;
	uint16_t *col_lid;
	uint32_t n_col, col_cap;
};

/* The next switch on x's path, and the port of x towards it. */
static inline uint32_t lay_parent(const struct lay_trees *t, uint32_t x)
{
	return t->e[t->nd[x].nk].peer;
}

static inline uint8_t lay_port(const struct lay_trees *t, uint32_t x)
{
	return t->g->port[t->nd[x].nk];
}

/* a + b, saturating (path loads) */
static inline uint32_t lay_sum(uint32_t a, uint32_t b)
{
	return a + b < a ? UINT32_MAX : a + b;
}

/* Grows the tree of destination switch d (layered_grow.c): att[],
 * dist[], legal[], down[], nxt[], pcost[].  Returns how many switches
 * the hop table reaches could not join (listed in pend[]). */
uint32_t lay_grow(struct lay_trees *t, uint32_t d);
/* The same for a tree whose switches with dist < LAY_D_INF are kept
 * (nd[] and att[] filled for them, parents first): the others join,
 * nearest first, through their old next hop in col (the LFT column) if
 * it is one hop closer and legal, else as lay_grow joins them. */
uint32_t lay_regrow(struct lay_trees *t, uint32_t d, const uint8_t *col);
/* Gives the stuck switches listed in pend[0, stuck) (and what they make
 * illegal) their escape paths to d (layered_repair.c); fills att[]
 * parents first, dist[], legal[], down[]. */
void lay_repair(struct lay_trees *t, uint32_t d, uint32_t stuck);
/* Lists the tree switches parents first into att[] (from nxt[]). */
void lay_tree_order(struct lay_trees *t, uint32_t d);
/* Re-chooses every switch's next hop farthest first with the exact
 * number of sources behind it, keeping every source's path legal in
 * some layer; adds the loads when weigh is set. */
void lay_balance(struct lay_trees *t, uint32_t d, bool weigh);

/* Routes every destination LID of f: fills every switch's LFT (LIDs
 * 0..max_lid) and ly's counters.  0 or -ENOMEM. */
int layers_route(struct fabric *f, const struct sw_graph *g,
		 const struct hops *h, struct ucast_layers *ly);

/* The layers' labels and roots by GUID as the state of a routing
 * (layered_keep.c), and the layers of an edited copy of that fabric made
 * from them: 0, -ENOMEM, or -ESRCH when they cannot be kept (a new
 * switch, a root lost).  A layer in which some switch can no longer
 * climb is oriented afresh from its root (bit l of ly->reoriented): the
 * kept trees must then be checked legal again (layers_route_keep). */
int layers_save(const struct ucast_layers *ly, const struct fabric *f,
		const struct sw_graph *g, struct ucast_state **out);
int layers_restore(struct ucast_layers *ly, const struct fabric *f,
		   const struct sw_graph *g, const struct hops *h,
		   const struct ucast_state *prev);
/* Layer l's labels afresh: BFS rank from switch r (an index) in h, ties
 * by the layer's hash (as layers_orient makes layers 1 and up). */
int layers_orient_one(struct ucast_layers *ly, const struct fabric *f,
		      const struct sw_graph *g, const struct hops *h,
		      uint32_t l, uint32_t r);
/* Each layer's up masks from its labels, over g's links. */
void layers_fill_up(struct ucast_layers *ly, const struct sw_graph *g);

/* The repair after a failure (f's LFTs hold the routes in force, ly the
 * layers they were made in, up masks of f's links): every LID whose tree
 * lost a link is routed afresh against the loads of all the others, and
 * each new tree checked legal in a layer from every switch; the other
 * LIDs keep their trees, and so their SLs.  *rerouted: LIDs routed.  0,
 * -ENOMEM, or -EDEADLK when a new tree has a switch with no legal layer
 * (the caller routes the fabric afresh). */
int layers_route_keep(struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct ucast_layers *ly,
		      uint32_t *rerouted);

/* The SL of every source switch for one destination LID (layered_sl.c):
 * col[x] is switch x's LFT entry for lid; sl[x] becomes the SL of the
 * path from x, -1 when no layer is legal, -2 when lid is not delivered
 * from x.  Each switch is stepped once. */
struct layers_sl_scratch {
	uint8_t *state;
	uint16_t *legal, *down;
	uint32_t *stack;
};
int layers_sl_scratch_init(struct layers_sl_scratch *s, uint32_t n);
void layers_sl_scratch_free(struct layers_sl_scratch *s);
void layers_lid_sl(const struct ucast_layers *ly, const struct fabric *f,
		   uint16_t lid, const uint8_t *col,
		   struct layers_sl_scratch *s, int8_t *sl);

#endif
