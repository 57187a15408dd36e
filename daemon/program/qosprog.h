/* QoS programming (docs/design.md §5.2): the SL2VL tables of every port
 * (CA ports, and every input/output port pair of a switch) and the
 * VLArbitration tables of every linked port, from the qos.* policy
 * (lib/qos.h) and each port's OperationalVLs and VLArb capacities.  Per
 * node GUID the daemon keeps what it last wrote, so a sweep or a reload
 * sends only the blocks that differ; a port found in INIT (reset, or its
 * link came up) is taken to hold unknown tables again.  OperationalVLs
 * and VLHighLimit travel in the port setup's PortInfo Set
 * (qosprog_portinfo). */
#ifndef IBSMD_QOSPROG_H
#define IBSMD_QOSPROG_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/program/program.h"
#include "mad/smp_port.h"

/* portsetup.c: sets pi's OperationalVLs (and, with qos.enable, its
 * VLHighLimit) to what port pn of dn should run; true when that changed
 * pi. */
bool qosprog_portinfo(const struct prog_pass *s, const struct dnode *dn, uint8_t pn,
		      struct smp_port_info *pi);

#endif
