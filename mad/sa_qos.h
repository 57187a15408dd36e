/* QoS table records: SLtoVLMappingTableRecord (SA attribute 0x0013, IBA
 * 15.2.5.4, 16 bytes) and VLArbitrationTableRecord (0x0036, 15.2.5.9, 72
 * bytes).  LID is a CA port's or a switch's port 0; InputPortNum and
 * OutputPortNum are a switch's (0 for a CA); BlockNum is the VLArb block
 * 1-4 of the SMP attribute modifier. */
#ifndef IBSM_SA_QOS_H
#define IBSM_SA_QOS_H

#include "mad/sa_wire.h"

enum { SA_SLVL_LID = 0, SA_SLVL_IN = 1, SA_SLVL_OUT = 2, SA_SLVL_RESV = 3 };
enum { SA_VLA_LID = 0, SA_VLA_OUT = 1, SA_VLA_BLOCK = 2, SA_VLA_RESV = 3 };

struct sa_sl2vl_rec {
	uint16_t lid;
	uint8_t in_port, out_port;
	uint64_t table; /* as in the SMP: SL 0 in the top nibble */
};

struct sa_vlarb_rec {
	uint16_t lid;
	uint8_t out_port, block;
	uint8_t table[64]; /* 32 {VL, Weight} entries as in the SMP */
};

extern const struct sa_rec_desc sa_sl2vl_rec_desc;
extern const struct sa_rec_desc sa_vlarb_rec_desc;

#endif
