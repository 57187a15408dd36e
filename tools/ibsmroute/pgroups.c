/* ibsmroute --port-groups: the daemon's port-group computation
 * (routing/pgroup/pgroup.h) on the routed fabric, every switch with the same
 * cap (--pg-cap, default 255: offline there is no PortGroupInfo to ask),
 * port-groups.dump and the "port_groups" member of the JSON report. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "lib/json.h"
#include "routing/pgroup/pgroup.h"
#include "tools/ibsmroute/ibsmroute.h"

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* SMPs ibsmd sends to program these tables on switches that held none
 * (daemon/program/pgprog.c): the PortGroupTable blocks up to Top, every
 * PortGroupForwardingTable block of the table, one PortGroupInfo. */
static uint64_t first_smps(const struct pgroup_table *t)
{
	uint64_t n = 0;

	for (uint32_t s = 0; s < t->n; s++) {
		const struct pgroup_sw *w = &t->sw[s];
		if (!w->enabled)
			continue;
		n += w->n_groups ? w->n_groups / 2u + 1 : 0;
		n += (w->ft_size + 63) / 64 + 1;
	}
	return n;
}

static void json_pg(FILE *out, const struct pgroup_table *t, unsigned cap,
		    double secs)
{
	struct json j;
	uint64_t smps = first_smps(t);

	fputs("\"port_groups\": ", out);
	json_init(&j, out, false);
	json_begin_object(&j);
	json_kv_uint(&j, "cap", cap);
	json_kv_uint(&j, "groups", t->groups);
	json_kv_uint(&j, "max_groups_per_switch", t->max_groups);
	json_kv_uint(&j, "max_sets_per_switch", t->max_sets);
	json_kv_double(&j, "avg_sets_per_switch", t->sets_avg);
	json_kv_uint(&j, "multipath_pairs", t->multi);
	json_kv_uint(&j, "covered_pairs", t->covered);
	json_kv_double(&j, "coverage", pgroup_coverage(t));
	json_kv_uint(&j, "smps_to_program", smps);
	json_kv_uint(&j, "bytes_to_program", smps * 256); /* one MAD each */
	json_kv_double(&j, "seconds", secs);
	json_end_object(&j);
	json_finish(&j);
}

int ibsmroute_pgroups(const struct ibsmroute_opts *o, struct fabric *f,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_result *res, FILE *json)
{
	struct pgroup_params prm = {
	    .cap = o->pg_cap,
	    .whole_sets_only = o->pg_whole_sets,
	    .order = res->updown_order,
	    .rank = res->updown_rank,
	};
	struct pgroup_table t;
	double t0 = now_s(), secs;
	int rc = pgroup_compute(f, h, pool, &prm, &t);

	secs = now_s() - t0;
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: port groups: %s\n", strerror(-rc));
		return rc;
	}
	if (t.mismatch)
		fprintf(stderr,
			"ibsmroute: warning: %llu LFT entries outside their "
			"candidate set got no port group\n",
			(unsigned long long)t.mismatch);
	if (o->dump_dir && (rc = pgroup_dump_write(o->dump_dir, f, &t)) < 0)
		fprintf(stderr, "ibsmroute: writing %s/port-groups.dump: %s\n",
			o->dump_dir, strerror(-rc));
	if (json)
		json_pg(json, &t, o->pg_cap, secs);
	pgroup_free(&t);
	return rc;
}
