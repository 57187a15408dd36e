/* SMStateChunk (SA attribute 0xFF3A, vendor range, docs/design.md §4.6):
 * one 160-byte piece of an ibsmd master's multicast state file, with the
 * file's generation and length, so that a standby can copy it (daemon/
 * sm_repl.c).  168 bytes: what ibsim's shim delivers of a MAD's data. */
#ifndef IBSM_SA_SMSTATE_H
#define IBSM_SA_SMSTATE_H

#include "mad/sa_wire.h"

#define SA_ATTR_SMSTATE_CHUNK 0xFF3A
#define SA_SMSTATE_CHUNK_BYTES 160

struct sa_smstate_chunk {
	uint32_t generation; /* FNV-1a of the whole file */
	uint32_t length;     /* of the whole file, bytes */
	uint8_t data[SA_SMSTATE_CHUNK_BYTES]; /* from index * 160 */
};

extern const struct sa_rec_desc sa_smstate_chunk_desc;

#endif
