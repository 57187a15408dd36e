/* ibsmroute: the offline planner.  Reads a topology file and runs exactly
 * the daemon's code on it without MADs: LID assignment from the SM node
 * (lib/lids), hop tables, the chosen unicast engine, the LFT walk, then
 * multicast (mcast.c), the dump files and the JSON report of docs/design.md §6.
 * Exit 0 when everything was done, 1 when routing or writing failed, 2 on
 * bad usage or input. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/dump.h"
#include "lib/fabric.h"
#include "lib/json.h"
#include "lib/lids.h"
#include "lib/log.h"
#include "lib/topo.h"
#include "routing/engines.h"
#include "routing/hops/hops.h"
#include "routing/unicast/unicast.h"
#include "routing/verify/verify.h"
#include "tools/ibsmroute/ibsmroute.h"
#include "tools/ibsmroute/opts.h"

struct run {
	struct ibsmroute_opts o;
	struct route_cfg c;
	struct fabric f;
	struct hops h;
	struct pool *pool;
	struct ucast_params prm;
	struct ucast_result res;
	struct lft_check chk;
	struct shift_report shifts;
	double t_hops, t_route, seconds;
	bool progress;
	int routed;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(const struct run *r, const char *what, double secs)
{
	if (r->progress)
		fprintf(stderr, "ibsmroute: %s (%.3f s)\n", what, secs);
}

/* Topology, SM node and LIDs: input problems, so exit 2. */
static int load(struct run *r)
{
	char err[512];
	struct lids_stats st;
	int rc;

	fabric_init(&r->f);
	if (topo_load(&r->f, r->o.topology, err, sizeof(err)) < 0) {
		fprintf(stderr, "ibsmroute: %s\n", err);
		return 2;
	}
	r->progress = isatty(STDERR_FILENO) || r->f.n_nodes > 5000;
	if (r->o.sm_node && topo_set_sm_node(&r->f, r->o.sm_node) < 0) {
		fprintf(stderr,
			"ibsmroute: --sm-node %s: no such node (give a "
			"NodeDescription or a node/port GUID)\n",
			r->o.sm_node);
		return 2;
	}
	if (!r->f.sm_node) {
		fprintf(stderr, "ibsmroute: %s: no node to run the SM on\n",
			r->o.topology);
		return 2;
	}
	rc = lids_assign(&r->f, NULL, r->c.lmc, &st);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: LID assignment failed: %s\n",
			strerror(-rc));
		return 2;
	}
	if (lids_limit_message(&st, (uint8_t)r->c.lmc, err, sizeof(err)))
		fprintf(stderr, "ibsmroute: warning: %s\n", err);
	if (st.unreachable)
		fprintf(stderr,
			"ibsmroute: warning: %u nodes are not reachable "
			"from the SM node '%s' and get no LID\n",
			st.unreachable, r->f.sm_node->desc);
	return 0;
}

static int route(struct run *r)
{
	const struct ucast_engine *e = ucast_engine_find(r->o.routing);
	struct ucast_params prm = {
	    .updown_roots = r->c.n_roots ? r->c.roots : NULL,
	    .n_updown_roots = r->c.n_roots,
	    .updown_direction = r->c.direction,
	};

	r->prm = prm;
	double t0 = now_s(), t1;
	int rc;

	r->res.cdg_acyclic = -1;
	if ((rc = hops_compute(&r->f, &r->h, r->pool)) < 0) {
		fprintf(stderr, "ibsmroute: hop tables: %s\n", strerror(-rc));
		return 1;
	}
	t1 = now_s();
	r->t_hops = t1 - t0;
	progress(r, "hop tables", r->t_hops);
	rc = e->route(&r->f, &r->h, r->pool, &prm, &r->res);
	r->t_route = now_s() - t1 - r->res.verify_seconds;
	r->seconds = r->t_hops + r->t_route;
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: %s routing failed: %s\n", e->name,
			r->res.error[0] ? r->res.error : strerror(-rc));
		return 1;
	}
	r->routed = 1;
	progress(r, "unicast routing", r->t_route);
	return 0;
}

/* The walk (routing/verify_lft) is the same for every engine, so the JSON
 * metrics of two engines are counted the same way. */
static int check(struct run *r)
{
	double t0 = now_s();
	int engine_cdg = r->res.cdg_acyclic;
	int rc;

	rc = verify_shifts(&r->f, r->pool, r->o.max_shifts, &r->shifts);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: shift walk: %s\n", strerror(-rc));
		return 1;
	}
	progress(r, "shift permutations", now_s() - t0);
	/* An engine that reports verify_seconds filled the metrics with this
	 * same walk (and logged what was wrong): do not walk twice. */
	if (r->res.verify_seconds > 0) {
		if (r->res.cdg_acyclic == 0)
			fprintf(stderr,
				"ibsmroute: note: %s routes have "
				"credit loops\n",
				r->o.routing);
		return 0;
	}
	rc = verify_lft(&r->f, &r->h, r->pool, &r->chk);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: LFT walk: %s\n", strerror(-rc));
		return 1;
	}
	ucast_result_from_check(&r->chk, &r->res);
	/* An engine's own check may include routes from switches (updown's
	 * does); a cycle found by either check counts. */
	if (engine_cdg == 0)
		r->res.cdg_acyclic = 0;
	if (!r->chk.cdg_acyclic)
		fprintf(stderr, "ibsmroute: note: %s routes have a %s\n",
			r->o.routing, r->chk.cdg_why);
	progress(r, "LFT walk", now_s() - t0);
	if (r->chk.unreachable_pairs || r->chk.sw_unreachable ||
	    r->chk.lmc_unreachable)
		fprintf(stderr,
			"ibsmroute: warning: %llu CA pairs unreachable "
			"(%llu in loops), %llu CA-to-switch; first: %s\n",
			(unsigned long long)r->chk.unreachable_pairs,
			(unsigned long long)r->chk.loop_pairs,
			(unsigned long long)r->chk.sw_unreachable,
			r->chk.first_error);
	return 0;
}

static int no_mft(void *ctx, const struct ib_node *sw, uint32_t i,
		  uint16_t *mlid, uint64_t mask[4])
{
	(void)ctx, (void)sw, (void)i, (void)mlid, (void)mask;
	return 0;
}

static int write_dumps(struct run *r)
{
	const char *d = r->o.dump_dir;
	struct hops_fdbs_ctx hc = {.f = &r->f, .h = &r->h};
	const char *what = "subnet.lst";
	double t0 = now_s();
	int rc;

	if (mkdir(d, 0755) < 0 && errno != EEXIST) {
		fprintf(stderr, "ibsmroute: --dump-dir %s: %s\n", d,
			strerror(errno));
		return 1;
	}
	rc = dump_write_subnet_lst(d, &r->f);
	if (!rc && (what = "lfts.dump"))
		rc = dump_write_lfts(d, &r->f);
	if (!rc && (what = "fdbs"))
		rc = dump_write_fdbs(d, &r->f, hops_fdbs_cb, &hc);
	if (!rc && (what = "guid2lid"))
		rc = dump_write_guid2lid(d, &r->f);
	/* An empty MFT dump unless multicast writes one: ibdmchk -m needs
	 * the file. */
	if (!rc && (what = "mfts.dump"))
		rc = dump_write_mfts(d, &r->f, no_mft, NULL);
	if (!rc && r->res.n_roots && (what = "updn-roots.dump"))
		rc = dump_write_roots(d, r->res.roots, r->res.n_roots);
	if (!rc && r->res.ca_order && (what = "ftree-ca-order.dump"))
		rc = dump_write_ca_order(d, &r->f);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: writing %s/%s: %s\n", d, what,
			strerror(-rc));
		return 1;
	}
	progress(r, "dumps", now_s() - t0);
	return 0;
}

/* The top-level object is opened and closed here by hand because the
 * multicast driver appends its member as text; each member's value goes
 * through lib/json (escaping, no NaN). */
static int json_unicast(const struct run *r, FILE *out)
{
	const struct ucast_result *u = &r->res;
	struct json j;
	int rc;

	fputs("{\"topology\": ", out);
	json_init(&j, out, false);
	json_begin_object(&j);
	json_kv_uint(&j, "switches", r->f.n_switches);
	json_kv_uint(&j, "hosts", fabric_count_hosts(&r->f));
	json_kv_uint(&j, "links", fabric_count_links(&r->f));
	json_end_object(&j);
	if ((rc = json_finish(&j)) < 0)
		return rc;
	fputs(", \"unicast\": ", out);
	json_init(&j, out, false);
	json_begin_object(&j);
	json_kv_string(&j, "engine", r->o.routing);
	json_kv_double(&j, "seconds", r->seconds);
	json_kv_uint(&j, "unreachable_pairs", u->unreachable_pairs);
	json_kv_uint(&j, "max_hops", u->max_hops);
	json_kv_double(&j, "avg_hops", u->avg_hops);
	json_key(&j, "cdg_acyclic");
	if (u->cdg_acyclic < 0)
		json_null(&j);
	else
		json_bool(&j, u->cdg_acyclic);
	json_kv_uint(&j, "max_link_routes", u->max_link_routes);
	json_key(&j, "shifts");
	json_begin_object(&j);
	json_kv_uint(&j, "walked", r->shifts.shifts);
	json_kv_uint(&j, "of", r->shifts.shifts_total);
	json_kv_double(&j, "busiest_mean", r->shifts.mean_busiest);
	json_kv_uint(&j, "busiest_worst", r->shifts.worst);
	json_kv_uint(&j, "congestion_free", r->shifts.congestion_free);
	json_kv_uint(&j, "undelivered", r->shifts.undelivered);
	json_end_object(&j);
	json_end_object(&j);
	return json_finish(&j);
}

/* The text report, on standard output unless the JSON goes there. */
static void text_unicast(const struct run *r)
{
	const struct ucast_result *u = &r->res;
	const struct shift_report *s = &r->shifts;

	printf("unicast %s: %u hosts, %u switches, %.3f s; %u host pairs "
	       "unreachable, hops max %u avg %.2f\n",
	       r->o.routing, s->hosts, r->f.n_switches, r->seconds,
	       u->unreachable_pairs, u->max_hops, u->avg_hops);
	printf("  all pairs: busiest link %u routes\n", u->max_link_routes);
	printf("  shifts: %u of %u walked, busiest link mean %.2f worst %u, "
	       "%u congestion-free\n",
	       s->shifts, s->shifts_total, s->mean_busiest, s->worst,
	       s->congestion_free);
}

static int write_json(const struct run *r, const char *mcast, size_t mlen,
		      const char *pg, size_t plen, const char *rep, size_t rlen)
{
	FILE *j = stdout;

	if (strcmp(r->o.json_path, "-") != 0) {
		j = fopen(r->o.json_path, "w");
		if (!j) {
			fprintf(stderr, "ibsmroute: --json %s: %s\n",
				r->o.json_path, strerror(errno));
			return 1;
		}
	}
	if (json_unicast(r, j) < 0)
		fprintf(stderr, "ibsmroute: JSON writer error\n");
	/* json_finish ended the unicast value with a newline */
	if (mlen)
		fprintf(j, ", %s", mcast);
	if (plen)
		fprintf(j, ", %s", pg);
	if (rlen)
		fprintf(j, ", %s", rep);
	fputs("}\n", j);
	if ((j == stdout ? fflush(j) : fclose(j)) != 0) {
		fprintf(stderr, "ibsmroute: writing the JSON report failed\n");
		return 1;
	}
	return 0;
}

/* A member of the report written by fn into a memory buffer, so the
 * report gets it only when fn wrote one (fn gets NULL without --json).
 * fn's 0 or -errno, -EINVAL for bad input. */
static int into_buffer(struct run *r, int (*fn)(struct run *, FILE *),
		       char **buf, size_t *len)
{
	FILE *m = open_memstream(buf, len);
	int rc;

	if (!m)
		return -ENOMEM;
	rc = fn(r, r->o.json_path ? m : NULL);
	fclose(m);
	return rc;
}

static int mcast_member(struct run *r, FILE *json)
{
	return ibsmroute_mcast(&r->o, &r->f, &r->h, r->pool, json);
}

static int pgroups_member(struct run *r, FILE *json)
{
	return r->o.port_groups ? ibsmroute_pgroups(&r->o, &r->f, &r->h,
						    r->pool, &r->res, json)
				: 0;
}

static int repair_member(struct run *r, FILE *json)
{
	return r->o.n_cuts ? ibsmroute_repair(&r->o, &r->f, r->pool, &r->prm,
					      &r->res, json)
			   : 0;
}

/* Exit status of a member: 2 for bad input (--groups, --cut), else 1. */
static int member_status(int rc)
{
	return rc == -EINVAL ? 2 : rc < 0 ? 1 : 0;
}

static int run(struct run *r)
{
	char *mbuf = NULL, *pbuf = NULL, *rbuf = NULL;
	size_t mlen = 0, plen = 0, rlen = 0;
	int rc = load(r), mrc;

	if (rc)
		return rc;
	r->pool = pool_create(r->o.threads);
	if (!r->pool) {
		fprintf(stderr, "ibsmroute: cannot start %u threads\n",
			r->o.threads);
		return 1;
	}
	if ((rc = route(r)) || (rc = check(r)))
		return rc;
	if (r->o.dump_dir && (rc = write_dumps(r)))
		return rc;
	mrc = into_buffer(r, pgroups_member, &pbuf, &plen) < 0;
	if (!mrc)
		mrc = member_status(into_buffer(r, mcast_member, &mbuf, &mlen));
	if (!r->o.json_path || strcmp(r->o.json_path, "-"))
		text_unicast(r);
	if (!mrc)
		mrc = member_status(into_buffer(r, repair_member, &rbuf, &rlen));
	if (r->o.json_path)
		rc = write_json(r, mbuf, mlen, pbuf, plen, rbuf, rlen);
	free(mbuf);
	free(pbuf);
	free(rbuf);
	return rc ? rc : mrc;
}

int main(int argc, char **argv)
{
	struct run r;
	int rc;

	log_set_ident("ibsmroute");
	memset(&r, 0, sizeof(r));
	if (ibsmroute_parse(argc, argv, &r.o, &r.c) < 0) {
		ibsmroute_opts_free(&r.o, &r.c);
		return 2;
	}
	rc = run(&r);
	ucast_result_free(&r.res);
	hops_free(&r.h);
	pool_destroy(r.pool);
	fabric_free(&r.f);
	ibsmroute_opts_free(&r.o, &r.c);
	return rc;
}
