/* daemon/topology: the cabling as planned (topology.expected, an
 * ibnetdiscover output or ibsim net file) compared with each heavy
 * sweep's discovered model before it is routed: missing, extra and
 * miswired links logged by name, shown by `ibsmctl topology diff` and on
 * the metrics page; with topology.enforce, miswired and extra links are
 * cut from the model, so their ports are neither armed nor activated nor
 * routed over (docs/design.md §3.4). */
#ifndef IBSMD_TOPOLOGY_H
#define IBSMD_TOPOLOGY_H

struct sm;
struct fabric;

/* Reads topology.expected (none: nothing to compare), registers the
 * control command and the metric family, and follows the keys on SIGHUP.
 * 0, or -errno when the file cannot be read or parsed (logged with its
 * line): the daemon does not start on a plan it cannot read. */
int topology_init(struct sm *sm);
void topology_fini(struct sm *sm);
/* The sweep calls it with a heavy or incremental sweep's model before
 * LIDs and routing: compares, logs, and with topology.enforce cuts the
 * miswired and extra links from f (never the SM's own link).  Returns the
 * links cut. */
unsigned topology_check(struct sm *sm, struct fabric *f);

#endif
