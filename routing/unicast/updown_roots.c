/* Up/down root selection: configured roots by GUID or name, or the
 * automatic rule below.  Reads the switch-to-switch hop table only.
 *
 * Automatic root selection (text for ibsmd.yaml(5), routing.updown.roots):
 *
 *   A "leaf" is a switch with at least one CA or router attached (all
 *   switches when no host is attached anywhere).  The eccentricity of a
 *   switch is its largest hop distance to a leaf.  Candidates are the
 *   switches with no host attached (all switches when every switch has
 *   hosts).  Among the candidates, those reaching the most leaves and then
 *   having the smallest eccentricity form the top set T.
 *   - If T has several switches and they are interchangeable — every leaf
 *     is at the same distance from each of them, as a fat tree's spines
 *     (2 levels) or core switches (3 levels) are — all of T are roots.
 *   - Otherwise one root is taken from T: the one with the smallest
 *     host-weighted total distance to the leaves (sum over leaves of
 *     hosts x hops), then the lowest GUID.  On a torus, a mesh or a random
 *     network this is the most central switch.  ("Most hosts within the
 *     eccentricity" would not discriminate: by definition every reachable
 *     host is within it.)
 *   Switches that no root reaches (a separate fabric component) become
 *   extra roots, lowest GUID first.
 *
 * Unlike OpenSM 3.3.23's hop-histogram heuristic this never declares every
 * switch a root: on fat trees of any size the spines are the only switches
 * at distance 1 (or 2) from every leaf. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "routing/unicast/updown.h"

struct root_eval {
	const struct sw_graph *g;
	const struct hops *h;
	const uint32_t *leaves;
	uint32_t n_leaves;
	/* per switch results */
	uint32_t *reach;	/* leaves reachable */
	uint8_t *ecc;
	uint64_t *wdist;	/* host-weighted sum of distances */
};

static void eval_one(void *arg, size_t s, unsigned worker)
{
	struct root_eval *e = arg;
	uint32_t reach = 0;
	uint8_t ecc = 0;
	uint64_t wd = 0;

	(void)worker;
	for (uint32_t i = 0; i < e->n_leaves; i++) {
		uint32_t l = e->leaves[i];
		uint8_t d = hops_sw(e->h, (uint32_t)s, l);
		if (d == HOPS_INF)
			continue;
		reach++;
		if (d > ecc)
			ecc = d;
		wd += (uint64_t)d * (e->g->hosts[l] ? e->g->hosts[l] : 1);
	}
	e->reach[s] = reach;
	e->ecc[s] = ecc;
	e->wdist[s] = wd;
}

static bool interchangeable(const struct root_eval *e, const uint32_t *top,
			    uint32_t n_top)
{
	for (uint32_t i = 0; i < e->n_leaves; i++) {
		uint8_t d0 = hops_sw(e->h, top[0], e->leaves[i]);
		for (uint32_t k = 1; k < n_top; k++)
			if (hops_sw(e->h, top[k], e->leaves[i]) != d0)
				return false;
	}
	return true;
}

/* a better single root than b? */
static bool better_single(const struct fabric *f, const struct root_eval *e,
			  uint32_t a, uint32_t b)
{
	if (e->wdist[a] != e->wdist[b])
		return e->wdist[a] < e->wdist[b];
	return f->switches[a]->guid < f->switches[b]->guid;
}

static int cmp_guid(const void *a, const void *b)
{
	uint64_t x = (*(struct ib_node *const *)a)->guid;
	uint64_t y = (*(struct ib_node *const *)b)->guid;
	return x < y ? -1 : x > y;
}

/* Leaves (host switches) and candidates (host-less switches). */
static void classify(const struct sw_graph *g, uint32_t *leaves,
		     uint32_t *n_leaves, uint32_t *cand, uint32_t *n_cand)
{
	*n_leaves = *n_cand = 0;
	for (uint32_t s = 0; s < g->n; s++) {
		if (g->hosts[s])
			leaves[(*n_leaves)++] = s;
		else
			cand[(*n_cand)++] = s;
	}
	if (!*n_leaves) {
		for (uint32_t s = 0; s < g->n; s++)
			leaves[s] = s;
		*n_leaves = g->n;
	}
	if (!*n_cand) {
		for (uint32_t s = 0; s < g->n; s++)
			cand[s] = s;
		*n_cand = g->n;
	}
}

/* Keeps in cand[] the top set T; returns its size. */
static uint32_t top_set(const struct root_eval *e, uint32_t *cand,
			uint32_t n_cand)
{
	uint32_t best_reach = 0, n_top = 0;
	uint8_t best_ecc = HOPS_INF;

	for (uint32_t i = 0; i < n_cand; i++) {
		uint32_t s = cand[i];
		if (e->reach[s] > best_reach ||
		    (e->reach[s] == best_reach && e->ecc[s] < best_ecc)) {
			best_reach = e->reach[s];
			best_ecc = e->ecc[s];
		}
	}
	for (uint32_t i = 0; i < n_cand; i++)
		if (e->reach[cand[i]] == best_reach &&
		    e->ecc[cand[i]] == best_ecc)
			cand[n_top++] = cand[i];
	return n_top;
}

static int auto_roots(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      struct ucast_result *res)
{
	uint32_t n = g->n, n_leaves, n_cand, n_top;
	uint32_t *leaves = malloc(n * sizeof(*leaves));
	uint32_t *cand = malloc(n * sizeof(*cand));
	struct root_eval e = { .g = g, .h = h };
	int rc = -ENOMEM;

	e.reach = malloc(n * sizeof(*e.reach));
	e.ecc = malloc(n);
	e.wdist = malloc(n * sizeof(*e.wdist));
	if (!leaves || !cand || !e.reach || !e.ecc || !e.wdist)
		goto out;
	classify(g, leaves, &n_leaves, cand, &n_cand);
	e.leaves = leaves;
	e.n_leaves = n_leaves;
	pool_for(pool, n, eval_one, &e);
	n_top = top_set(&e, cand, n_cand);
	if (n_top > 1 && !interchangeable(&e, cand, n_top)) {
		uint32_t best = cand[0];
		for (uint32_t i = 1; i < n_top; i++)
			if (better_single(f, &e, cand[i], best))
				best = cand[i];
		cand[0] = best;
		n_top = 1;
	}
	res->roots = calloc(n_top, sizeof(*res->roots));
	if (!res->roots)
		goto out;
	for (uint32_t i = 0; i < n_top; i++)
		res->roots[i] = f->switches[cand[i]];
	res->n_roots = n_top;
	rc = 0;
out:
	free(leaves);
	free(cand);
	free(e.reach);
	free(e.ecc);
	free(e.wdist);
	return rc;
}

/* A configured root: "0x..." node (or switch port) GUID, else a name. */
static struct ib_node *find_root(const struct fabric *f, const char *s)
{
	char *end;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		errno = 0;
		unsigned long long g = strtoull(s, &end, 16);
		if (!errno && end != s + 2 && *end == '\0') {
			struct ib_node *n = fabric_node_by_guid(f, g);
			if (n)
				return n;
			struct ib_port *p = fabric_port_by_guid(f, g);
			return p ? p->node : NULL;
		}
	}
	return fabric_node_by_desc(f, s);
}

static int configured_roots(const struct fabric *f,
			    const struct ucast_params *prm,
			    struct ucast_result *res)
{
	res->roots = calloc(prm->n_updown_roots, sizeof(*res->roots));
	if (!res->roots)
		return -ENOMEM;
	for (unsigned i = 0; i < prm->n_updown_roots; i++) {
		const char *name = prm->updown_roots[i];
		struct ib_node *n = find_root(f, name);
		if (!n) {
			snprintf(res->error, sizeof(res->error),
				 "updown root '%s' is neither a node GUID nor "
				 "a node name in the fabric",
				 name);
			return -ENOENT;
		}
		if (!node_is_switch(n)) {
			snprintf(res->error, sizeof(res->error),
				 "updown root '%s' (GUID 0x%016" PRIx64
				 ") is not a switch",
				 name, n->guid);
			return -EINVAL;
		}
		bool dup = false;
		for (uint32_t k = 0; k < res->n_roots; k++)
			dup |= res->roots[k] == n;
		if (!dup)
			res->roots[res->n_roots++] = n;
	}
	return 0;
}

int updown_pick_roots(const struct fabric *f, const struct sw_graph *g,
		      const struct hops *h, struct pool *pool,
		      const struct ucast_params *prm, struct ucast_result *res)
{
	int rc;

	free(res->roots);
	res->roots = NULL;
	res->n_roots = 0;
	if (!g->n) {
		snprintf(res->error, sizeof(res->error),
			 "updown: the fabric has no switch to route");
		return -ENODEV;
	}
	if (prm && prm->n_updown_roots)
		rc = configured_roots(f, prm, res);
	else
		rc = auto_roots(f, g, h, pool, res);
	if (rc == -ENOMEM)
		snprintf(res->error, sizeof(res->error),
			 "updown: out of memory choosing roots");
	if (rc < 0) {
		free(res->roots);
		res->roots = NULL;
		res->n_roots = 0;
		return rc;
	}
	qsort(res->roots, res->n_roots, sizeof(*res->roots), cmp_guid);
	return 0;
}
