/* Reading a switch's table blocks back (LFT or MFT Gets) before writing
 * them, so that an SM taking over a programmed subnet sends only the
 * blocks that differ from what the switch holds. */
#ifndef IBSMD_READBACK_H
#define IBSMD_READBACK_H

#include <stdbool.h>
#include <stdint.h>

#include "mad/smp.h"
#include "mad/txn.h"

/* data: n blocks of SMP_DATA_SIZE bytes as read, ok[i] false where block i
 * could not be read (write it).  Both are freed after done returns. */
typedef void (*readback_done_fn)(void *ctx, const uint8_t *data, const bool *ok,
				 uint32_t n);

/* One Get per attribute modifier mods[0..n) to the switch at the directed
 * route path/hops (copied); done runs from an engine event when every Get
 * has completed (also for n = 0).  0 or -ENOMEM/-EINVAL. */
int readback_start(struct txn_engine *eng, const uint8_t *path, uint8_t hops,
		   uint64_t dest, uint16_t attr, const uint32_t *mods,
		   uint32_t n, readback_done_fn done, void *ctx);

#endif
