/* The common MAD header and the LID-routed / directed-route SMP headers
 * (IBA 13.4.2, 14.2.1.1-2): encode, decode with validation, request
 * initialisation and the responder's turn-around. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mad/cursor.h"
#include "mad/smp.h"

#define DR_DIRECTION_BIT 0x8000

int mad_hdr_decode(struct mad_hdr *h, const uint8_t *buf, size_t len)
{
	struct cur c;

	cur_rd(&c, buf, len);
	h->base_version = cur_get_u8(&c);
	h->mgmt_class = cur_get_u8(&c);
	h->class_version = cur_get_u8(&c);
	h->method = cur_get_u8(&c);
	h->status = cur_get_u16(&c);
	h->class_specific = cur_get_u16(&c);
	h->tid = cur_get_u64(&c);
	h->attr_id = cur_get_u16(&c);
	cur_skip(&c, 2);
	h->attr_mod = cur_get_u32(&c);
	return cur_err(&c);
}

int mad_hdr_encode(const struct mad_hdr *h, uint8_t *buf, size_t len)
{
	struct cur c;

	cur_wr(&c, buf, len);
	cur_put_u8(&c, h->base_version);
	cur_put_u8(&c, h->mgmt_class);
	cur_put_u8(&c, h->class_version);
	cur_put_u8(&c, h->method);
	cur_put_u16(&c, h->status);
	cur_put_u16(&c, h->class_specific);
	cur_put_u64(&c, h->tid);
	cur_put_u16(&c, h->attr_id);
	cur_put_u16(&c, 0);
	cur_put_u32(&c, h->attr_mod);
	return cur_err(&c);
}

static void smp_init(struct smp *s, uint8_t cls, uint8_t method,
		     uint16_t attr_id, uint32_t attr_mod)
{
	memset(s, 0, sizeof(*s));
	s->hdr.base_version = 1;
	s->hdr.mgmt_class = cls;
	s->hdr.class_version = 1;
	s->hdr.method = method;
	s->hdr.attr_id = attr_id;
	s->hdr.attr_mod = attr_mod;
}

void smp_init_dr(struct smp *s, uint8_t method, uint16_t attr_id,
		 uint32_t attr_mod, const uint8_t *path, uint8_t hops)
{
	smp_init(s, MAD_CLASS_SMI_DR, method, attr_id, attr_mod);
	s->dr_slid = 0xFFFF;
	s->dr_dlid = 0xFFFF;
	if (hops > SMP_MAX_HOPS)
		hops = SMP_MAX_HOPS + 1; /* smp_encode refuses it */
	s->hop_cnt = hops;
	if (path && hops <= SMP_MAX_HOPS)
		memcpy(s->initial_path + 1, path + 1, hops);
}

void smp_init_lid(struct smp *s, uint8_t method, uint16_t attr_id,
		  uint32_t attr_mod)
{
	smp_init(s, MAD_CLASS_SMI, method, attr_id, attr_mod);
}

int smp_encode(const struct smp *s, uint8_t *buf, size_t len)
{
	struct mad_hdr h = s->hdr;
	bool dr = smp_is_dr(s);
	struct cur c;

	if (len < MAD_SIZE)
		return -EOVERFLOW;
	if (dr && s->hop_cnt > SMP_MAX_HOPS)
		return -EINVAL;
	memset(buf, 0, MAD_SIZE);
	if (dr) {
		h.status = (uint16_t)((s->status & 0x7FFF) |
				      (s->direction ? DR_DIRECTION_BIT : 0));
		h.class_specific = (uint16_t)(s->hop_ptr << 8 | s->hop_cnt);
	} else {
		h.status = s->status;
	}
	if (mad_hdr_encode(&h, buf, len))
		return -EOVERFLOW;
	cur_wr(&c, buf, MAD_SIZE);
	cur_seek(&c, MAD_HDR_SIZE);
	cur_put_u64(&c, s->mkey);
	if (dr) {
		cur_put_u16(&c, s->dr_slid);
		cur_put_u16(&c, s->dr_dlid);
	}
	cur_seek(&c, SMP_DATA_OFF);
	cur_put_bytes(&c, s->data, SMP_DATA_SIZE);
	if (dr) {
		cur_put_bytes(&c, s->initial_path, SMP_PATH_SIZE);
		cur_put_bytes(&c, s->return_path, SMP_PATH_SIZE);
	}
	return cur_err(&c);
}

int smp_decode(struct smp *s, const uint8_t *buf, size_t len)
{
	struct cur c;
	bool dr;

	memset(s, 0, sizeof(*s));
	if (len < MAD_SIZE)
		return -EOVERFLOW;
	if (mad_hdr_decode(&s->hdr, buf, len))
		return -EOVERFLOW;
	if (s->hdr.base_version != 1 || s->hdr.class_version != 1 ||
	    (s->hdr.mgmt_class != MAD_CLASS_SMI &&
	     s->hdr.mgmt_class != MAD_CLASS_SMI_DR))
		return -EPROTO;
	dr = smp_is_dr(s);
	s->status = dr ? s->hdr.status & 0x7FFF : s->hdr.status;
	s->direction = dr && (s->hdr.status & DR_DIRECTION_BIT);
	if (dr) {
		s->hop_ptr = (uint8_t)(s->hdr.class_specific >> 8);
		s->hop_cnt = (uint8_t)s->hdr.class_specific;
		if (s->hop_cnt > SMP_MAX_HOPS)
			return -EPROTO;
	}
	cur_rd(&c, buf, MAD_SIZE);
	cur_seek(&c, MAD_HDR_SIZE);
	s->mkey = cur_get_u64(&c);
	if (dr) {
		s->dr_slid = cur_get_u16(&c);
		s->dr_dlid = cur_get_u16(&c);
	}
	cur_seek(&c, SMP_DATA_OFF);
	cur_get_bytes(&c, s->data, SMP_DATA_SIZE);
	if (dr) {
		cur_get_bytes(&c, s->initial_path, SMP_PATH_SIZE);
		cur_get_bytes(&c, s->return_path, SMP_PATH_SIZE);
	}
	return cur_err(&c);
}

void smp_make_response(struct smp *s, uint16_t status)
{
	s->hdr.method = MAD_METHOD_GET_RESP;
	s->status = status & (smp_is_dr(s) ? 0x7FFF : 0xFFFF);
	if (smp_is_dr(s))
		s->direction = true;
}

const char *smp_attr_name(uint16_t attr_id)
{
	static __thread char buf[8];

	switch (attr_id) {
	case SMP_ATTR_NOTICE:
		return "Notice";
	case SMP_ATTR_NODE_DESC:
		return "NodeDescription";
	case SMP_ATTR_NODE_INFO:
		return "NodeInfo";
	case SMP_ATTR_SWITCH_INFO:
		return "SwitchInfo";
	case SMP_ATTR_GUID_INFO:
		return "GUIDInfo";
	case SMP_ATTR_PORT_INFO:
		return "PortInfo";
	case SMP_ATTR_PKEY_TABLE:
		return "P_KeyTable";
	case SMP_ATTR_SL2VL_TABLE:
		return "SLtoVLMappingTable";
	case SMP_ATTR_VL_ARB_TABLE:
		return "VLArbitrationTable";
	case SMP_ATTR_LFT:
		return "LinearForwardingTable";
	case SMP_ATTR_RFT:
		return "RandomForwardingTable";
	case SMP_ATTR_MFT:
		return "MulticastForwardingTable";
	case SMP_ATTR_SM_INFO:
		return "SMInfo";
	case SMP_ATTR_PGROUP_INFO:
		return "PortGroupInfo";
	case SMP_ATTR_PGROUP_TABLE:
		return "PortGroupTable";
	case SMP_ATTR_PGROUP_FT:
		return "PortGroupForwardingTable";
	case SMP_ATTR_MLNX_EXT_PORT_INFO:
		return "MlnxExtPortInfo";
	}
	snprintf(buf, sizeof(buf), "0x%04x", attr_id);
	return buf;
}

char *smp_path_str(const uint8_t *path, uint8_t hops, char *buf, size_t len)
{
	size_t off;

	if (!len)
		return buf;
	off = (size_t)snprintf(buf, len, "0");
	for (unsigned i = 1; i <= hops && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, ",%u", path[i]);
	return buf;
}
