/* Per-port table records: GUIDInfoRecord (0x0030, IBA 15.2.5.18) and
 * P_KeyTableRecord (0x0033, 15.2.5.11), both 72 bytes. */
#ifndef IBSM_SA_TABLES_H
#define IBSM_SA_TABLES_H

#include "mad/sa_wire.h"

enum {
	SA_GIR_LID = 0,
	SA_GIR_BLOCK = 1,
	SA_GIR_RESV1 = 2,
	SA_GIR_RESV2 = 3,
	SA_GIR_GID0 = 4 /* .. GID7 = 11 */
};
enum { SA_PKR_LID = 0, SA_PKR_BLOCK = 1, SA_PKR_PORT = 2 };

struct sa_guidinfo_rec {
	uint16_t lid;
	uint8_t block;
	uint64_t guid[8];
};

struct sa_pkey_rec {
	uint16_t lid, block;
	uint8_t port;
	uint16_t pkey[32];
};

extern const struct sa_rec_desc sa_guidinfo_rec_desc;
extern const struct sa_rec_desc sa_pkey_rec_desc;

#endif
