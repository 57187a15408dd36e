/* The port table: the ports' records in one array (100,000 ports at
 * 16,000 hosts), found by (GUID, port) through a lib/guidtab table that
 * holds each record's index + 1. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/perf/perf_priv.h"

struct pm_port *pm_port_find(const struct perf *pf, uint64_t guid, uint8_t port)
{
	uintptr_t i = (uintptr_t)guidtab_get(&pf->by_port, pm_key(guid, port));

	return i ? &pf->ports[i - 1] : NULL;
}

struct pm_port *pm_port_get(struct perf *pf, uint64_t guid, uint8_t port)
{
	struct pm_port *p = pm_port_find(pf, guid, port);

	if (p)
		return p;
	if (pf->n_ports == pf->cap_ports) {
		uint32_t cap = pf->cap_ports ? pf->cap_ports * 2 : 256;
		struct pm_port *np = realloc(pf->ports, cap * sizeof(*np));

		if (!np)
			return NULL;
		pf->ports = np;
		pf->cap_ports = cap;
	}
	if (guidtab_put(&pf->by_port, pm_key(guid, port),
			(void *)(uintptr_t)(pf->n_ports + 1)) < 0)
		return NULL;
	p = &pf->ports[pf->n_ports++];
	memset(p, 0, sizeof(*p));
	p->s.guid = guid;
	p->s.port = port;
	return p;
}

void pm_table_free(struct perf *pf)
{
	guidtab_free(&pf->by_port, NULL);
	free(pf->ports);
	pf->ports = NULL;
	pf->n_ports = pf->cap_ports = 0;
}
