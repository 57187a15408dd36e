/* Canonical listing of a fabric (topo_dump): nodes sorted by GUID, then
 * every CA port GUID, then every link once from its lower (GUID, port) end,
 * so the listing of a parsed net file and of ibnetdiscover's view of the
 * same fabric under ibsim can be compared with diff. */
#include "lib/topo.h"

#include <inttypes.h>
#include <stdlib.h>

static const char *type_name(uint8_t t)
{
	return t == IB_NODE_SWITCH ? "Switch" : t == IB_NODE_CA ? "Ca" : "Rt";
}

static const char *width_name(uint8_t w)
{
	switch (w) {
	case 1: return "1x";
	case 2: return "4x";
	case 4: return "8x";
	case 8: return "12x";
	case 16: return "2x";
	default: return "?x";
	}
}

static const char *speed_name(const struct ib_port *p)
{
	enum ib_speed s = port_speed(p);

	return s == IB_SPEED_NONE ? "?DR" : ib_speed_name(s);
}

static int by_guid(const void *a, const void *b)
{
	uint64_t x = (*(struct ib_node *const *)a)->guid;
	uint64_t y = (*(struct ib_node *const *)b)->guid;

	return x < y ? -1 : x > y;
}

static void dump_links(struct ib_node *n, FILE *out)
{
	for (unsigned p = 1; p <= n->nports; p++) {
		struct ib_port *r = n->ports[p].remote;
		if (!r || r->node->guid < n->guid ||
		    (r->node == n && r->num < p))
			continue;
		fprintf(out, "link 0x%016" PRIx64 "[%u] 0x%016" PRIx64
			"[%u] %s%s\n", n->guid, p, r->node->guid, r->num,
			width_name(n->ports[p].width_active),
			speed_name(&n->ports[p]));
	}
}

void topo_dump(const struct fabric *f, FILE *out)
{
	struct ib_node **v = malloc((f->n_nodes + 1) * sizeof(*v));

	if (!v)
		return;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		v[i] = f->nodes[i];
	qsort(v, f->n_nodes, sizeof(*v), by_guid);
	fprintf(out, "# %u nodes, %u switches, %u links\n", f->n_nodes,
		f->n_switches, fabric_count_links(f));
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = v[i];
		fprintf(out, "node 0x%016" PRIx64 " %s ports=%u sysguid=0x%016"
			PRIx64 " lid=%u desc=\"%s\"\n", n->guid,
			type_name(n->type), n->nports, n->sysguid,
			n->ports[0].lid, n->desc);
		if (n->type == IB_NODE_SWITCH)
			continue;
		for (unsigned p = 1; p <= n->nports; p++)
			fprintf(out, "port 0x%016" PRIx64 "[%u] guid=0x%016"
				PRIx64 " lid=%u\n", n->guid, p,
				n->ports[p].guid, n->ports[p].lid);
	}
	for (uint32_t i = 0; i < f->n_nodes; i++)
		dump_links(v[i], out);
	free(v);
}
