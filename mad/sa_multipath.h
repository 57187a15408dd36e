/* MultiPathRecord (SA attribute 0x003A, IBA 15.2.5.20): the request of a
 * SubnAdmGetMulti, 24 bytes of path constraints followed by SGIDCount
 * source GIDs and DGIDCount destination GIDs; the answer is PathRecords
 * (attribute 0x0035) in a SubnAdmGetMultiResp. */
#ifndef IBSM_SA_MULTIPATH_H
#define IBSM_SA_MULTIPATH_H

#include "mad/sa_wire.h"

enum sa_mpr_comp {
	SA_MPR_RAW = 0,
	SA_MPR_RESV0,
	SA_MPR_FLOWLABEL,
	SA_MPR_HOPLIMIT,
	SA_MPR_TCLASS,
	SA_MPR_REVERSIBLE,
	SA_MPR_NUMBPATH,
	SA_MPR_PKEY,
	SA_MPR_QOS_CLASS,
	SA_MPR_SL,
	SA_MPR_MTU_SEL,
	SA_MPR_MTU,
	SA_MPR_RATE_SEL,
	SA_MPR_RATE,
	SA_MPR_LIFE_SEL,
	SA_MPR_LIFE,
	SA_MPR_SERVICEID_MSB,
	SA_MPR_INDEP_SEL,
	SA_MPR_RESV3,
	SA_MPR_SGID_COUNT,
	SA_MPR_DGID_COUNT,
	SA_MPR_SERVICEID_LSB,
	SA_MPR_NCOMPS
};

/* GIDs that fit one MAD after the 24-byte head (200 data bytes). */
#define SA_MPR_MAX_GIDS 11
#define SA_MPR_HEAD	24

struct sa_multipath_rec {
	uint8_t raw_traffic;
	uint32_t flow_label;
	uint8_t hop_limit, tclass, reversible, numb_path;
	uint16_t pkey, qos_class;
	uint8_t sl, mtu_sel, mtu, rate_sel, rate, life_sel, life;
	uint8_t service_id_msb; /* ServiceID bits 63..56 */
	uint8_t indep_sel;
	uint8_t sgid_count, dgid_count;
	uint64_t service_id_lsb; /* ServiceID bits 55..0 */
};

/* The head only: the GIDs follow at byte SA_MPR_HEAD, 16 bytes each. */
extern const struct sa_rec_desc sa_multipath_rec_desc;

#endif
