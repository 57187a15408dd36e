/* ibsmroute's multicast driver: runs the --groups events in file order on
 * the routed fabric with the chosen engine, verifies the result from the
 * MFT entries, writes mfts.dump (OpenSM's opensm.mcfdbs format) and
 * mcgroups.dump (docs/design.md §4.4), and the "multicast" member of the JSON
 * report.  multicast.merge (extend | rebuild) is read from the -o
 * overrides; --mft-size 0 or absent means unlimited (colors are counted).
 * A delete of an unknown MGID or a create of a live one is an input error
 * (exit 2 path via -EINVAL). */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "lib/dump.h"
#include "routing/engines.h"
#include "routing/mcast/mcast.h"
#include "tools/ibsmroute/ibsmroute.h"
#include "tools/ibsmroute/mcast_events.h"
#include "tools/ibsmroute/mcast_order.h"
#include "tools/ibsmroute/mcast_plan.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* multicast.merge / multicast.switch_threshold from -o (the last wins;
 * opts.c has validated them against the configuration schema).  The
 * environment variable IBSM_MC_PESSIMISTIC_TREES sets the merge shortcut
 * threshold for experiments (no configuration key). */
static int mcast_params(const struct ibsmroute_opts *o, struct mc_params *p)
{
	mcast_params_default(p);
	p->mft_size = o->mft_size_set ? o->mft_size : 0;
	if (getenv("IBSM_MC_PESSIMISTIC_TREES"))
		p->pessimistic_trees = (unsigned)strtoul(
		    getenv("IBSM_MC_PESSIMISTIC_TREES"), NULL, 0);
	for (unsigned i = 0; i < o->n_overrides; i++) {
		const char *kv = o->overrides[i];
		if (!strncmp(kv, "multicast.switch_threshold=", 27)) {
			char *e;
			unsigned long v = strtoul(kv + 27, &e, 0);
			if (*e || !v || v > 1000000) {
				fprintf(
				    stderr,
				    "ibsmroute: -o %s: expected 1..1000000\n",
				    kv);
				return -EINVAL;
			}
			p->switch_threshold = (unsigned)v;
		} else if (!strncmp(kv, "multicast.merge=", 16)) {
			const char *v = kv + 16;
			if (!strcmp(v, "extend"))
				p->merge = MC_MERGE_EXTEND;
			else if (!strcmp(v, "rebuild"))
				p->merge = MC_MERGE_REBUILD;
			else {
				fprintf(stderr,
					"ibsmroute: -o multicast.merge=%s: "
					"expected extend or rebuild\n",
					v);
				return -EINVAL;
			}
		}
	}
	return 0;
}

struct runner {
	struct mc_ctx *c;
	struct mc_plan plan; /* forecast (limited MFT only) */
	bool fits;	     /* the unlimited trial fits: it is the result */
	struct mc_events ev;
	struct mgid_map map;
	bool progress;
	/* the rival routing (file order, no forecast): the figures and the
	 * engine time of the routing not kept */
	double rival_seconds;
	uint32_t rival_efi;
	double rival_tfi;
};

static int run_event(struct runner *r, const struct mc_event *e,
		     const char *path)
{
	uint32_t gid = mgid_map_get(&r->map, e->mgid);
	char s[INET6_ADDRSTRLEN];
	int rc;

	inet_ntop(AF_INET6, e->mgid, s, sizeof(s));
	if (e->op == '-') {
		if (gid == UINT32_MAX) {
			fprintf(
			    stderr,
			    "ibsmroute: %s:%u: delete of unknown group %s\n",
			    path, e->line, s);
			return -EINVAL;
		}
		mgid_map_del(&r->map, e->mgid);
		return mcast_group_remove(r->c, gid);
	}
	if (gid != UINT32_MAX) {
		fprintf(stderr, "ibsmroute: %s:%u: group %s already exists\n",
			path, e->line, s);
		return -EINVAL;
	}
	rc = mcast_group_add(r->c, e->mgid, r->ev.ports + e->first, e->n, &gid);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: %s:%u: group %s not routed: %s\n",
			path, e->line, s, strerror(-rc));
		return rc;
	}
	return mgid_map_put(&r->map, e->mgid, gid);
}

static int run_events(struct runner *r, const char *path)
{
	double t0 = now_s(), next = t0 + 2.0;
	int rc = 0;

	for (uint32_t i = 0; i < r->ev.n && rc == 0; i++) {
		rc = run_event(r, &r->ev.ev[i], path);
		if (rc == 0 && r->plan.off && !r->fits)
			rc = mc_plan_take(&r->plan, r->c, r->ev.ev[i].seq);
		if ((i & 63) == 0 && now_s() > next) {
			next = now_s() + 2.0;
			fprintf(stderr,
				"ibsmroute: multicast: %u/%u events, %u "
				"groups, %u trees, %u colors (%.1f s)\n",
				i + 1, r->ev.n, r->c->live_groups,
				r->c->live_trees, mcast_colors_top(r->c),
				now_s() - t0);
		}
	}
	return rc;
}

/* ---- dumps (formats shared with ibsmd: routing/mcast/mcast_dump.c) ---- */

static int write_dumps(const char *dir, const struct mc_ctx *c,
		       struct fabric *f)
{
	int rc = mcast_dump_mfts(dir, c, f);
	const char *what = "mfts.dump";

	if (rc == 0 && (what = "mcgroups.dump"))
		rc = mcast_dump_groups(dir, c, f);
	if (rc < 0)
		fprintf(stderr, "ibsmroute: writing %s/%s: %s\n", dir, what,
			strerror(-rc));
	return rc;
}

/* The rival's part of the JSON report: whether it was routed and kept,
 * and the figures of the routing that was not kept. */
static void write_rival(FILE *j, const struct runner *r, bool ran, bool kept)
{
	if (!ran) {
		fprintf(j, ", \"rival\": \"none\"");
		return;
	}
	fprintf(j,
		", \"rival\": \"%s\", \"other_max_efi\": %u, "
		"\"other_avg_tfi\": %.4f",
		kept ? "kept" : "dropped", r->rival_efi, r->rival_tfi);
}

static void write_json(FILE *j, const char *engine, unsigned mft,
		       const struct mc_stats *st, double forecast_s,
		       bool verified)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	fprintf(
	    j,
	    "\"multicast\": {\"engine\": \"%s\", \"mft_size\": %u, "
	    "\"groups\": %u, \"trees\": %u, \"colors_used\": %u, "
	    "\"merged_groups\": %u, \"max_efi\": %u, \"avg_efi\": %.4f, "
	    "\"max_tfi\": %u, \"avg_tfi\": %.4f, \"max_height_excess\": %u, "
	    "\"seconds\": %.6f, \"ms_per_group\": %.6f, "
	    "\"median_ms_per_group\": %.6f, \"verified\": %s, "
	    "\"fbtc_failures\": %" PRIu64 ", \"fctb_successes\": %" PRIu64 ", "
	    "\"merges\": %" PRIu64 ", \"absorbing_merges\": %" PRIu64 ", "
	    "\"pessimistic_merges\": %" PRIu64 ", \"early_shares\": %" PRIu64
	    ", "
	    "\"extension_merges\": %" PRIu64 ", "
	    "\"forecast_seconds\": %.6f, \"max_rss_mb\": %.1f",
	    engine, mft, st->groups, st->trees, st->colors_used,
	    st->merged_groups, st->max_efi, st->avg_efi, st->max_tfi,
	    st->avg_tfi, st->max_height_excess, st->seconds, st->ms_per_group,
	    st->median_ms, verified ? "true" : "false", st->fbtc_fail,
	    st->fctb_ok, st->merges, st->absorbs, st->pessimistic, st->shares,
	    st->extends, forecast_s, ru.ru_maxrss / 1024.0);
}

/* With an MFT limit and MR4LMS: the unlimited trial in file order; if it
 * fits the limit it is the result (r->c, r->fits), else the events are
 * reordered so shapes take turns and the trial is the forecast of the
 * limited run.  IBSM_MC_NO_FORECAST and IBSM_MC_FILE_ORDER switch the two
 * off for comparisons. */
static int plan(const struct ibsmroute_opts *o, struct runner *r,
		struct fabric *f, const struct hops *h, struct pool *pool,
		const char *engine, const struct mc_params *prm)
{
	int rc;

	if (!prm->mft_size || strcmp(engine, "mr4lms") ||
	    getenv("IBSM_MC_NO_FORECAST"))
		return 0;
	rc = mc_plan_make(&r->plan, f, h, pool, engine, &r->ev, prm->mft_size,
			  &r->c);
	if (rc < 0) {
		fprintf(stderr, "ibsmroute: multicast trial routing: %s\n",
			strerror(-rc));
		return rc;
	}
	if ((r->fits = r->c != NULL))
		return 0;
	if (!getenv("IBSM_MC_FILE_ORDER") &&
	    (rc = mc_events_interleave(&r->ev)) < 0)
		fprintf(stderr, "ibsmroute: --groups %s: %s\n", o->groups_file,
			strerror(-rc));
	return rc;
}

static int cmp_seq(const void *a, const void *b)
{
	const struct mc_event *x = a, *y = b;

	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The planned routing's rival: the events in file order with no forecast,
 * as the daemon routes groups that arrive one by one (mr4lms_share.c: its
 * own estimate of the trees to come).  On the 3-level pruned trees and the
 * TaihuLight model that rule gives a lower max EFI and mean TFI than the
 * plan (th40960 128x32x40 at MFT 128: 133 / 3.48 against 243 / 5.07), on
 * the 64x16x34 ones a lower max EFI but a higher mean TFI, elsewhere the
 * same or worse (docs/benchmarks.md).  So both are routed and the rival
 * is kept only when it is at least as good in both (and better in one):
 * neither figure of the plan gets worse.  0 with *kept true when the rival
 * replaced r->c (and r->map) and *st the kept routing's figures, -errno. */
static int rival(struct runner *r, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_params *prm, const char *path, bool *kept,
		 struct mc_stats *st)
{
	struct runner a = {.ev = r->ev};
	struct mc_stats sp, sa;
	const struct mc_stats *other;
	int rc;

	*kept = false;
	if (!(a.ev.ev = malloc((size_t)r->ev.n * sizeof(*a.ev.ev) + 1)))
		return -ENOMEM;
	memcpy(a.ev.ev, r->ev.ev, (size_t)r->ev.n * sizeof(*a.ev.ev));
	qsort(a.ev.ev, a.ev.n, sizeof(*a.ev.ev), cmp_seq);
	if ((rc = mcast_create(&a.c, f, h, pool, engine, prm)) < 0 ||
	    (rc = run_events(&a, path)) < 0)
		goto out;
	mcast_stats(r->c, &sp);
	mcast_stats(a.c, &sa);
	*kept = sa.max_efi <= sp.max_efi && sa.avg_tfi <= sp.avg_tfi &&
		(sa.max_efi < sp.max_efi || sa.avg_tfi < sp.avg_tfi);
	*st = *kept ? sa : sp;
	other = *kept ? &sp : &sa;
	r->rival_seconds = other->seconds;
	r->rival_efi = other->max_efi;
	r->rival_tfi = other->avg_tfi;
	if (*kept) {
		struct mc_ctx *c = r->c;
		struct mgid_map m = r->map;
		r->c = a.c;
		r->map = a.map;
		a.c = c;
		a.map = m;
	}
out:
	mcast_destroy(a.c);
	mgid_map_free(&a.map);
	free(a.ev.ev);
	return rc;
}

int ibsmroute_mcast(const struct ibsmroute_opts *o, struct fabric *f,
		    const struct hops *h, struct pool *pool, FILE *json)
{
	const char *engine = o->mcast_engine ? o->mcast_engine : "mr4lms";
	struct runner r = {0};
	bool rival_ran = false, rival_kept = false;
	struct mc_params prm;
	struct mc_stats st;
	char err[512];
	int rc;

	if (!o->groups_file)
		return 0;
	if ((rc = mcast_params(o, &prm)) < 0)
		return rc;
	if ((rc = mc_events_load(o->groups_file, f, &r.ev, err, sizeof(err))) <
	    0) {
		fprintf(stderr, "ibsmroute: --groups %s\n", err);
		return rc;
	}
	if ((rc = plan(o, &r, f, h, pool, engine, &prm)) < 0)
		goto out;
	if (!r.c && (rc = mcast_create(&r.c, f, h, pool, engine, &prm)) < 0) {
		fprintf(stderr, "ibsmroute: multicast engine %s: %s\n", engine,
			rc == -EINVAL ? "unknown engine" : strerror(-rc));
		goto out;
	}
	if (r.plan.off && !r.fits && (rc = mc_plan_announce(&r.plan, r.c)) < 0)
		goto out;
	if (!r.fits && (rc = run_events(&r, o->groups_file)) < 0)
		goto out;
	rival_ran = r.plan.off && !r.fits && !getenv("IBSM_MC_PLAN_ONLY");
	if (rival_ran && (rc = rival(&r, f, h, pool, engine, &prm,
				     o->groups_file, &rival_kept, &st)) < 0)
		goto out;
	if (!rival_ran)
		mcast_stats(r.c, &st);
	if (!r.fits)
		st.seconds += r.plan.seconds + r.rival_seconds;
	if (r.c->routed)
		st.ms_per_group = st.seconds * 1e3 / (double)r.c->routed;
	rc = mcast_verify(r.c, err, sizeof(err));
	if (rc < 0)
		fprintf(stderr,
			"ibsmroute: multicast verification failed: %s\n", err);
	fprintf(stderr,
		"ibsmroute: multicast %s: %u groups, %u trees, %u colors, %u "
		"merged, max EFI %u, %.3f s (%.3f ms/group, median %.3f)\n",
		engine, st.groups, st.trees, st.colors_used, st.merged_groups,
		st.max_efi, st.seconds, st.ms_per_group, st.median_ms);
	if (rival_ran)
		fprintf(stderr,
			"ibsmroute: multicast: %s kept (max EFI %u, mean TFI "
			"%.2f), %s routing had max EFI %u, mean TFI %.2f\n",
			rival_kept ? "file order" : "plan", st.max_efi,
			st.avg_tfi,
			rival_kept ? "the planned" : "the file-order",
			r.rival_efi, r.rival_tfi);
	if (json) {
		write_json(json, engine, prm.mft_size, &st,
			   r.fits ? 0.0 : r.plan.seconds, rc == 0);
		write_rival(json, &r, rival_ran, rival_kept);
		fputc('}', json);
	}
	if (o->dump_dir) {
		int drc = write_dumps(o->dump_dir, r.c, f);
		if (rc == 0)
			rc = drc;
	}
out:
	mcast_destroy(r.c);
	mc_plan_free(&r.plan);
	mc_events_free(&r.ev);
	mgid_map_free(&r.map);
	return rc;
}
