/* SA MAD header codec and names for logs. */
#include "mad/sa_mad.h"

#include <errno.h>

#include "mad/sa_wire.h"

int sa_hdr_decode(struct sa_hdr *h, const uint8_t *b, size_t len)
{
	if (!b || len < SA_HDR_SIZE)
		return -EMSGSIZE;
	h->base_version = b[0];
	h->mgmt_class = b[1];
	h->class_version = b[2];
	h->method = b[3];
	h->status = sa_get16(b + 4);
	h->class_specific = sa_get16(b + 6);
	h->tid = sa_get64(b + 8);
	h->attr_id = sa_get16(b + 16);
	h->attr_mod = sa_get32(b + 20);
	h->rmpp_version = b[24];
	h->rmpp_type = b[25];
	h->rmpp_flags = b[26];
	h->rmpp_status = b[27];
	h->rmpp_data1 = sa_get32(b + 28);
	h->rmpp_data2 = sa_get32(b + 32);
	h->sm_key = sa_get64(b + 36);
	h->attr_offset = sa_get16(b + 44);
	h->comp_mask = sa_get64(b + 48);
	return 0;
}

void sa_hdr_encode(const struct sa_hdr *h, uint8_t *b)
{
	b[0] = h->base_version;
	b[1] = h->mgmt_class;
	b[2] = h->class_version;
	b[3] = h->method;
	sa_put16(b + 4, h->status);
	sa_put16(b + 6, h->class_specific);
	sa_put64(b + 8, h->tid);
	sa_put16(b + 16, h->attr_id);
	sa_put16(b + 18, 0);
	sa_put32(b + 20, h->attr_mod);
	b[24] = h->rmpp_version;
	b[25] = h->rmpp_type;
	b[26] = h->rmpp_flags;
	b[27] = h->rmpp_status;
	sa_put32(b + 28, h->rmpp_data1);
	sa_put32(b + 32, h->rmpp_data2);
	sa_put64(b + 36, h->sm_key);
	sa_put16(b + 44, h->attr_offset);
	sa_put16(b + 46, 0);
	sa_put64(b + 48, h->comp_mask);
}

const char *sa_attr_name(uint16_t a)
{
	switch (a) {
	case SA_ATTR_CLASS_PORT_INFO:
		return "ClassPortInfo";
	case SA_ATTR_NOTICE:
		return "Notice";
	case SA_ATTR_INFORM_INFO:
		return "InformInfo";
	case SA_ATTR_NODE_REC:
		return "NodeRecord";
	case SA_ATTR_PORTINFO_REC:
		return "PortInfoRecord";
	case SA_ATTR_SWITCHINFO_REC:
		return "SwitchInfoRecord";
	case SA_ATTR_LFT_REC:
		return "LinearForwardingTableRecord";
	case SA_ATTR_MFT_REC:
		return "MulticastForwardingTableRecord";
	case SA_ATTR_SMINFO_REC:
		return "SMInfoRecord";
	case SA_ATTR_LINK_REC:
		return "LinkRecord";
	case SA_ATTR_GUIDINFO_REC:
		return "GUIDInfoRecord";
	case SA_ATTR_SERVICE_REC:
		return "ServiceRecord";
	case SA_ATTR_PKEY_TABLE_REC:
		return "PKeyTableRecord";
	case SA_ATTR_PATH_REC:
		return "PathRecord";
	case SA_ATTR_MCMEMBER_REC:
		return "MCMemberRecord";
	case SA_ATTR_MCGSTATE_REC:
		return "MCGStateRecord";
	}
	return "unknown";
}

const char *sa_method_name(uint8_t m)
{
	switch (m) {
	case SA_METHOD_GET:
		return "Get";
	case SA_METHOD_SET:
		return "Set";
	case SA_METHOD_GET_RESP:
		return "GetResp";
	case SA_METHOD_REPORT:
		return "Report";
	case SA_METHOD_GET_TABLE:
		return "GetTable";
	case SA_METHOD_GET_TABLE_RESP:
		return "GetTableResp";
	case SA_METHOD_GET_TRACE_TABLE:
		return "GetTraceTable";
	case SA_METHOD_GET_MULTI:
		return "GetMulti";
	case SA_METHOD_GET_MULTI_RESP:
		return "GetMultiResp";
	case SA_METHOD_DELETE:
		return "Delete";
	case SA_METHOD_DELETE_RESP:
		return "DeleteResp";
	}
	return "unknown";
}
