/* The updown unicast engine: roots (updown_roots.c), directions
 * (updown_dir.c), LFTs (updown_paths.c), then an independent check of the
 * tables (cdg.c).  Tables that fail the check are reported as an error,
 * never handed back as a result, so ibsmd does not program them. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/log.h"
#include "routing/unicast/ftree.h"
#include "routing/unicast/updown.h"
#include "routing/verify/verify.h"

int sw_graph_build(const struct fabric *f, struct sw_graph *g)
{
	uint32_t n = f->n_switches, k = 0;

	memset(g, 0, sizeof(*g));
	g->n = n;
	g->start = calloc(n + 1, sizeof(*g->start));
	g->hosts = calloc(n + 1, sizeof(*g->hosts));
	if (!g->start || !g->hosts)
		goto nomem;
	for (uint32_t s = 0; s < n; s++) {
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *peer = port_peer_node(sw, (uint8_t)p);
			if (!peer)
				continue;
			if (!node_is_switch(peer))
				g->hosts[s]++;
			else if (peer != sw) /* a loopback cable routes nothing */
				k++;
		}
		g->start[s + 1] = k;
	}
	g->peer = malloc((k + 1) * sizeof(*g->peer));
	g->port = malloc(k + 1);
	if (!g->peer || !g->port)
		goto nomem;
	k = 0;
	for (uint32_t s = 0; s < n; s++) {
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *peer = port_peer_node(sw, (uint8_t)p);
			if (peer && node_is_switch(peer) && peer != sw) {
				g->peer[k] = (uint32_t)peer->sw_idx;
				g->port[k++] = (uint8_t)p;
			}
		}
	}
	return 0;
nomem:
	sw_graph_free(g);
	return -ENOMEM;
}

void sw_graph_free(struct sw_graph *g)
{
	free(g->start);
	free(g->peer);
	free(g->port);
	free(g->hosts);
	memset(g, 0, sizeof(*g));
}

/* CA pairs the cabling itself cannot connect (separate components). */
static uint64_t disconnected_pairs(const struct sw_graph *g,
				   const struct hops *h)
{
	uint64_t c = 0;

	for (uint32_t a = 0; a < g->n; a++)
		for (uint32_t b = 0; g->hosts[a] && b < g->n; b++)
			if (g->hosts[b] && hops_sw(h, a, b) == HOPS_INF)
				c += (uint64_t)g->hosts[a] * g->hosts[b];
	return c;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int check_tables(const struct fabric *f, const struct sw_graph *g,
			const struct hops *h, struct pool *pool,
			const uint32_t *order, struct ucast_result *res)
{
	struct cdg_report r;
	double t0 = now_s();
	int rc = cdg_verify(f, pool, order, &r);

	res->verify_seconds = now_s() - t0;
	if (rc < 0)
		return rc;
	res->unreachable_pairs = (uint32_t)r.unreachable_pairs;
	res->max_hops = r.max_hops;
	res->avg_hops = r.avg_hops;
	res->max_link_routes = (uint32_t)r.max_link_routes;
	res->cdg_acyclic = r.acyclic;
	uint64_t apart = disconnected_pairs(g, h);
	if (!r.acyclic || r.illegal_turns || r.unreachable_pairs > apart ||
	    (!apart && r.sw_unreachable_pairs)) {
		/* r.why is as long as res->error: keep its head */
		snprintf(res->error, sizeof(res->error),
			 "updown tables rejected: %.200s", r.why);
		return -EDEADLK;
	}
	if (r.unreachable_pairs)
		log_warn("updown: %" PRIu64 " CA pairs are in separate fabric "
			 "components and cannot be routed",
			 r.unreachable_pairs);
	return 0;
}

/* rank is filled for BFS; for DFS it is freed and set to NULL. */
static int make_order(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, const struct ucast_params *prm,
		      struct ucast_result *res, uint32_t *order,
		      uint32_t **rank)
{
	const char *dir = prm && prm->updown_direction ? prm->updown_direction
						       : "bfs";
	int rc;

	if (strcmp(dir, "bfs") == 0) {
		rc = updown_order_bfs(f, g, res->roots, res->n_roots, order,
				      *rank);
	} else if (strcmp(dir, "dfs") == 0) {
		free(*rank);
		*rank = NULL;
		/* One DFS tree: with several pre-labelled roots a root's LID
		 * is only reachable from below its own subtree (nothing is up
		 * of a root), so DFS keeps the first root only. */
		if (res->n_roots > 1) {
			log_notice("updown: dfs direction uses one root, "
				   "0x%016" PRIx64 " (%s), of the %u chosen",
				   res->roots[0]->guid, res->roots[0]->desc,
				   res->n_roots);
			res->n_roots = 1;
		}
		rc = updown_order_dfs(f, g, h, res->roots, res->n_roots, order);
	} else {
		snprintf(res->error, sizeof(res->error),
			 "updown: unknown direction '%s' (bfs or dfs)", dir);
		return -EINVAL;
	}
	if (rc == 0 && updown_check_dag(g, order) < 0) {
		snprintf(res->error, sizeof(res->error),
			 "updown: %s link directions are not acyclic", dir);
		return -ELOOP;
	}
	return rc;
}

static int cmp_node_guid(const void *a, const void *b)
{
	const struct ib_node *x = *(struct ib_node *const *)a;
	const struct ib_node *y = *(struct ib_node *const *)b;

	return x->guid < y->guid ? -1 : x->guid > y->guid;
}

/* The roots are the tree's top level and the BFS ranks its levels from
 * the top: then the fat-tree tables (ftree.h) are up*-then-down* paths
 * of these ranks, shortest ones, and as good for shifts as ftree's. */
static bool roots_are_tops(const struct ft_tree *t,
			   const struct ucast_result *res, const uint32_t *rank)
{
	uint32_t tops = 0;

	if (!rank)
		return false;
	for (uint32_t s = 0; s < t->n; s++) {
		if (rank[s] != (uint32_t)(t->height - t->level[s]))
			return false;
		tops += t->level[s] == t->height;
	}
	return tops == res->n_roots;
}

/* The LFTs: the up/down fill, then, where the roots are a tree's top
 * level (t non-NULL), the fat-tree fill for host LIDs.  Switch LIDs keep
 * the up/down routes: a shortest path to a switch may turn down then
 * up. */
static int fill_lfts(struct fabric *f, const struct sw_graph *g,
		     const struct hops *h, struct pool *pool,
		     const struct ucast_params *prm, const uint32_t *order,
		     const uint32_t *rank, const struct ft_tree *t,
		     struct ucast_result *res)
{
	int rc = updown_fill_lfts(f, g, pool, order, rank);

	if (rc == 0 && t && roots_are_tops(t, res, rank)) {
		log_info("updown: the roots are the top of a fat tree; host "
			 "LIDs follow the hosts' cabling order (as ftree)");
		rc = ft_route_tree(f, h, pool, t, prm, true, res);
	}
	return rc;
}

/* Bitsets of the tops each switch reaches going up only (itself if a
 * top): [n * W] words.  NULL on failure. */
static uint64_t *top_sets(const struct ft_tree *t, uint32_t *W)
{
	uint32_t ntop = t->above[t->height - 1];
	uint64_t *b;

	*W = ntop / 64 + 1;
	b = calloc((size_t)t->n * *W + 1, sizeof(*b));
	for (uint32_t s = 0; b && s < t->n; s++)
		for (uint32_t k = 0; k < ntop; k++) {
			uint32_t v = t->order[k]; /* tops come first */
			if (v == s || ft_via(t, s, v) != FT_NONE)
				b[(size_t)s * *W + k / 64] |= 1ull << (k & 63);
		}
	return b;
}

/* Whether, with the tops as roots, every host switch reaches every switch
 * up then down: some top is above both.  A missing link can leave a
 * switch whose tops the hosts of a leaf do not reach (its LID would be
 * unroutable); then the usual root choice applies. */
static int tops_serve_all(const struct fabric *f, const struct ft_tree *t,
			  const struct sw_graph *g)
{
	uint32_t W;
	uint64_t *b = top_sets(t, &W);
	bool ok = true;

	(void)f;
	if (!b)
		return -ENOMEM;
	for (uint32_t x = 0; ok && x < t->n; x++)
		for (uint32_t u = 0; g->hosts[x] && ok && u < t->n; u++) {
			uint64_t any = 0;
			for (uint32_t k = 0; k < W; k++)
				any |=
				    b[(size_t)x * W + k] & b[(size_t)u * W + k];
			ok = any != 0;
		}
	free(b);
	return ok;
}

/* On a fat tree without configured roots, the roots are its top level
 * (sorted by GUID, as updown_pick_roots() gives them) when they serve
 * every host. */
static int pick_roots(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_params *prm, const struct ft_tree *t,
		      struct ucast_result *res)
{
	uint32_t n = 0;
	int rc;

	if (!t || (prm && prm->n_updown_roots) ||
	    (rc = tops_serve_all(f, t, g)) == 0)
		return updown_pick_roots(f, g, h, pool, prm, res);
	if (rc < 0)
		return rc;
	free(res->roots);
	res->roots = malloc((t->n + 1) * sizeof(*res->roots));
	if (!res->roots)
		return -ENOMEM;
	for (uint32_t i = 0; i < t->n; i++)
		if (t->level[t->order[i]] == t->height)
			res->roots[n++] = f->switches[t->order[i]];
	qsort(res->roots, n, sizeof(*res->roots), cmp_node_guid);
	res->n_roots = n;
	return 0;
}

/* The tree, when the fabric is one (NULL otherwise); -ENOMEM. */
static int find_tree(const struct fabric *f, const struct hops *h,
		     struct pool *pool, struct ft_tree *t, struct ft_tree **out)
{
	char why[160];
	int rc = ft_tree_build(f, h, pool, t, why, sizeof(why));

	*out = rc == 0 ? t : NULL;
	return rc == -ENOMEM ? rc : 0;
}

static int updown_route(struct fabric *f, const struct hops *h,
			struct pool *pool, const struct ucast_params *prm,
			struct ucast_result *res)
{
	struct sw_graph g;
	struct ft_tree tree, *t = NULL;
	uint32_t *order = NULL, *rank = NULL;
	int rc;

	res->cdg_acyclic = -1;
	if (!h || h->n != f->n_switches) {
		snprintf(res->error, sizeof(res->error),
			 "updown: hop table missing or stale (%u switches, "
			 "table for %u)",
			 f->n_switches, h ? h->n : 0);
		return -EINVAL;
	}
	rc = sw_graph_build(f, &g);
	if (rc < 0 || (rc = find_tree(f, h, pool, &tree, &t)) < 0)
		goto nomem;
	rc = pick_roots(f, &g, h, pool, prm, t, res);
	if (rc < 0)
		goto out;
	order = malloc((g.n + 1) * sizeof(*order));
	rank = malloc((g.n + 1) * sizeof(*rank));
	if (!order || !rank) {
		rc = -ENOMEM;
		goto nomem;
	}
	rc = make_order(f, &g, h, prm, res, order, &rank);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc < 0)
		goto out;
	rc = fill_lfts(f, &g, h, pool, prm, order, rank, t, res);
	if (rc < 0)
		goto nomem;
	rc = check_tables(f, &g, h, pool, order, res);
	if (rc == -ENOMEM)
		goto nomem;
	if (rc == 0) {
		res->updown_order = order;
		res->updown_rank = rank;
		order = rank = NULL;
	}
	goto out;
nomem:
	snprintf(res->error, sizeof(res->error),
		 "updown: out of memory routing %u switches", f->n_switches);
out:
	if (t)
		ft_tree_free(t);
	free(order);
	free(rank);
	sw_graph_free(&g);
	return rc;
}

const struct ucast_engine ucast_updown = { .name = "updown",
					   .route = updown_route };
