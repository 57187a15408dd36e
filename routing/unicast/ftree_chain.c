/* The destinations of a fat-tree routing and their chains (ftree.h).
 *
 * A chain is where the traffic to one LID comes down: v_1 is the up
 * neighbour of the LID's leaf whose link down carries it, v_2 the one
 * above v_1, and so on to a top.  Chains are laid LID offset by LID
 * offset, hosts in cabling order, each step on the up link that has
 * carried the fewest chains down so far, so every link down of a full
 * tree carries exactly one chain per LID offset: consecutive hosts of a
 * leaf take its up links in turn, the hosts that one switch collects take
 * its own up links in turn, and so on (d-mod-k, Zahavi et al.).  Ties go
 * to the neighbour with the fewest chains in all, then to column order,
 * rotated by the LID offset.  A LID at offset o > 0 of an LMC range comes
 * down to its leaf by the link o places after its base LID's, so the
 * LIDs of one port come down different links and every offset is spread
 * over a leaf's links as the base LIDs are. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/ftree.h"

void ft_plan_free(struct ft_plan *p)
{
	free(p->d);
	free(p->chain);
	free(p->digit);
	free(p->lid2d);
	free(p->dstart);
	free(p->leaves);
	free(p->sw_by_guid);
	free(p->sw_lid);
	memset(p, 0, sizeof(*p));
}

static int cmp_sw_guid(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint64_t x = f->switches[*(const uint32_t *)a]->guid;
	uint64_t y = f->switches[*(const uint32_t *)b]->guid;

	return x < y ? -1 : x > y;
}

struct add_ctx {
	struct ft_plan *p;
	uint32_t leaf;
};

static void add_dest(void *ctx, struct ib_port *host, uint8_t port,
		     uint8_t off)
{
	struct add_ctx *c = ctx;

	c->p->d[c->p->n++] =
	    (struct ft_dest){.lid = (uint16_t)(host->lid + off),
			     .base = host->lid,
			     .off = off,
			     .port = port,
			     .leaf = c->leaf,
			     .owner = host,
			     .lmc = host->lmc,
			     .moved = true};
	if (off + 1u > c->p->passes)
		c->p->passes = (uint8_t)(off + 1);
}

static int plan_alloc(const struct fabric *f, const struct ft_tree *t,
		      struct ft_plan *p)
{
	uint32_t n = 0, nsw = f->n_switches;

	p->sw_by_guid = malloc((nsw + 1) * sizeof(*p->sw_by_guid));
	p->sw_lid = malloc((nsw + 1) * sizeof(*p->sw_lid));
	p->leaves = malloc((nsw + 1) * sizeof(*p->leaves));
	p->dstart = malloc((nsw + 2) * sizeof(*p->dstart));
	p->lid2d = malloc(((size_t)f->max_lid + 1) * sizeof(*p->lid2d));
	if (!p->sw_by_guid || !p->sw_lid || !p->leaves || !p->dstart ||
	    !p->lid2d)
		return -ENOMEM;
	for (uint32_t s = 0; s < nsw; s++) {
		p->sw_by_guid[s] = s;
		n += ucast_host_lids(f->switches[s], NULL, NULL);
	}
	qsort_r(p->sw_by_guid, nsw, sizeof(uint32_t), cmp_sw_guid, (void *)f);
	for (uint32_t i = 0; i < nsw; i++)
		p->sw_lid[i] = f->switches[p->sw_by_guid[i]]->ports[0].lid;
	p->stride = t->height + 1u;
	p->d = calloc(n + 1, sizeof(*p->d));
	p->chain = calloc(((size_t)n + 1) * p->stride, sizeof(*p->chain));
	p->digit = calloc(((size_t)n + 1) * p->stride, 1);
	return p->d && p->chain && p->digit ? 0 : -ENOMEM;
}

int ft_plan_init(const struct fabric *f, const struct ft_tree *t,
		 struct ft_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (plan_alloc(f, t, p) < 0) {
		ft_plan_free(p);
		return -ENOMEM;
	}
	p->passes = 1;
	for (uint32_t i = 0; i < f->n_switches; i++) {
		struct add_ctx c = {p, p->sw_by_guid[i]};
		uint32_t first = p->n;
		if (!ucast_host_lids(f->switches[c.leaf], add_dest, &c))
			continue;
		p->dstart[p->n_leaves] = first;
		p->leaves[p->n_leaves++] = c.leaf;
	}
	p->dstart[p->n_leaves] = p->n;
	for (uint32_t l = 0; l <= f->max_lid; l++)
		p->lid2d[l] = UINT32_MAX;
	for (uint32_t d = 0; d < p->n; d++)
		p->lid2d[p->d[d].lid] = d;
	return 0;
}

/* Chain-building counters: chains per down link (by group) and per
 * switch. */
struct chain_ctx {
	const struct ft_tree *t;
	struct ft_plan *p;
	uint32_t *down; /* [groups] */
	uint32_t *tot;	/* [switches] */
};

/* The group of y that leads down to v (v a down neighbour of y). */
static inline uint32_t down_group(const struct ft_tree *t, uint32_t y,
				  uint32_t v)
{
	return t->gstart[y] + ft_via(t, y, v);
}

static void count_chain(struct chain_ctx *c, uint32_t d)
{
	const uint32_t *ch = c->p->chain + (size_t)d * c->p->stride;

	for (unsigned i = 1; i < c->p->d[d].len; i++) {
		c->down[down_group(c->t, ch[i], ch[i - 1])]++;
		c->tot[ch[i]]++;
	}
}

struct lmc_ctx {
	const struct chain_ctx *c;
	uint32_t d, leaf;
};

/* Whether the leaf's up group g already carries another LID of d's port
 * (its chain's first step). */
static bool lmc_taken(void *arg, unsigned g)
{
	const struct lmc_ctx *x = arg;
	const struct ft_plan *p = x->c->p;
	const struct ft_dest *e = &p->d[x->d];
	uint32_t y = x->c->t->gpeer[x->c->t->gstart[x->leaf] + g];

	for (unsigned o = 0; o < 1u << e->lmc; o++) {
		uint32_t k = p->lid2d[e->base + o];
		if (k != x->d && k != UINT32_MAX && p->d[k].len > 1 &&
		    p->chain[(size_t)k * p->stride + 1] == y)
			return true;
	}
	return false;
}

/* The first step of the chain of d, at offset > 0 of an LMC range: the
 * up group ucast_lmc_pick() turns the base LID's by, so every offset
 * comes down a leaf's links as the base LIDs do and the LIDs of a port
 * come down different ones.  FT_NONE when the base LID has no chain. */
static unsigned lmc_step(const struct chain_ctx *c, uint32_t v, uint32_t d)
{
	const struct ft_plan *p = c->p;
	uint32_t k = p->lid2d[p->d[d].base];
	struct lmc_ctx x = {c, d, v};

	if (k == UINT32_MAX || p->d[k].len < 2)
		return FT_NONE;
	return ucast_lmc_pick(c->t->nup[v], p->digit[(size_t)k * p->stride + 1],
			      p->d[d].off, lmc_taken, &x);
}

/* The up group of v for the next step of d's chain (see the file
 * comment). */
static unsigned pick_up(const struct chain_ctx *c, uint32_t v, uint32_t d,
			unsigned step)
{
	const struct ft_tree *t = c->t;
	unsigned tied[FT_MAX_GROUPS], nt = 0, g;
	uint64_t best = UINT64_MAX;

	if (step == 0 && c->p->d[d].off && (g = lmc_step(c, v, d)) != FT_NONE)
		return g;
	for (g = 0; g < t->nup[v]; g++) {
		uint32_t y = t->gpeer[t->gstart[v] + g];
		uint64_t key =
		    (uint64_t)c->down[down_group(t, y, v)] << 32 | c->tot[y];
		if (key < best) {
			best = key;
			nt = 0;
		}
		if (key == best)
			tied[nt++] = g;
	}
	return tied[c->p->d[d].off % nt];
}

static void build_chain(struct chain_ctx *c, uint32_t d)
{
	const struct ft_tree *t = c->t;
	struct ft_plan *p = c->p;
	uint32_t *ch = p->chain + (size_t)d * p->stride;
	uint8_t *dg = p->digit + (size_t)d * p->stride;
	uint32_t v = p->d[d].leaf;
	unsigned len = 1;

	ch[0] = v;
	dg[0] = 0;
	while (t->nup[v] && len < p->stride) {
		unsigned g = pick_up(c, v, d, len - 1);
		uint32_t y = t->gpeer[t->gstart[v] + g];
		ch[len] = y;
		dg[len++] = (uint8_t)g;
		c->down[down_group(t, y, v)]++;
		c->tot[y]++;
		v = y;
	}
	p->d[d].len = (uint8_t)len;
}

int ft_chains(const struct fabric *f, const struct ft_tree *t,
	      struct ft_plan *p, const bool *have)
{
	struct chain_ctx c = {.t = t, .p = p};

	(void)f;
	c.down = calloc(t->gstart[t->n] + 1, sizeof(*c.down));
	c.tot = calloc(t->n + 1, sizeof(*c.tot));
	if (!c.down || !c.tot) {
		free(c.down);
		free(c.tot);
		return -ENOMEM;
	}
	for (uint32_t d = 0; have && d < p->n; d++)
		if (have[d])
			count_chain(&c, d);
	/* offset by offset, hosts in cabling order: leaves by GUID, each
	 * leaf's destinations are already by offset, then port */
	for (unsigned off = 0; off < p->passes; off++)
		for (uint32_t i = 0; i < p->n_leaves; i++)
			for (uint32_t d = p->dstart[i]; d < p->dstart[i + 1];
			     d++)
				if (p->d[d].off == off && !(have && have[d]))
					build_chain(&c, d);
	free(c.down);
	free(c.tot);
	return 0;
}
