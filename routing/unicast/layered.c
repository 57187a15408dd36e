/* The layered unicast engine: shortest, balanced paths made deadlock-free
 * by spreading them over up/down layers, one per VL (layers.h,
 * docs/design.md §5).  Orientations (layered_orient.c), one tree per
 * destination LID (layered_tree.c), then two checks that trust only the
 * LFTs: the LFT walk for the metrics, and the dependency graph over
 * (link, VL) with every pair on the VL of its SL (routing/verify,
 * cdg_pairs.c).  Tables that fail it are an error, never a result. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "routing/unicast/layered.h"
#include "routing/verify/verify.h"

#define DEFAULT_VLS 8 /* offline, where no port tells its VLCap */

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Data VLs every linked port can run (VLCap codes 1..5: 1, 2, 4, 8, 15
 * VLs), 0 when no port says. */
unsigned layers_vlcap(const struct fabric *f)
{
	unsigned cap = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			uint8_t c = n->ports[p].vl_cap;
			unsigned vls = c >= 5 ? 15 : c ? 1u << (c - 1) : 0;
			if (vls && n->ports[p].remote && (!cap || vls < cap))
				cap = vls;
		}
	}
	return cap;
}

/* The layers to make: routing.layered.max_vls (0: the VLCap), never
 * more than the VLCap allows. */
static unsigned n_layers(const struct fabric *f, const struct ucast_params *prm)
{
	unsigned cap = layers_vlcap(f), want = prm ? prm->layered_max_vls : 0;

	if (!want)
		return cap ? cap : DEFAULT_VLS;
	if (cap && want > cap) {
		log_notice("layered: routing.layered.max_vls is %u but some "
			   "port runs only %u data VLs: %u layers",
			   want, cap, cap);
		return cap;
	}
	return want > LAYERS_MAX ? LAYERS_MAX : want;
}

/* ---- the check: SLs per LID for cdg_check_vl_pairs ---- */

struct sl_ctx {
	const struct ucast_layers *ly;
	const struct fabric *f;
	struct layers_sl_scratch *s;   /* per worker */
	uint64_t (*pairs)[LAYERS_MAX]; /* per worker: CA pairs per SL */
	uint32_t *hosts;
};

static void lid_sls(void *arg, unsigned worker, uint16_t lid,
		    const uint8_t *col, int8_t *sl)
{
	struct sl_ctx *c = arg;
	const struct ib_port *o = fabric_port_by_lid(c->f, lid);
	uint64_t *pairs = c->pairs[worker];

	layers_lid_sl(c->ly, c->f, lid, col, &c->s[worker], sl);
	if (!o || node_is_switch(o->node) || o->lid != lid || !o->remote)
		return;
	for (uint32_t x = 0; x < c->f->n_switches; x++) {
		uint64_t k = c->hosts[x];
		if (x == (uint32_t)o->remote->node->sw_idx)
			continue; /* no switch link: no VL to speak of */
		if (k && sl[x] >= 0)
			pairs[sl[x]] += k;
	}
}

static int sl_ctx_init(struct sl_ctx *c, unsigned nw, const struct sw_graph *g)
{
	c->s = calloc(nw, sizeof(*c->s));
	c->pairs = calloc(nw, sizeof(*c->pairs));
	c->hosts = g->hosts;
	if (!c->s || !c->pairs)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++)
		if (layers_sl_scratch_init(&c->s[i], c->f->n_switches) < 0)
			return -ENOMEM;
	return 0;
}

static void sl_ctx_free(struct sl_ctx *c, unsigned nw)
{
	for (unsigned i = 0; c->s && i < nw; i++)
		layers_sl_scratch_free(&c->s[i]);
	free(c->s);
	free(c->pairs);
}

static int check_layers(struct fabric *f, const struct sw_graph *g,
			struct pool *pool, struct ucast_layers *ly,
			struct cdg_vl_report *r)
{
	unsigned nw = pool_threads(pool);
	struct sl_ctx c = {.ly = ly, .f = f};
	int rc = sl_ctx_init(&c, nw, g);

	if (rc == 0)
		rc = cdg_check_vl_pairs(f, pool, lid_sls, &c, NULL, NULL, r);
	for (unsigned i = 0; rc == 0 && i < nw; i++)
		for (unsigned l = 0; l < LAYERS_MAX; l++)
			ly->pairs[l] += c.pairs[i][l];
	for (unsigned l = 0; l < LAYERS_MAX; l++)
		if (ly->pairs[l])
			ly->used = (uint8_t)(l + 1);
	sl_ctx_free(&c, nw);
	return rc;
}

/* Metrics from the LFT walk, then the (link, VL) graph: 0, -ENOMEM, or
 * -EDEADLK with res->error set when the tables must not be used. */
static int check(struct fabric *f, const struct sw_graph *g,
		 const struct hops *h, struct pool *pool,
		 struct ucast_layers *ly, struct ucast_result *res)
{
	struct lft_check chk;
	struct cdg_vl_report r;
	double t0 = clock_s(CLOCK_MONOTONIC);
	double c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	int rc = verify_lft(f, h, pool, &chk);

	if (rc == 0)
		rc = check_layers(f, g, pool, ly, &r);
	res->verify_seconds = clock_s(CLOCK_MONOTONIC) - t0;
	res->verify_cpu_seconds = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
	if (rc < 0)
		return rc;
	ucast_result_from_check(&chk, res);
	res->cdg_acyclic = r.acyclic;
	if ((!r.acyclic || r.no_sl_pairs)) {
		snprintf(res->error, sizeof(res->error),
			 "layered tables rejected: %.180s%" PRIu64
			 " pairs without a legal layer",
			 r.acyclic ? "" : r.why, r.no_sl_pairs);
		return -EDEADLK;
	}
	if (chk.unreachable_pairs || chk.sw_unreachable)
		log_warn("layered: %" PRIu64 " CA pairs and %" PRIu64
			 " CA-to-switch pairs unreachable; first: %s",
			 chk.unreachable_pairs, chk.sw_unreachable,
			 chk.first_error);
	if (ly->fallback_trees || chk.non_shortest_pairs)
		log_info(
		    "layered: %u layers, %" PRIu64 " CA pairs on paths "
		    "longer than the shortest, %u trees with escape paths "
		    "(no legal shortest path in any layer); more VLs would "
		    "shorten them",
		    ly->n_layers, chk.non_shortest_pairs, ly->fallback_trees);
	return 0;
}

/* The repair after a failure (keep_lft with the state of a layered
 * routing of the same fabric): the layers kept, only the LIDs whose trees
 * lost a link routed again (layered_keep.c, layers_route_keep).  Each of
 * those trees is checked legal in a layer from every switch; the others
 * keep their paths in unchanged orientations, so every path stays up*
 * then down* in its SL's layer and each VL stays acyclic (docs/design.md
 * §5.3) without the whole fabric's check.  Negative errno when the
 * fabric must be routed afresh (-ENOMEM: not at all). */
static int keep_route(struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, const struct ucast_params *prm,
		      struct ucast_layers *ly, struct ucast_result *res)
{
	uint32_t n = 0;
	int rc;

	if (!prm || !prm->keep_lft || !prm->prev)
		return -ESRCH;
	rc = layers_restore(ly, f, g, h, prm->prev);
	if (rc == 0)
		rc = layers_route_keep(f, g, h, ly, &n);
	if (rc == 0)
		log_info("layered: repair kept the layers and every tree the "
			 "failure left whole; %u LIDs routed again, %d layers "
			 "oriented afresh",
			 n, __builtin_popcount(ly->reoriented));
	else if (rc != -ENOMEM)
		log_info("layered: repair cannot keep the layers (%s); "
			 "routing afresh",
			 rc == -ESRCH ? "a switch is new or a layer's root "
					"was lost"
				      : "a repaired tree left a switch without "
					"a legal layer");
	/* legal by construction and by the per-tree check, but the (link,
	 * VL) graph itself is not built: "not checked" */
	res->cdg_acyclic = -1;
	return rc;
}

/* Afresh: orientations, trees, then the check of the whole fabric. */
static int full_route(struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_params *prm, struct ucast_layers *ly,
		      struct ucast_result *res)
{
	int rc = layers_alloc(ly, f, n_layers(f, prm));

	if (rc == 0)
		rc = layers_orient(ly, f, g, h, pool, prm, res);
	if (rc == 0)
		rc = layers_route(f, g, h, ly);
	if (rc == 0)
		rc = check(f, g, h, pool, ly, res);
	return rc;
}

static int layered_route(struct fabric *f, const struct hops *h,
			 struct pool *pool, const struct ucast_params *prm,
			 struct ucast_result *res)
{
	struct sw_graph g = {0};
	struct ucast_layers *ly = calloc(1, sizeof(*ly));
	int rc;

	res->cdg_acyclic = -1;
	if (!h || h->n != f->n_switches || !f->n_switches) {
		snprintf(res->error, sizeof(res->error),
			 "layered: hop table missing or stale (%u switches, "
			 "table for %u)",
			 f->n_switches, h ? h->n : 0);
		free(ly);
		return -EINVAL;
	}
	if (f->n_switches > UINT16_MAX) {
		snprintf(res->error, sizeof(res->error),
			 "layered: %u switches, more than the 65,535 it "
			 "routes",
			 f->n_switches);
		free(ly);
		return -E2BIG;
	}
	rc = ly ? sw_graph_build(f, &g) : -ENOMEM;
	if (rc == 0) {
		rc = keep_route(f, &g, h, prm, ly, res);
		if (rc < 0 && rc != -ENOMEM) {
			layers_free(ly);
			rc = full_route(f, &g, h, pool, prm, ly, res);
		}
	}
	if (rc == 0 && layers_save(ly, f, &g, &res->state) < 0)
		rc = -ENOMEM;
	if (rc == -ENOMEM)
		snprintf(res->error, sizeof(res->error),
			 "layered: out of memory routing %u switches",
			 f->n_switches);
	if (rc == 0) {
		res->layers = ly;
		ly = NULL;
	}
	layers_free(ly);
	free(ly);
	sw_graph_free(&g);
	return rc;
}

const struct ucast_engine ucast_layered = {.name = "layered",
					   .route = layered_route};
