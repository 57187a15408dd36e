/* --cut: a link or switch failure repaired as ibsmd's incremental sweep
 * repairs it (docs/design.md §3.4).  The routed fabric is copied with its
 * LFTs, the named links are cut, nodes the SM node no longer reaches
 * leave the copy, and the copy is routed with keep_lft and the routing's
 * state, as route_compute() does after a trap.  The same copy is then
 * routed afresh, as a new `ibsmd --once` on the failed fabric would, and
 * both are measured against the tables before the failure: entries and
 * 64-LID blocks changed (what the daemon would send), the busiest link
 * of all pairs and of the shifts.  With --dump-dir, the repaired copy's
 * subnet.lst, lfts.dump and (layered) path-sl.dump go to DIR/cut, for
 * checkers that trust only the dumps. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "lib/dump.h"
#include "lib/json.h"
#include "lib/topo.h"
#include "routing/engines.h"
#include "routing/unicast/layers.h"
#include "routing/verify/verify.h"
#include "tools/ibsmroute/ibsmroute.h"

struct outcome {
	double seconds; /* hop tables and routing */
	uint64_t entries, blocks;
	struct lft_check chk;
	struct shift_report sh;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* "NAME:PORT" cuts one link, "NAME" every link of the node (a name
 * whose last colon is not followed by a port number is a name).
 * Returns the links cut, or -EINVAL after saying why. */
static int cut_one(struct fabric *f, const char *spec)
{
	const char *colon = strrchr(spec, ':');
	unsigned port = 0, cut = 0, first, last;
	char name[256], tail;
	struct ib_node *n;

	if (colon && sscanf(colon + 1, "%u%c", &port, &tail) == 1 && port)
		snprintf(name, sizeof(name), "%.*s", (int)(colon - spec), spec);
	else
		snprintf(name, sizeof(name), "%s", spec), port = 0;
	n = topo_find_node(f, name);
	if (!n || port > n->nports) {
		fprintf(stderr, "ibsmroute: --cut %s: no such node or port\n",
			spec);
		return -EINVAL;
	}
	first = port ? port : 1;
	last = port ? port : n->nports;
	for (unsigned p = first; p <= last; p++)
		if (n->ports[p].remote) {
			fabric_unlink(&n->ports[p]);
			cut++;
		}
	return (int)cut;
}

/* As the incremental sweep: nodes the SM node no longer reaches go. */
static void drop_cut_off(struct fabric *f)
{
	if (!fabric_dr_paths(f))
		return;
	for (uint32_t i = f->n_nodes; i-- > 0;)
		if (!f->nodes[i]->seen)
			fabric_remove_node(f, f->nodes[i]);
	fabric_dr_paths(f);
}

/* Entries and blocks of g's LFTs that differ from f's (same switch GUID). */
static void count_changes(const struct fabric *f, const struct fabric *g,
			  struct outcome *o)
{
	for (uint32_t s = 0; s < g->n_switches; s++) {
		const struct ib_node *b = g->switches[s];
		const struct ib_node *a = fabric_node_by_guid(f, b->guid);
		uint32_t last_block = UINT32_MAX;
		for (uint32_t l = 0; l <= g->max_lid && l < b->lft_size; l++) {
			uint8_t pa =
			    a && l < a->lft_size ? a->lft[l] : LFT_NO_PORT;
			if (pa == b->lft[l])
				continue;
			o->entries++;
			if (l / 64 != last_block)
				o->blocks++;
			last_block = l / 64;
		}
	}
}

struct sl_fill {
	const struct ucast_layers *ly;
	const struct fabric *f;
};

static int cut_sl_fill(void *ctx, uint16_t lid, int8_t *sl)
{
	const struct sl_fill *c = ctx;

	return layers_lid_sls(c->ly, c->f, lid, sl);
}

/* The repaired copy's tables into dir (made if missing). */
static int dump_cut(const char *dir, const struct fabric *k,
		    const struct ucast_result *res)
{
	struct sl_fill c = {res->layers, k};
	int rc = 0;

	char parent[4096];

	snprintf(parent, sizeof(parent), "%s", dir);
	if (strrchr(parent, '/'))
		*strrchr(parent, '/') = '\0';
	if ((mkdir(parent, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(dir, 0755) < 0 && errno != EEXIST))
		return -errno;
	rc = dump_write_subnet_lst(dir, k);
	if (rc == 0)
		rc = dump_write_lfts(dir, k);
	if (rc == 0 && res->layers)
		rc = dump_write_path_sl(dir, k, cut_sl_fill, &c);
	return rc;
}

static int route_copy(struct fabric *k, struct pool *pool,
		      const struct ucast_engine *e,
		      const struct ucast_params *prm, struct outcome *o,
		      const struct ibsmroute_opts *opt, const char *dump_to)
{
	struct ucast_result res = {0};
	struct hops h = {0};
	double t0 = now_s();
	int rc = hops_compute(k, &h, pool);

	if (rc == 0)
		rc = e->route(k, &h, pool, prm, &res);
	o->seconds = now_s() - t0 - res.verify_seconds;
	if (rc == 0)
		rc = verify_lft(k, &h, pool, &o->chk);
	if (rc == 0)
		rc = verify_shifts(k, pool, opt->max_shifts, &o->sh);
	if (rc == 0 && dump_to && (rc = dump_cut(dump_to, k, &res)) < 0)
		fprintf(stderr, "ibsmroute: --cut: writing %s: %s\n", dump_to,
			strerror(-rc));
	else if (rc < 0)
		fprintf(stderr,
			"ibsmroute: --cut: routing the failed fabric: "
			"%s\n",
			res.error[0] ? res.error : strerror(-rc));
	ucast_result_free(&res);
	hops_free(&h);
	return rc;
}

static void json_outcome(struct json *j, const struct outcome *o)
{
	json_kv_double(j, "seconds", o->seconds);
	json_kv_uint(j, "entries_changed", o->entries);
	json_kv_uint(j, "blocks_changed", o->blocks);
	json_kv_uint(j, "unreachable_pairs", o->chk.unreachable_pairs);
	json_kv_uint(j, "max_link_routes", o->chk.max_link_routes);
	json_kv_double(j, "shifts_busiest_mean", o->sh.mean_busiest);
	json_kv_uint(j, "shifts_busiest_worst", o->sh.worst);
}

static void report(const struct ibsmroute_opts *opt, unsigned cut,
		   const struct outcome *inc, const struct outcome *fresh,
		   FILE *json)
{
	struct json j;

	if (!opt->json_path || strcmp(opt->json_path, "-"))
		printf("repair after cutting %u links: %.3f s, %llu entries "
		       "in %llu blocks changed, all pairs busiest %llu, "
		       "shifts mean %.2f worst %u\n"
		       "  fresh computation: %.3f s, %llu entries in %llu "
		       "blocks changed, all pairs busiest %llu, shifts mean "
		       "%.2f worst %u\n",
		       cut, inc->seconds, (unsigned long long)inc->entries,
		       (unsigned long long)inc->blocks,
		       (unsigned long long)inc->chk.max_link_routes,
		       inc->sh.mean_busiest, inc->sh.worst, fresh->seconds,
		       (unsigned long long)fresh->entries,
		       (unsigned long long)fresh->blocks,
		       (unsigned long long)fresh->chk.max_link_routes,
		       fresh->sh.mean_busiest, fresh->sh.worst);
	if (!json)
		return;
	fputs("\"repair\": ", json);
	json_init(&j, json, false);
	json_begin_object(&j);
	json_kv_uint(&j, "cut_links", cut);
	json_outcome(&j, inc);
	json_key(&j, "fresh");
	json_begin_object(&j);
	json_outcome(&j, fresh);
	json_end_object(&j);
	json_end_object(&j);
	json_finish(&j);
}

int ibsmroute_repair(const struct ibsmroute_opts *o, const struct fabric *f,
		     struct pool *pool, const struct ucast_params *prm,
		     const struct ucast_result *res, FILE *json)
{
	const struct ucast_engine *e = ucast_engine_find(o->routing);
	struct ucast_params keep = *prm;
	struct fabric k, fr;
	struct outcome inc = {0}, fresh = {0};
	char cutdir[4096];
	int cut = 0, rc;

	if (fabric_copy(&k, f) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < o->n_cuts; i++) {
		rc = cut_one(&k, o->cuts[i]);
		if (rc < 0) {
			fabric_free(&k);
			return rc;
		}
		cut += rc;
	}
	drop_cut_off(&k);
	if (fabric_copy(&fr, &k) < 0) {
		fabric_free(&k);
		return -ENOMEM;
	}
	keep.keep_lft = true;
	keep.prev = res->state;
	if (o->dump_dir)
		snprintf(cutdir, sizeof(cutdir), "%s/cut", o->dump_dir);
	rc = route_copy(&k, pool, e, &keep, &inc, o,
			o->dump_dir ? cutdir : NULL);
	if (rc == 0)
		rc = route_copy(&fr, pool, e, prm, &fresh, o, NULL);
	if (rc == 0) {
		count_changes(f, &k, &inc);
		count_changes(f, &fr, &fresh);
		report(o, (unsigned)cut, &inc, &fresh, json);
	}
	fabric_free(&k);
	fabric_free(&fr);
	return rc;
}
