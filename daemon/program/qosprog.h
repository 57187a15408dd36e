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

#include "daemon/core/sm.h"
#include "mad/smp_port.h"

struct sweep;
struct dnode;

/* sweep.c, CONFIGURE phase of a heavy sweep: learns every port's VLCap,
 * VLArb capacities and state from the discovery, then sends the blocks
 * that differ, holding the sweep per transfer.  0 or -errno. */
int qosprog_start(struct sweep *s);
/* portsetup.c: sets pi's OperationalVLs (and, with qos.enable, its
 * VLHighLimit) to what port pn of dn should run; true when that changed
 * pi. */
bool qosprog_portinfo(const struct sweep *s, const struct dnode *dn, uint8_t pn,
		      struct smp_port_info *pi);
/* sweep.c: subscribes to SM_EV_CONFIG_RELOADED and SM_EV_SWEEP_DONE (a
 * reload that changed only tables is applied without a sweep). */
int qosprog_init(struct sm *sm);
void qosprog_destroy(struct sm *sm);

#endif
