/* Links held out of routing by health.policy isolate or disable.  The
 * sweep hands every model it is about to route to sm->hold_links: each
 * held link still in it is unlinked there and its two ports marked held
 * (lib/fabric.h), so unicast, port groups and multicast route as if it
 * were absent, while the sweep still brings the ports ACTIVE and the
 * performance manager still reads them.  A link is held only while the
 * model without it still reaches every node from the SM: a host's only
 * link, or the last link to a switch, is reported instead. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "daemon/perf/perf_priv.h"
#include "daemon/program/program.h"
#include "lib/log.h"

static bool is_link(const struct ib_node *n, unsigned p, uint64_t guid,
		    uint8_t port)
{
	return n->guid == guid && p == port;
}

/* Breadth-first from the SM's node over f's links, the link at (guid,
 * port) left out: true when every node is reached. */
bool health_link_spare(const struct fabric *f, uint64_t guid, uint8_t port)
{
	uint32_t *queue, head = 0, tail = 0;
	bool *seen;
	bool all;

	if (!f->sm_node)
		return false;
	queue = calloc(f->n_nodes, sizeof(*queue));
	seen = calloc(f->n_nodes, sizeof(*seen));
	if (!queue || !seen) {
		free(queue);
		free(seen);
		return false;
	}
	queue[tail++] = f->sm_node->idx;
	seen[f->sm_node->idx] = true;
	while (head < tail) {
		const struct ib_node *n = f->nodes[queue[head++]];

		for (unsigned p = 1; p <= n->nports; p++) {
			const struct ib_port *r = n->ports[p].remote;

			if (!r || seen[r->node->idx] ||
			    is_link(n, p, guid, port) ||
			    is_link(r->node, r->num, guid, port))
				continue;
			seen[r->node->idx] = true;
			queue[tail++] = r->node->idx;
		}
	}
	all = tail == f->n_nodes;
	free(queue);
	free(seen);
	return all;
}

/* Cuts one held link in f; false when it is not there as recorded or
 * cannot be spared. */
static bool hold_one(struct fabric *f, const struct hlink *l)
{
	struct ib_node *n = fabric_node_by_guid(f, l->guid[0]);
	struct ib_port *p, *r;

	if (!n || l->port[0] > n->nports)
		return false;
	p = &n->ports[l->port[0]];
	r = p->remote;
	if (!r || r->node->guid != l->guid[1] || r->num != l->port[1])
		return false;
	if (!health_link_spare(f, l->guid[0], l->port[0])) {
		log_warn("health: link %s port %u - %s port %u stays routed: "
			 "without it a node would be cut off",
			 l->desc[0], l->port[0], l->desc[1], l->port[1]);
		return false;
	}
	fabric_unlink(p);
	p->held = r->held = true;
	return true;
}

uint32_t health_hold_links(struct sm *sm, struct fabric *f)
{
	const struct health *h = sm->perf ? sm->perf->health : NULL;
	uint32_t cut = 0;

	for (uint32_t i = 0; h && i < h->n; i++)
		if (h->links[i].held && hold_one(f, &h->links[i]))
			cut++;
	if (cut) {
		uint32_t lost = fabric_dr_paths(f);

		log_notice("health: %u link%s held out of routing%s", cut,
			   cut == 1 ? "" : "s",
			   lost ? " (some nodes lost their route: bug)" : "");
	}
	return cut;
}

int health_set_phys(struct perf *pf, uint64_t guid, uint8_t port, bool disable)
{
	int rc = portsetup_phys_state(pf->sm, guid, port, disable, NULL, NULL);

	if (rc == 0)
		log_notice("health: 0x%016" PRIx64 " port %u set %s", guid,
			   port, disable ? "Disabled" : "Polling (enabled)");
	return rc;
}
