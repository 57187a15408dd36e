/* The multicast core shared by every multicast engine: groups (MGID and
 * member CA ports), trees over switches with their per-switch port masks,
 * colors (one MFT entry, MLID = 0xC000 + color, per tree; trees that share
 * no switch may share a color), per-link EFI counters, per-switch color
 * occupancy, and the engine ops.  Pure computation, no I/O.
 *
 * Files: mcast_core.c (context, registry, groups, MFT view), mcast_tree.c
 * (tree storage, colors, commit), mcast_build.c (bottom-up build, root
 * candidates), mcast_gcolor.c (searches in G_color, Dijkstra of Algorithm
 * 5), mcast_merge.c and mcast_attach.c (virtual groups: merge and extend),
 * mcast_member.c / mcast_delete.c (member changes, deletion with pruning),
 * mcast_verify.c, mcast_metrics.c.  Engines: mr4lms*.c (MR4LMS, readings
 * of the paper in mr4lms.c), mcast_minhop.c, mcast_sssp.c, mcast_fulb.c
 * (baselines, mcbase helper).
 *
 * Ownership: the core keeps all bookkeeping; an engine's route() picks a
 * root, builds a tree with the helpers below and commits it (or attaches
 * the group to an existing tree).  Removal and member changes are generic.
 *
 * Use by the daemon (docs/design.md §4.1, §4.2): a collective group is routed once with
 * mcast_group_add() when its N-th member joined; a standard group is
 * created by its first join (mcast_group_add with one member), grows by
 * mcast_member_add() (its color, hence MLID, never changes) and shrinks by
 * mcast_member_remove(); mcast_group_remove() deletes.  Programming reads
 * mcast_mft_foreach()/mcast_mft_get() per switch.  A context is bound to
 * one fabric topology: after a topology change, create a new one and
 * re-add the groups.  Not thread-safe: one thread (the event loop) calls
 * it; it uses the pool internally.
 *
 * Memory at 12,000 switches: per-switch busy bitsets (mft_size bits each)
 * plus, per color in use, a switch -> tree array (4 bytes a switch). */
#ifndef IBSM_MCAST_H
#define IBSM_MCAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"

#define MC_NONE UINT32_MAX
#define MC_MAX_COLORS 16384	/* MLIDs 0xC000..0xFFFF */
#define MC_MASK_WORDS 4		/* 256-bit port mask */
#define MC_LINK_WEIGHT_BASE (1u << 20) /* Dijkstra: hops first, then EFI */

enum mc_merge { MC_MERGE_EXTEND = 0, MC_MERGE_REBUILD = 1 };

/* Creation parameters (multicast.* configuration keys). */
struct mc_params {
	unsigned mft_size;	   /* colors available; 0 = unlimited (count) */
	enum mc_merge merge;	   /* merged group's tree: extend old / rebuild */
	unsigned switch_threshold; /* MR4LMS FCTB->FBTC after N successes (20) */
	unsigned pessimistic_trees; /* merge: use the pessimistic shortcut when
				     * more trees than this exist (0 = auto) */
	bool root_rotation;	   /* minhop/sssp: least-loaded optimal root */
};

/* One switch of a tree.  The masks give the MFT entry of the tree's color
 * on that switch: the port towards the parent, the ports towards children,
 * the ports towards member CAs. */
struct mc_tnode {
	uint32_t sw;	   /* fabric.switches index */
	uint32_t parent;   /* index in tree->nodes, MC_NONE for the root */
	uint8_t up_port;   /* port of sw towards the parent, 0 for the root */
	uint8_t depth;	   /* switch hops from the root */
	uint16_t n_children;
	uint64_t mask[MC_MASK_WORDS];	 /* full MFT port mask */
	uint64_t members[MC_MASK_WORDS]; /* subset: ports to member CAs */
};

struct mc_tree {
	uint32_t id;	 /* dense, index in ctx->trees */
	uint32_t color;	 /* MC_NONE while being built */
	uint32_t root;	 /* switch index */
	uint8_t height;	 /* hops root switch -> farthest member CA */
	struct mc_tnode *nodes; /* nodes[0] is the root */
	uint32_t n_nodes, cap_nodes;
	uint32_t *slot;	 /* open addressing sw -> node index + 1 (0 empty) */
	uint32_t slot_cap; /* power of two */
	uint32_t *groups; /* group ids using this tree; TFI = n_groups */
	uint32_t n_groups, cap_groups;
	uint32_t mark;	 /* == ctx->mark_gen: part of the current vMcg */
	uint32_t *msw;	 /* cache: switches with member ports (mc_tree_msw) */
	uint32_t n_msw, cap_msw;
	bool msw_valid;	 /* cleared by every change of member ports */
	bool live;
	/* cache of mc_tree_load: valid while no switch of the tree had its
	 * link loads changed after load_clock reached lstamp (0: none) */
	uint32_t lstamp, lmax, lports;
	uint64_t lsum;
};

struct mc_group {
	uint32_t id;	 /* dense, index in ctx->groups */
	uint8_t mgid[16];
	struct ib_port **members; /* CA ports, each linked to a switch */
	uint32_t n_members, cap_members;
	uint32_t tree;	 /* MC_NONE until routed */
	bool live;
	bool merged;	 /* ever shared a tree with another group */
};

/* Switch adjacency, precomputed: neighbours across switch-switch links. */
struct mc_adj {
	uint32_t *off;	  /* [n_switches + 1] into peer/port */
	uint32_t *peer;	  /* neighbour switch index */
	uint8_t *port;	  /* local port towards it */
	uint8_t *rport;	  /* the neighbour's port back */
};

/* Per-worker scratch of n_switches-sized arrays, stamped to avoid clears. */
struct mc_scratch {
	uint32_t *stamp, gen;
	uint32_t *parent;  /* switch index of the parent, MC_NONE root */
	uint8_t *up_port;
	uint32_t *dist;
	uint32_t *queue;
	uint64_t *key;	   /* heap keys (Dijkstra) */
	uint32_t *heap, *hpos;
	uint8_t *bytes;	   /* row scratch (max/min hop rows) */
	uint8_t *dport;	   /* parent's port towards the switch */
	uint8_t *worst;	   /* worst-case distance rows */
};

struct mc_stats {
	uint32_t groups, trees, colors_used, merged_groups;
	uint32_t max_efi;
	double avg_efi;	   /* over links with EFI > 0 */
	uint32_t max_tfi;
	double avg_tfi;	   /* over trees */
	uint32_t max_height_excess;
	double seconds;	   /* routing time of add/remove/member calls */
	double ms_per_group; /* seconds / groups routed by add, in ms */
	double median_ms;  /* median time of one group add */
	/* engine counters */
	uint64_t fbtc_ok, fbtc_fail, fctb_ok, fctb_fail, merges, pessimistic;
	uint64_t absorbs;	/* merges that pulled in the trees on a temporary tree */
	uint64_t shares;	/* groups put early on a tree of the same switches */
	uint64_t extends;	/* merges that extended a neighbouring tree */
};

struct mc_ctx;

/* Engine ops.  route() routes a group that has members and no tree: on
 * success the group is attached to a committed tree with a color.  It
 * returns -ENOSPC when no color fits and the engine cannot merge. */
struct mc_engine {
	const char *name;
	int (*init)(struct mc_ctx *c);	/* may set c->engine_priv */
	void (*fini)(struct mc_ctx *c);
	int (*route)(struct mc_ctx *c, struct mc_group *g);
};

struct mc_ctx {
	struct fabric *f;
	const struct hops *h;
	struct pool *pool;
	struct mc_params prm;
	const struct mc_engine *eng;
	void *engine_priv;
	uint32_t n_sw;
	struct mc_adj adj;
	uint32_t *port_base;	/* [n_sw]: first slot of switch s in efi[] */
	uint32_t *efi;		/* per switch port (out direction); a tree
				 * link counts n_groups on both of its ends */
	uint32_t *sw_load;	/* per switch: groups whose tree holds it */
	uint32_t *sw_clock;	/* per switch: load_clock of its last EFI change */
	uint32_t load_clock;	/* bumped by every mc_tree_account */
	uint32_t efi_high;	/* highest EFI any port has reached */
	/* colors */
	uint32_t color_limit;	/* mft_size, or MC_MAX_COLORS when unlimited */
	uint32_t color_hint;	/* tried first by the next routing, if it
				   fits (mcast_color_hint); MC_NONE: none */
	uint32_t cwords;	/* u64 words per switch in busy[] */
	uint64_t *busy;		/* [n_sw * cwords]: colors taken on a switch */
	uint32_t **owner;	/* [color][sw] tree id or MC_NONE; lazily made */
	uint32_t *color_trees;	/* [color]: trees holding the color */
	uint32_t *color_groups; /* [color]: groups on those trees */
	uint32_t owner_cap;	/* colors with an owner slot allocated */
	uint64_t *sw_changed;	/* [n_sw bits]: switches whose MFT entries
				   may have changed (mcast_sw_changed) */
	/* objects */
	struct mc_group *groups;
	uint32_t n_groups, cap_groups, live_groups;
	struct mc_tree *trees;
	uint32_t n_trees, cap_trees, live_trees;
	uint32_t *free_groups, n_free_groups;
	uint32_t *free_trees, n_free_trees;
	/* scratch: one per pool worker, [0] used by the calling thread */
	struct mc_scratch *scr;
	unsigned n_scr;
	uint32_t mark_gen;	/* tree marks, see mc_tree.mark */
	uint32_t *node_stamp;	/* [f->n_nodes]: member dedupe (mcast_merge.c) */
	struct ib_port **node_seen;
	uint32_t node_gen;
	double seconds;		/* time spent in add/remove/member calls */
	uint64_t routed;	/* groups routed by add */
	float *add_ms;		/* [routed]: time of each add, for the median */
	uint64_t cap_add_ms;
	struct mc_stats st;	/* engine counters (others via mcast_stats) */
	uint32_t *forecast;	/* [n_sw] trees still to come through the
				 * switch (mcast_forecast), or NULL */
	uint32_t forecast_peak;	/* max EFI of the forecast's routing */
	uint32_t *fc_width;	/* [n_sw * MC_FC_WIDTHS]: of those trees, how
				 * many per width class (mc_width_class) */
};

/* Width classes of a tree (its number of switches): exact below 4, then
 * four per doubling, so trees differing by a few switches in a hundred
 * fall in one class. */
#define MC_FC_WIDTHS 64
static inline uint32_t mc_width_class(uint32_t n)
{
	uint32_t hi, b;

	if (n < 4)
		return n;
	hi = 31 - (uint32_t)__builtin_clz(n);
	b = 4 * (hi - 1) + ((n >> (hi - 2)) & 3);
	return b < MC_FC_WIDTHS ? b : MC_FC_WIDTHS - 1;
}

/* ---- public API (daemon, ibsmroute, tests) ---- */

/* The baseline engines (OpenSM's choices and FULB-MC) MR4LMS is
 * measured against (routing/mr4lms is the default); routing/engines.h
 * finds every engine by name. */
extern const struct mc_engine mcast_engine_fulb;
extern const struct mc_engine mcast_engine_minhop;
extern const struct mc_engine mcast_engine_sssp;

/* Creates a context over a fabric whose switches and links do not change
 * while it lives (a sweep that changes them rebuilds the context and
 * re-adds the groups), routed by eng (root_rotation: the -rr variants, ORed
 * into prm's).  pool may be NULL.  0 or -errno.  mcast_create()
 * (routing/engines.h) takes the engine by name. */
int mcast_create_with(struct mc_ctx **out, struct fabric *f,
		      const struct hops *h, struct pool *pool,
		      const struct mc_engine *eng, bool root_rotation,
		      const struct mc_params *prm);
void mcast_destroy(struct mc_ctx *c);
void mcast_params_default(struct mc_params *prm);

/* Creates and routes a group.  Members are CA ports linked to a switch;
 * duplicates are ignored.  *gid gets the dense group id.  The caller keeps
 * MGIDs unique (mcast_group_find is a linear search, not done here).
 * 0, -EINVAL (no member / unlinked port), -ENOSPC (no color and the engine
 * does not merge), -ENOMEM. */
int mcast_group_add(struct mc_ctx *c, const uint8_t mgid[16],
		    struct ib_port *const *members, uint32_t n, uint32_t *gid);
/* The color the next mcast_group_add tries before any other, when a new
 * tree can take it (the daemon: the MLID a group had before its tree was
 * lost, so its members' MLID stays); MC_NONE: none.  It is not a
 * constraint: a merge, or a color that does not fit, goes as usual. */
void mcast_color_hint(struct mc_ctx *c, uint32_t color);
/* Forecast of the trees still to come (offline planner): one tree on the
 * switches sw[0..n) is expected (delta > 0) or no longer (delta < 0; the
 * counts are floored at 0), |delta| times; each switch counts its trees
 * in all and by width class (n, mc_width_class).  The planner announces
 * every group's tree of an unlimited trial routing before it starts and
 * takes each back once the group is routed; MR4LMS then shares trees
 * early on the switches where more trees are coming than colors are left
 * and no much wider trees could spare them (mr4lms_share.c).  Without
 * one (the daemon) MR4LMS takes the groups on a switch so far as the
 * estimate of those to come.  0, -EINVAL, -ENOMEM. */
int mcast_forecast(struct mc_ctx *c, const uint32_t *sw, uint32_t n,
		   int delta);
/* The max EFI the forecast's routing reached: early sharing may load a
 * link up to it (mr4lms_share.c). */
void mcast_forecast_peak(struct mc_ctx *c, uint32_t max_efi);
/* Deletes a group: prunes its tree (Algorithm 6 of the MR4LMS paper), frees
 * the tree's colors when no group is left on it. */
int mcast_group_remove(struct mc_ctx *c, uint32_t gid);
/* Standard groups: adds one member, extending the group's tree inside its
 * own color; a tree of that color met on the way is merged in.  The MLID
 * never changes.  -ENOSPC when no path exists in the color's subgraph. */
int mcast_member_add(struct mc_ctx *c, uint32_t gid, struct ib_port *m);
/* Removes one member and prunes; the last member removes the group. */
int mcast_member_remove(struct mc_ctx *c, uint32_t gid, struct ib_port *m);

const struct mc_group *mcast_group_get(const struct mc_ctx *c, uint32_t gid);
/* Group id by MGID, MC_NONE if unknown. */
uint32_t mcast_group_find(const struct mc_ctx *c, const uint8_t mgid[16]);
const struct mc_tree *mcast_group_tree(const struct mc_ctx *c, uint32_t gid);
/* 0xC000 + color, 0 if the group is not routed. */
uint16_t mcast_group_mlid(const struct mc_ctx *c, uint32_t gid);

/* MFT entry of switch sw for color (mask zero if none).  true if set. */
bool mcast_mft_get(const struct mc_ctx *c, uint32_t sw, uint32_t color,
		   uint64_t mask[MC_MASK_WORDS]);
/* Colors set on switch sw, in increasing order, via cb. */
void mcast_mft_foreach(const struct mc_ctx *c, uint32_t sw,
		       void (*cb)(void *arg, uint32_t color,
				  const uint64_t mask[MC_MASK_WORDS]),
		       void *arg);
/* Highest color in use + 1 (the MFT size the switches must hold). */
uint32_t mcast_colors_top(const struct mc_ctx *c);
/* Whether switch sw's MFT entries may have changed since the last call
 * for it (true for every switch of a new context), and forgets it: a
 * programmer compares only the switches a change touched.  Every change
 * of a switch's entries goes through mc_tree_paint (who owns a color
 * there) or mc_tree_account (a live tree's links, for the EFI), which
 * mark it. */
bool mcast_sw_changed(struct mc_ctx *c, uint32_t sw);

/* Metrics of docs/design.md §6 (height excess recomputed here). */
void mcast_stats(struct mc_ctx *c, struct mc_stats *st);
/* Height excess of tree tid alone. */
uint32_t mcast_tree_excess(struct mc_ctx *c, uint32_t tid);

/* Verification from the per-switch MFT entries only (mcast_verify.c):
 * every group's members reach each other exactly once, loop-free, the
 * claimed heights hold, colors < mft_size.  0, or -EPROTO with a message
 * in err. */
int mcast_verify(const struct mc_ctx *c, char *err, size_t errlen);
/* The same, flooding from every member of every group (small fabrics). */
int mcast_verify_thorough(const struct mc_ctx *c, char *err, size_t errlen);

/* ---- helpers for engines (mcast_tree.c, mcast_color.c, mcast_build.c) ---- */

static inline bool mc_mask_test(const uint64_t *m, unsigned p)
{
	return (m[p >> 6] >> (p & 63)) & 1;
}
static inline void mc_mask_set(uint64_t *m, unsigned p)
{
	m[p >> 6] |= 1ull << (p & 63);
}
static inline void mc_mask_clear(uint64_t *m, unsigned p)
{
	m[p >> 6] &= ~(1ull << (p & 63));
}

/* Switch index of a member CA port (its linked switch), MC_NONE if none. */
static inline uint32_t mc_member_sw(const struct ib_port *m)
{
	const struct ib_port *r = m->remote;
	return r && r->node->type == IB_NODE_SWITCH ? (uint32_t)r->node->sw_idx
						     : MC_NONE;
}
static inline uint8_t mc_hops(const struct mc_ctx *c, uint32_t a, uint32_t b)
{
	return c->h->d[(size_t)a * c->n_sw + b];
}
static inline bool mc_color_busy(const struct mc_ctx *c, uint32_t sw,
				 uint32_t color)
{
	return (c->busy[(size_t)sw * c->cwords + (color >> 6)] >> (color & 63)) & 1;
}
static inline uint32_t mc_color_owner(const struct mc_ctx *c, uint32_t sw,
				      uint32_t color)
{
	return color < c->owner_cap && c->owner[color] ? c->owner[color][sw]
						       : MC_NONE;
}

/* Distinct member switches of a member list into out (caller sized n). */
uint32_t mc_member_switches(const struct mc_ctx *c, struct ib_port *const *m,
			    uint32_t n, uint32_t *out);
/* Worst-case switch hops from every switch to the member switches into
 * worst[n_sw] (HOPS_INF if any unreachable); returns the minimum. */
uint8_t mc_worst_hops(struct mc_ctx *c, const uint32_t *msw, uint32_t nm,
		      uint8_t *worst);
/* acc[i] = max/min(acc[i], row[i]) for i < n (vectorised). */
void mc_row_max(uint8_t *restrict acc, const uint8_t *restrict row, uint32_t n);
void mc_row_min(uint8_t *restrict acc, const uint8_t *restrict row, uint32_t n);
/* Optimal roots (worst-case hops == minimum) into roots[], sorted by
 * sw_load then index; returns their count. */
uint32_t mc_optimal_roots(struct mc_ctx *c, const uint32_t *msw, uint32_t nm,
			  uint32_t *roots, uint8_t *best);

/* A tree under construction or committed. */
struct mc_tree *mc_tree_new(struct mc_ctx *c); /* live, no color, no node */
void mc_tree_free(struct mc_ctx *c, struct mc_tree *t); /* forget entirely */
/* Empties an uncommitted tree for another attempt. */
void mc_tree_reset(struct mc_tree *t);
/* Node of switch sw in t, or NULL. */
struct mc_tnode *mc_tree_node(const struct mc_tree *t, uint32_t sw);
/* Adds switch sw under parent node index (MC_NONE for the root) reached
 * through up_port of sw and down_port of the parent.  Returns the node
 * index or MC_NONE (ENOMEM). */
uint32_t mc_tree_add(struct mc_tree *t, uint32_t sw, uint32_t parent,
		     uint8_t up_port, uint8_t down_port);
/* Marks member port m on its switch's node (which must exist). */
int mc_tree_add_member(struct mc_tree *t, const struct ib_port *m);
/* The same on a live (committed, accounted) tree: only that port's EFI,
 * the tree's height and its switch's change mark move, where accounting
 * the whole tree again cost O(tree) a join (a group of every host, as the
 * IPoIB broadcast group, spans every switch). */
int mc_tree_add_member_live(struct mc_ctx *c, struct mc_tree *t,
			    const struct ib_port *m);
/* Appends member m to g unless already present: 1 added, 0 duplicate,
 * -ENOMEM. */
int mc_group_push_member(struct mc_group *g, struct ib_port *m);
/* The switches of t with member ports (cached until t's members change).
 * Safe in a parallel-for when each worker handles distinct trees.
 * Returns NULL on ENOMEM. */
const uint32_t *mc_tree_msw(struct mc_tree *t, uint32_t *n);
/* Recomputes depths and height from the parent links. */
void mc_tree_finish(struct mc_ctx *c, struct mc_tree *t);

/* Bottom-up build (FULB/MR4LMS Algorithm 2): from each member's switch
 * towards root along min-hop next hops, least EFI first, reusing the path
 * of a switch already visited; equally loaded next hops go by port order,
 * or with onward by the load of the link each goes on over (FULB's rule:
 * spreads trees over more paths, and so takes more colors).  Fills the
 * empty tree t.  0 or -errno. */
int mc_build_bottom_up(struct mc_ctx *c, uint32_t root,
		       struct ib_port *const *m, uint32_t n, bool onward,
		       struct mc_tree *t);
/* The same (onward), preferring on each step the next hops usable in
 * G_color (color, mark), then those whose tree of that color is smallest
 * (used for the temporary tree of a merge, so it pulls in few groups). */
int mc_build_bottom_up_in(struct mc_ctx *c, uint32_t root, uint32_t color,
			  uint32_t mark, struct ib_port *const *m, uint32_t n,
			  struct mc_tree *t);

/* Least EFI over v's links one hop nearer the root whose hop row is rrow
 * (the bottom-up builds' tie rule), 0 if v is the root. */
uint32_t mc_continue_efi(const struct mc_ctx *c, uint32_t v,
			 const uint8_t *rrow);

/* Adds to t the chain of scratch parent links (parent[], up_port[],
 * dport[]) from sw up to the first switch already in t.  chain is
 * n_sw-sized scratch.  0 or -ENOMEM. */
int mc_materialise(struct mc_scratch *s, struct mc_tree *t, uint32_t sw,
		   uint32_t *chain);

/* First color free on every switch of t (bounded by the color limit), or
 * MC_NONE. */
uint32_t mc_color_first_free(const struct mc_ctx *c, const struct mc_tree *t);
/* Gives t the color, registers it on its switches, attaches group g
 * (g->tree = t), adds EFI/loads.  The color must be free on t's switches. */
int mc_tree_commit(struct mc_ctx *c, struct mc_tree *t, uint32_t color,
		   struct mc_group *g);
/* Attaches g to the committed tree t (all of g's members must be on it). */
int mc_tree_attach(struct mc_ctx *c, struct mc_tree *t, struct mc_group *g);
/* Only pushes g on t's group list (caller redoes paint/account). */
int mc_tree_attach_quiet(struct mc_tree *t, struct mc_group *g);
/* Highest EFI on t's MFT ports (links and member ports) once one more
 * group uses them: what giving a group tree t (built, or shared) costs at
 * its most loaded link. */
uint32_t mc_tree_peak(const struct mc_ctx *c, const struct mc_tree *t);
/* Link loads of tree t's MFT ports (links and member ports): the highest
 * EFI, their sum and their count, cached in t until a switch of t has its
 * loads changed.  Safe in a parallel-for when each worker reads distinct
 * trees. */
void mc_tree_load(const struct mc_ctx *c, struct mc_tree *t, uint32_t *max,
		  uint64_t *sum, uint32_t *ports);
/* Adds (sign +1) or subtracts (-1) t's n_groups to EFI and loads. */
void mc_tree_account(struct mc_ctx *c, const struct mc_tree *t, int sign);
/* Registers (on = true) or clears t's color on its switches. */
int mc_tree_paint(struct mc_ctx *c, const struct mc_tree *t, bool on);

/* Takes g off its tree (pruning it, or freeing it and its color when no
 * group is left); g keeps its members and gets tree MC_NONE. */
int mc_group_detach(struct mc_ctx *c, struct mc_group *g);

/* ---- G_color (mcast_gcolor.c) ----
 * G_color relative to a (virtual) group: a switch is usable when the color
 * is free on it or held by a tree marked with mark (the trees the group
 * already owns or is merging; mark 0 = none).  Links between usable
 * switches are kept; a member attaches only to a usable switch.  This is
 * the paper's definition (§3.2, rules 1-3) read for a group that may own
 * trees of that color: its own trees count as free, so they can be joined
 * to new branches (needed for merging and for extending a standard
 * group). */
static inline bool mc_gc_usable(const struct mc_ctx *c, uint32_t color,
				uint32_t mark, uint32_t sw)
{
	uint32_t o = mc_color_owner(c, sw, color);
	return o == MC_NONE || (mark && c->trees[o].mark == mark);
}
/* true if every member switch is usable and all are connected. */
bool mc_gc_connected(struct mc_ctx *c, unsigned worker, uint32_t color,
		     uint32_t mark, const uint32_t *msw, uint32_t nm);
/* The first of the candidate roots cand[0..nc) within bound hops of every
 * member switch in G_color, or MC_NONE (tmp: nc entries of scratch).
 * Bounded BFSes run from the first member switch, and from the next ones
 * while more candidates are left than members, then from each candidate
 * left (mr4lms_fctb.c says why). */
uint32_t mc_gc_first_root(struct mc_ctx *c, unsigned worker, uint32_t color,
			  uint32_t mark, const uint32_t *msw, uint32_t nm,
			  uint8_t bound, const uint32_t *cand, uint32_t nc,
			  uint32_t *tmp);
/* Switch minimising the worst-case G_color distance to the member
 * switches (ties: least loaded, lowest index), MC_NONE if none reaches
 * them all. */
uint32_t mc_gc_best_root(struct mc_ctx *c, uint32_t color, uint32_t mark,
			 const uint32_t *msw, uint32_t nm);
/* Dijkstra from root inside G_color, link weight MC_LINK_WEIGHT_BASE + EFI
 * (shortest first, then least loaded), stopping once every member switch
 * is settled; with keep_old, the first switch of a marked tree reached
 * pulls in that whole tree along its own links (MR4LMS Algorithm 5).
 * Fills the empty tree t with the paths to the members.  0 or -errno
 * (-EHOSTUNREACH if a member is not reachable). */
int mc_gc_build(struct mc_ctx *c, unsigned worker, uint32_t color,
		uint32_t mark, bool keep_old, uint32_t root,
		struct ib_port *const *m, uint32_t n, struct mc_tree *t);

/* Extend build (mcast_attach.c): copies the biggest of the marked trees
 * trees[0..nt) into the empty tree t and joins the other trees whole and
 * the member ports m[0..nm) by shortest paths in G_color (color, mark).
 * 0, -EAGAIN when some piece cannot be joined that way, -errno. */
int mc_attach_build(struct mc_ctx *c, uint32_t color, uint32_t mark,
		    const uint32_t *trees, uint32_t nt,
		    struct ib_port *const *m, uint32_t nm, struct mc_tree *t);

/* Virtual groups (mcast_merge.c): routes the union of the groups on the
 * trees trees[0..nt) (all of one color) plus newg (may be NULL, must have
 * no tree) inside that color, merging in every other tree of the color
 * that a bottom-up tree of the union meets (MR4LMS Algorithm 4 steps 4-9),
 * then builds one tree (extend keeps the old trees' links, else they are
 * rebuilt; keep_root keeps the root of trees[0]) that replaces them all.
 * 0 or -errno. */
int mc_vmcg_route(struct mc_ctx *c, uint32_t color, const uint32_t *trees,
		  uint32_t nt, struct mc_group *newg, bool keep_root,
		  bool extend);

/* Binary min-heap over scratch s (heap[], hpos[], keyed by key[]):
 * restores the order after heap[i]'s key fell (up) or rose (down) in a
 * heap of n entries (mcast_gcolor.c). */
void mc_heap_up(struct mc_scratch *s, uint32_t i);
void mc_heap_down(struct mc_scratch *s, uint32_t i, uint32_t n);

/* Per-worker scratch: bumps the stamp generation and returns it. */
struct mc_scratch *mc_scratch_get(struct mc_ctx *c, unsigned worker);
static inline bool mc_seen(const struct mc_scratch *s, uint32_t i)
{
	return s->stamp[i] == s->gen;
}
static inline void mc_mark(struct mc_scratch *s, uint32_t i)
{
	s->stamp[i] = s->gen;
}

/* ---- dump formats shared by ibsmroute and ibsmd (mcast_dump.c,
 * docs/design.md §4.4): mfts.dump (OpenSM's opensm.mcfdbs, through
 * lib/dump.h) and the lines of mcgroups.dump ---- */

/* dir/mfts.dump from the context's per-switch MFT entries.  0 or -errno. */
int mcast_dump_mfts(const char *dir, const struct mc_ctx *c,
		    const struct fabric *f);
/* One mcgroups.dump line of routed group gid, with the given state name
 * (NULL: "Ready"); members are the group's engine members. */
void mcast_dump_group_line(FILE *fp, const struct mc_ctx *c,
			   const struct fabric *f, uint32_t gid,
			   const char *state);
/* dir/mcgroups.dump of every routed group, all "Ready" (ibsmroute).
 * Written to a temporary file and renamed.  0 or -errno. */
int mcast_dump_groups(const char *dir, const struct mc_ctx *c,
		      const struct fabric *f);
/* MGID in the usual IPv6 text form into s (>= 46 bytes). */
void mcast_mgid_str(const uint8_t mgid[16], char *s, size_t len);

#endif
