/* The SA MAD: common MAD header, RMPP header and SA header (SM_Key,
 * AttributeOffset, ComponentMask), constants for methods, attributes and
 * status codes.  Layout per IBA 13.4 / 15.2.1 (umad_sa.h struct
 * umad_sa_packet). */
#ifndef IBSM_SA_MAD_H
#define IBSM_SA_MAD_H

#include <stddef.h>
#include <stdint.h>

#include "mad/smp.h"

#define SA_MAD_SIZE  256
#define SA_HDR_SIZE  56 /* MAD 24 + RMPP 12 + SA 20 */
#define SA_DATA_SIZE (SA_MAD_SIZE - SA_HDR_SIZE)

#define SA_MGMT_CLASS	 0x03
#define SA_CLASS_VERSION 2
#define MAD_BASE_VERSION 1

enum sa_method {
	SA_METHOD_GET = 0x01,
	SA_METHOD_SET = 0x02,
	SA_METHOD_GET_RESP = 0x81,
	SA_METHOD_REPORT = 0x06,
	SA_METHOD_REPORT_RESP = 0x86,
	SA_METHOD_GET_TABLE = 0x12,
	SA_METHOD_GET_TABLE_RESP = 0x92,
	SA_METHOD_GET_TRACE_TABLE = 0x13,
	SA_METHOD_GET_MULTI = 0x14,
	SA_METHOD_GET_MULTI_RESP = 0x94,
	SA_METHOD_DELETE = 0x15,
	SA_METHOD_DELETE_RESP = 0x95,
};
#define SA_METHOD_RESP_BIT 0x80

enum sa_attr {
	SA_ATTR_CLASS_PORT_INFO = 0x0001,
	SA_ATTR_NOTICE = 0x0002,
	SA_ATTR_INFORM_INFO = 0x0003,
	SA_ATTR_NODE_REC = 0x0011,
	SA_ATTR_PORTINFO_REC = 0x0012,
	SA_ATTR_SWITCHINFO_REC = 0x0014,
	SA_ATTR_LFT_REC = 0x0015,
	SA_ATTR_MFT_REC = 0x0017,
	SA_ATTR_SMINFO_REC = 0x0018,
	SA_ATTR_SL2VL_REC = 0x0013,
	SA_ATTR_LINK_REC = 0x0020,
	SA_ATTR_GUIDINFO_REC = 0x0030,
	SA_ATTR_SERVICE_REC = 0x0031,
	SA_ATTR_PKEY_TABLE_REC = 0x0033,
	SA_ATTR_PATH_REC = 0x0035,
	SA_ATTR_VLARB_REC = 0x0036,
	SA_ATTR_MCMEMBER_REC = 0x0038,
	SA_ATTR_MULTIPATH_REC = 0x003A,
	SA_ATTR_MCGSTATE_REC = 0xFF38, /* docs/design.md §4.2, vendor range */
};

/* MAD status (IBA 13.4.7): the common codes (bits 0..4, MAD_STATUS_*)
 * are mad/smp.h's; bits 8..15 carry the SA codes. */
enum sa_status {
	SA_STATUS_SUCCESS = 0,
	SA_STATUS_NO_RESOURCES = 1,
	SA_STATUS_REQ_INVALID = 2,
	SA_STATUS_NO_RECORDS = 3,
	SA_STATUS_TOO_MANY_RECORDS = 4,
	SA_STATUS_INVALID_GID = 5,
	SA_STATUS_INSUF_COMPS = 6,
	SA_STATUS_REQ_DENIED = 7,
};
/* The SA status code sits in the high byte of the MAD status. */
#define SA_MAD_STATUS(code) ((uint16_t)((code) << 8))

/* RMPP (IBA 13.6.2) */
enum {
	RMPP_TYPE_DATA = 1,
	RMPP_TYPE_ACK = 2,
	RMPP_TYPE_STOP = 3,
	RMPP_TYPE_ABORT = 4
};
enum { RMPP_FLAG_ACTIVE = 1, RMPP_FLAG_FIRST = 2, RMPP_FLAG_LAST = 4 };

/* Selectors of PathRecord / MCMemberRecord rate, MTU and packet life. */
enum sa_selector {
	SA_SEL_GT = 0,
	SA_SEL_LT = 1,
	SA_SEL_EQ = 2,
	SA_SEL_BEST = 3
};

struct sa_hdr {
	uint8_t base_version, mgmt_class, class_version, method;
	uint16_t status, class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	/* RMPP */
	uint8_t rmpp_version, rmpp_type, rmpp_flags, rmpp_status;
	uint32_t rmpp_data1, rmpp_data2; /* segment number, payload length */
	/* SA */
	uint64_t sm_key;
	uint16_t attr_offset; /* record stride in units of 8 bytes */
	uint64_t comp_mask;
};

/* Decodes the 56-byte header; -EMSGSIZE if len < SA_HDR_SIZE. */
int sa_hdr_decode(struct sa_hdr *h, const uint8_t *buf, size_t len);
/* Encodes the header into buf (>= SA_HDR_SIZE bytes). */
void sa_hdr_encode(const struct sa_hdr *h, uint8_t *buf);

const char *sa_attr_name(uint16_t attr_id);
const char *sa_method_name(uint8_t method);

#endif
