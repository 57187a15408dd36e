/* The cabling order of the hosts: see ca_order.h. */
#include "lib/ca_order.h"

#include <errno.h>
#include <stdlib.h>

static int cmp_slot(const void *a, const void *b)
{
	const struct ca_slot *x = a, *y = b;

	if (x->sw->guid != y->sw->guid)
		return x->sw->guid < y->sw->guid ? -1 : 1;
	return (int)x->sw_port - (int)y->sw_port;
}

int ca_order(const struct fabric *f, struct ca_slot **out, uint32_t *n)
{
	uint32_t k = 0, cap = fabric_count_hosts(f) + 1;
	struct ca_slot *v = malloc(cap * sizeof(*v));

	*out = NULL;
	*n = 0;
	if (!v)
		return -ENOMEM;
	for (uint32_t s = 0; s < f->n_switches; s++) {
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (!r || node_is_switch(r->node) || !r->lid ||
			    k + 1 >= cap)
				continue;
			v[k++] = (struct ca_slot){r, sw, (uint8_t)p};
		}
	}
	qsort(v, k, sizeof(*v), cmp_slot);
	*out = v;
	*n = k;
	return 0;
}
