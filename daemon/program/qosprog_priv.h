/* Shared by qosprog.c (the sweep phase, the records per node, the
 * transfers, the SA's table records) and qos_reload.c (SIGHUP): not for
 * other files. */
#ifndef IBSMD_QOSPROG_PRIV_H
#define IBSMD_QOSPROG_PRIV_H

#include "daemon/program/qosplan.h"
#include "daemon/program/qosprog.h"
#include "lib/guidtab.h"
#include "lib/log.h"

struct qosprog {
	struct guidtab nodes; /* struct qos_node by node GUID */
	bool reload_pending;  /* a reload waits for the running sweep */
	unsigned pi_pending;  /* a reload's PortInfo Get/Set pairs */
	/* the current pass */
	unsigned xfers;
	struct log_ratelimit fail_rl; /* per-node failure lines */
	uint32_t nodes_sent, failed, remapped;
	uint64_t sl2vl_sent, vlarb_sent;
	/* the tables the layered engine's layers need with qos.enable off
	 * (qos_layer_policy) */
	struct qos_policy layer_pol;
};

/* sm->qos_prog, made on first use; NULL on -ENOMEM. */
struct qosprog *qos_prog_get(struct sm *sm);
void qos_prog_free(struct sm *sm);
/* The OperationalVLs port p should run: both ends' VLCap and
 * qos.max_vls. */
uint8_t qos_want_op_vls(const struct sm *sm, const struct ib_port *p,
			uint8_t vl_cap);
/* Plans and sends the blocks node nd needs by policy pol (s NULL outside
 * a sweep). */
int qos_program_node(struct sm *sm, struct prog_pass *s, const struct fabric *f,
		     const struct ib_node *nd, struct qos_node *qn,
		     const struct qos_policy *pol);
/* A pass holds one count of its own, so that it ends (and logs its
 * summary) once, also when it sends nothing. */
void qos_pass_begin(struct qosprog *qp);
void qos_pass_end(struct qosprog *qp);
/* Hands the SA its SL2VL/VLArb record hooks (on) or takes them back. */
void qos_sa_attach(struct sm *sm, bool on);

#endif
