/* PathRecord (SA attribute 0x0035, IBA 15.2.5.16), 64 bytes. */
#ifndef IBSM_SA_PATH_H
#define IBSM_SA_PATH_H

#include "mad/sa_wire.h"

enum sa_pr_comp {
	SA_PR_SERVICEID_MSB = 0,
	SA_PR_SERVICEID_LSB,
	SA_PR_DGID,
	SA_PR_SGID,
	SA_PR_DLID,
	SA_PR_SLID,
	SA_PR_RAW,
	SA_PR_RESV0,
	SA_PR_FLOWLABEL,
	SA_PR_HOPLIMIT,
	SA_PR_TCLASS,
	SA_PR_REVERSIBLE,
	SA_PR_NUMBPATH,
	SA_PR_PKEY,
	SA_PR_QOS_CLASS,
	SA_PR_SL,
	SA_PR_MTU_SEL,
	SA_PR_MTU,
	SA_PR_RATE_SEL,
	SA_PR_RATE,
	SA_PR_LIFE_SEL,
	SA_PR_LIFE,
	SA_PR_PREFERENCE,
	SA_PR_NCOMPS
};
#define SA_PR_CM(c) (1ull << (c))

struct sa_path_rec {
	uint64_t service_id;
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid;
	uint8_t raw_traffic;
	uint32_t flow_label;
	uint8_t hop_limit, tclass, reversible, numb_path;
	uint16_t pkey, qos_class;
	uint8_t sl, mtu_sel, mtu, rate_sel, rate, life_sel, life, preference;
};

extern const struct sa_rec_desc sa_path_rec_desc;

#endif
