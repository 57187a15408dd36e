/* The fabric model: nodes, their ports, the links between ports, LIDs and
 * the GUID and LID maps.  Discovery fills it from SMPs, the topology parser
 * from a file; routing reads it and writes each switch's tables into it.
 * Nothing here does I/O. */
#ifndef IBSM_FABRIC_H
#define IBSM_FABRIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/speed.h"

enum ib_node_type { IB_NODE_CA = 1, IB_NODE_SWITCH = 2, IB_NODE_ROUTER = 3 };

/* IBA PortInfo PortState values. */
enum ib_port_state { IB_PORT_NOP = 0, IB_PORT_DOWN = 1, IB_PORT_INIT = 2,
		     IB_PORT_ARMED = 3, IB_PORT_ACTIVE = 4 };

#define IB_DESC_LEN 64
#define IB_LID_UCAST_END 0xBFFF /* highest unicast LID */
#define IB_LID_MCAST_START 0xC000
#define IB_MAX_DR_HOPS 63
#define LFT_NO_PORT 0xFF /* LFT entry meaning "drop" */

struct ib_node;

struct ib_port {
	struct ib_node *node;
	struct ib_port *remote; /* linked peer port, NULL if down/dangling */
	uint64_t guid;	/* port GUID; a switch's ports all report port 0's */
	uint16_t lid;	/* base LID; switch external ports carry port 0's */
	uint8_t num;	/* port number, 0 = switch management port */
	uint8_t lmc;
	uint8_t state;	/* enum ib_port_state */
	uint8_t phys_state;
	uint8_t width_active;	/* PortInfo LinkWidthActive (1,2,4,8,16) */
	uint8_t speed_active;	/* PortInfo LinkSpeedActive (1=SDR,2=DDR,4=QDR) */
	uint8_t speed_ext_active;  /* LinkSpeedExtActive (1,2,4,8: FDR..NDR) */
	uint8_t speed_ext2_active; /* LinkSpeedExtActive2 (1: XDR) */
	uint8_t speed_caps; /* IB_SPEED_CAP_* of this port's CapabilityMask(2);
			       a switch's external ports use port 0's */
	bool fdr10;	    /* FDR10 (Mellanox ExtendedPortInfo, or a topology
			       file's 4xFDR10) */
	uint8_t mtu_cap;	/* PortInfo MTUCap (1..5 = 256..4096) */
	uint8_t vl_cap;
	/* The link is up but held out of routing (the health policy,
	 * daemon/perf): remote is NULL, as for routing it is absent, while
	 * the sweep still brings the port ACTIVE and reads its counters. */
	bool held;
};

struct ib_node {
	uint64_t guid;
	uint64_t sysguid;
	uint32_t idx;	  /* position in fabric.nodes */
	int32_t sw_idx;	  /* position in fabric.switches, -1 if not a switch */
	uint8_t type;	  /* enum ib_node_type */
	uint8_t nports;	  /* NumPorts; ports[] has nports + 1 entries */
	uint16_t device_id;
	uint32_t vendor_id;
	char desc[IB_DESC_LEN + 1];
	struct ib_port *ports; /* [0..nports]; ports[0] only meaningful on switches */
	/* P_Key table sizes: NodeInfo PartitionCap (end ports); switches:
	 * SwitchInfo PartitionEnforcementCap (external ports) and its
	 * Inbound/OutboundEnforcementCap bits.  0 = unknown/none. */
	uint16_t pkey_cap;
	uint16_t pkey_enf_cap;
	uint8_t pkey_enf_in, pkey_enf_out;

	/* Switches only (SwitchInfo) */
	uint16_t lft_cap;   /* LinearFDBCap */
	uint16_t mft_cap;   /* MulticastFDBCap */
	uint16_t lft_top;   /* LinearFDBTop as last programmed */
	uint8_t *lft;	    /* [lft_size]: out port per LID, LFT_NO_PORT = none */
	uint32_t lft_size;

	/* Directed route from the SM port (discovery) */
	uint8_t dr_path[IB_MAX_DR_HOPS + 1];
	uint8_t dr_hops;

	bool seen; /* scratch flag for sweeps: answered in the current sweep */
};

struct guid_map {
	uint64_t *keys;
	struct ib_node **vals;
	uint32_t cap, used; /* open addressing, cap is a power of two */
};

struct fabric {
	struct ib_node **nodes;
	uint32_t n_nodes, cap_nodes;
	struct ib_node **switches;
	uint32_t n_switches, cap_switches;
	struct guid_map by_guid;     /* node GUID -> node */
	struct guid_map by_portguid; /* CA port GUID -> node (switch: port 0) */
	struct ib_port **by_lid;     /* [IB_LID_UCAST_END + 1] */
	uint16_t max_lid;	     /* highest LID in use */
	struct ib_node *sm_node;     /* node of the SM's own port */
	uint8_t sm_port;	     /* its port number (0 for a switch) */
};

void fabric_init(struct fabric *f);
void fabric_free(struct fabric *f);

/* Adds a node with nports ports (numbered 1..nports, plus 0).  Returns NULL
 * and sets errno (EEXIST for a duplicate GUID, ENOMEM) on failure. */
struct ib_node *fabric_add_node(struct fabric *f, enum ib_node_type type,
				uint64_t guid, uint8_t nports, const char *desc);
/* Removes a node, unlinking its ports; indexes of later nodes shift down. */
void fabric_remove_node(struct fabric *f, struct ib_node *n);

/* Links a.port_a with b.port_b (both directions); either end may already
 * be linked elsewhere, in which case the old link is dropped first. */
int fabric_link(struct fabric *f, struct ib_node *a, uint8_t port_a,
		struct ib_node *b, uint8_t port_b);
void fabric_unlink(struct ib_port *p);

struct ib_node *fabric_node_by_guid(const struct fabric *f, uint64_t guid);
/* CA/router port GUID or switch (port 0) GUID -> the port. */
struct ib_port *fabric_port_by_guid(const struct fabric *f, uint64_t pguid);
/* Sets a CA/router port GUID and indexes it (switch ports use the node GUID). */
int fabric_set_port_guid(struct fabric *f, struct ib_port *p, uint64_t pguid);
struct ib_port *fabric_port_by_lid(const struct fabric *f, uint16_t lid);
/* The switch that delivers lid and its port to it (0: the switch's own
 * LID); false when no switch does (no such LID, an unlinked CA port). */
bool fabric_lid_end(const struct fabric *f, uint16_t lid, uint32_t *sw_idx,
		    uint8_t *port);
/* First node whose NodeDescription equals desc, or NULL. */
struct ib_node *fabric_node_by_desc(const struct fabric *f, const char *desc);

/* Records lid (and lmc) on port p, and on all of a switch's ports when p
 * is a switch port 0; updates the LID map.  lid 0 clears. */
void fabric_set_lid(struct fabric *f, struct ib_port *p, uint16_t lid,
		    uint8_t lmc);

/* The port that owns the node's LID: port 0 for switches, else port pn. */
static inline struct ib_port *node_port(struct ib_node *n, uint8_t pn)
{
	return &n->ports[n->type == IB_NODE_SWITCH ? 0 : pn];
}
static inline bool node_is_switch(const struct ib_node *n)
{
	return n->type == IB_NODE_SWITCH;
}
/* The lane speed of port p's link (lib/speed.h), from the extended
 * fields its capabilities make valid (a switch's external ports have
 * those of its port 0), and FDR10 from either end. */
static inline uint8_t port_speed_caps(const struct ib_port *p)
{
	return p->node->type == IB_NODE_SWITCH ? p->node->ports[0].speed_caps
					       : p->speed_caps;
}
static inline enum ib_speed port_speed(const struct ib_port *p)
{
	enum ib_speed s =
	    ib_speed_decode(p->speed_active, p->speed_ext_active,
			    p->speed_ext2_active, port_speed_caps(p));

	/* FDR10 is a link's: one end that says so (the other may not be
	 * asked, docs/design.md §3.9) is enough */
	bool fdr10 = p->fdr10 || (p->remote && p->remote->fdr10);

	return fdr10 && s == IB_SPEED_QDR ? IB_SPEED_FDR10 : s;
}
/* Peer node across port pn, or NULL. */
static inline struct ib_node *port_peer_node(const struct ib_node *n,
					     uint8_t pn)
{
	struct ib_port *r = n->ports[pn].remote;
	return r ? r->node : NULL;
}

/* Allocates (or grows) the switch's LFT to hold LIDs 0..top, new entries
 * LFT_NO_PORT.  0 or -ENOMEM. */
int node_lft_reserve(struct ib_node *sw, uint16_t top);

/* fabric_copy.c: dst (uninitialised) becomes a deep copy of src: same
 * nodes in the same order, links, LIDs, LFTs, directed routes.  0 or
 * -ENOMEM (dst then empty). */
int fabric_copy(struct fabric *dst, const struct fabric *src);
/* Recomputes every node's directed route from the SM's node (shortest,
 * first port first); returns how many nodes it cannot reach. */
uint32_t fabric_dr_paths(struct fabric *f);

/* Number of host (CA/router) ports with a link. */
uint32_t fabric_count_hosts(const struct fabric *f);
/* Number of links (each counted once). */
uint32_t fabric_count_links(const struct fabric *f);

#endif
