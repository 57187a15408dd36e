/* Is another subnet manager running on our own port?  Asked at start-up,
 * before ibsmd claims IsSM, when the port's CapabilityMask already carries
 * it (mad_port_info.is_sm): some other process holds the port's issm
 * device.
 *
 * What refuses a second SM on one port depends on what is below libibumad.
 * The kernel (ib_umad, ib_mad) refuses a second agent for the SMI
 * requests (mad_port_register says so, -EADDRINUSE) and keeps the issm
 * device to one holder; it clears IsSM when the holder exits.  ibsim
 * refuses neither: two SMs on one simulated port both run and fight, and
 * a SIGKILLed client's IsSM stays set until ibsim next writes to it.  So
 * the flag alone is not proof: an SMInfo Get to our own port (0 hops)
 * goes to the process that holds it, and only an answer is. */
#ifndef IBSM_MAD_SM_PROBE_H
#define IBSM_MAD_SM_PROBE_H

#include "mad/smp_sm.h"
#include "mad/txn.h"

/* 1 with *si filled when an SM answers on our port, 0 when none does
 * within about a second (a stale IsSM), -errno when the Get could not be
 * sent.  Runs the engine (txn_run) until the answer or the timeout:
 * call before the engine's owner installs its request handler, so that
 * a kernel handing our own Get back to us leaves it unanswered. */
int sm_probe_own_port(struct txn_engine *eng, struct smp_sm_info *si);

#endif
