/* P_Key table programming, inside daemon/program (program.h has its
 * entry points; docs/design.md §1.2): the partition plan of a
 * model (lib/pkeys.h) written into the P_KeyTable of every end port (CA
 * and router ports, switch port 0) and, for enforcement, of every switch
 * external port that faces an end port (its peer's entries).  Only blocks
 * that differ from what the port holds are sent: what it holds is known
 * from the last write, or read once (a port new to this daemon, a restart,
 * a port found in INIT, a failed write).  Entries keep their index across
 * changes, so queue pairs bound to a P_Key index keep working.
 *
 * A heavy (or incremental) sweep runs a pass in its CONFIGURE phase; a
 * reload runs one over the current model with no sweep.  One pass runs at
 * a time; a later one waits for it.  The plan of the current model is
 * what the SA answers by (sa->pkeys). */
#ifndef IBSMD_PKEYPROG_H
#define IBSMD_PKEYPROG_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/program/program.h"
#include "lib/pkeys.h"
#include "mad/smp_port.h"

/* portsetup.c: PartitionEnforcementInbound/Outbound of port pn of n as
 * the IBA wants them on a switch external port facing an end port whose
 * entries fit the switch's PartitionEnforcementCap; false when pi already
 * has them. */
bool pkeyprog_port_enforce(struct sm *sm, const struct ib_node *n, uint8_t pn,
			   struct smp_port_info *pi);

/* Below the transport (pkeyblocks.c). */
#define PKEY_MAX_ENTRIES 1024 /* larger tables are programmed this far */
/* The table to write to a port of cap entries that holds cur (NULL:
 * nothing) and must hold want[0..n): an entry whose base cur already
 * holds keeps its index (its membership bit as want says), the default
 * partition goes to index 0 when that is free, the others to the lowest
 * free indexes; everything else is zero.  Returns how many entries of
 * want did not fit. */
uint32_t pkey_layout(const uint16_t *cur, uint32_t cap, const uint16_t *want,
		     uint32_t n, uint16_t *out);
/* Blocks (32 entries) of next that differ from cur (NULL: all of them);
 * block numbers to out (room for ceil(cap / 32)), returns how many. */
uint32_t pkey_changed_blocks(const uint16_t *cur, const uint16_t *next,
			     uint32_t cap, uint32_t *out);
/* Whether a switch external port pn enforces partitions: it faces an
 * end port, the switch has PartitionEnforcementCap, and the peer's
 * n_entries fit it.  in, out: the bits to set (the switch's
 * Inbound/OutboundEnforcementCap). */
bool pkey_enforced(const struct ib_node *sw, uint8_t pn, uint32_t n_entries,
		   uint8_t *in, uint8_t *out);

#endif
