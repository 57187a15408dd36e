/* Discovery: a breadth-first walk over directed routes from the SM's port
 * that fills a fresh fabric model (lib/fabric.h) plus what the later sweep
 * phases need and the model does not hold: the raw PortInfo of every port
 * and SwitchInfo of every switch, as the nodes answered them, so that Sets
 * are built from what the node reported (ibsim takes LID, SM LID and LMC
 * from every PortInfo Set). */
#ifndef IBSMD_DISCOVER_H
#define IBSMD_DISCOVER_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "mad/smp.h"
#include "mad/txn.h"

/* Per-port data beside the model. */
struct dport {
	uint8_t pi[SMP_DATA_SIZE]; /* PortInfo as read */
	bool have_pi;
};

/* Per-node data beside the model, indexed like fabric.nodes. */
struct dnode {
	struct ib_node *node;
	struct dport *ports;	   /* [0..nports] */
	uint8_t si[SMP_DATA_SIZE]; /* SwitchInfo as read (switches) */
	bool have_si, have_desc;
	bool failed;		   /* stopped answering: left out */
	uint8_t port_state_change; /* SwitchInfo PortStateChange */
};

struct disc_stats {
	uint64_t gets;	       /* SMPs submitted */
	uint32_t failed_nodes; /* answered NodeInfo, then went silent */
	uint32_t silent_ports; /* LinkUp ports behind which nothing answered */
	int64_t usecs;
};

struct discovery;
typedef void (*disc_done_fn)(void *ctx, int status);

/* Told of every SMP answer discovery gets (the SA keeps NodeInfo,
 * PortInfo and SwitchInfo as read); n is NULL for NodeInfo. */
struct disc_observer {
	void (*smp)(void *ctx, const struct ib_node *n, const struct smp *smp,
		    const uint8_t *data);
	void *ctx;
};

/* Starts discovery into f (must be empty); done(ctx, status) runs from an
 * engine callback when every SMP has completed: 0, or -EHOSTUNREACH when
 * not even the SM's own node answered.  obs may be NULL.  0 or -ENOMEM. */
int disc_start(struct txn_engine *txn, struct fabric *f, disc_done_fn done,
	       void *ctx, const struct disc_observer *obs,
	       struct discovery **out);
/* Frees the discovery (its side data goes with it unless taken). */
void disc_free(struct discovery *d);
const struct disc_stats *disc_stats(const struct discovery *d);

/* The fewest Gets any directed-route discovery of f needs (for the SMP
 * efficiency figure): see the count in discover.c. */
uint64_t disc_min_gets(const struct fabric *f);

/* The side data of node n (NULL when n is not from this discovery). */
struct dnode *disc_node(struct discovery *d, const struct ib_node *n);

/* The directed route to port pn of n for Sets (a CA accepts a PortInfo Set
 * only through the port it concerns): a switch's own path; the SM node's
 * port from hops 0; any other CA port as its switch's path plus the port.
 * -ENOENT when there is no such route. */
int disc_port_path(const struct fabric *f, const struct ib_node *n, uint8_t pn,
		   uint8_t path[IB_MAX_DR_HOPS + 1], uint8_t *hops);

#endif
