/* Partition membership of a fabric's end ports (CA and router ports,
 * switch port 0), from the configuration's partitions key: the plan the
 * daemon programs into P_Key tables and the SA answers by (docs/design.md
 * §1.2).  Pure computation over the model; nothing here does I/O.
 *
 * A P_Key entry is the 15-bit base with bit 15 set for a full member.  Two
 * ports share a partition when both hold its base and at least one of
 * them is a full member (limited members do not talk to each other). */
#ifndef IBSM_PKEYS_H
#define IBSM_PKEYS_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/config.h"
#include "lib/fabric.h"

#define PKEY_FULL_BIT  0x8000
#define PKEY_BASE_MASK 0x7FFF
#define PKEY_DEFAULT   0x7FFF /* the default partition's base */

static inline uint16_t pkey_base(uint16_t pkey)
{
	return pkey & PKEY_BASE_MASK;
}

struct pkey_plan {
	/* the model's nodes when the plan was made: a port of another model
	 * is in no partition (compared, never followed, so a plan outliving
	 * its model by a moment is harmless) */
	const struct ib_node **nodes;
	uint32_t n_nodes;
	uint32_t *node_slot; /* per node index: its port 0's slot */
	uint32_t *off;	     /* per slot + 1: keys of slot s are
			      * keys[off[s] .. off[s + 1]) */
	uint16_t *keys;	     /* per slot ascending by base */
	uint32_t n_slots;
	uint32_t unknown; /* member names or GUIDs that named no port */
	/* the partitions' own SLs (partitions[].sl other than auto) */
	struct pkey_sl {
		uint16_t pkey; /* base, without the membership bit */
		uint8_t sl;
	} * sls;
	uint32_t n_sls;
};

/* Builds the plan of f (every port's partitions) from parts (items of
 * struct cfg_partition).  Every end port is at least a limited member of
 * the default partition and the SM's port (f->sm_node/sm_port) a full
 * one.  Names that match no node are counted in pl->unknown and, with
 * log_unknown, logged (the first few).  0 or -ENOMEM. */
int pkey_plan_build(struct pkey_plan *pl, const struct fabric *f,
		    const struct cfg_table *parts, bool log_unknown);
void pkey_plan_free(struct pkey_plan *pl);

/* The SL partitions[].sl gives the partition of pkey (membership bit
 * ignored), or -1 when it gives none (auto, or no such partition). */
int pkey_plan_sl(const struct pkey_plan *pl, uint16_t pkey);

/* The entries of end port p (switch: port 0), ascending by base; *n = 0
 * for ports that hold none (switch external ports, ports not in f). */
const uint16_t *pkey_plan_port(const struct pkey_plan *pl,
			       const struct ib_port *p, uint32_t *n);
/* p's entry for base pkey_base(pkey) (with its membership bit), or 0. */
uint16_t pkey_plan_entry(const struct pkey_plan *pl, const struct ib_port *p,
			 uint16_t pkey);
/* Whether a and b share the partition of pkey (at least one full). */
bool pkey_plan_share_this(const struct pkey_plan *pl, const struct ib_port *a,
			  const struct ib_port *b, uint16_t pkey);
/* The lowest partition a and b share, as a's entry (with a's membership
 * bit, as a path from a carries it), or 0 when they share none. */
uint16_t pkey_plan_common(const struct pkey_plan *pl, const struct ib_port *a,
			  const struct ib_port *b);

/* Without a plan (pl NULL, e.g. the SA's unit tests) every port is a full
 * member of the default partition: these answer accordingly. */

#endif
