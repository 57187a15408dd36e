/* Which SL2VL and VLArb blocks a node needs (docs/design.md §5.2), below
 * the transport: a node's record holds what each port reported (VLCap,
 * OperationalVLs as set, VLArb capacities, IsSLMappingSupported) and what
 * it last acknowledged; planning compares that with the policy's tables
 * and lists the blocks to send; an acknowledged block updates the record.
 * qosprog.c does the I/O. */
#ifndef IBSMD_QOSPLAN_H
#define IBSMD_QOSPLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "lib/qos.h"
#include "mad/smp.h"
#include "mad/smp_qos.h"

#define QOS_ARB_BLOCKS 4

struct qos_port {
	uint8_t vl_cap, op_vls, high_cap, low_cap;
	uint8_t high_limit;  /* VLHighLimit as set */
	uint8_t peer_vl_cap; /* the linked peer's VLCap (a reload's copy) */
	bool linked;
	bool sl_map;	   /* IsSLMappingSupported (a switch: port 0's) */
	uint8_t arb_known; /* bit b - 1: VLArb block b as last written */
	/* [QOS_ARB_BLOCKS], allocated when the first block is written: with
	 * QoS off no port holds one (docs/design.md §3.6) */
	struct qos_arb (*arb)[SMP_VLARB_BLOCK];
};

struct qos_node {
	uint64_t guid;
	bool sw;
	/* SwitchInfo OptimizedSLtoVLMappingProgramming: one SMP writes the
	 * table of every input port to one output port */
	bool opt_sl2vl;
	uint8_t nports;
	struct qos_port *ports; /* [0..nports] */
	/* [in * (nports + 1) + out], both allocated when the first SL2VL
	 * block is written (NULL: nothing known), so that with QoS off a
	 * switch costs no (nports + 1)^2 matrix (docs/design.md §3.6) */
	uint8_t (*sl2vl)[QOS_NUM_SLS];
	bool *sl2vl_known;
};

/* One block to send: its attribute modifier and data, and where it goes
 * in the record (SL2VL: in * (nports + 1) + out, or with all_in the
 * output port; VLArb: port * 4 + block - 1). */
struct qos_item {
	uint32_t mod;
	uint32_t slot;
	bool all_in;
	uint8_t data[SMP_DATA_SIZE];
};

struct qos_items {
	struct qos_item *v;
	uint32_t n, cap;
};

/* NULL on -ENOMEM; every table unknown. */
struct qos_node *qos_node_new(uint64_t guid, bool sw, uint8_t nports);
void qos_node_free(void *qn);
/* Port p (reset, or its link came up): its row and column unknown. */
void qos_node_forget_port(struct qos_node *qn, unsigned p);

/* The blocks a switch (every linked output port; input port 0 and the
 * linked ones) or one CA port needs, appended to sl (SL2VL) and arb
 * (VLArb).  *remapped counts ports whose cut VLArb tables serve not every
 * VL the policy maps to.  0 or -ENOMEM. */
int qos_plan_switch(const struct qos_policy *p, const struct qos_node *qn,
		    struct qos_items *sl, struct qos_items *arb,
		    uint32_t *remapped);
int qos_plan_ca_port(const struct qos_policy *p, const struct qos_node *qn,
		     unsigned port, struct qos_items *sl, struct qos_items *arb,
		     uint32_t *remapped);
/* An acknowledged block of attribute attr: the record holds it now. */
void qos_item_written(struct qos_node *qn, uint16_t attr,
		      const struct qos_item *it);

#endif
