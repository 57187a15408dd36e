/* Virtual groups (vMcg): the union of the groups on some trees of one
 * color, plus possibly a new group, routed as one tree in that color
 * (MR4LMS Algorithm 4 steps 4-9 and §3.3.2).  Used by MR4LMS merging and
 * by standard groups that gain a member (their color, hence MLID, stays).
 * Nothing in the context changes until the new tree is built, so a failure
 * leaves every existing tree as it was. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct vmcg {
	uint32_t *trees, nt, cap_t;	/* marked trees (ids) */
	struct ib_port **m;		/* members, duplicates allowed */
	uint32_t nm, cap_m;
	uint32_t *msw, nmsw;		/* distinct member switches */
};

static int push_u32(uint32_t **a, uint32_t *n, uint32_t *cap, uint32_t v)
{
	if (*n == *cap) {
		uint32_t nc = *cap ? *cap * 2 : 16;
		uint32_t *na = realloc(*a, nc * sizeof(*na));
		if (!na)
			return -ENOMEM;
		*a = na;
		*cap = nc;
	}
	(*a)[(*n)++] = v;
	return 0;
}

/* Appends g's members not yet in the vMcg (merged groups share many
 * members: a node stamp per call keeps the list distinct; a second port
 * of the same CA is compared by pointer). */
static int add_members(struct mc_ctx *c, struct vmcg *v,
		       const struct mc_group *g)
{
	if (v->nm + g->n_members > v->cap_m) {
		uint32_t nc = (v->nm + g->n_members) * 2;
		struct ib_port **na = realloc(v->m, nc * sizeof(*na));
		if (!na)
			return -ENOMEM;
		v->m = na;
		v->cap_m = nc;
	}
	for (uint32_t i = 0; i < g->n_members; i++) {
		struct ib_port *p = g->members[i];
		uint32_t k = p->node->idx;
		if (c->node_stamp[k] == c->node_gen && c->node_seen[k] == p)
			continue;
		c->node_stamp[k] = c->node_gen;
		c->node_seen[k] = p;
		v->m[v->nm++] = p;
	}
	return 0;
}

/* Marks tree tid as part of the vMcg and takes in its groups' members. */
static int take_tree(struct mc_ctx *c, struct vmcg *v, uint32_t tid)
{
	struct mc_tree *t = &c->trees[tid];
	int rc;

	if (t->mark == c->mark_gen)
		return 0;
	t->mark = c->mark_gen;
	if ((rc = push_u32(&v->trees, &v->nt, &v->cap_t, tid)) < 0)
		return rc;
	for (uint32_t i = 0; i < t->n_groups; i++)
		if ((rc = add_members(c, v, &c->groups[t->groups[i]])) < 0)
			return rc;
	return 0;
}

static int refresh_switches(struct mc_ctx *c, struct vmcg *v)
{
	free(v->msw);
	v->msw = malloc((v->nm + 1) * sizeof(uint32_t));
	if (!v->msw)
		return -ENOMEM;
	v->nmsw = mc_member_switches(c, v->m, v->nm, v->msw);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : x > y;
}

/* Groups a temporary tree would pull in: distinct foreign trees of the
 * color on its switches, weighted by their groups. */
static uint64_t blocker_cost(const struct mc_ctx *c, const struct mc_tree *tmp,
			     uint32_t color, uint32_t *ids)
{
	uint32_t n = 0;
	uint64_t cost = 0;

	for (uint32_t k = 0; k < tmp->n_nodes; k++) {
		uint32_t o = mc_color_owner(c, tmp->nodes[k].sw, color);
		if (o != MC_NONE && c->trees[o].mark != c->mark_gen)
			ids[n++] = o;
	}
	qsort(ids, n, sizeof(*ids), cmp_u32);
	for (uint32_t k = 0; k < n; k++)
		if (!k || ids[k] != ids[k - 1])
			cost += c->trees[ids[k]].n_groups;
	return cost;
}

/* Steps 5-9: a temporary bottom-up tree of the vMcg in G; every tree of
 * the color on its switches joins the vMcg, which makes the vMcg connected
 * in G_color (the temporary tree itself runs inside it).
 * Reading: the paper leaves the temporary root open ("choose a root");
 * we try the MC_TMP_ROOTS least-loaded optimal roots, build each tree
 * preferring next hops free of the color (or already in the vMcg), and
 * keep the one that pulls in the fewest groups, so merges stay small. */
#define MC_TMP_ROOTS 8
static int absorb_blockers(struct mc_ctx *c, struct vmcg *v, uint32_t color)
{
	struct mc_tree tmp = { .root = MC_NONE, .color = MC_NONE };
	uint32_t *roots = malloc(c->n_sw * sizeof(uint32_t)), nr, best = MC_NONE;
	uint32_t *ids = NULL;
	uint64_t bcost = UINT64_MAX;
	int rc = 0;

	if (!roots)
		return -ENOMEM;
	nr = mc_optimal_roots(c, v->msw, v->nmsw, roots, NULL);
	if (!nr) {
		rc = -EHOSTUNREACH;
		goto out;
	}
	for (uint32_t i = 0; i < nr && i < MC_TMP_ROOTS && bcost; i++) {
		mc_tree_reset(&tmp);
		rc = mc_build_bottom_up_in(c, roots[i], color, c->mark_gen,
					   v->m, v->nm, &tmp);
		if (rc < 0)
			goto out;
		if (!ids && !(ids = malloc((tmp.cap_nodes + c->n_sw) * sizeof(*ids)))) {
			rc = -ENOMEM;
			goto out;
		}
		uint64_t cost = blocker_cost(c, &tmp, color, ids);
		if (cost < bcost) {
			bcost = cost;
			best = roots[i];
		}
	}
	mc_tree_reset(&tmp);
	rc = mc_build_bottom_up_in(c, best, color, c->mark_gen, v->m, v->nm, &tmp);
	for (uint32_t k = 0; k < tmp.n_nodes && rc == 0; k++) {
		uint32_t o = mc_color_owner(c, tmp.nodes[k].sw, color);
		if (o != MC_NONE)
			rc = take_tree(c, v, o);
	}
	c->st.absorbs++;
out:
	free(ids);
	free(tmp.nodes);
	free(tmp.slot);
	free(roots);
	return rc;
}

/* Swaps the built tree into the context in place of the vMcg's trees. */
static int install(struct mc_ctx *c, struct vmcg *v, struct mc_tree *built,
		   uint32_t color, struct mc_group *newg)
{
	uint32_t *gs = NULL, ng = 0, cap = 0;
	struct mc_tree *t;
	int rc = 0;

	for (uint32_t i = 0; i < v->nt && rc == 0; i++) {
		struct mc_tree *o = &c->trees[v->trees[i]];
		for (uint32_t j = 0; j < o->n_groups && rc == 0; j++)
			rc = push_u32(&gs, &ng, &cap, o->groups[j]);
	}
	if (newg && rc == 0)
		rc = push_u32(&gs, &ng, &cap, newg->id);
	if (rc < 0) {
		free(gs);
		return rc;
	}
	for (uint32_t i = 0; i < v->nt; i++) {
		struct mc_tree *o = &c->trees[v->trees[i]];
		mc_tree_account(c, o, -1);
		mc_tree_paint(c, o, false);
		mc_tree_free(c, o);
	}
	t = mc_tree_new(c); /* a freed id is available: cannot fail */
	free(t->nodes);
	free(t->slot);
	free(t->groups);
	t->nodes = built->nodes;
	t->n_nodes = built->n_nodes;
	t->cap_nodes = built->cap_nodes;
	t->slot = built->slot;
	t->slot_cap = built->slot_cap;
	t->root = built->root;
	t->msw_valid = false;
	t->groups = gs;
	t->n_groups = ng;
	t->cap_groups = cap;
	built->nodes = NULL;
	built->slot = NULL;
	if ((rc = mc_tree_commit(c, t, color, NULL)) < 0)
		return rc;
	for (uint32_t i = 0; i < ng; i++) {
		c->groups[gs[i]].tree = t->id;
		c->groups[gs[i]].merged = ng > 1;
	}
	return 0;
}

/* The paper's remark (§3.2.1): a group whose members all sit on switches
 * of an existing tree can use that tree as it is; only its member ports
 * are added.  This is also what keeps merges into a big tree cheap. */
static bool try_subset(struct mc_ctx *c, uint32_t tid, struct mc_group *g,
		       int *rc)
{
	struct mc_tree *t = &c->trees[tid];

	for (uint32_t i = 0; i < g->n_members; i++)
		if (!mc_tree_node(t, mc_member_sw(g->members[i])))
			return false;
	mc_tree_account(c, t, -1);
	mc_tree_paint(c, t, false);
	for (uint32_t i = 0; i < g->n_members; i++)
		(void)mc_tree_add_member(t, g->members[i]);
	mc_tree_finish(c, t);
	*rc = mc_tree_attach_quiet(t, g);
	mc_tree_paint(c, t, true);
	mc_tree_account(c, t, +1);
	for (uint32_t i = 0; i < t->n_groups; i++)
		c->groups[t->groups[i]].merged = t->n_groups > 1;
	return true;
}

int mc_vmcg_route(struct mc_ctx *c, uint32_t color, const uint32_t *trees,
		  uint32_t nt, struct mc_group *newg, bool keep_root, bool extend)
{
	struct vmcg v = { 0 };
	struct mc_tree built = { .root = MC_NONE, .color = MC_NONE };
	uint32_t root;
	int rc = 0;

	if (!nt && !newg)
		return -EINVAL;
	if (nt == 1 && newg && try_subset(c, trees[0], newg, &rc))
		return rc;
	c->mark_gen++;
	if (++c->node_gen == 0) {
		memset(c->node_stamp, 0, c->f->n_nodes * sizeof(uint32_t));
		c->node_gen = 1;
	}
	for (uint32_t i = 0; i < nt && rc == 0; i++)
		rc = take_tree(c, &v, trees[i]);
	if (newg && rc == 0)
		rc = add_members(c, &v, newg);
	if (rc == 0)
		rc = refresh_switches(c, &v);
	if (rc == 0 && !mc_gc_connected(c, 0, color, c->mark_gen, v.msw, v.nmsw)) {
		rc = absorb_blockers(c, &v, color);
		if (rc == 0)
			rc = refresh_switches(c, &v);
	}
	if (rc < 0)
		goto out;
	rc = -EAGAIN;
	if (extend && v.nt)
		/* old trees bring their member ports along: only the new
		 * group's members (or, for a member addition, the group's
		 * members) need joining */
		rc = mc_attach_build(c, color, c->mark_gen, v.trees, v.nt,
				     newg ? newg->members : v.m,
				     newg ? newg->n_members : v.nm, &built);
	if (rc == -EAGAIN) {
		free(built.nodes);
		free(built.slot);
		memset(&built, 0, sizeof(built));
		built.root = MC_NONE;
		root = keep_root && nt ? c->trees[trees[0]].root
				       : mc_gc_best_root(c, color, c->mark_gen, v.msw, v.nmsw);
		if (root == MC_NONE) {
			rc = -EHOSTUNREACH;
			goto out;
		}
		rc = mc_gc_build(c, 0, color, c->mark_gen, extend, root, v.m,
				 v.nm, &built);
	}
	if (rc == 0 && !v.nt) {
		/* no old tree: install needs a fresh tree id */
		struct mc_tree *t = mc_tree_new(c);
		if (!t) {
			rc = -ENOMEM;
			goto out;
		}
		t->mark = c->mark_gen;
		rc = push_u32(&v.trees, &v.nt, &v.cap_t, t->id);
	}
	if (rc == 0)
		rc = install(c, &v, &built, color, newg);
out:
	free(built.nodes);
	free(built.slot);
	free(v.trees);
	free(v.m);
	free(v.msw);
	return rc;
}
