/* ibsmroute internals shared between its unicast driver (main.c) and its
 * multicast driver (mcast.c). */
#ifndef IBSMROUTE_H
#define IBSMROUTE_H

#include <stdbool.h>
#include <stdio.h>

#include "lib/fabric.h"
#include "lib/pool.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"

struct ibsmroute_opts {
	const char *topology;
	const char *routing;	  /* ftree | minhop | updown */
	const char *mcast_engine; /* mr4lms | fulb | minhop | sssp */
	unsigned mft_size;	  /* 0 = unlimited offline */
	int mft_size_set;
	const char *groups_file;  /* NULL: no multicast events */
	const char *sm_node;
	const char *dump_dir;	  /* NULL: no dumps */
	const char *json_path;	  /* NULL: no report; "-" = stdout */
	unsigned threads;
	unsigned max_shifts;	  /* --shifts: 0 = every shift */
	bool port_groups;	  /* --port-groups */
	unsigned pg_cap;	  /* --pg-cap, 1..255 */
	bool pg_whole_sets;	  /* --pg-whole-sets: baseline, no subsets */
	/* --cut NODE[:PORT], in command-line order */
	const char **cuts;
	unsigned n_cuts;
	/* -o KEY=VALUE, raw, in command-line order */
	const char **overrides;
	unsigned n_overrides;
};

/* Runs the --groups events on the routed fabric with the chosen engine;
 * writes mfts.dump and mcgroups.dump into dump_dir when set; writes the
 * "multicast" member of the JSON report (`"multicast": {...}`, no trailing
 * comma) to json when non-NULL.  0, or negative errno after printing why. */
int ibsmroute_mcast(const struct ibsmroute_opts *o, struct fabric *f,
		    const struct hops *h, struct pool *pool, FILE *json);

/* --port-groups: computes the groups (routing/pgroup/pgroup.h), writes
 * port-groups.dump into dump_dir when set and the "port_groups" member
 * (`"port_groups": {...}`, no trailing comma) to json when non-NULL.
 * 0 or negative errno after printing why. */
int ibsmroute_pgroups(const struct ibsmroute_opts *o, struct fabric *f,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_result *res, FILE *json);

/* --cut: the failure repaired as the daemon's incremental sweep would
 * (keep_lft with the routing's state), and routed afresh; prints both and
 * writes the "repair" member (`"repair": {...}`, no trailing comma) to
 * json when non-NULL.  prm: the parameters f was routed with, res its
 * result.  0 or negative errno after printing why. */
int ibsmroute_repair(const struct ibsmroute_opts *o, const struct fabric *f,
		     struct pool *pool, const struct ucast_params *prm,
		     const struct ucast_result *res, FILE *json);

#endif
