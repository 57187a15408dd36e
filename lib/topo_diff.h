/* The cabling as planned against the cabling as found: two fabric models
 * (the expected one from a topology file, lib/topo.h; the discovered one)
 * compared link by link.  Nodes match by node GUID, else by a
 * NodeDescription that names one node on each side (a replaced card keeps
 * its name).  Every link found is judged once:
 *   - ok:       both ends match and the file links them to each other;
 *   - miswired: an end's port is linked in the file, to another peer or
 *               another peer port;
 *   - extra:    neither end's port is linked in the file (a cable the plan
 *               does not have, or a node it does not know).
 * A link of the file whose ports are both found unlinked (or whose nodes
 * are not found) is missing; one whose port is found linked elsewhere is
 * that link's miswiring, not reported twice.  Pure: no I/O. */
#ifndef IBSM_TOPO_DIFF_H
#define IBSM_TOPO_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"

enum topo_diff_kind { TOPO_MISSING, TOPO_EXTRA, TOPO_MISWIRED, TOPO_KINDS };

struct topo_end {
	uint64_t guid; /* 0: none */
	uint8_t port;
	char desc[IB_DESC_LEN + 1];
};

struct topo_diff_item {
	enum topo_diff_kind kind;
	/* missing: the link as the file has it; extra, miswired: as found
	 * (a on the discovered side, so enforcing can cut it) */
	struct topo_end a, b;
	/* miswired: the peers the file gives a's and b's ports (guid 0:
	 * the file leaves that port unlinked) */
	struct topo_end want_a, want_b;
};

struct topo_diff {
	struct topo_diff_item *v;
	uint32_t n, cap;
	uint32_t count[TOPO_KINDS];
	uint32_t expected_links; /* links the file has */
};

/* d is filled afresh (freed first).  0 or -ENOMEM (d then empty). */
int topo_diff(const struct fabric *expected, const struct fabric *found,
	      struct topo_diff *d);
void topo_diff_free(struct topo_diff *d);
/* One line for the log and `ibsmctl topology diff`, without a newline:
 *   missing "S1"[3](0x...) -- "H3"[1](0x...)
 *   extra "S2"[9](0x...) -- "H40"[1](0x...)
 *   miswired "L1"[5](0x...) -- "S1"[2](0x...): expected "L1"[5] --
 *     "S1"[1], "S1"[2] -- "L2"[5]      (or: "S1"[2] unlinked)
 * Returns what snprintf returns. */
int topo_diff_line(const struct topo_diff_item *it, char *buf, size_t len);
const char *topo_diff_kind_name(enum topo_diff_kind k);

#endif
