/* The SA server: answers SubnAdm requests (Get, GetTable, Set, Delete) from
 * the fabric model, the SM's own state, the ServiceRecord database and the
 * multicast group table.  sa_handle() takes one encoded request MAD and
 * writes the whole response (all records of a GetTable, however many);
 * segmenting it (RMPP) is the transport's job.  Nothing here does I/O.
 *
 * Decisions (where the IBA leaves room, we do what OpenSM 3.3.23 does, so
 * saquery shows the same; tests/integration/sa_saquery.sh compares):
 *  - tables come in OpenSM's order (GUIDs byte-reversed, see sa_util.c);
 *  - a Get matching nothing is ERR_NO_RECORDS, several ERR_TOO_MANY_-
 *    RECORDS; a GetTable matching nothing is an empty table (success);
 *  - component bits the record does not define, or an AttributeOffset
 *    other than 0 or the record's, are ERR_REQ_INVALID;
 *  - P_KeyTableRecords only for trusted requesters (SM_Key), and the
 *    SM_Key in SMInfoRecord only for them; a request whose SM_Key is
 *    neither 0 nor ours is dropped (C15-0.1.5); Sets and Deletes of
 *    another port's records need trust or a proxy join (sa_trust.c);
 *  - MultiPathRecord is answered only to SubnAdmGetMulti, with
 *    PathRecords (o15-0.2.7);
 *  - answers over max_response (4 MiB) are ERR_NO_RESOURCES, as is a full
 *    ServiceRecord database (4096 records);
 *  - CapabilityMask and CapabilityMask2 of PortInfoRecord match bitwise;
 *  - requests that cannot be answered (not SA class, response methods,
 *    RMPP control packets, shorter than the SA header) are dropped,
 *    counted in stats.dropped and logged with a rate limit. */
#ifndef IBSM_SA_SERVER_H
#define IBSM_SA_SERVER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"
#include "lib/log.h"
#include "mad/sa_inform.h"

struct sa_mcg;
struct sa_mcm_ops;
struct pkey_plan;

/* What the SM tells the SA about itself (SMInfo, defaults of records). */
struct sa_sm_info {
	uint64_t guid; /* SM port GUID */
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority, state; /* SMInfo priority, SMState (3 = master) */
	uint16_t lid;		 /* SM port LID */
	uint64_t subnet_prefix;	 /* GID prefix, default fe80:: */
	uint8_t subnet_timeout;	 /* PortInfo SubnetTimeOut, packet lifetime */
	bool proxy_trusted_only; /* sa.proxy_join: trusted (sa_trust.c) */
};

/* Who sent the request (from the umad address). */
struct sa_peer {
	uint16_t lid;
};

/* The response: a MAD header followed by every record.  len is 256 for
 * Get/Set/Delete answers, header + records for GetTable answers (the
 * buffer is zero padded to at least 256 bytes either way).  For
 * GetTableResp the RMPP PayloadLength field holds the exact size (SA
 * header + records) for the transport to segment by.  The buffer grows as
 * needed; reuse it across calls. */
struct sa_out {
	uint8_t *buf;
	size_t len, cap;
	uint32_t records; /* records in the answer */
};
void sa_out_free(struct sa_out *o);

struct sa_stats {
	unsigned long requests, responses, errors, dropped;
	unsigned long untrusted;  /* Set/Delete refused: not own, not trusted */
	unsigned long bad_sm_key; /* dropped: SM_Key neither 0 nor ours */
	unsigned long by_attr[16]; /* requests per attribute, sa_attr_slot() */
};

/* Raw SMP attribute blocks as the ports reported them (NodeInfo, PortInfo,
 * SwitchInfo, P_KeyTable block 0, GUIDInfo block 0), so records carry
 * every field the SM does not own; see sa_cache.c. */
struct sa_cache_ent;
struct sa_cache {
	struct sa_cache_ent *ents;
	uint32_t cap, used;
};

struct sa_service;
struct sa_service_rec;
struct sa_services {
	struct sa_service *v;
	uint32_t n, cap;
	/* Called for each record a Set registered (removed false) or a
	 * Delete removed, with its expiry on now_ms's clock (0: never);
	 * the store (daemon/sa_daemon/sa_service_store.c) journals it. */
	void (*changed)(void *ctx, const struct sa_service_rec *rec,
			uint64_t expires_ms, bool removed);
	void *ctx;
};

/* Event subscriptions (InformInfo), daemon/sa/sa_inform.c. */
struct sa_informs {
	struct sa_inform_rec *v;
	uint32_t n, cap;
	/* Called after a Set added or removed one; the store
	 * (daemon/sa_daemon/sa_inform_store.c) saves them. */
	void (*changed)(void *ctx);
	void *ctx;
};

struct sa_mcgs {
	struct sa_mcg **v;
	uint32_t n, cap;
	struct sa_mcg **buckets; /* by MGID hash, chained (hnext) */
	uint32_t nb;		 /* a power of two, >= cap */
};

struct qos_policy;
struct ucast_layers;

struct sa {
	struct fabric *fabric;
	/* the smallest MTU and rate code of the fabric's linked CA ports,
	 * found when the fabric was set (sa_set_fabric) */
	uint8_t fab_mtu, fab_rate;
	struct sa_sm_info sm;
	struct sa_cache cache;
	struct sa_services services;
	struct sa_informs informs;
	struct sa_mcgs mcgs;
	struct sa_stats stats;
	struct log_ratelimit drop_rl;
	/* Largest answer (bytes): a table past it is refused with
	 * ERR_NO_RESOURCES rather than built (a PathRecord "world" of a
	 * large fabric is gigabytes).  Default SA_RESP_MAX. */
	size_t max_response;
	/* Monotonic clock in ms (ServiceRecord leases); tests replace it. */
	uint64_t (*now_ms)(void);
	/* Longest ServiceRecord lease granted, s (sa.service_lease_max_s);
	 * 0: as asked, infinite included. */
	uint32_t lease_max_s;
	/* MFT block of a switch for MulticastForwardingTableRecord: fills
	 * 32 port masks for MLIDs 0xC000 + 32 * block, ports 16 * position
	 * .. +15; returns 1 if the block holds any port, 0 if empty, <0 if
	 * past the table.  NULL: no MFTs known (no records). */
	int (*mft_block)(void *ctx, const struct ib_node *sw, uint16_t block,
			 uint8_t position, uint16_t masks[32]);
	void *mft_ctx;
	/* Partitions (lib/pkeys.h): who shares a P_Key with whom, for
	 * PathRecord, MCMemberRecord and ServiceRecord.  NULL: every port a
	 * full member of the default partition. */
	const struct pkey_plan *pkeys;
	/* The P_Key table a port holds (entries, 0 unknown), for
	 * P_KeyTableRecord; NULL: the raw block 0 read by discovery. */
	int (*pkey_table)(void *ctx, const struct ib_port *p,
			  const uint16_t **tbl);
	void *pkey_ctx;
	/* The QoS policy PathRecords take their SL from (lib/qos.h); NULL:
	 * SL 0 for every path. */
	const struct qos_policy *qos;
	/* The layered engine's layers of this fabric's routes
	 * (routing/unicast/layers.h), set with the fabric; NULL with other
	 * engines.  When paths use more than one layer, a PathRecord's SL is
	 * 1 + its layer, found by walking its path (docs/design.md §5.3). */
	const struct ucast_layers *layers;
	/* The QoS tables as the ports acknowledged them (qosprog.c hands
	 * these down): SL2VL of input to output port (a CA: 0 to its port)
	 * into vl[16], VLArb block 1-4 of a port into data[64] as in the
	 * SMP; 1 when known, 0 when not.  NULL: no such records. */
	int (*sl2vl_row)(void *ctx, const struct ib_node *n, uint8_t in,
			 uint8_t out, uint8_t vl[16]);
	int (*vlarb_block)(void *ctx, const struct ib_node *n, uint8_t port,
			   uint8_t block, uint8_t data[64]);
	void *qos_ctx;
	/* MCMemberRecord Set/Delete (daemon/sa/sa_mcm.h); NULL: unsupported. */
	const struct sa_mcm_ops *mcm_ops;
	void *mcm_ctx;
};

/* 4 MiB: 65,000 PathRecords, an RMPP transfer of 21,000 segments. */
#define SA_RESP_MAX (1u << 22)

/* Initialises the SA on a fabric (not owned); creates the IPoIB broadcast
 * group.  0 or -ENOMEM. */
int sa_init(struct sa *sa, struct fabric *f, const struct sa_sm_info *sm);
void sa_free(struct sa *sa);
/* The model the SA answers from from now on (not owned): also finds the
 * fabric-wide figures joins need (sa_fabric_mtu_rate), once per model.
 * A model is not changed once set; a changed one is set again. */
void sa_set_fabric(struct sa *sa, struct fabric *f);

/* The bytes of request req that sa_handle() reads: the SA header and the
 * attribute's record (what follows is padding, or under ibsim whatever
 * libumad2sim's buffer held).  0 for an attribute it does not serve or a
 * request too short for its record. */
size_t sa_request_size(const uint8_t *req, size_t len);

/* Handles one request MAD (len bytes, normally 256).  Returns 0 with the
 * response in out, or a negative errno when the request is dropped without
 * an answer (not an SA request, a response method, truncated header);
 * drops are counted and logged with a rate limit. */
int sa_handle(struct sa *sa, const struct sa_peer *from, const uint8_t *req,
	      size_t len, struct sa_out *out);

/* Feeds a raw SMP attribute (NodeInfo 0x0011, PortInfo 0x0015, SwitchInfo
 * 0x0012, P_KeyTable 0x0016 block 0, GUIDInfo 0x0014 block 0) read from
 * node_guid/port.  0 or -ENOMEM / -EINVAL. */
int sa_cache_put(struct sa *sa, uint64_t node_guid, uint8_t port,
		 uint16_t smp_attr, const uint8_t *data, size_t len);

/* Event subscriptions (daemon/sa/sa_inform.c).  sa_inform_add puts r (a
 * subscription with its subscriber; saved: with its enumeration, kept
 * unless taken) into the table: 0, or an SA status when it is full.
 * sa_inform_drop_subscriber takes every subscription of that subscriber GID
 * away (its port left the fabric, or stopped answering reports); how many.
 * sa_inform_matches says whether a subscription wants notice n, about port gid
 * (NULL if none) with LID lid (0 if none). */
int sa_inform_add(struct sa *sa, const struct sa_inform_rec *r, bool saved);
unsigned sa_inform_drop_subscriber(struct sa *sa, const uint8_t gid[16]);
bool sa_inform_matches(const struct sa_inform_info *ii,
		       const struct sa_notice *n, const uint8_t gid[16],
		       uint16_t lid);

/* What the daemon's stores, reports and answers use of the server
 * (daemon/sa_daemon): */
/* sa_reply.c: the answer's buffer grows to need bytes.  0 or -ENOMEM. */
int sa_out_reserve(struct sa_out *o, size_t need);

/* GID of a port: subnet prefix + port GUID. */
void sa_port_gid(const struct sa *sa, const struct ib_port *p, uint8_t gid[16]);
/* The port whose GID this is, or NULL (prefix mismatch, unknown GUID). */
struct ib_port *sa_port_by_gid(const struct sa *sa, const uint8_t gid[16]);
/* Port of node n that carries LID lid in records: port 0 for switches. */
static inline uint16_t sa_port_lid(const struct ib_port *p)
{
	return node_port(p->node, p->num)->lid;
}

/* Frees the ServiceRecords or the subscriptions (a store reloading). */
void sa_service_free(struct sa *sa);
void sa_inform_free(struct sa *sa);

/* The ServiceRecord database for its store (sa_service_store.c): record
 * i (registered as it was, with its lease) and its expiry on the SA's
 * clock (0: never); false past the end.  sa_service_restore puts a saved
 * record back (replacing the one with its key) unchecked (its port may not be
 * known yet): 0, or an SA status when the database is full. */
bool sa_service_at(const struct sa *sa, uint32_t i, struct sa_service_rec *rec,
		   uint64_t *expires_ms);
int sa_service_restore(struct sa *sa, const struct sa_service_rec *rec,
		       uint64_t expires_ms);
/* Removes the record with rec's key (ServiceID, GID, P_Key) if any. */
void sa_service_remove(struct sa *sa, const struct sa_service_rec *rec);

#endif
