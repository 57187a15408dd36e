/* Multicast trees: node storage with a switch -> node map, per-switch port
 * masks, depths and height, committing a tree (color, EFI, loads) and the
 * bottom-up build along min-hop next hops shared by FULB and MR4LMS. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct mc_tree *mc_tree_new(struct mc_ctx *c)
{
	uint32_t id;

	if (c->n_free_trees) {
		id = c->free_trees[--c->n_free_trees];
	} else {
		if (c->n_trees == c->cap_trees) {
			uint32_t nc = c->cap_trees ? c->cap_trees * 2 : 64;
			struct mc_tree *nt =
			    realloc(c->trees, nc * sizeof(*nt));
			uint32_t *nf = realloc(c->free_trees, nc * sizeof(*nf));
			if (nt)
				c->trees = nt;
			if (nf)
				c->free_trees = nf;
			if (!nt || !nf)
				return NULL;
			c->cap_trees = nc;
		}
		id = c->n_trees++;
		memset(&c->trees[id], 0, sizeof(c->trees[id]));
	}
	struct mc_tree *t = &c->trees[id];
	t->id = id;
	t->color = MC_NONE;
	t->root = MC_NONE;
	t->height = 0;
	t->n_nodes = 0;
	t->n_groups = 0;
	t->msw_valid = false;
	t->lstamp = 0;
	if (t->slot)
		memset(t->slot, 0, t->slot_cap * sizeof(*t->slot));
	t->live = true;
	c->live_trees++;
	return t;
}

void mc_tree_free(struct mc_ctx *c, struct mc_tree *t)
{
	if (!t->live)
		return;
	t->live = false;
	t->n_nodes = 0;
	t->msw_valid = false;
	t->n_groups = 0;
	t->color = MC_NONE;
	/* Keep the arrays for reuse, but drop big ones from merged trees. */
	if (t->cap_nodes > 1024) {
		free(t->nodes);
		free(t->slot);
		t->nodes = NULL;
		t->slot = NULL;
		t->cap_nodes = t->slot_cap = 0;
	}
	c->live_trees--;
	c->free_trees[c->n_free_trees++] = t->id;
}

void mc_tree_reset(struct mc_tree *t)
{
	t->n_nodes = 0;
	t->msw_valid = false;
	t->root = MC_NONE;
	t->height = 0;
	if (t->slot)
		memset(t->slot, 0, t->slot_cap * sizeof(*t->slot));
}

static inline uint32_t slot_hash(uint32_t sw, uint32_t cap)
{
	return (sw * 2654435761u) & (cap - 1);
}

struct mc_tnode *mc_tree_node(const struct mc_tree *t, uint32_t sw)
{
	if (!t->slot_cap)
		return NULL;
	for (uint32_t i = slot_hash(sw, t->slot_cap);;
	     i = (i + 1) & (t->slot_cap - 1)) {
		uint32_t v = t->slot[i];
		if (!v)
			return NULL;
		if (t->nodes[v - 1].sw == sw)
			return &t->nodes[v - 1];
	}
}

static int slot_grow(struct mc_tree *t)
{
	uint32_t nc = t->slot_cap ? t->slot_cap * 2 : 16;
	uint32_t *ns = calloc(nc, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	free(t->slot);
	t->slot = ns;
	t->slot_cap = nc;
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		uint32_t i = slot_hash(t->nodes[k].sw, nc);
		while (ns[i])
			i = (i + 1) & (nc - 1);
		ns[i] = k + 1;
	}
	return 0;
}

uint32_t mc_tree_add(struct mc_tree *t, uint32_t sw, uint32_t parent,
		     uint8_t up_port, uint8_t down_port)
{
	if (t->n_nodes == t->cap_nodes) {
		uint32_t nc = t->cap_nodes ? t->cap_nodes * 2 : 16;
		struct mc_tnode *nn = realloc(t->nodes, nc * sizeof(*nn));
		if (!nn)
			return MC_NONE;
		t->nodes = nn;
		t->cap_nodes = nc;
	}
	/* load factor <= 1/2 */
	if ((t->n_nodes + 1) * 2 > t->slot_cap && slot_grow(t) < 0)
		return MC_NONE;
	uint32_t k = t->n_nodes++;
	struct mc_tnode *n = &t->nodes[k];
	memset(n, 0, sizeof(*n));
	n->sw = sw;
	n->parent = parent;
	n->up_port = up_port;
	if (parent != MC_NONE) {
		struct mc_tnode *p = &t->nodes[parent];
		mc_mask_set(n->mask, up_port);
		mc_mask_set(p->mask, down_port);
		p->n_children++;
		n->depth = (uint8_t)(p->depth + 1);
	} else {
		t->root = sw;
	}
	uint32_t i = slot_hash(sw, t->slot_cap);
	while (t->slot[i])
		i = (i + 1) & (t->slot_cap - 1);
	t->slot[i] = k + 1;
	return k;
}

int mc_tree_add_member(struct mc_tree *t, const struct ib_port *m)
{
	uint32_t sw = mc_member_sw(m);
	struct mc_tnode *n = sw == MC_NONE ? NULL : mc_tree_node(t, sw);

	if (!n)
		return -EINVAL;
	mc_mask_set(n->mask, m->remote->num);
	mc_mask_set(n->members, m->remote->num);
	t->msw_valid = false;
	return 0;
}

const uint32_t *mc_tree_msw(struct mc_tree *t, uint32_t *n)
{
	if (!t->msw_valid) {
		if (t->cap_msw < t->n_nodes) {
			uint32_t *nm =
			    realloc(t->msw, t->n_nodes * sizeof(*nm));
			if (!nm)
				return NULL;
			t->msw = nm;
			t->cap_msw = t->n_nodes;
		}
		t->n_msw = 0;
		for (uint32_t k = 0; k < t->n_nodes; k++) {
			const struct mc_tnode *nd = &t->nodes[k];
			if (nd->members[0] | nd->members[1] | nd->members[2] |
			    nd->members[3])
				t->msw[t->n_msw++] = nd->sw;
		}
		t->msw_valid = true;
	}
	*n = t->n_msw;
	return t->msw;
}

/* Depths from parent links (nodes may be stored in any order once a tree
 * has been pruned or merged), height = deepest member switch + 1. */
void mc_tree_finish(struct mc_ctx *c, struct mc_tree *t)
{
	uint8_t h = 0;

	(void)c;
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		struct mc_tnode *n = &t->nodes[k];
		uint32_t d = 0, p = n->parent;
		while (p != MC_NONE && d < 255) {
			d++;
			p = t->nodes[p].parent;
		}
		n->depth = (uint8_t)d;
	}
	for (uint32_t k = 0; k < t->n_nodes; k++) {
		const struct mc_tnode *n = &t->nodes[k];
		bool mem = false;
		for (int w = 0; w < MC_MASK_WORDS; w++)
			mem |= n->members[w] != 0;
		if (mem && n->depth + 1 > h)
			h = (uint8_t)(n->depth + 1);
	}
	if (t->n_nodes)
		t->root =
		    t->nodes[0].parent == MC_NONE ? t->nodes[0].sw : t->root;
	t->height = h;
}

/* The EFI of t's MFT ports as they are now: highest, sum and count. */
static void port_loads(const struct mc_ctx *c, const struct mc_tree *t,
		       uint32_t *max, uint64_t *sum, uint32_t *ports)
{
	*max = *ports = 0;
	*sum = 0;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct mc_tnode *n = &t->nodes[i];
		const uint32_t *efi = c->efi + c->port_base[n->sw];
		for (int w = 0; w < MC_MASK_WORDS; w++)
			for (uint64_t b = n->mask[w]; b; b &= b - 1) {
				uint32_t e = efi[w * 64 + __builtin_ctzll(b)];
				*max = e > *max ? e : *max;
				*sum += e;
				(*ports)++;
			}
	}
}

uint32_t mc_tree_peak(const struct mc_ctx *c, const struct mc_tree *t)
{
	uint32_t max, ports;
	uint64_t sum;

	port_loads(c, t, &max, &sum, &ports);
	return ports ? max + 1 : 0;
}

void mc_tree_load(const struct mc_ctx *c, struct mc_tree *t, uint32_t *max,
		  uint64_t *sum, uint32_t *ports)
{
	bool fresh = t->lstamp != 0;

	for (uint32_t i = 0; i < t->n_nodes && fresh; i++)
		fresh = c->sw_clock[t->nodes[i].sw] <= t->lstamp;
	if (!fresh) {
		port_loads(c, t, &t->lmax, &t->lsum, &t->lports);
		t->lstamp = c->load_clock ? c->load_clock : 1;
	}
	*max = t->lmax;
	*sum = t->lsum;
	*ports = t->lports;
}

/* Switch sw's MFT entries may have changed (mcast_sw_changed). */
static inline void mark_changed(struct mc_ctx *c, uint32_t sw)
{
	c->sw_changed[sw / 64] |= 1ull << (sw % 64);
}

/* Every tree cache of a load before this goes stale (mc_tree_load). */
static void clock_tick(struct mc_ctx *c)
{
	if (++c->load_clock == 0) { /* wrapped: every cache goes stale */
		for (uint32_t i = 0; i < c->n_trees; i++)
			c->trees[i].lstamp = 0;
		c->load_clock = 1;
	}
}

int mc_tree_add_member_live(struct mc_ctx *c, struct mc_tree *t,
			    const struct ib_port *m)
{
	uint32_t sw = mc_member_sw(m);
	struct mc_tnode *n = sw == MC_NONE ? NULL : mc_tree_node(t, sw);
	unsigned p;

	if (!n)
		return -EINVAL;
	p = m->remote->num;
	if (!mc_mask_test(n->mask, p)) { /* a new MFT port: its EFI */
		uint32_t *e = &c->efi[c->port_base[sw] + p];

		clock_tick(c);
		c->sw_clock[sw] = c->load_clock;
		*e += t->n_groups;
		if (*e > c->efi_high)
			c->efi_high = *e;
	}
	mark_changed(c, sw);
	mc_tree_add_member(t, m);
	if (n->depth + 1 > t->height)
		t->height = (uint8_t)(n->depth + 1);
	return 0;
}

void mc_tree_account(struct mc_ctx *c, const struct mc_tree *t, int sign)
{
	uint32_t k = t->n_groups;

	clock_tick(c);
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		const struct mc_tnode *n = &t->nodes[i];
		uint32_t base = c->port_base[n->sw];
		c->sw_clock[n->sw] = c->load_clock;
		mark_changed(c, n->sw);
		c->sw_load[n->sw] += (uint32_t)(sign * (int)k);
		for (int w = 0; w < MC_MASK_WORDS; w++) {
			uint64_t bits = n->mask[w];
			while (bits) {
				unsigned p =
				    (unsigned)(w * 64 + __builtin_ctzll(bits));
				bits &= bits - 1;
				c->efi[base + p] += (uint32_t)(sign * (int)k);
				if (c->efi[base + p] > c->efi_high)
					c->efi_high = c->efi[base + p];
			}
		}
	}
}

static int owner_reserve(struct mc_ctx *c, uint32_t color)
{
	if (color >= c->owner_cap) {
		uint32_t nc = c->owner_cap ? c->owner_cap : 64;
		while (nc <= color)
			nc *= 2;
		uint32_t **no = realloc(c->owner, nc * sizeof(*no));
		if (!no)
			return -ENOMEM;
		c->owner = no;
		uint32_t *nt = realloc(c->color_trees, nc * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		c->color_trees = nt;
		uint32_t *ng = realloc(c->color_groups, nc * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		c->color_groups = ng;
		for (uint32_t i = c->owner_cap; i < nc; i++) {
			no[i] = NULL;
			nt[i] = ng[i] = 0;
		}
		c->owner_cap = nc;
	}
	if (!c->owner[color]) {
		c->owner[color] = malloc(c->n_sw * sizeof(uint32_t));
		if (!c->owner[color])
			return -ENOMEM;
		memset(c->owner[color], 0xff, c->n_sw * sizeof(uint32_t));
	}
	return 0;
}

/* Widens busy[] so color fits (unlimited mode grows as colors are used). */
static int busy_reserve(struct mc_ctx *c, uint32_t color)
{
	uint32_t need = color / 64 + 1;

	if (need <= c->cwords)
		return 0;
	uint32_t nw = c->cwords ? c->cwords : 1;
	while (nw < need)
		nw *= 2;
	uint64_t *nb = calloc((size_t)c->n_sw * nw, sizeof(*nb));
	if (!nb)
		return -ENOMEM;
	for (uint32_t s = 0; c->busy && s < c->n_sw; s++)
		memcpy(nb + (size_t)s * nw, c->busy + (size_t)s * c->cwords,
		       c->cwords * sizeof(*nb));
	free(c->busy);
	c->busy = nb;
	c->cwords = nw;
	return 0;
}

int mc_tree_paint(struct mc_ctx *c, const struct mc_tree *t, bool on)
{
	uint32_t col = t->color;
	int rc;

	if (col == MC_NONE)
		return -EINVAL;
	if (on && ((rc = owner_reserve(c, col)) < 0 ||
		   (rc = busy_reserve(c, col)) < 0))
		return rc;
	for (uint32_t i = 0; i < t->n_nodes; i++) {
		uint32_t sw = t->nodes[i].sw;
		uint64_t *w = &c->busy[(size_t)sw * c->cwords + (col >> 6)];
		mark_changed(c, sw);
		if (on) {
			*w |= 1ull << (col & 63);
			c->owner[col][sw] = t->id;
		} else if (c->owner[col][sw] == t->id) {
			*w &= ~(1ull << (col & 63));
			c->owner[col][sw] = MC_NONE;
		}
	}
	c->color_trees[col] += on ? 1 : (uint32_t)-1;
	c->color_groups[col] += on ? t->n_groups : (uint32_t)-t->n_groups;
	return 0;
}

/* Whether color is free on every switch of t. */
static bool color_free_on(const struct mc_ctx *c, const struct mc_tree *t,
			  uint32_t color)
{
	for (uint32_t i = 0; i < t->n_nodes; i++)
		if (color / 64 < c->cwords &&
		    mc_color_busy(c, t->nodes[i].sw, color))
			return false;
	return true;
}

uint32_t mc_color_first_free(const struct mc_ctx *c, const struct mc_tree *t)
{
	uint32_t limit = c->color_limit;
	uint32_t words = (limit + 63) / 64;

	if (c->color_hint < limit && color_free_on(c, t, c->color_hint))
		return c->color_hint;

	for (uint32_t w = 0; w < words; w++) {
		uint64_t used = 0;
		if (w < c->cwords)
			for (uint32_t i = 0; i < t->n_nodes && used != ~0ull;
			     i++)
				used |=
				    c->busy[(size_t)t->nodes[i].sw * c->cwords +
					    w];
		uint64_t fr = ~used;
		if (w == words - 1 && limit % 64)
			fr &= (1ull << (limit % 64)) - 1;
		if (fr)
			return w * 64 + (uint32_t)__builtin_ctzll(fr);
	}
	return MC_NONE;
}

static int tree_group_push(struct mc_tree *t, uint32_t gid)
{
	if (t->n_groups == t->cap_groups) {
		uint32_t nc = t->cap_groups ? t->cap_groups * 2 : 2;
		uint32_t *ng = realloc(t->groups, nc * sizeof(*ng));
		if (!ng)
			return -ENOMEM;
		t->groups = ng;
		t->cap_groups = nc;
	}
	t->groups[t->n_groups++] = gid;
	return 0;
}

int mc_tree_commit(struct mc_ctx *c, struct mc_tree *t, uint32_t color,
		   struct mc_group *g)
{
	int rc;

	mc_tree_finish(c, t);
	t->color = color;
	if (g && (rc = tree_group_push(t, g->id)) < 0)
		return rc;
	if ((rc = mc_tree_paint(c, t, true)) < 0) {
		if (g)
			t->n_groups--;
		return rc;
	}
	if (g)
		g->tree = t->id;
	mc_tree_account(c, t, +1);
	return 0;
}

int mc_tree_attach_quiet(struct mc_tree *t, struct mc_group *g)
{
	int rc = tree_group_push(t, g->id);

	if (rc == 0)
		g->tree = t->id;
	return rc;
}

int mc_tree_attach(struct mc_ctx *c, struct mc_tree *t, struct mc_group *g)
{
	int rc;

	mc_tree_account(c, t, -1);
	rc = tree_group_push(t, g->id);
	mc_tree_account(c, t, +1);
	if (rc < 0)
		return rc;
	g->tree = t->id;
	c->color_groups[t->color]++;
	if (t->n_groups > 1)
		for (uint32_t i = 0; i < t->n_groups; i++)
			c->groups[t->groups[i]].merged = true;
	return 0;
}
