/* M_Key management (docs/design.md §3.10): which key every SMP carries,
 * what the PortInfo Sets install (m_key.* in ibsmd.yaml), the keys kept
 * in the state directory across restarts, and what a bad-M_Key trap
 * makes the SM do.  Hangs off struct sm (sm->mkey); the engine asks it
 * for each SMP's key through txn_set_mkey_hook(). */
#ifndef IBSMD_MKEY_H
#define IBSMD_MKEY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "mad/smp_port.h"
#include "mad/smp_sm.h"

struct sm;


/* Whether port pn of n carries an M_Key of its own (CA ports, a
 * switch's port 0; a switch's external ports are governed by port 0). */
static inline bool mkey_port_keyed(const struct ib_node *n, uint8_t pn)
{
	return !node_is_switch(n) || pn == 0;
}

/* A PortInfo Set to port pn of n is built from pi (as the port reported
 * it): learns the key the port showed, then writes the M_Key, protect
 * bits and lease the configuration asks for.  True when those differ
 * from what the port reported (a Set is needed).  m_key.mode off leaves
 * them as reported. */
bool mkey_pi_fill(struct sm *sm, const struct ib_node *n, uint8_t pn,
		  struct smp_port_info *pi);
/* The port acknowledged a PortInfo Set carrying key: it holds it now. */
void mkey_pi_acked(struct sm *sm, const struct ib_node *n, uint8_t pn,
		   uint64_t key);


#endif
