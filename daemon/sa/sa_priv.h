/* Internals shared by the SA server files: the per-request context, the
 * record emitter (component-mask matching + append) and each record
 * family's handler. */
#ifndef IBSM_SA_PRIV_H
#define IBSM_SA_PRIV_H

#include "daemon/sa/sa_mcm.h"
#include "daemon/sa/sa_server.h"
#include "mad/sa_mad.h"
#include "mad/sa_service.h"
#include "mad/sa_wire.h"

/* One request being answered. */
struct sa_ctx {
	struct sa *sa;
	const struct sa_hdr *hdr;
	const struct sa_rec_desc *desc;
	const uint8_t *req; /* request record, desc->size bytes */
	size_t req_len;	    /* bytes from req to the request's end */
	uint64_t mask;	    /* component mask */
	const struct sa_peer *from;
	struct sa_out *out;
	uint32_t n;   /* records appended */
	bool trusted; /* SM_Key matched ours */
};

/* A handler returns an SA status (enum sa_status), a MAD status with
 * SA_MAD_STATUS_RAW set, or -ENOMEM. */
#define SA_MAD_STATUS_RAW 0x10000
typedef int (*sa_handler_fn)(struct sa_ctx *c);

/* Appends rec (a struct of c->desc) if it matches the request's component
 * mask.  Returns 1 if appended, 0 if not matching, -ENOMEM. */
int sa_emit(struct sa_ctx *c, const void *rec);
/* Appends rec unconditionally (computed records such as PathRecord). */
int sa_append(struct sa_ctx *c, const void *rec);
/* True once a Get already has two records (more cannot change the
 * answer: ERR_TOO_MANY_RECORDS). */
static inline bool sa_ctx_done(const struct sa_ctx *c)
{
	return c->hdr->method == SA_METHOD_GET && c->n > 1;
}
static inline bool sa_has(const struct sa_ctx *c, unsigned comp)
{
	return (c->mask >> comp) & 1;
}
/* Request field of component comp (<= 64 bits wide). */
uint64_t sa_req_get(const struct sa_ctx *c, unsigned comp);

/* Nodes sorted by node GUID as OpenSM sorts them (the order OpenSM answers
 * tables in, so answers cut to one MAD under ibsim start with the same
 * records). Caller frees. NULL on ENOMEM. */
struct ib_node **sa_nodes_sorted(const struct fabric *f);
/* End ports with a LID (CA/router ports, switch port 0) in port GUID
 * order, the same way; *n gets the count.  Caller frees. */
struct ib_port **sa_endports_sorted(const struct fabric *f, uint32_t *n);

/* Raw SMP attribute block from the cache, or NULL. */
const uint8_t *sa_cache_get(const struct sa *sa, uint64_t node_guid,
			    uint8_t port, uint16_t smp_attr);
void sa_cache_free(struct sa_cache *c);
enum {
	SA_SMP_NODE_INFO = 0x0011,
	SA_SMP_SWITCH_INFO = 0x0012,
	SA_SMP_GUID_INFO = 0x0014,
	SA_SMP_PORT_INFO = 0x0015,
	SA_SMP_PKEY_TABLE = 0x0016
};

/* sa_pkey.c: partitions (lib/pkeys.h; without sa->pkeys every port is a
 * full member of the default partition and nothing is refused). */
/* The P_Key of a path src -> dst as the requester may learn it: the one
 * asked for (given) if both share it, else their lowest shared one; 0
 * when there is none or the requester shares nothing with an end. */
uint16_t sa_path_pkey(const struct sa_ctx *c, const struct ib_port *src,
		      const struct ib_port *dst, bool given, uint16_t want);
/* The requester holds pkey (may see a group or ServiceRecord of it). */
bool sa_may_see_pkey(const struct sa_ctx *c, uint16_t pkey);

/* PortInfo of port p as the SA reports it (cache + the SM's fields). */
void sa_portinfo_build(const struct sa *sa, const struct ib_port *p,
		       uint8_t pi[64]);

/* sa_trust.c: whether the request comes from the port with this GID;
 * a refusal counted and logged (rate-limited), SA_STATUS_REQ_INVALID;
 * whether the request may Set or Delete the ServiceRecords of the port
 * with this GID, 0 or a refusal. */
bool sa_from_port(const struct sa_ctx *c, const uint8_t gid[16]);
int sa_trust_refuse(struct sa_ctx *c, const char *rec, const uint8_t gid[16],
		    const char *why);
int sa_trust_service(struct sa_ctx *c, const uint8_t gid[16]);

/* Handlers, one per record family. */
int sa_cpi_handle(struct sa_ctx *c);
int sa_node_handle(struct sa_ctx *c);
int sa_portinfo_handle(struct sa_ctx *c);
int sa_guidinfo_handle(struct sa_ctx *c);
int sa_pkey_handle(struct sa_ctx *c);
int sa_link_handle(struct sa_ctx *c);
int sa_switchinfo_handle(struct sa_ctx *c);
int sa_lft_handle(struct sa_ctx *c);
int sa_mft_handle(struct sa_ctx *c);
int sa_sl2vl_handle(struct sa_ctx *c);
int sa_vlarb_handle(struct sa_ctx *c);
int sa_sminfo_handle(struct sa_ctx *c);
int sa_path_handle(struct sa_ctx *c);
int sa_multipath_handle(struct sa_ctx *c);
/* sa_path.c, for sa_multipath.c: PathRecords (c->desc the PathRecord's,
 * c->mask in its component bits) of every src x dst pair, at most limit
 * (0: all).  An SA status or -ENOMEM. */
struct sa_path_rec;
int sa_path_pairs_of(struct sa_ctx *c, const struct sa_path_rec *q,
		     const struct ib_port *const *src, uint32_t ns,
		     const struct ib_port *const *dst, uint32_t nd,
		     uint32_t limit);
int sa_service_handle(struct sa_ctx *c);
int sa_mcm_handle(struct sa_ctx *c);
int sa_mcgstate_handle(struct sa_ctx *c);
int sa_inform_handle(struct sa_ctx *c);
int sa_inform_rec_handle(struct sa_ctx *c);

/* Module setup/teardown. */
int sa_mcm_init(struct sa *sa);
void sa_mcm_free(struct sa *sa);

#endif
