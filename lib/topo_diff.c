/* Expected against discovered cabling: see topo_diff.h.  Nodes are paired
 * first (GUID, then a unique NodeDescription through a sorted index, so a
 * file without GUIDs costs n log n, not n^2), then every discovered link
 * is judged from its two ends, then the file's links whose ends are both
 * dark are the missing ones. */
#include "lib/topo_diff.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The pairing: node index on one side -> node on the other (NULL). */
struct pairing {
	struct ib_node **to_found; /* [expected->n_nodes] */
	struct ib_node **to_exp;   /* [found->n_nodes] */
};

static int by_desc(const void *a, const void *b)
{
	const struct ib_node *x = *(struct ib_node *const *)a;
	const struct ib_node *y = *(struct ib_node *const *)b;

	return strcmp(x->desc, y->desc);
}

/* The nodes of f not paired yet, sorted by NodeDescription. */
static struct ib_node **unpaired_sorted(const struct fabric *f,
					struct ib_node **paired, uint32_t *n)
{
	struct ib_node **v = malloc((f->n_nodes + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		if (!paired[i] && f->nodes[i]->desc[0])
			v[(*n)++] = f->nodes[i];
	qsort(v, *n, sizeof(*v), by_desc);
	return v;
}

/* The one node of v (sorted, n) named desc, or NULL (none or several). */
static struct ib_node *unique_desc(struct ib_node **v, uint32_t n,
				   const char *desc)
{
	uint32_t lo = 0, hi = n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid]->desc, desc) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(v[lo]->desc, desc))
		return NULL;
	if (lo + 1 < n && !strcmp(v[lo + 1]->desc, desc))
		return NULL;
	return v[lo];
}

static int pair_by_desc(const struct fabric *e, const struct fabric *f,
			struct pairing *p)
{
	uint32_t ne, nf;
	struct ib_node **ve = unpaired_sorted(e, p->to_found, &ne);
	struct ib_node **vf = unpaired_sorted(f, p->to_exp, &nf);
	int rc = ve && vf ? 0 : -ENOMEM;

	for (uint32_t i = 0; rc == 0 && i < ne; i++) {
		struct ib_node *x = ve[i], *y;

		if (i + 1 < ne && !strcmp(ve[i + 1]->desc, x->desc)) {
			while (i + 1 < ne && !strcmp(ve[i + 1]->desc, x->desc))
				i++; /* a name several planned nodes share */
			continue;
		}
		y = unique_desc(vf, nf, x->desc);
		if (y && y->type == x->type) {
			p->to_found[x->idx] = y;
			p->to_exp[y->idx] = x;
		}
	}
	free(ve);
	free(vf);
	return rc;
}

static int pair_nodes(const struct fabric *e, const struct fabric *f,
		      struct pairing *p)
{
	p->to_found = calloc(e->n_nodes + 1, sizeof(*p->to_found));
	p->to_exp = calloc(f->n_nodes + 1, sizeof(*p->to_exp));
	if (!p->to_found || !p->to_exp)
		return -ENOMEM;
	for (uint32_t i = 0; i < e->n_nodes; i++) {
		struct ib_node *y = fabric_node_by_guid(f, e->nodes[i]->guid);

		if (y && !p->to_exp[y->idx] && y->type == e->nodes[i]->type) {
			p->to_found[i] = y;
			p->to_exp[y->idx] = e->nodes[i];
		}
	}
	return pair_by_desc(e, f, p);
}

/* The port of the other side paired with port (n, num), or NULL. */
static const struct ib_port *twin(struct ib_node **map, const struct ib_node *n,
				  uint8_t num)
{
	const struct ib_node *m = map[n->idx];

	return m && num <= m->nports ? &m->ports[num] : NULL;
}

static void end_of(struct topo_end *e, const struct ib_port *p)
{
	if (!p) {
		*e = (struct topo_end){0};
		return;
	}
	e->guid = p->node->guid;
	e->port = p->num;
	snprintf(e->desc, sizeof(e->desc), "%s", p->node->desc);
}

static int add(struct topo_diff *d, enum topo_diff_kind k,
	       const struct ib_port *a, const struct ib_port *b,
	       const struct ib_port *wa, const struct ib_port *wb)
{
	struct topo_diff_item *it;

	if (d->n == d->cap) {
		uint32_t cap = d->cap ? 2 * d->cap : 64;
		void *v = realloc(d->v, cap * sizeof(*d->v));
		if (!v)
			return -ENOMEM;
		d->v = v;
		d->cap = cap;
	}
	it = &d->v[d->n++];
	it->kind = k;
	end_of(&it->a, a);
	end_of(&it->b, b);
	end_of(&it->want_a, wa);
	end_of(&it->want_b, wb);
	d->count[k]++;
	return 0;
}

/* Each discovered link once (from its lower end). */
static bool first_end(const struct ib_port *p)
{
	const struct ib_port *r = p->remote;

	return r && (p->node->idx < r->node->idx ||
		     (p->node == r->node && p->num < r->num));
}

/* Judges the discovered link x -- x->remote: ok, miswired or extra. */
static int judge_found(struct topo_diff *d, const struct pairing *p,
		       const struct ib_port *x)
{
	const struct ib_port *y = x->remote;
	const struct ib_port *ex = twin(p->to_exp, x->node, x->num);
	const struct ib_port *ey = twin(p->to_exp, y->node, y->num);
	const struct ib_port *wx = ex ? ex->remote : NULL;
	const struct ib_port *wy = ey ? ey->remote : NULL;

	if (ex && ey && wx == ey)
		return 0;
	if (wx || wy)
		return add(d, TOPO_MISWIRED, x, y, wx, wy);
	return add(d, TOPO_EXTRA, x, y, NULL, NULL);
}

/* e's discovered twin is linked (to anything). */
static bool found_linked(const struct pairing *p, const struct ib_port *e)
{
	const struct ib_port *f = twin(p->to_found, e->node, e->num);

	return f && f->remote;
}

static int compare(const struct fabric *e, const struct fabric *f,
		   const struct pairing *p, struct topo_diff *d)
{
	int rc = 0;

	for (uint32_t i = 0; rc == 0 && i < f->n_nodes; i++)
		for (unsigned n = 0; rc == 0 && n <= f->nodes[i]->nports; n++)
			if (first_end(&f->nodes[i]->ports[n]))
				rc = judge_found(d, p, &f->nodes[i]->ports[n]);
	for (uint32_t i = 0; rc == 0 && i < e->n_nodes; i++)
		for (unsigned n = 0; rc == 0 && n <= e->nodes[i]->nports; n++) {
			const struct ib_port *a = &e->nodes[i]->ports[n];
			const struct ib_port *fa, *fb;

			if (!first_end(a))
				continue;
			d->expected_links++;
			fa = twin(p->to_found, a->node, a->num);
			fb = twin(p->to_found, a->remote->node, a->remote->num);
			if (fa && fb && fa->remote == fb)
				continue;
			if (!found_linked(p, a) && !found_linked(p, a->remote))
				rc = add(d, TOPO_MISSING, a, a->remote, NULL,
					 NULL);
		}
	return rc;
}

int topo_diff(const struct fabric *expected, const struct fabric *found,
	      struct topo_diff *d)
{
	struct pairing p = {0};
	int rc;

	topo_diff_free(d);
	rc = pair_nodes(expected, found, &p);
	if (rc == 0)
		rc = compare(expected, found, &p, d);
	free(p.to_found);
	free(p.to_exp);
	if (rc < 0)
		topo_diff_free(d);
	return rc;
}

void topo_diff_free(struct topo_diff *d)
{
	free(d->v);
	*d = (struct topo_diff){0};
}

const char *topo_diff_kind_name(enum topo_diff_kind k)
{
	static const char *const names[] = {"missing", "extra", "miswired"};

	return k < TOPO_KINDS ? names[k] : "?";
}

/* "DESC"[PORT] and, with guid, (0x...) after it. */
static int end_str(char *buf, size_t len, const struct topo_end *e, bool guid)
{
	if (guid)
		return snprintf(buf, len, "\"%s\"[%u](0x%016" PRIx64 ")",
				e->desc, e->port, e->guid);
	return snprintf(buf, len, "\"%s\"[%u]", e->desc, e->port);
}

/* The file's peer of end e: "E -- W", or "E unlinked". */
static int want_str(char *buf, size_t len, const struct topo_end *e,
		    const struct topo_end *w)
{
	char se[IB_DESC_LEN + 16], sw[IB_DESC_LEN + 16];

	end_str(se, sizeof(se), e, false);
	if (!w->guid)
		return snprintf(buf, len, "%s unlinked", se);
	end_str(sw, sizeof(sw), w, false);
	return snprintf(buf, len, "%s -- %s", se, sw);
}

int topo_diff_line(const struct topo_diff_item *it, char *buf, size_t len)
{
	char a[IB_DESC_LEN + 40], b[IB_DESC_LEN + 40];
	char wa[2 * IB_DESC_LEN + 40], wb[2 * IB_DESC_LEN + 40];

	end_str(a, sizeof(a), &it->a, true);
	end_str(b, sizeof(b), &it->b, true);
	if (it->kind != TOPO_MISWIRED)
		return snprintf(buf, len, "%s %s -- %s",
				topo_diff_kind_name(it->kind), a, b);
	want_str(wa, sizeof(wa), &it->a, &it->want_a);
	want_str(wb, sizeof(wb), &it->b, &it->want_b);
	return snprintf(buf, len, "miswired %s -- %s: expected %s, %s", a, b,
			wa, wb);
}
