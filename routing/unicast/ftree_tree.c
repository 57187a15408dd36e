/* Recognizing a leveled tree and what routing on it reads (ftree.h):
 * levels from the hop table, neighbour groups in column order, and the
 * up-reach table `via`.  A fabric where some link joins two switches of
 * one level (a ring, a torus, a dragonfly) is not a tree. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/ftree.h"

void ft_tree_free(struct ft_tree *t)
{
	free(t->level);
	free(t->key);
	free(t->order);
	free(t->gstart);
	free(t->nup);
	free(t->gpeer);
	free(t->pstart);
	free(t->gport);
	free(t->via);
	memset(t, 0, sizeof(*t));
}

/* Level = hops to the nearest switch with a host. */
static int find_levels(const struct fabric *f, const struct hops *h,
		       struct ft_tree *t, char *why, size_t len)
{
	uint32_t n = t->n, nl = 0, *leaves = malloc((n + 1) * sizeof(*leaves));
	unsigned top = 0;

	if (!leaves)
		return -ENOMEM;
	for (uint32_t s = 0; s < n; s++) {
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *r = port_peer_node(sw, (uint8_t)p);
			if (r && !node_is_switch(r)) {
				leaves[nl++] = s;
				break;
			}
		}
	}
	for (uint32_t s = 0; s < n; s++) {
		uint8_t d = HOPS_INF;
		for (uint32_t i = 0; i < nl; i++)
			if (hops_sw(h, s, leaves[i]) < d)
				d = hops_sw(h, s, leaves[i]);
		t->level[s] = d;
		if (d != HOPS_INF && d > top)
			top = d;
		if (d == HOPS_INF) {
			snprintf(why, len, "switch %s reaches no host switch",
				 f->switches[s]->desc);
			free(leaves);
			return -ENOTSUP;
		}
	}
	free(leaves);
	if (!nl || !top || top >= FT_MAX_LEVELS) {
		snprintf(why, len, "%s",
			 !nl	? "no host is cabled to a switch"
			 : !top ? "one level only"
				: "more levels than 16");
		return -ENOTSUP;
	}
	t->height = (uint8_t)top;
	return 0;
}

/* Every link must join adjacent levels. */
static int check_links(const struct fabric *f, const struct ft_tree *t,
		       char *why, size_t len)
{
	for (uint32_t s = 0; s < t->n; s++) {
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *r = port_peer_node(sw, (uint8_t)p);
			int d;
			if (!r || !node_is_switch(r) || r == sw)
				continue;
			d = (int)t->level[r->sw_idx] - (int)t->level[s];
			if (d == 1 || d == -1)
				continue;
			snprintf(why, len,
				 "link %s[%u] - %s joins levels %u and %u",
				 sw->desc, p, r->desc, t->level[s],
				 t->level[r->sw_idx]);
			return -ENOTSUP;
		}
	}
	return 0;
}

struct sort_ctx {
	const struct fabric *f;
	const struct ft_tree *t;
};

static int cmp_guid(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint64_t x = c->f->switches[*(const uint32_t *)a]->guid;
	uint64_t y = c->f->switches[*(const uint32_t *)b]->guid;

	return x < y ? -1 : x > y;
}

/* Column order: key, then GUID. */
static int cmp_col(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	if (c->t->key[x] != c->t->key[y])
		return c->t->key[x] < c->t->key[y] ? -1 : 1;
	return cmp_guid(a, b, arg);
}

/* order[]: tops first, level by level down; above[l]. */
static void level_order(struct ft_tree *t)
{
	uint32_t k = 0;

	for (int l = t->height; l >= 0; l--) {
		t->above[l] = k;
		for (uint32_t s = 0; s < t->n; s++)
			if (t->level[s] == l)
				t->order[k++] = s;
	}
}

/* Keys top-down: tops by GUID rank, then the least key above. */
static void column_keys(const struct fabric *f, struct ft_tree *t)
{
	uint32_t ntop = t->above[t->height - 1];
	struct sort_ctx c = {f, t};

	qsort_r(t->order, ntop, sizeof(*t->order), cmp_guid, &c);
	for (uint32_t i = 0; i < ntop; i++)
		t->key[t->order[i]] = i;
	for (uint32_t i = ntop; i < t->n; i++) {
		uint32_t s = t->order[i], k = UINT32_MAX;
		struct ib_node *sw = f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *r = port_peer_node(sw, (uint8_t)p);
			if (r && node_is_switch(r) &&
			    t->level[r->sw_idx] == t->level[s] + 1 &&
			    t->key[r->sw_idx] < k)
				k = t->key[r->sw_idx];
		}
		t->key[s] = k;
	}
}

/* The neighbour switches of sw: up ones, then down ones, each in column
 * order.  Returns how many, *nup of them up. */
static unsigned neighbours(const struct fabric *f, const struct ft_tree *t,
			   uint32_t s, uint32_t *nb, unsigned *nup)
{
	struct ib_node *sw = f->switches[s];
	struct sort_ctx c = {f, t};
	unsigned n = 0, u = 0;

	for (int up = 1; up >= 0; up--) {
		unsigned first = n;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_node *r = port_peer_node(sw, (uint8_t)p);
			uint32_t y;
			unsigned i;
			if (!r || !node_is_switch(r) || r == sw)
				continue;
			y = (uint32_t)r->sw_idx;
			if ((t->level[y] > t->level[s]) != up)
				continue;
			for (i = first; i < n && nb[i] != y; i++)
				;
			if (i == n)
				nb[n++] = y;
		}
		qsort_r(nb + first, n - first, sizeof(*nb), cmp_col, &c);
		if (up)
			u = n;
	}
	*nup = u;
	return n;
}

static int alloc_groups(const struct fabric *f, struct ft_tree *t)
{
	uint32_t ports = 0;

	for (uint32_t s = 0; s < t->n; s++)
		ports += f->switches[s]->nports;
	t->gstart = malloc((t->n + 1) * sizeof(*t->gstart));
	t->nup = malloc(t->n + 1);
	t->gpeer = malloc((ports + 1) * sizeof(*t->gpeer));
	t->pstart = malloc((ports + 2) * sizeof(*t->pstart));
	t->gport = malloc(ports + 1);
	return t->gstart && t->nup && t->gpeer && t->pstart && t->gport
		   ? 0
		   : -ENOMEM;
}

static int build_groups(const struct fabric *f, struct ft_tree *t, char *why,
			size_t len)
{
	uint32_t g = 0, k = 0, nb[256];

	if (alloc_groups(f, t) < 0)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n; s++) {
		struct ib_node *sw = f->switches[s];
		unsigned nup, m = neighbours(f, t, s, nb, &nup);
		if (m > FT_MAX_GROUPS) {
			snprintf(why, len, "switch %s has %u neighbours",
				 sw->desc, m);
			return -ENOTSUP;
		}
		t->gstart[s] = g;
		t->nup[s] = (uint8_t)nup;
		for (unsigned i = 0; i < m; i++, g++) {
			t->gpeer[g] = nb[i];
			t->pstart[g] = k;
			for (unsigned p = 1; p <= sw->nports; p++) {
				struct ib_node *r =
				    port_peer_node(sw, (uint8_t)p);
				if (r && r->sw_idx == (int32_t)nb[i])
					t->gport[k++] = (uint8_t)p;
			}
		}
	}
	t->gstart[t->n] = g;
	t->pstart[g] = k;
	return 0;
}

struct via_job {
	struct ft_tree *t;
	uint32_t first; /* order[] index of the level's first switch */
};

/* Row of x: its up neighbours and everything above them, then its down
 * neighbours. */
static void via_row(void *arg, size_t i, unsigned worker)
{
	const struct via_job *j = arg;
	struct ft_tree *t = j->t;
	uint32_t x = t->order[j->first + i], n = t->n;
	uint8_t *row = t->via + (size_t)x * n;

	(void)worker;
	memset(row, FT_NONE, n);
	for (uint32_t g = 0; g < t->nup[x]; g++) {
		uint32_t y = t->gpeer[t->gstart[x] + g];
		const uint8_t *yr = t->via + (size_t)y * n;
		row[y] = (uint8_t)g;
		for (uint32_t k = 0; k < t->above[t->level[y]]; k++) {
			uint32_t v = t->order[k];
			if (yr[v] == FT_NONE)
				continue;
			row[v] = row[v] == FT_NONE || row[v] == g ? (uint8_t)g
								  : FT_AMBIG;
		}
	}
	for (uint32_t g = t->nup[x]; g < t->gstart[x + 1] - t->gstart[x]; g++)
		row[t->gpeer[t->gstart[x] + g]] = (uint8_t)g;
}

static int build_via(struct ft_tree *t, struct pool *pool)
{
	t->via = malloc((size_t)t->n * t->n + 1);
	if (!t->via)
		return -ENOMEM;
	for (int l = t->height; l >= 0; l--) {
		struct via_job j = {.t = t, .first = t->above[l]};
		uint32_t end = l ? t->above[l - 1] : t->n;
		pool_for(pool, end - j.first, via_row, &j);
	}
	return 0;
}

int ft_tree_build(const struct fabric *f, const struct hops *h,
		  struct pool *pool, struct ft_tree *t, char *why, size_t len)
{
	int rc;

	memset(t, 0, sizeof(*t));
	t->n = f->n_switches;
	if (!h || h->n != t->n) {
		snprintf(why, len, "hop table missing or stale");
		return -ENOTSUP;
	}
	t->level = malloc(t->n + 1);
	t->key = malloc((t->n + 1) * sizeof(*t->key));
	t->order = malloc((t->n + 1) * sizeof(*t->order));
	if (!t->level || !t->key || !t->order)
		rc = -ENOMEM;
	else if ((rc = find_levels(f, h, t, why, len)) == 0 &&
		 (rc = check_links(f, t, why, len)) == 0) {
		level_order(t);
		column_keys(f, t);
		level_order(t); /* column_keys sorted the tops by GUID */
		rc = build_groups(f, t, why, len);
		if (rc == 0)
			rc = build_via(t, pool);
	}
	if (rc < 0)
		ft_tree_free(t);
	return rc;
}
