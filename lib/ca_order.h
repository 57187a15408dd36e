/* The cabling order of the hosts (docs/design.md §6): every CA or router
 * port with a LID linked to a switch, sorted by that switch's node GUID,
 * then by the switch port: the order of the hosts along the cables, in
 * which a job launcher places ranks.  The shift-permutation metric
 * (routing/verify/verify_shift.c) walks it. */
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
