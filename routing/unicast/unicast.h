/* routing/unicast: the unicast routing engines behind one small ops
 * struct, chosen by name from the configuration (routing.unicast, through
 * routing/engines.h).  An engine fills every switch's LFT (node->lft, LIDs
 * 0..fabric.max_lid) from the fabric model and the hop tables; it does no
 * I/O. */
#ifndef IBSM_UNICAST_H
#define IBSM_UNICAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/verify/verify.h"

/* What an engine remembers of the routes it computed, for the next
 * keep_lft run on an edited copy of the same fabric (ftree: every
 * destination's chain, by GUID).  The engine that made it reads priv. */
struct ucast_state {
	const char *engine;
	void *priv;
	void (*free_priv)(void *priv);
};

void ucast_state_free(struct ucast_state *st);

struct ucast_params {
	/* routing.updown.* */
	const char *const *updown_roots; /* GUID strings or node names; NULL = auto */
	unsigned n_updown_roots;
	const char *updown_direction;	 /* "bfs" (default) or "dfs" */
	/* minhop: the fabric's LFTs hold the previous routes (a model edited
	 * after a failure); keep every entry whose port is still a min-hop
	 * port and route only the others, least loaded first, so a failure
	 * changes only the entries it must.  Other engines route afresh. */
	bool keep_lft;
	/* keep_lft: the state the run that made those LFTs returned (NULL:
	 * none).  ftree keeps the chains of the destinations it can and moves
	 * only the others. */
	const struct ucast_state *prev;
};

struct ucast_result {
	uint32_t unreachable_pairs; /* CA-to-CA pairs with no route */
	uint32_t max_hops;
	double avg_hops;
	uint32_t max_link_routes;
	int cdg_acyclic;	    /* 1 yes, 0 no, -1 not checked */
	/* updown: the roots chosen (node pointers into the fabric) */
	struct ib_node **roots;
	uint32_t n_roots;
	/* updown: per switch index, the link label order and BFS rank
	 * (rank NULL with dfs directions) the tables were built on; port
	 * groups take their candidate sets from them (routing/pgroup/pgroup.h) */
	uint32_t *updown_order, *updown_rank;
	char error[256];	    /* why route() failed, for the log */
	/* time route() spent filling the metrics above (LFT walk), which
	 * ibsmroute leaves out of its routing "seconds" */
	double verify_seconds;
	/* the routes follow the hosts' cabling order (ftree on a tree):
	 * ftree-ca-order.dump is worth writing (lib/dump.h) */
	bool ca_order;
	/* for the next keep_lft run (ucast_params.prev); may be NULL */
	struct ucast_state *state;
};

struct ucast_engine {
	const char *name;
	/* Fills the LFTs.  0, or negative errno with res->error set. */
	int (*route)(struct fabric *f, const struct hops *h, struct pool *pool,
		     const struct ucast_params *prm, struct ucast_result *res);
};

/* The engines; routing/engines.h finds them by name. */
extern const struct ucast_engine ucast_minhop;
extern const struct ucast_engine ucast_updown;
extern const struct ucast_engine ucast_ftree;

/* Frees what res holds, its state included (take res->state first to
 * keep it). */
void ucast_result_free(struct ucast_result *res);

/* The host LIDs switch sw delivers (CA and router ports cabled to it),
 * offset by offset in their LMC ranges, ports in order within an offset:
 * every port's base LID first, so base LIDs (what most traffic uses) fan
 * out over the links as without LMC.  Calls fn (may be NULL) for each;
 * returns how many. */
typedef void (*ucast_lid_fn)(void *ctx, struct ib_port *host, uint8_t port,
			     uint8_t off);
uint32_t ucast_host_lids(const struct ib_node *sw, ucast_lid_fn fn,
			 void *ctx);

/* Where the LID at offset off > 0 of an LMC range goes, among n
 * candidates (in a fixed order) of which its base LID took the one at
 * index base: the off-th after it, cyclically, skipping those taken(ctx,
 * i) says another LID of the range takes.  Every offset is then spread
 * over the candidates exactly as the base LIDs are, only turned, and the
 * LIDs of a port take different candidates wherever there are enough. */
unsigned ucast_lmc_pick(unsigned n, unsigned base, unsigned off,
			bool (*taken)(void *ctx, unsigned i), void *ctx);

/* The LFT walk after an engine filled the tables: metrics into res
 * (verify_seconds too) and a log line for unreachable pairs and credit
 * loops, naming the engine.  0 or -errno with res->error set. */
int ucast_verify(const struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 struct ucast_result *res);

/* Copies the metrics of an LFT walk (routing/verify) into res
 * (cdg_acyclic too). */
void ucast_result_from_check(const struct lft_check *c,
			     struct ucast_result *res);

/* The minhop engine's LFT filler, apart from the engine ops, for callers
 * that time or test routing without the verification walk: every
 * switch's LFT (LIDs 0..f->max_lid) with min-hop ports, least loaded
 * first (see minhop.c).  0, or negative errno with err set. */
int minhop_fill_lfts(struct fabric *f, const struct hops *h, struct pool *pool,
		     char *err, size_t errlen);

/* Switch graph in compressed form: the switch-to-switch links of switch s
 * are adj[start[s] .. start[s+1]), each with the local port and the peer's
 * switch index.  Host (CA/router) ports are counted in hosts[s]. */
struct sw_graph {
	uint32_t n;
	uint32_t *start;	/* [n + 1] */
	uint32_t *peer;		/* [start[n]] peer switch index */
	uint8_t *port;		/* [start[n]] local port number */
	uint32_t *hosts;	/* [n] linked CA/router ports */
};

int sw_graph_build(const struct fabric *f, struct sw_graph *g);
void sw_graph_free(struct sw_graph *g);

/* The candidate ports the updown engine's LFT fill chooses among, for
 * port groups: for each batch of destination switches [first, first + count) calls
 * fn with mask[(s * batch + b) * W ...] the legal shortest next-hop ports
 * of switch s towards switch first + b (W 64-bit words per mask, bit p =
 * port p; empty at the destination itself; batch >= count is the row
 * stride, switch-major as the LFT fill reads them).  Every path that
 * follows these sets is up* then down*.  0 or -ENOMEM. */
typedef void (*updown_cand_fn)(void *ctx, uint32_t first, uint32_t count,
			       const uint64_t *mask, uint32_t W,
			       uint32_t batch);
int updown_candidates(const struct fabric *f, const struct sw_graph *g,
		      struct pool *pool, const uint32_t *order,
		      const uint32_t *rank, updown_cand_fn fn, void *ctx);

#endif
