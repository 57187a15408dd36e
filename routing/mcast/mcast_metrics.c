/* Multicast metrics of docs/design.md §6: groups, trees, colors, merged groups,
 * EFI (groups per link; a tree shared by k groups counts k), TFI (groups
 * per tree), height excess (a tree's height minus the smallest height any
 * root could give its member set), and routing time. */
#include "routing/mcast/mcast.h"

#include <stdlib.h>
#include <string.h>

struct excess_job {
	struct mc_ctx *c;
	uint32_t *excess; /* per tree */
};

/* Height excess of tree i: members' switches -> best worst-case hops. */
static void tree_excess(void *arg, size_t i, unsigned worker)
{
	struct excess_job *j = arg;
	struct mc_ctx *c = j->c;
	const struct mc_tree *t = &c->trees[i];
	struct mc_scratch *s = &c->scr[worker < c->n_scr ? worker : 0];
	uint32_t nm = 0;

	j->excess[i] = 0;
	if (!t->live || !t->n_groups)
		return;
	/* queue[] of this worker holds the member switches */
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		const struct mc_tnode *n = &t->nodes[k];
		if (n->members[0] | n->members[1] | n->members[2] | n->members[3])
			s->queue[nm++] = n->sw;
	}
	if (!nm)
		return;
	uint8_t best = mc_worst_hops(c, s->queue, nm, s->worst);
	if (best != HOPS_INF && t->height > best + 1)
		j->excess[i] = t->height - (best + 1u);
}

static void efi_stats(const struct mc_ctx *c, struct mc_stats *st)
{
	uint64_t sum = 0, links = 0;

	for (uint32_t s = 0; s < c->n_sw; s++) {
		const struct ib_node *sw = c->f->switches[s];
		for (unsigned p = 1; p <= sw->nports; p++) {
			uint32_t e = c->efi[c->port_base[s] + p];
			const struct ib_port *r = sw->ports[p].remote;
			if (!e || !r)
				continue;
			/* a switch-switch link is counted at its lower end */
			if (r->node->type == IB_NODE_SWITCH &&
			    ((uint32_t)r->node->sw_idx < s ||
			     ((uint32_t)r->node->sw_idx == s && r->num < p)))
				continue;
			sum += e;
			links++;
			if (e > st->max_efi)
				st->max_efi = e;
		}
	}
	st->avg_efi = links ? (double)sum / (double)links : 0.0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return x < y ? -1 : x > y;
}

static double median_ms(const struct mc_ctx *c)
{
	uint64_t n = c->routed < c->cap_add_ms ? c->routed : c->cap_add_ms;
	float *v;
	double m;

	if (!n || !(v = malloc(n * sizeof(*v))))
		return 0.0;
	memcpy(v, c->add_ms, n * sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_float);
	m = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
	free(v);
	return m;
}

void mcast_stats(struct mc_ctx *c, struct mc_stats *st)
{
	struct excess_job j = { .c = c };
	uint64_t tfi = 0;

	*st = c->st;
	st->groups = c->live_groups;
	st->trees = c->live_trees;
	st->colors_used = st->merged_groups = st->max_efi = st->max_tfi = 0;
	st->max_height_excess = 0;
	for (uint32_t col = 0; col < c->owner_cap; col++)
		st->colors_used += c->color_trees[col] != 0;
	for (uint32_t i = 0; i < c->n_trees; i++) {
		const struct mc_tree *t = &c->trees[i];
		if (!t->live)
			continue;
		tfi += t->n_groups;
		if (t->n_groups > st->max_tfi)
			st->max_tfi = t->n_groups;
		if (t->n_groups > 1)
			st->merged_groups += t->n_groups;
	}
	st->avg_tfi = st->trees ? (double)tfi / st->trees : 0.0;
	efi_stats(c, st);
	j.excess = calloc(c->n_trees + 1, sizeof(uint32_t));
	if (j.excess) {
		pool_for(c->pool, c->n_trees, tree_excess, &j);
		for (uint32_t i = 0; i < c->n_trees; i++)
			if (j.excess[i] > st->max_height_excess)
				st->max_height_excess = j.excess[i];
		free(j.excess);
	}
	st->seconds = c->seconds;
	st->ms_per_group = c->routed ? c->seconds * 1e3 / (double)c->routed : 0.0;
	st->median_ms = median_ms(c);
}

/* Height excess of one group's tree (0 if not routed); for tests. */
uint32_t mcast_tree_excess(struct mc_ctx *c, uint32_t tid)
{
	struct excess_job j = { .c = c };
	uint32_t e = 0;

	if (tid >= c->n_trees)
		return 0;
	j.excess = calloc(c->n_trees, sizeof(uint32_t));
	if (!j.excess)
		return 0;
	tree_excess(&j, tid, 0);
	e = j.excess[tid];
	free(j.excess);
	return e;
}
