/* SA server core: request validation, dispatch by attribute and method
 * and response assembly.  Record families live in sa_<family>.c and
 * append their records through sa_reply.c, below this file; see
 * sa_server.h for the contract. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mad/sa_cpi.h"
#include "mad/sa_link.h"
#include "mad/sa_mcm.h"
#include "mad/sa_multipath.h"
#include "mad/sa_node.h"
#include "mad/sa_path.h"
#include "mad/sa_portinfo.h"
#include "mad/sa_qos.h"
#include "mad/sa_service.h"
#include "mad/sa_sminfo.h"
#include "mad/sa_switch.h"
#include "mad/sa_tables.h"

enum { M_GET = 1, M_SET = 2, M_GETTABLE = 4, M_DELETE = 8, M_GETMULTI = 16 };

struct sa_attr_entry {
	uint16_t attr;
	uint8_t methods;
	const struct sa_rec_desc *desc;
	sa_handler_fn fn;
};

static const struct sa_attr_entry attr_table[] = {
    {SA_ATTR_CLASS_PORT_INFO, M_GET, &sa_cpi_desc, sa_cpi_handle},
    {SA_ATTR_NODE_REC, M_GET | M_GETTABLE, &sa_node_rec_desc, sa_node_handle},
    {SA_ATTR_PORTINFO_REC, M_GET | M_GETTABLE, &sa_portinfo_rec_desc,
     sa_portinfo_handle},
    {SA_ATTR_SWITCHINFO_REC, M_GET | M_GETTABLE, &sa_switchinfo_rec_desc,
     sa_switchinfo_handle},
    {SA_ATTR_LFT_REC, M_GET | M_GETTABLE, &sa_lft_rec_desc, sa_lft_handle},
    {SA_ATTR_MFT_REC, M_GET | M_GETTABLE, &sa_mft_rec_desc, sa_mft_handle},
    {SA_ATTR_SMINFO_REC, M_GET | M_GETTABLE, &sa_sminfo_rec_desc,
     sa_sminfo_handle},
    {SA_ATTR_SL2VL_REC, M_GET | M_GETTABLE, &sa_sl2vl_rec_desc,
     sa_sl2vl_handle},
    {SA_ATTR_VLARB_REC, M_GET | M_GETTABLE, &sa_vlarb_rec_desc,
     sa_vlarb_handle},
    {SA_ATTR_LINK_REC, M_GET | M_GETTABLE, &sa_link_rec_desc, sa_link_handle},
    {SA_ATTR_GUIDINFO_REC, M_GET | M_GETTABLE, &sa_guidinfo_rec_desc,
     sa_guidinfo_handle},
    {SA_ATTR_SERVICE_REC, M_GET | M_GETTABLE | M_SET | M_DELETE,
     &sa_service_rec_desc, sa_service_handle},
    {SA_ATTR_PKEY_TABLE_REC, M_GET | M_GETTABLE, &sa_pkey_rec_desc,
     sa_pkey_handle},
    {SA_ATTR_PATH_REC, M_GET | M_GETTABLE, &sa_path_rec_desc, sa_path_handle},
    {SA_ATTR_MCMEMBER_REC, M_GET | M_GETTABLE | M_SET | M_DELETE,
     &sa_mcm_rec_desc, sa_mcm_handle},
    {SA_ATTR_MCGSTATE_REC, M_GET | M_GETTABLE, &sa_mcgstate_rec_desc,
     sa_mcgstate_handle},
    {SA_ATTR_INFORM_INFO, M_SET, &sa_inform_info_desc, sa_inform_handle},
    {SA_ATTR_INFORM_INFO_REC, M_GET | M_GETTABLE, &sa_inform_rec_desc,
     sa_inform_rec_handle},
    {SA_ATTR_MULTIPATH_REC, M_GETMULTI, &sa_multipath_rec_desc,
     sa_multipath_handle},
};
#define N_ATTRS (sizeof(attr_table) / sizeof(attr_table[0]))

static uint64_t default_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int sa_init(struct sa *sa, struct fabric *f, const struct sa_sm_info *sm)
{
	memset(sa, 0, sizeof(*sa));
	sa_set_fabric(sa, f);
	if (sm)
		sa->sm = *sm;
	if (!sa->sm.subnet_prefix)
		sa->sm.subnet_prefix = 0xfe80000000000000ull;
	if (!sa->sm.subnet_timeout)
		sa->sm.subnet_timeout = 18;
	sa->now_ms = default_now_ms;
	sa->max_response = SA_RESP_MAX;
	sa->drop_rl.interval_ms = 5000;
	sa->drop_rl.burst = 10;
	return sa_mcm_init(sa);
}

void sa_free(struct sa *sa)
{
	sa_mcm_free(sa);
	sa_service_free(sa);
	sa_inform_free(sa);
	sa_cache_free(&sa->cache);
}

/* The counters are bumped by the loop and by the receiver thread's Gets
 * (daemon/sa_daemon/sa_daemon.c) at once. */
static inline void count(unsigned long *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELAXED);
}

static void count_drop(struct sa *sa, const char *why, const struct sa_peer *p)
{
	count(&sa->stats.dropped);
	if (log_ratelimit_ok(&sa->drop_rl))
		log_warn("SA: dropped request from LID %u: %s (%lu dropped so "
			 "far); no answer sent",
			 p ? p->lid : 0, why, sa->stats.dropped);
}

static const struct sa_attr_entry *find_attr(uint16_t attr)
{
	for (unsigned i = 0; i < N_ATTRS; i++)
		if (attr_table[i].attr == attr)
			return &attr_table[i];
	return NULL;
}

size_t sa_request_size(const uint8_t *req, size_t len)
{
	const struct sa_attr_entry *ae;
	size_t need;

	if (len < (size_t)SA_HDR_SIZE)
		return 0;
	ae = find_attr(sa_get16(req + 16));
	need = ae ? (size_t)SA_HDR_SIZE + ae->desc->size : 0;
	return need && len >= need ? need : 0;
}

static uint8_t method_bit(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET:
		return M_GET;
	case SA_METHOD_SET:
		return M_SET;
	case SA_METHOD_GET_TABLE:
		return M_GETTABLE;
	case SA_METHOD_DELETE:
		return M_DELETE;
	case SA_METHOD_GET_MULTI:
		return M_GETMULTI;
	}
	return 0;
}

/* Answers that are tables sent with RMPP (GetTable, GetMulti). */
static bool table_resp(uint8_t method)
{
	return method == SA_METHOD_GET_TABLE_RESP ||
	       method == SA_METHOD_GET_MULTI_RESP;
}

/* MultiPathRecord is answered with PathRecords; its request is a head
 * and a variable tail of GIDs, so its AttributeOffset is not checked. */
static bool multipath(const struct sa_attr_entry *ae)
{
	return ae->attr == SA_ATTR_MULTIPATH_REC;
}

static const struct sa_rec_desc *resp_desc(const struct sa_attr_entry *ae)
{
	return multipath(ae) ? &sa_path_rec_desc : ae->desc;
}

static uint8_t resp_method(uint8_t method)
{
	switch (method) {
	case SA_METHOD_GET_TABLE:
		return SA_METHOD_GET_TABLE_RESP;
	case SA_METHOD_DELETE:
		return SA_METHOD_DELETE_RESP;
	case SA_METHOD_GET_MULTI:
		return SA_METHOD_GET_MULTI_RESP;
	}
	return SA_METHOD_GET_RESP;
}

/* Writes the response header for n records of desc (desc may be NULL for
 * errors before dispatch) with status; an error answer echoes the
 * request's data so the requester sees what was refused. */
static int finish(struct sa *sa, const struct sa_hdr *req,
		  const uint8_t *req_data, size_t req_data_len,
		  const struct sa_rec_desc *desc, uint32_t n, uint16_t status,
		  struct sa_out *out)
{
	struct sa_hdr h = *req;
	size_t stride = desc ? sa_rec_stride(desc) : 0;
	size_t len = SA_HDR_SIZE + (status ? 0 : n * stride);
	int r;

	if (len < SA_MAD_SIZE)
		len = SA_MAD_SIZE;
	r = sa_out_reserve(out, len);
	if (r)
		return r;
	if (status) {
		memset(out->buf + SA_HDR_SIZE, 0, SA_DATA_SIZE);
		memcpy(out->buf + SA_HDR_SIZE, req_data,
		       req_data_len < SA_DATA_SIZE ? req_data_len
						   : SA_DATA_SIZE);
	} else if (SA_HDR_SIZE + n * stride < len) {
		memset(out->buf + SA_HDR_SIZE + n * stride, 0,
		       len - SA_HDR_SIZE - n * stride);
	}
	h.method = resp_method(req->method);
	if (desc && !status)
		h.attr_id = desc->attr_id; /* GetMulti: PathRecords */
	h.status = status;
	h.sm_key = 0;
	h.attr_offset = (uint16_t)(stride / 8);
	h.rmpp_version = 0;
	h.rmpp_type = h.rmpp_flags = h.rmpp_status = 0;
	h.rmpp_data1 = h.rmpp_data2 = 0;
	if (table_resp(h.method)) {
		/* One segment as far as we know; the kernel's RMPP agent
		 * rewrites these when it segments. */
		h.rmpp_version = 1;
		h.rmpp_type = RMPP_TYPE_DATA;
		h.rmpp_flags =
		    RMPP_FLAG_ACTIVE | RMPP_FLAG_FIRST | RMPP_FLAG_LAST;
		h.rmpp_data1 = 1;
		h.rmpp_data2 =
		    (uint32_t)(SA_HDR_SIZE - 36 + (status ? 0 : n * stride));
	}
	sa_hdr_encode(&h, out->buf);
	out->len = len;
	/* A table answer is as long as its records (the RMPP payload), like
	 * OpenSM's: clients that see only one MAD (ibsim) count records by
	 * the length they received. */
	if (table_resp(h.method))
		out->len = SA_HDR_SIZE + (status ? 0 : n * stride);
	out->records = status ? 0 : n;
	count(&sa->stats.responses);
	if (status)
		count(&sa->stats.errors);
	return 0;
}

/* Checks what can be checked before dispatch.  Returns 0 (go on), a MAD
 * status (answer with it), or -1 (drop). */
static int validate(struct sa *sa, const struct sa_hdr *h, size_t len,
		    const struct sa_attr_entry **ae, const struct sa_peer *p)
{
	if (h->mgmt_class != SA_MGMT_CLASS) {
		count_drop(sa, "not SA class", p);
		return -1;
	}
	if (h->method & SA_METHOD_RESP_BIT) {
		count_drop(sa, "response method", p);
		return -1;
	}
	if ((h->rmpp_flags & RMPP_FLAG_ACTIVE) &&
	    h->rmpp_type != RMPP_TYPE_DATA) {
		count_drop(sa, "RMPP control packet", p);
		return -1;
	}
	/* A version we do not speak is not ours to answer: the kernel's MAD
	 * layer drops it before any agent on hardware (no agent registered
	 * for it), and so do we under ibsim. */
	if (h->base_version != MAD_BASE_VERSION ||
	    h->class_version != SA_CLASS_VERSION) {
		count_drop(sa, "bad base or class version", p);
		return -1;
	}
	/* C15-0.1.5: an SM_Key that is neither 0 nor the SM's is dropped,
	 * as OpenSM drops it (sm.sm_key 0: any nonzero key). */
	if (h->sm_key && h->sm_key != sa->sm.sm_key) {
		sa->stats.bad_sm_key++;
		count_drop(sa, "SM_Key in the SA header is not the SM's", p);
		return -1;
	}
	if (!method_bit(h->method))
		return MAD_STATUS_METHOD_UNSUPP;
	*ae = find_attr(h->attr_id);
	if (!*ae || !((*ae)->methods & method_bit(h->method)))
		return MAD_STATUS_METHOD_ATTR_UNSUPP;
	if (len < (size_t)SA_HDR_SIZE + (*ae)->desc->size)
		return SA_MAD_STATUS(SA_STATUS_REQ_INVALID);
	if (h->attr_offset && !multipath(*ae) &&
	    h->attr_offset != sa_rec_stride((*ae)->desc) / 8)
		return SA_MAD_STATUS(SA_STATUS_REQ_INVALID);
	if (h->comp_mask & ~sa_rec_comp_all((*ae)->desc))
		return SA_MAD_STATUS(SA_STATUS_REQ_INVALID);
	return 0;
}

static unsigned attr_slot(uint16_t attr)
{
	for (unsigned i = 0; i < N_ATTRS && i < 15; i++)
		if (attr_table[i].attr == attr)
			return i;
	return 15;
}

static int dispatch(struct sa_ctx *c, const struct sa_attr_entry *ae)
{
	int r = ae->fn(c);

	if (r < 0) {
		if (log_ratelimit_ok(&c->sa->drop_rl))
			log_warn("SA: %s %s from LID %u: answer over %zu bytes "
				 "or out of memory; answered ERR_NO_RESOURCES",
				 sa_method_name(c->hdr->method), c->desc->name,
				 c->from ? c->from->lid : 0,
				 c->sa->max_response);
		return SA_MAD_STATUS(SA_STATUS_NO_RESOURCES);
	}
	if (r & SA_MAD_STATUS_RAW)
		return r & 0xFFFF;
	if (r)
		return SA_MAD_STATUS(r);
	if (c->hdr->method == SA_METHOD_GET ||
	    c->hdr->method == SA_METHOD_SET ||
	    c->hdr->method == SA_METHOD_DELETE) {
		if (c->n == 0)
			return SA_MAD_STATUS(SA_STATUS_NO_RECORDS);
		if (c->n > 1 && c->hdr->method == SA_METHOD_GET)
			return SA_MAD_STATUS(SA_STATUS_TOO_MANY_RECORDS);
	}
	return 0;
}

int sa_handle(struct sa *sa, const struct sa_peer *from, const uint8_t *req,
	      size_t len, struct sa_out *out)
{
	const struct sa_attr_entry *ae = NULL;
	struct sa_hdr h;
	struct sa_ctx c;
	int st;

	count(&sa->stats.requests);
	if (sa_hdr_decode(&h, req, len) < 0) {
		count_drop(sa, "shorter than an SA header", from);
		return -EBADMSG;
	}
	st = validate(sa, &h, len, &ae, from);
	if (st < 0)
		return -EBADMSG;
	count(&sa->stats.by_attr[attr_slot(h.attr_id)]);
	if (st)
		return finish(sa, &h, req + SA_HDR_SIZE, len - SA_HDR_SIZE,
			      ae ? ae->desc : NULL, 0, (uint16_t)st, out);
	c = (struct sa_ctx){.sa = sa,
			    .hdr = &h,
			    .desc = ae->desc,
			    .req = req + SA_HDR_SIZE,
			    .req_len = len - SA_HDR_SIZE,
			    .mask = h.comp_mask,
			    .from = from,
			    .out = out,
			    .trusted =
				sa->sm.sm_key && h.sm_key == sa->sm.sm_key};
	st = dispatch(&c, ae);
	if (h.method != SA_METHOD_GET_TABLE &&
	    h.method != SA_METHOD_GET_MULTI && !st)
		c.n = 1;
	return finish(sa, &h, req + SA_HDR_SIZE, len - SA_HDR_SIZE,
		      st ? ae->desc : resp_desc(ae), c.n, (uint16_t)st, out);
}
