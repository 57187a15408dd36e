/* Event subscriptions at the SA: InformInfo (SA attribute 0x0003, IBA
 * 13.4.8.3, 36 bytes; a SubnAdmSet subscribes or unsubscribes the
 * requester), InformInfoRecord (0x00F3, IBA 15.2.5.12, 60 bytes: the
 * subscriptions, for queries) and the Notice a SubnAdmReport carries
 * (0x0002, IBA 13.4.8.2, 80 bytes as a GMP: the SMP's 64 plus IssuerGID). */
#ifndef IBSM_SA_INFORM_H
#define IBSM_SA_INFORM_H

#include "mad/sa_wire.h"

#define SA_ATTR_INFORM_INFO_REC 0x00F3

/* Wildcards of InformInfo fields. */
#define SA_II_ALL16 0xFFFFu
#define SA_II_ALL24 0xFFFFFFu

/* The generic traps the SA reports (IBA 14.2.5.1, Table 125): type 4
 * (informational), producer 4 (class manager: the SM). */
enum {
	SA_TRAP_GID_IN = 64,	  /* a port's GID in service */
	SA_TRAP_GID_OUT = 65,	  /* out of service */
	SA_TRAP_MCG_CREATED = 66, /* a multicast group created */
	SA_TRAP_MCG_DELETED = 67, /* deleted */
	SA_TRAP_TYPE_INFO = 4,
	SA_TRAP_PRODUCER_SM = 4,
};

enum {
	SA_II_GID = 0,
	SA_II_LID_BEGIN,
	SA_II_LID_END,
	SA_II_RESV1,
	SA_II_IS_GENERIC,
	SA_II_SUBSCRIBE,
	SA_II_TYPE,
	SA_II_TRAP_NUM, /* or DeviceID when not generic */
	SA_II_QPN,
	SA_II_RESV2,
	SA_II_RESP_TIME,
	SA_II_RESV3,
	SA_II_PRODUCER, /* or VendorID */
	SA_II_NCOMPS
};

struct sa_inform_info {
	uint8_t gid[16];    /* one port's, or 0: the LID range */
	uint16_t lid_begin; /* 0xFFFF: every LID */
	uint16_t lid_end;
	uint8_t is_generic, subscribe;
	uint16_t type;	   /* 0xFFFF: any */
	uint16_t trap_num; /* 0xFFFF: any */
	uint32_t qpn;	   /* 24 bits: where reports go */
	uint8_t resp_time; /* 5 bits */
	uint32_t producer; /* 24 bits, 0xFFFFFF: any */
};

/* InformInfoRecord components: the record's own, then InformInfo's. */
enum {
	SA_IIR_SUBSCRIBER_GID = 0,
	SA_IIR_ENUM,
	SA_IIR_RESV,
	SA_IIR_INFO /* + SA_II_* */
};

struct sa_inform_rec {
	uint8_t subscriber_gid[16];
	uint16_t enumeration; /* tells apart one subscriber's subscriptions */
	struct sa_inform_info info;
};

struct sa_notice {
	uint8_t is_generic, type; /* 1 bit, 7 bits */
	uint32_t producer;	  /* 24 bits */
	uint16_t trap_num, issuer_lid;
	uint8_t notice_toggle; /* 1 bit */
	uint16_t notice_count; /* 15 bits */
	uint8_t details[54];   /* DataDetails */
	uint8_t issuer_gid[16];
};

extern const struct sa_rec_desc sa_inform_info_desc;
extern const struct sa_rec_desc sa_inform_rec_desc;
extern const struct sa_rec_desc sa_notice_desc;

#endif
