/* Small helpers of the SA server: GIDs of ports, nodes in GUID order. */
#include "daemon/sa/sa_priv.h"

#include <stdlib.h>
#include <string.h>

/* OpenSM keeps nodes and ports in maps keyed by the GUID in network byte
 * order and compares the keys as host (little-endian) integers, so its
 * tables come out sorted by the byte-reversed GUID.  We answer in the
 * same order: under ibsim (no RMPP) only the first MAD of a table gets
 * through, and saquery then shows the same records for both SMs. */
static uint64_t osm_key(uint64_t guid)
{
	return __builtin_bswap64(guid);
}

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = osm_key((*(struct ib_node *const *)a)->guid);
	uint64_t y = osm_key((*(struct ib_node *const *)b)->guid);

	return x < y ? -1 : x > y;
}

static int cmp_port_guid(const void *a, const void *b)
{
	const struct ib_port *p = *(struct ib_port *const *)a;
	const struct ib_port *q = *(struct ib_port *const *)b;
	uint64_t x = osm_key(node_port(p->node, p->num)->guid);
	uint64_t y = osm_key(node_port(q->node, q->num)->guid);

	return x < y ? -1 : x > y;
}

struct ib_port **sa_endports_sorted(const struct fabric *f, uint32_t *n)
{
	struct ib_port **v;
	uint32_t k = 0, cap = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++)
		cap += node_is_switch(f->nodes[i]) ? 1 : f->nodes[i]->nports;
	v = malloc((cap + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *nd = f->nodes[i];

		if (node_is_switch(nd)) {
			if (nd->ports[0].lid)
				v[k++] = &nd->ports[0];
			continue;
		}
		for (uint8_t pn = 1; pn <= nd->nports; pn++)
			if (nd->ports[pn].lid)
				v[k++] = &nd->ports[pn];
	}
	qsort(v, k, sizeof(*v), cmp_port_guid);
	*n = k;
	return v;
}

struct ib_node **sa_nodes_sorted(const struct fabric *f)
{
	struct ib_node **v = malloc((f->n_nodes + 1) * sizeof(*v));

	if (!v)
		return NULL;
	memcpy(v, f->nodes, f->n_nodes * sizeof(*v));
	qsort(v, f->n_nodes, sizeof(*v), cmp_guid);
	return v;
}

void sa_port_gid(const struct sa *sa, const struct ib_port *p, uint8_t gid[16])
{
	sa_put64(gid, sa->sm.subnet_prefix);
	sa_put64(gid + 8, node_port(p->node, p->num)->guid);
}

struct ib_port *sa_port_by_gid(const struct sa *sa, const uint8_t gid[16])
{
	if (sa_get64(gid) != sa->sm.subnet_prefix)
		return NULL;
	return fabric_port_by_guid(sa->fabric, sa_get64(gid + 8));
}
