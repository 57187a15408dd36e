/* What the layered engine keeps for the repair after a failure
 * (ucast_params.keep_lft): the layers' labels and roots by switch GUID.
 * A lost link or switch leaves every other link's orientation as it was,
 * so the trees that did not use it stay legal in their layers with the
 * same SLs, and only the LIDs whose trees lost a link are routed again
 * (layers_route_keep).  Labels are renumbered over the switches left; a
 * layer is kept while no switch became a local minimum (no neighbour with
 * a lower label) that was not one before: the minima are its roots,
 * every other switch can climb to them, and the layer's up/down tree
 * (the escape of layered_repair.c) still reaches everyone it reached.
 * A layer where one did (the lost link was some switch's only way to
 * climb: on a torus, a switch on an axis through the root) is oriented
 * afresh from its root on the fabric left, and the kept trees are
 * checked legal again before they are kept. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

struct lay_saved {
	uint32_t n;
	uint8_t n_layers, used;
	uint64_t *guid;	  /* [n] by the saved switch index */
	uint32_t *order;  /* [n_layers * n] */
	uint64_t root[LAYERS_MAX];
	uint32_t minima[LAYERS_MAX]; /* switches without a lower neighbour */
};

static const char engine_name[] = "layered";

static void saved_free(void *p)
{
	struct lay_saved *s = p;

	if (!s)
		return;
	free(s->guid);
	free(s->order);
	free(s);
}

/* Layer l's switches without a neighbour of lower label in g. */
static uint32_t minima(const struct ucast_layers *ly, const struct sw_graph *g,
		       unsigned l)
{
	const uint32_t *o = ly->order + (size_t)l * g->n;
	uint32_t m = 0;

	for (uint32_t x = 0; x < g->n; x++) {
		bool low = false;
		for (uint32_t k = g->start[x]; !low && k < g->start[x + 1]; k++)
			low = o[g->peer[k]] < o[x];
		m += !low;
	}
	return m;
}

int layers_save(const struct ucast_layers *ly, const struct fabric *f,
		const struct sw_graph *g, struct ucast_state **out)
{
	struct lay_saved *s = calloc(1, sizeof(*s));
	struct ucast_state *st = calloc(1, sizeof(*st));
	uint32_t n = ly->n_switches;

	*out = NULL;
	if (s) {
		s->guid = malloc((n + 1) * sizeof(*s->guid));
		s->order = malloc(((size_t)ly->n_layers * n + 1) *
				  sizeof(*s->order));
	}
	if (!s || !st || !s->guid || !s->order) {
		saved_free(s);
		free(st);
		return -ENOMEM;
	}
	s->n = n;
	s->n_layers = ly->n_layers;
	s->used = ly->used;
	for (uint32_t x = 0; x < n; x++)
		s->guid[x] = f->switches[x]->guid;
	memcpy(s->order, ly->order, (size_t)ly->n_layers * n * sizeof(*s->order));
	for (unsigned l = 0; l < ly->n_layers; l++) {
		s->root[l] = ly->roots[l] ? ly->roots[l]->guid : 0;
		s->minima[l] = minima(ly, g, l);
	}
	*st = (struct ucast_state){engine_name, s, saved_free};
	*out = st;
	return 0;
}

struct lab {
	uint32_t old, x;
};

static int cmp_lab(const void *a, const void *b)
{
	const struct lab *p = a, *q = b;

	return p->old < q->old ? -1 : p->old > q->old;
}

/* Layer l's saved labels over f's switches (old[x]: x's saved index),
 * renumbered 0 .. n - 1 in their saved order. */
static int relabel(struct ucast_layers *ly, const struct lay_saved *s,
		   const uint32_t *old, unsigned l)
{
	uint32_t n = ly->n_switches;
	struct lab *v = malloc((n + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (uint32_t x = 0; x < n; x++)
		v[x] = (struct lab){s->order[(size_t)l * s->n + old[x]], x};
	qsort(v, n, sizeof(*v), cmp_lab);
	for (uint32_t i = 0; i < n; i++)
		ly->order[(size_t)l * n + v[i].x] = i;
	free(v);
	return 0;
}


/* The saved index of every switch of f, -ESRCH when one is new. */
static int map_switches(const struct lay_saved *s, const struct fabric *f,
			uint32_t *old)
{
	for (uint32_t x = 0; x < f->n_switches; x++)
		old[x] = UINT32_MAX;
	for (uint32_t i = 0; i < s->n; i++) {
		const struct ib_node *n = fabric_node_by_guid(f, s->guid[i]);
		if (n && node_is_switch(n))
			old[n->sw_idx] = i;
	}
	for (uint32_t x = 0; x < f->n_switches; x++)
		if (old[x] == UINT32_MAX)
			return -ESRCH;
	return 0;
}

int layers_restore(struct ucast_layers *ly, const struct fabric *f,
		   const struct sw_graph *g, const struct hops *h,
		   const struct ucast_state *prev)
{
	const struct lay_saved *s;
	uint32_t *old;
	int rc;

	if (!prev || prev->engine != engine_name || !prev->priv)
		return -ESRCH;
	s = prev->priv;
	if (!(old = malloc((f->n_switches + 1) * sizeof(*old))))
		return -ENOMEM;
	rc = map_switches(s, f, old);
	if (rc == 0)
		rc = layers_alloc(ly, f, s->n_layers);
	for (unsigned l = 0; rc == 0 && l < s->n_layers; l++) {
		ly->roots[l] = fabric_node_by_guid(f, s->root[l]);
		rc = ly->roots[l] && node_is_switch(ly->roots[l])
			 ? relabel(ly, s, old, l)
			 : -ESRCH;
		if (rc == 0 && minima(ly, g, l) > s->minima[l]) {
			ly->reoriented |= (uint16_t)(1u << l);
			rc = layers_orient_one(ly, f, g, h, l,
					       (uint32_t)ly->roots[l]->sw_idx);
		}
	}
	free(old);
	if (rc < 0)
		return rc;
	layers_fill_up(ly, g);
	ly->used = s->used;
	return 0;
}
