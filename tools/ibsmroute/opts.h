/* ibsmroute's option parsing (opts.c): the command line of DESIGN §1 and
 * the -o KEY=VALUE overrides that matter offline. */
#ifndef IBSMROUTE_OPTS_H
#define IBSMROUTE_OPTS_H

#include <stdio.h>

#include "tools/ibsmroute/ibsmroute.h"

#define ROUTE_CFG_MAX_ROOTS 256

/* Unicast settings that are not in struct ibsmroute_opts. */
struct route_cfg {
	const char *roots[ROUTE_CFG_MAX_ROOTS]; /* routing.updown.roots */
	unsigned n_roots;
	const char *direction;			 /* routing.updown.direction */
};

void ibsmroute_usage(FILE *o);
/* Fills o and c from argv.  0, or -EINVAL after printing why. */
int ibsmroute_parse(int argc, char **argv, struct ibsmroute_opts *o,
		    struct route_cfg *c);

#endif
