/* LinkRecord (SA attribute 0x0020, IBA 15.2.5.13): one direction of a
 * link between two ports, 6 bytes (8 with padding). */
#ifndef IBSM_SA_LINK_H
#define IBSM_SA_LINK_H

#include "mad/sa_wire.h"

enum {
	SA_LR_FROM_LID = 0,
	SA_LR_FROM_PORT = 1,
	SA_LR_TO_PORT = 2,
	SA_LR_TO_LID = 3
};

struct sa_link_rec {
	uint16_t from_lid;
	uint8_t from_port, to_port;
	uint16_t to_lid;
};

extern const struct sa_rec_desc sa_link_rec_desc;

#endif
