/* The cabling order of the hosts (docs/design.md §5): every CA or router
 * port with a LID linked to a switch, sorted by that switch's node GUID,
 * then by the switch port.  It is the order a job launcher should place ranks
 * in: the ftree engine routes shift permutations over it without congestion,
 * the shift metric (routing/verify) walks it, and ftree-ca-order.dump lists it
 * (lib/dump.h). */
#ifndef IBSM_CA_ORDER_H
#define IBSM_CA_ORDER_H

#include <stdint.h>

#include "lib/fabric.h"

struct ca_slot {
	struct ib_port *port; /* the CA or router port */
	struct ib_node *sw;   /* the switch it is cabled to */
	uint8_t sw_port;      /* that switch's port */
};

/* *out (malloc'd, free()) gets the *n host ports in cabling order.
 * 0 or -ENOMEM. */
int ca_order(const struct fabric *f, struct ca_slot **out, uint32_t *n);

#endif
