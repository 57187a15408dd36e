/* In-memory direct networks beside updown_fab.h's tori and random ones:
 * HyperX (every row and column a complete graph) and dragonfly (complete
 * groups, one global link between every two groups), as ibsmgen builds
 * them.  Header-only, like updown_fab.h. */
#ifndef DIRECT_FAB_H
#define DIRECT_FAB_H

#include "updown_fab.h"

/* X x Y HyperX, switches "X" with GUID 0x1000 + index. */
static inline void fab_hyperx(struct fabric *f, unsigned X, unsigned Y,
			      unsigned hosts)
{
	unsigned n = X * Y;
	struct ib_node **s = calloc(n, sizeof(*s));

	fabric_init(f);
	for (unsigned i = 0; i < n; i++)
		s[i] = fab_sw(f, 0x1000 + i, X + Y - 2 + hosts, "X", i);
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = i + 1; j < n; j++)
			if (i % X == j % X || i / X == j / X)
				fab_connect(f, s[i], s[j]);
	for (unsigned i = 0; i < n; i++)
		for (unsigned hh = 0; hh < hosts; hh++)
			fab_host(f, s[i], fab_free_port(s[i]));
	free(s);
	fab_lids(f);
}

/* Dragonfly of a * h + 1 groups of a switches ("D", GUID 0x1000 +
 * index): complete inside a group, group i's global link k to group k
 * (k < i) or k + 1, leaving from switch k / h. */
static inline void fab_dragonfly(struct fabric *f, unsigned a, unsigned h,
				 unsigned hosts)
{
	unsigned groups = a * h + 1, n = groups * a;
	struct ib_node **s = calloc(n, sizeof(*s));

	fabric_init(f);
	for (unsigned i = 0; i < n; i++)
		s[i] = fab_sw(f, 0x1000 + i, a - 1 + h + hosts, "D", i);
	for (unsigned g = 0; g < groups; g++)
		for (unsigned i = 0; i < a; i++)
			for (unsigned j = i + 1; j < a; j++)
				fab_connect(f, s[g * a + i], s[g * a + j]);
	for (unsigned gi = 0; gi < groups; gi++)
		for (unsigned gj = gi + 1; gj < groups; gj++)
			fab_connect(f, s[gi * a + (gj - 1) / h],
				    s[gj * a + gi / h]);
	for (unsigned i = 0; i < n; i++)
		for (unsigned hh = 0; hh < hosts; hh++)
			fab_host(f, s[i], fab_free_port(s[i]));
	free(s);
	fab_lids(f);
}

#endif
