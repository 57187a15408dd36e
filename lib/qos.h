/* The QoS policy (the qos.* keys, docs/design.md §5.2): SL to VL mapping,
 * VL arbitration weights, the OperationalVLs a link gets, and the SL a
 * PathRecord gets.  Parsed once from a checked configuration into struct
 * qos_policy; the per-port tables are computed from it and the port's
 * capabilities here, with no I/O, so the daemon, the unit tests and the
 * CDG check all use the same tables. */
#ifndef IBSM_LIB_QOS_H
#define IBSM_LIB_QOS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/config.h"

#define QOS_NUM_SLS 16
#define QOS_MAX_VLS 15 /* data VLs VL0..VL14 */
#define QOS_ARB_MAX 64 /* entries of one VLArb table */
#define QOS_SL_NONE 0xFF

struct qos_arb {
	uint8_t vl;
	uint8_t weight; /* 0: the entry is skipped */
};

/* One qos.classes rule: every matcher it has must match; ranges are
 * inclusive. */
struct qos_class {
	bool has_sid, has_pkey, has_qc;
	uint64_t sid_lo, sid_hi;
	uint16_t pkey_lo, pkey_hi; /* without the membership bit */
	uint16_t qc_lo, qc_hi;
	uint8_t sl;
};

struct qos_policy {
	bool enable;	    /* program SL2VL and VLArb */
	uint8_t max_vls;    /* 1, 2, 4, 8 or 15 data VLs */
	uint8_t high_limit; /* PortInfo VLHighLimit */
	uint8_t sl2vl[QOS_NUM_SLS];
	struct qos_arb high[QOS_ARB_MAX], low[QOS_ARB_MAX];
	uint8_t n_high, n_low;
	uint8_t default_sl;
	struct qos_class *classes;
	uint32_t n_classes;
};

/* The qos.* keys of a checked configuration.  0 or -ENOMEM (or -EINVAL
 * with err when c was not checked). */
int qos_policy_from_config(struct qos_policy *p, const struct config *c,
			   char *err, size_t errlen);
void qos_policy_free(struct qos_policy *p);

/* Schema checks (lib/config.c calls them): one list key's items, *bad the
 * item at fault (l->n: the list as a whole); and the keys together. */
int qos_check_sl2vl(const struct cfg_strlist *l, uint32_t *bad, char *why,
		    size_t len);
int qos_check_vlarb(const struct cfg_strlist *l, uint32_t *bad, char *why,
		    size_t len);
int qos_check_classes(const struct cfg_strlist *l, uint32_t *bad, char *why,
		      size_t len);
int qos_config_check(const struct config *c, char *err, size_t errlen);

/* PortInfo OperationalVLs (1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7,
 * 5 = VL0-14) for a port of VLCap vl_cap linked to one of peer_vl_cap
 * (0: no peer): the least of both and qos.max_vls, as OpenSM does. */
uint8_t qos_op_vls(const struct qos_policy *p, uint8_t vl_cap,
		   uint8_t peer_vl_cap);
/* Data VLs of an OperationalVLs or VLCap code (0 for 0 or > 5). */
unsigned qos_vls_of(uint8_t code);

/* What one port sends on its link: the SL2VL table of its output (a
 * switch: every input port to it; a CA: its own) and its VLArb tables,
 * cut to its capacities.  n_low/n_high: entries the port holds (its caps,
 * at most 64); the rest of a block is zero. */
struct qos_port_tables {
	uint8_t sl2vl[QOS_NUM_SLS];
	struct qos_arb low[QOS_ARB_MAX], high[QOS_ARB_MAX];
	uint8_t n_low, n_high;
	uint8_t remapped; /* SLs moved off a VL the tables cannot serve */
};
void qos_port_tables(const struct qos_policy *p, uint8_t op_vls,
		     uint8_t high_cap, uint8_t low_cap,
		     struct qos_port_tables *t);

/* What a PathRecord request says that classes match on. */
struct qos_path_req {
	bool has_sid, has_pkey, has_qc;
	uint64_t sid;
	uint16_t pkey;
	uint16_t qc;
};
/* The SL of a path: the first qos.classes rule the request matches; else
 * part_sl, the SL of the partition the path is in (QOS_SL_NONE when the
 * partition gives none); else qos.default_sl.  *pinned (may be NULL) is
 * set when a class chose it: a request asking another SL then gets no
 * path, as in OpenSM. */
uint8_t qos_path_sl(const struct qos_policy *p, const struct qos_path_req *r,
		    uint8_t part_sl, bool *pinned);

#endif
