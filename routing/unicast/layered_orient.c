/* The layers' orientations.  Layer 0 is the updown engine's own (its roots,
 * BFS ranks), so one layer is plain up/down.  Each further layer is a
 * BFS orientation from one more root, chosen where the layers so far
 * are weakest (see next_root()), switches of one rank ordered by a hash
 * of GUID and layer.  A path that is up* then down* from root r climbs
 * towards r and then descends: roots spread over the fabric give every
 * pair some layer in which one of its shortest paths is legal (on a
 * torus, roots at the 2^d corners of a half-period grid do). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"
#include "routing/unicast/updown.h"

int layers_alloc(struct ucast_layers *ly, const struct fabric *f,
		 unsigned n_layers)
{
	uint32_t n = f->n_switches;

	memset(ly, 0, sizeof(*ly));
	ly->n_switches = n;
	ly->n_layers = (uint8_t)n_layers;
	ly->port_base = malloc((n + 1) * sizeof(*ly->port_base));
	ly->order = malloc(((size_t)n_layers * n + 1) * sizeof(*ly->order));
	ly->roots = calloc(n_layers, sizeof(*ly->roots));
	if (!ly->port_base || !ly->order || !ly->roots)
		return -ENOMEM;
	ly->port_base[0] = 0;
	for (uint32_t s = 0; s < n; s++)
		ly->port_base[s + 1] =
		    ly->port_base[s] + f->switches[s]->nports + 1u;
	ly->up = calloc(ly->port_base[n] + 1, sizeof(*ly->up));
	ly->peer = malloc((ly->port_base[n] + 1) * sizeof(*ly->peer));
	if (!ly->up || !ly->peer)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		const struct ib_node *sw = f->switches[s];
		for (unsigned p = 0; p <= sw->nports; p++) {
			const struct ib_node *o =
			    p ? port_peer_node(sw, (uint8_t)p) : NULL;
			ly->peer[ly->port_base[s] + p] =
			    o && node_is_switch(o) && o != sw
				? (uint32_t)o->sw_idx
				: UINT32_MAX;
		}
	}
	return 0;
}

void layers_free(struct ucast_layers *ly)
{
	if (!ly)
		return;
	free(ly->port_base);
	free(ly->up);
	free(ly->peer);
	free(ly->order);
	free(ly->roots);
	memset(ly, 0, sizeof(*ly));
}

/* The switch farthest from every root so far (mind[] holds the distance
 * to the nearest), ties to the lowest GUID: there the layers so far
 * all have a root far away, so paths through it are the likeliest to
 * be illegal in all of them. */
static uint32_t next_root(const struct fabric *f, const uint8_t *mind)
{
	uint32_t best = 0;

	for (uint32_t s = 1; s < f->n_switches; s++) {
		uint8_t a = mind[s], b = mind[best];
		if ((a != HOPS_INF && (b == HOPS_INF || a > b)) ||
		    (a == b && f->switches[s]->guid < f->switches[best]->guid))
			best = s;
	}
	return best;
}

static void near_roots(const struct hops *h, uint32_t r, uint8_t *mind)
{
	for (uint32_t s = 0; s < h->n; s++) {
		uint8_t d = hops_sw(h, r, s);
		if (d < mind[s])
			mind[s] = d;
	}
}

struct okey {
	uint32_t rank;
	uint64_t tie;
	uint32_t s;
};

static int cmp_okey(const void *a, const void *b)
{
	const struct okey *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->tie != y->tie)
		return x->tie < y->tie ? -1 : 1;
	return x->s < y->s ? -1 : x->s > y->s;
}

/* Layer l's labels: BFS rank from root r, ties by a per-layer hash of
 * the GUID, so layers disagree on how to cross same-rank links. */
static int layer_order(const struct fabric *f, const struct sw_graph *g,
		       const struct hops *h, uint32_t r, uint32_t l,
		       uint32_t *order)
{
	uint32_t n = g->n;
	struct okey *k = malloc((n + 1) * sizeof(*k));

	if (!k)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		uint64_t guid = f->switches[s]->guid;
		k[s] =
		    (struct okey){hops_sw(h, r, s),
				  lay_tie(guid, l), s};
	}
	qsort(k, n, sizeof(*k), cmp_okey);
	for (uint32_t i = 0; i < n; i++)
		order[k[i].s] = i;
	free(k);
	return 0;
}

int layers_orient_one(struct ucast_layers *ly, const struct fabric *f,
		      const struct sw_graph *g, const struct hops *h,
		      uint32_t l, uint32_t r)
{
	return layer_order(f, g, h, r, l, ly->order + (size_t)l * g->n);
}

void layers_fill_up(struct ucast_layers *ly, const struct sw_graph *g)
{
	uint32_t n = g->n;

	for (uint32_t l = 0; l < ly->n_layers; l++) {
		const uint32_t *o = ly->order + (size_t)l * n;
		for (uint32_t s = 0; s < n; s++)
			for (uint32_t k = g->start[s]; k < g->start[s + 1]; k++)
				if (o[g->peer[k]] < o[s])
					ly->up[ly->port_base[s] + g->port[k]] |=
					    (uint16_t)(1u << l);
	}
}

int layers_orient(struct ucast_layers *ly, const struct fabric *f,
		  const struct sw_graph *g, const struct hops *h,
		  struct pool *pool, const struct ucast_params *prm,
		  struct ucast_result *res)
{
	uint32_t n = g->n;
	uint8_t *mind = malloc(n + 1);
	struct layers_cover *cov = NULL;
	int rc;

	if (!mind)
		return -ENOMEM;
	rc = updown_pick_roots(f, g, h, pool, prm, res);
	if (rc == 0)
		rc = updown_order_bfs(f, g, res->roots, res->n_roots, ly->order,
				      NULL);
	if (rc < 0)
		goto out;
	memset(mind, HOPS_INF, n);
	for (uint32_t i = 0; i < res->n_roots; i++)
		near_roots(h, (uint32_t)res->roots[i]->sw_idx, mind);
	ly->roots[0] = res->roots[0];
	if (ly->n_layers > 1)
		rc = layers_cover_init(&cov, f, g, h);
	if (rc == 0 && cov)
		layers_cover_mark_order(cov, ly->order);
	for (uint32_t l = 1; l < ly->n_layers && rc == 0; l++) {
		int64_t pick = layers_cover_pick(cov, l, mind);
		uint32_t r = pick >= 0 ? (uint32_t)pick : next_root(f, mind);
		ly->roots[l] = f->switches[r];
		layers_cover_mark(cov, r, l);
		near_roots(h, r, mind);
		rc = layer_order(f, g, h, r, l, ly->order + (size_t)l * n);
	}
	if (rc == 0)
		layers_fill_up(ly, g);
out:
	layers_cover_free(cov);
	free(mind);
	return rc;
}
