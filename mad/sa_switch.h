/* Switch table records: SwitchInfoRecord (0x0014), LinearForwardingTable-
 * Record (0x0015) and MulticastForwardingTableRecord (0x0017), IBA
 * 15.2.5.4-15.2.5.8.  SwitchInfo (14.2.5.4) stays a 20-byte block: the SA
 * answers with it as the switch reported it. */
#ifndef IBSM_SA_SWITCH_H
#define IBSM_SA_SWITCH_H

#include "mad/sa_wire.h"

#define SA_SWITCHINFO_SIZE 20
enum { SA_SWIR_LID = 0, SA_SWIR_RESV1 = 1 };
enum { SA_LFTR_LID = 0, SA_LFTR_BLOCK = 1 };
enum {
	SA_MFTR_LID = 0,
	SA_MFTR_POSITION = 1,
	SA_MFTR_RESV1 = 2,
	SA_MFTR_BLOCK = 3,
	SA_MFTR_RESV2 = 4
};

struct sa_switchinfo_rec {
	uint16_t lid;
	uint8_t switch_info[SA_SWITCHINFO_SIZE];
};

struct sa_lft_rec {
	uint16_t lid, block;
	uint8_t lft[64];
};

struct sa_mft_rec {
	uint16_t lid;
	uint8_t position; /* 16-port slice: ports 16*position .. +15 */
	uint16_t block;	  /* 32-MLID block */
	uint8_t mft[64];  /* 32 big-endian port masks */
};

extern const struct sa_rec_desc sa_switchinfo_rec_desc;
extern const struct sa_rec_desc sa_lft_rec_desc;
extern const struct sa_rec_desc sa_mft_rec_desc;

#endif
