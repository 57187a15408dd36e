/* ibsmroute's option parsing (opts.c): the command line of docs/design.md §1 and
 * the -o KEY=VALUE overrides that matter offline. */
#ifndef IBSMROUTE_OPTS_H
#define IBSMROUTE_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "lib/config.h"

#include "tools/ibsmroute/ibsmroute.h"

#define ROUTE_CFG_MAX_ROOTS 256

/* Settings that are not in struct ibsmroute_opts; the strings point
 * into cfg, the configuration built from the -o overrides. */
struct route_cfg {
	const char *roots[ROUTE_CFG_MAX_ROOTS]; /* routing.updown.roots */
	unsigned n_roots;
	const char *direction; /* routing.updown.direction */
	uint8_t lmc;	       /* sm.lmc */
	struct config cfg;
	bool have_cfg;
};

/* Which settings an explicit option gave (they win over -o). */
struct opt_seen {
	bool routing, mcast, mft, threads, max_vls;
};

void ibsmroute_usage(FILE *o);
/* Fills o and c from argv.  0, or -EINVAL after printing why. */
int ibsmroute_parse(int argc, char **argv, struct ibsmroute_opts *o,
		    struct route_cfg *c);
void ibsmroute_opts_free(struct ibsmroute_opts *o, struct route_cfg *c);

#endif
