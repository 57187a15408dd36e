/* SMInfoRecord (SA attribute 0x0018, IBA 15.2.5.15): LID + SMInfo
 * (14.2.5.13), 25 bytes (32 with padding). */
#ifndef IBSM_SA_SMINFO_H
#define IBSM_SA_SMINFO_H

#include "mad/sa_wire.h"

enum {
	SA_SMIR_LID = 0,
	SA_SMIR_RESV0,
	SA_SMIR_GUID,
	SA_SMIR_SMKEY,
	SA_SMIR_ACTCOUNT,
	SA_SMIR_PRIORITY,
	SA_SMIR_STATE
};

/* SMInfo SMState values */
enum {
	SA_SM_NOT_ACTIVE = 0,
	SA_SM_DISCOVERING = 1,
	SA_SM_STANDBY = 2,
	SA_SM_MASTER = 3
};

struct sa_sminfo_rec {
	uint16_t lid;
	uint64_t guid, sm_key;
	uint32_t act_count;
	uint8_t priority, state;
};

extern const struct sa_rec_desc sa_sminfo_rec_desc;

#endif
