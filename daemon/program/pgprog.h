/* Port-group programming (docs/design.md §4.3): inside a heavy sweep's
 * CONFIGURE phase, after the LFT blocks, PortGroupInfo of every switch not
 * asked before (one try: a switch that answers with an error status or
 * not at all has no port groups, is logged once and never asked again),
 * then the groups computed from the new LFTs (routing/pgroup/pgroup.h), then per
 * switch the changed PortGroupTable blocks, the changed
 * PortGroupForwardingTable blocks and PortGroupInfo (Top, Enable,
 * Algorithm, Threshold), each through the windowed bulk transfer.
 * port-groups.dump goes to the state directory. */
#ifndef IBSMD_PGPROG_H
#define IBSMD_PGPROG_H

#include <stdbool.h>
#include <stdint.h>

#include "daemon/program/program.h"
#include "routing/pgroup/pgroup.h"
#include "routing/unicast/unicast.h"


/* The blocks to send, below the transport (pgblocks.c).  Tables are kept
 * per switch as masks indexed by group id (0..255) and the forwarding
 * table as fdb_cap ids.  old NULL = the switch's content is unknown.
 * Return the number of block numbers written to out, ascending. */
uint32_t pg_table_blocks(const struct pg_set *old, unsigned old_top,
			 const struct pg_set *new_g, unsigned new_top,
			 uint32_t *out);
uint32_t pg_ft_blocks(const uint8_t *old, uint32_t old_used,
		      const uint8_t *new_ft, uint32_t new_used, uint32_t *out);
/* PortGroupTable block b from masks[256]; ports past nports cleared. */
void pg_table_block_encode(const struct pg_set *masks, uint32_t b,
			   uint8_t data[64]);

#endif
