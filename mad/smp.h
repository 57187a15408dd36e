/* The MAD common header and the SMP headers (LID-routed and directed
 * route) of IBA 13.4 / 14.2.1: constants, decoded forms, encode/decode.
 * Attribute payloads live in the smp_*.h codec files. */
#ifndef IBSM_MAD_SMP_H
#define IBSM_MAD_SMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAD_SIZE      256
#define MAD_HDR_SIZE  24
#define SMP_DATA_OFF  64
#define SMP_DATA_SIZE 64
#define SMP_PATH_SIZE 64
#define SMP_MAX_HOPS  63

enum mad_class {
	MAD_CLASS_SMI = 0x01, /* LID-routed SMP */
	MAD_CLASS_SA = 0x03,
	MAD_CLASS_SMI_DR = 0x81, /* directed-route SMP */
};

enum mad_method {
	MAD_METHOD_GET = 0x01,
	MAD_METHOD_SET = 0x02,
	MAD_METHOD_SEND = 0x03,
	MAD_METHOD_TRAP = 0x05,
	MAD_METHOD_REPORT = 0x06,
	MAD_METHOD_TRAP_REPRESS = 0x07,
	MAD_METHOD_GET_TABLE = 0x12,
	MAD_METHOD_DELETE = 0x15,
	MAD_METHOD_RESP = 0x80, /* bit set on every response method */
	MAD_METHOD_GET_RESP = 0x81,
	MAD_METHOD_REPORT_RESP = 0x86,
	MAD_METHOD_GET_TABLE_RESP = 0x92,
	MAD_METHOD_DELETE_RESP = 0x95,
};

/* MAD status (IBA 13.4.7): bits 4..2 are the invalid-field code. */
enum mad_status_bits {
	MAD_STATUS_BUSY = 0x0001,
	MAD_STATUS_REDIRECT = 0x0002,
	MAD_STATUS_BAD_VERSION = 0x0004,
	MAD_STATUS_METHOD_UNSUPP = 0x0008,
	MAD_STATUS_METHOD_ATTR_UNSUPP = 0x000C,
	MAD_STATUS_INVALID_FIELD = 0x001C,
	MAD_STATUS_FIELD_MASK = 0x001C,
};

enum smp_attr_id {
	SMP_ATTR_NOTICE = 0x0002,
	SMP_ATTR_NODE_DESC = 0x0010,
	SMP_ATTR_NODE_INFO = 0x0011,
	SMP_ATTR_SWITCH_INFO = 0x0012,
	SMP_ATTR_GUID_INFO = 0x0014,
	SMP_ATTR_PORT_INFO = 0x0015,
	SMP_ATTR_PKEY_TABLE = 0x0016,
	SMP_ATTR_SL2VL_TABLE = 0x0017,
	SMP_ATTR_VL_ARB_TABLE = 0x0018,
	SMP_ATTR_LFT = 0x0019,
	SMP_ATTR_RFT = 0x001A,
	SMP_ATTR_MFT = 0x001B,
	SMP_ATTR_SM_INFO = 0x0020,
	SMP_ATTR_PGROUP_INFO = 0xFF30, /* vendor range, docs/design.md §4.3 */
	SMP_ATTR_PGROUP_TABLE = 0xFF31,
	SMP_ATTR_PGROUP_FT = 0xFF32,
	SMP_ATTR_MLNX_EXT_PORT_INFO = 0xFF90, /* vendor: FDR10 (smp_port.h) */
};

/* The 24-byte common MAD header.  For DR SMPs the raw status word also
 * carries the D bit and class_specific the hop pointer/count; struct smp
 * splits those out. */
struct mad_hdr {
	uint8_t base_version; /* 1 */
	uint8_t mgmt_class;
	uint8_t class_version; /* 1 for SMPs, 2 for SA */
	uint8_t method;
	uint16_t status;
	uint16_t class_specific;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
};

/* 0 or -EOVERFLOW (len < MAD_HDR_SIZE). */
int mad_hdr_decode(struct mad_hdr *h, const uint8_t *buf, size_t len);
int mad_hdr_encode(const struct mad_hdr *h, uint8_t *buf, size_t len);

/* A decoded SMP, LID-routed or directed-route (hdr.mgmt_class says which). */
struct smp {
	struct mad_hdr hdr; /* hdr.status: raw word (DR: D bit included) */
	uint16_t status;    /* status without the DR D bit */
	bool direction;	    /* DR D bit: 1 = returning (response) path */
	uint8_t hop_ptr;    /* DR only */
	uint8_t hop_cnt;    /* DR only */
	uint64_t mkey;
	uint16_t dr_slid; /* DR only; 0xFFFF = permissive */
	uint16_t dr_dlid; /* DR only; 0xFFFF = permissive */
	uint8_t data[SMP_DATA_SIZE];
	uint8_t initial_path[SMP_PATH_SIZE]; /* DR only; [0] unused */
	uint8_t return_path[SMP_PATH_SIZE];  /* DR only; [0] unused */
};

static inline bool smp_is_dr(const struct smp *s)
{
	return s->hdr.mgmt_class == MAD_CLASS_SMI_DR;
}

/* Fills a Get/Set request.  path[1..hops] are the output ports from the
 * SM's port (path[0] is ignored, as in IBA InitialPath); hops 0 reaches
 * the SM's own node.  DrSLID/DrDLID are permissive (pure DR). */
void smp_init_dr(struct smp *s, uint8_t method, uint16_t attr_id,
		 uint32_t attr_mod, const uint8_t *path, uint8_t hops);
void smp_init_lid(struct smp *s, uint8_t method, uint16_t attr_id,
		  uint32_t attr_mod);

/* Encode into a MAD_SIZE buffer (zeroes reserved bytes).  0, -EOVERFLOW,
 * -EINVAL (hop count > 63). */
int smp_encode(const struct smp *s, uint8_t *buf, size_t len);
/* Decode and validate (base version 1, SMP class, class version 1, hop
 * count <= 63).  0, -EOVERFLOW (short), -EPROTO (not a valid SMP). */
int smp_decode(struct smp *s, const uint8_t *buf, size_t len);

/* Turns a received request into its response in place, as IBA 14.2.2
 * asks of a responder: method GetResp, TID kept; for DR the D bit set and
 * the hop pointer left where the returning path starts (hop_cnt + 1 is
 * not used: the responder at the end of the path keeps hop_ptr as
 * received, which equals hop_cnt + 1 for a request that arrived). */
void smp_make_response(struct smp *s, uint16_t status);

/* "NodeInfo" for 0x0011 etc., "0xff30" style for unknown ones. */
const char *smp_attr_name(uint16_t attr_id);
/* Formats path[1..hops] as "0,1,3" (libibmad/-D style) into buf. */
char *smp_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len);

#endif
