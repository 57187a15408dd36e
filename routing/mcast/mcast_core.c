/* Multicast core: the context (adjacency, EFI slots, color occupancy,
 * scratch), groups (create, route, delete) and the
 * per-switch MFT view used for programming and dumps. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void mcast_params_default(struct mc_params *prm)
{
	memset(prm, 0, sizeof(*prm));
	prm->mft_size = 0;
	prm->merge = MC_MERGE_EXTEND;
	prm->switch_threshold = 20;
	prm->pessimistic_trees = 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* Switch-switch adjacency in CSR form, built once per context. */
static int build_adj(struct mc_ctx *c)
{
	struct fabric *f = c->f;
	uint32_t ne = 0, slots = 0;

	c->adj.off = calloc(c->n_sw + 1, sizeof(uint32_t));
	c->port_base = calloc(c->n_sw + 1, sizeof(uint32_t));
	if (!c->adj.off || !c->port_base)
		return -ENOMEM;
	for (uint32_t s = 0; s < c->n_sw; s++) {
		struct ib_node *sw = f->switches[s];
		c->port_base[s] = slots;
		slots += sw->nports + 1u;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (r && r->node->type == IB_NODE_SWITCH)
				ne++;
		}
	}
	c->port_base[c->n_sw] = slots;
	c->adj.peer = malloc((ne + 1) * sizeof(uint32_t));
	c->adj.port = malloc(ne + 1);
	c->adj.rport = malloc(ne + 1);
	c->efi = calloc(slots + 1, sizeof(uint32_t));
	c->sw_load = calloc(c->n_sw + 1, sizeof(uint32_t));
	c->sw_clock = calloc(c->n_sw + 1, sizeof(uint32_t));
	if (!c->adj.peer || !c->adj.port || !c->adj.rport || !c->efi ||
	    !c->sw_load || !c->sw_clock)
		return -ENOMEM;
	ne = 0;
	for (uint32_t s = 0; s < c->n_sw; s++) {
		struct ib_node *sw = f->switches[s];
		c->adj.off[s] = ne;
		for (unsigned p = 1; p <= sw->nports; p++) {
			struct ib_port *r = sw->ports[p].remote;
			if (!r || r->node->type != IB_NODE_SWITCH)
				continue;
			c->adj.peer[ne] = (uint32_t)r->node->sw_idx;
			c->adj.port[ne] = (uint8_t)p;
			c->adj.rport[ne] = r->num;
			ne++;
		}
	}
	c->adj.off[c->n_sw] = ne;
	return 0;
}

static int alloc_scratch(struct mc_ctx *c)
{
	size_t n = c->n_sw + 1;

	c->n_scr = pool_threads(c->pool);
	if (c->n_scr == 0)
		c->n_scr = 1;
	c->scr = calloc(c->n_scr, sizeof(*c->scr));
	if (!c->scr)
		return -ENOMEM;
	for (unsigned w = 0; w < c->n_scr; w++) {
		struct mc_scratch *s = &c->scr[w];
		s->stamp = calloc(n, sizeof(*s->stamp));
		s->parent = malloc(n * sizeof(*s->parent));
		s->up_port = malloc(n);
		s->dist = malloc(n * sizeof(*s->dist));
		s->queue = malloc(n * sizeof(*s->queue));
		/* zeroed: a new context's generations start again at 1, so
		 * recycled memory (the planner's trial context, an engine
		 * rebuilt by a sweep) must hold no values tagged with them
		 * (FCTB's root counts once were, and gave a tree without its
		 * MFT entries now and then with 2 threads) */
		s->key = calloc(n, sizeof(*s->key));
		s->heap = malloc(n * sizeof(*s->heap));
		s->hpos = malloc(n * sizeof(*s->hpos));
		s->bytes = malloc(n);
		s->dport = malloc(n);
		s->worst = malloc(n);
		if (!s->dport || !s->worst || !s->stamp || !s->parent ||
		    !s->up_port || !s->dist || !s->queue || !s->key ||
		    !s->heap || !s->hpos || !s->bytes)
			return -ENOMEM;
	}
	return 0;
}

int mcast_create_with(struct mc_ctx **out, struct fabric *f,
		      const struct hops *h, struct pool *pool,
		      const struct mc_engine *eng, bool root_rotation,
		      const struct mc_params *prm)
{
	struct mc_ctx *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	c->f = f;
	c->h = h;
	c->pool = pool;
	if (prm)
		c->prm = *prm;
	else
		mcast_params_default(&c->prm);
	c->eng = eng;
	if (!c->eng || h->n != f->n_switches) {
		free(c);
		return -EINVAL;
	}
	c->prm.root_rotation |= root_rotation;
	if (!c->prm.switch_threshold)
		c->prm.switch_threshold = 20;
	c->n_sw = f->n_switches;
	c->color_limit = c->prm.mft_size && c->prm.mft_size < MC_MAX_COLORS
			     ? c->prm.mft_size
			     : MC_MAX_COLORS;
	c->color_hint = MC_NONE;
	if ((rc = build_adj(c)) < 0 || (rc = alloc_scratch(c)) < 0)
		goto fail;
	c->node_stamp = calloc(f->n_nodes + 1, sizeof(uint32_t));
	c->node_seen = calloc(f->n_nodes + 1, sizeof(*c->node_seen));
	c->sw_changed = malloc((c->n_sw / 64 + 1) * sizeof(uint64_t));
	if (!c->node_stamp || !c->node_seen || !c->sw_changed) {
		rc = -ENOMEM;
		goto fail;
	}
	memset(c->sw_changed, 0xff, (c->n_sw / 64 + 1) * sizeof(uint64_t));
	c->cwords = 0;
	if ((rc = c->eng->init ? c->eng->init(c) : 0) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	mcast_destroy(c);
	return rc;
}

void mcast_destroy(struct mc_ctx *c)
{
	if (!c)
		return;
	if (c->eng && c->eng->fini)
		c->eng->fini(c);
	for (uint32_t i = 0; i < c->n_groups; i++)
		free(c->groups[i].members);
	for (uint32_t i = 0; i < c->n_trees; i++) {
		free(c->trees[i].nodes);
		free(c->trees[i].slot);
		free(c->trees[i].groups);
		free(c->trees[i].msw);
	}
	for (uint32_t i = 0; i < c->owner_cap; i++)
		free(c->owner[i]);
	for (unsigned w = 0; c->scr && w < c->n_scr; w++) {
		struct mc_scratch *s = &c->scr[w];
		free(s->stamp);
		free(s->parent);
		free(s->up_port);
		free(s->dist);
		free(s->queue);
		free(s->key);
		free(s->heap);
		free(s->hpos);
		free(s->bytes);
		free(s->dport);
		free(s->worst);
	}
	free(c->scr);
	free(c->node_stamp);
	free(c->node_seen);
	free(c->sw_changed);
	free(c->add_ms);
	free(c->owner);
	free(c->color_trees);
	free(c->color_groups);
	free(c->busy);
	free(c->groups);
	free(c->trees);
	free(c->free_groups);
	free(c->free_trees);
	free(c->adj.off);
	free(c->adj.peer);
	free(c->adj.port);
	free(c->adj.rport);
	free(c->port_base);
	free(c->efi);
	free(c->sw_load);
	free(c->sw_clock);
	free(c->forecast);
	free(c->fc_width);
	free(c);
}

static struct mc_group *group_new(struct mc_ctx *c)
{
	uint32_t id;

	if (c->n_free_groups) {
		id = c->free_groups[--c->n_free_groups];
	} else {
		if (c->n_groups == c->cap_groups) {
			uint32_t nc = c->cap_groups ? c->cap_groups * 2 : 64;
			struct mc_group *ng =
			    realloc(c->groups, nc * sizeof(*ng));
			uint32_t *nf =
			    realloc(c->free_groups, nc * sizeof(*nf));
			if (ng)
				c->groups = ng;
			if (nf)
				c->free_groups = nf;
			if (!ng || !nf)
				return NULL;
			c->cap_groups = nc;
		}
		id = c->n_groups++;
		memset(&c->groups[id], 0, sizeof(c->groups[id]));
	}
	struct mc_group *g = &c->groups[id];
	g->id = id;
	g->tree = MC_NONE;
	g->n_members = 0;
	g->live = true;
	g->merged = false;
	c->live_groups++;
	return g;
}

static void group_free(struct mc_ctx *c, struct mc_group *g)
{
	g->live = false;
	g->tree = MC_NONE;
	g->n_members = 0;
	c->live_groups--;
	c->free_groups[c->n_free_groups++] = g->id;
}

/* Appends member m unless already present.  1 added, 0 duplicate, -errno. */
int mc_group_push_member(struct mc_group *g, struct ib_port *m)
{
	for (uint32_t i = 0; i < g->n_members; i++)
		if (g->members[i] == m)
			return 0;
	if (g->n_members == g->cap_members) {
		uint32_t nc = g->cap_members ? g->cap_members * 2 : 8;
		struct ib_port **nm = realloc(g->members, nc * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		g->members = nm;
		g->cap_members = nc;
	}
	g->members[g->n_members++] = m;
	return 1;
}

uint32_t mcast_group_find(const struct mc_ctx *c, const uint8_t mgid[16])
{
	/* Linear: group creation is dominated by routing, and the daemon
	 * keeps its own MGID index. */
	for (uint32_t i = 0; i < c->n_groups; i++)
		if (c->groups[i].live &&
		    memcmp(c->groups[i].mgid, mgid, 16) == 0)
			return i;
	return MC_NONE;
}

static void count_add(uint32_t *v, int delta)
{
	if (delta > 0)
		*v += (uint32_t)delta;
	else
		*v -= *v < (uint32_t)-delta ? *v : (uint32_t)-delta;
}

int mcast_forecast(struct mc_ctx *c, const uint32_t *sw, uint32_t n, int delta)
{
	uint32_t w = mc_width_class(n);

	if (!c->forecast &&
	    !(c->forecast = calloc(c->n_sw + 1, sizeof(uint32_t))))
		return -ENOMEM;
	if (!c->fc_width &&
	    !(c->fc_width = calloc((size_t)(c->n_sw + 1) * MC_FC_WIDTHS,
				   sizeof(uint32_t))))
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		if (sw[i] >= c->n_sw)
			return -EINVAL;
		count_add(&c->forecast[sw[i]], delta);
		count_add(&c->fc_width[(size_t)sw[i] * MC_FC_WIDTHS + w],
			  delta);
	}
	return 0;
}

void mcast_forecast_peak(struct mc_ctx *c, uint32_t max_efi)
{
	c->forecast_peak = max_efi;
}

void mcast_color_hint(struct mc_ctx *c, uint32_t color)
{
	c->color_hint = color < c->color_limit ? color : MC_NONE;
}

int mcast_group_add(struct mc_ctx *c, const uint8_t mgid[16],
		    struct ib_port *const *members, uint32_t n, uint32_t *gid)
{
	double t0 = now_s();
	struct mc_group *g;
	int rc = 0;

	if (!n)
		return -EINVAL;
	for (uint32_t i = 0; i < n; i++)
		if (!members[i] || mc_member_sw(members[i]) == MC_NONE)
			return -EINVAL;
	if (!(g = group_new(c)))
		return -ENOMEM;
	memcpy(g->mgid, mgid, 16);
	for (uint32_t i = 0; i < n && rc >= 0; i++)
		rc = mc_group_push_member(g, members[i]);
	if (rc >= 0)
		rc = c->eng->route(c, g);
	if (rc < 0) {
		group_free(c, g);
		c->seconds += now_s() - t0;
		return rc;
	}
	if (gid)
		*gid = g->id;
	double dt = now_s() - t0;
	if (c->routed == c->cap_add_ms) {
		uint64_t nc = c->cap_add_ms ? c->cap_add_ms * 2 : 1024;
		float *na = realloc(c->add_ms, nc * sizeof(*na));
		if (na) {
			c->add_ms = na;
			c->cap_add_ms = nc;
		}
	}
	if (c->routed < c->cap_add_ms)
		c->add_ms[c->routed] = (float)(dt * 1e3);
	c->routed++;
	c->seconds += dt;
	return 0;
}

const struct mc_group *mcast_group_get(const struct mc_ctx *c, uint32_t gid)
{
	return gid < c->n_groups && c->groups[gid].live ? &c->groups[gid]
							: NULL;
}

const struct mc_tree *mcast_group_tree(const struct mc_ctx *c, uint32_t gid)
{
	const struct mc_group *g = mcast_group_get(c, gid);

	return g && g->tree != MC_NONE ? &c->trees[g->tree] : NULL;
}

uint16_t mcast_group_mlid(const struct mc_ctx *c, uint32_t gid)
{
	const struct mc_tree *t = mcast_group_tree(c, gid);

	return t ? (uint16_t)(IB_LID_MCAST_START + t->color) : 0;
}

bool mcast_mft_get(const struct mc_ctx *c, uint32_t sw, uint32_t color,
		   uint64_t mask[MC_MASK_WORDS])
{
	uint32_t tid = sw < c->n_sw ? mc_color_owner(c, sw, color) : MC_NONE;
	const struct mc_tnode *n;

	memset(mask, 0, MC_MASK_WORDS * sizeof(uint64_t));
	if (tid == MC_NONE || !(n = mc_tree_node(&c->trees[tid], sw)))
		return false;
	memcpy(mask, n->mask, MC_MASK_WORDS * sizeof(uint64_t));
	return true;
}

void mcast_mft_foreach(const struct mc_ctx *c, uint32_t sw,
		       void (*cb)(void *arg, uint32_t color,
				  const uint64_t mask[MC_MASK_WORDS]),
		       void *arg)
{
	uint64_t mask[MC_MASK_WORDS];

	for (uint32_t w = 0; w < c->cwords; w++) {
		uint64_t bits = c->busy[(size_t)sw * c->cwords + w];
		while (bits) {
			uint32_t col = w * 64 + (uint32_t)__builtin_ctzll(bits);
			bits &= bits - 1;
			if (mcast_mft_get(c, sw, col, mask))
				cb(arg, col, mask);
		}
	}
}

bool mcast_sw_changed(struct mc_ctx *c, uint32_t sw)
{
	uint64_t bit = 1ull << (sw % 64), *w = &c->sw_changed[sw / 64];
	bool was = sw < c->n_sw && (*w & bit);

	if (was)
		*w &= ~bit;
	return was;
}

uint32_t mcast_colors_top(const struct mc_ctx *c)
{
	for (uint32_t col = c->owner_cap; col > 0; col--)
		if (c->color_trees[col - 1])
			return col;
	return 0;
}
