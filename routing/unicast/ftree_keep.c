/* What a fat-tree routing hands to the next one (ftree.h): every
 * destination's chain by switch GUID, keyed by (port GUID, LID offset), so
 * a repair on an edited copy of the fabric keeps each chain that is still
 * whole and lays new chains only for the others, on the counts the kept
 * ones leave.  A fresh computation after a failure would lay every chain
 * again in cabling order, and a lost link shifts the turns of all the
 * chains after it; keeping them moves only the destinations the failure
 * touched. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/ftree.h"

struct saved_dest {
	uint64_t port_guid;
	uint8_t off, len;
	uint32_t first; /* index of v_0 in guids */
};

struct saved {
	uint32_t n;
	struct saved_dest *d; /* by (port_guid, off) */
	uint64_t *guids;
};

static const char engine_name[] = "ftree";

static void saved_free(void *priv)
{
	struct saved *s = priv;

	if (!s)
		return;
	free(s->d);
	free(s->guids);
	free(s);
}

static int cmp_saved(const void *a, const void *b)
{
	const struct saved_dest *x = a, *y = b;

	if (x->port_guid != y->port_guid)
		return x->port_guid < y->port_guid ? -1 : 1;
	return (int)x->off - (int)y->off;
}

static struct saved *saved_alloc(const struct ft_plan *p)
{
	struct saved *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->d = malloc((p->n + 1) * sizeof(*s->d));
	s->guids = malloc(((size_t)p->n * p->stride + 1) * sizeof(*s->guids));
	if (!s->d || !s->guids) {
		saved_free(s);
		return NULL;
	}
	return s;
}

int ft_state_save(const struct fabric *f, const struct ft_plan *p,
		  struct ucast_state **out)
{
	struct ucast_state *st = calloc(1, sizeof(*st));
	struct saved *s = saved_alloc(p);
	uint32_t k = 0;

	*out = NULL;
	if (!st || !s) {
		free(st);
		saved_free(s);
		return -ENOMEM;
	}
	for (uint32_t d = 0; d < p->n; d++) {
		const uint32_t *ch = p->chain + (size_t)d * p->stride;
		s->d[d] = (struct saved_dest){p->d[d].owner->guid, p->d[d].off,
					      p->d[d].len, k};
		for (unsigned i = 0; i < p->d[d].len; i++)
			s->guids[k++] = f->switches[ch[i]]->guid;
	}
	s->n = p->n;
	qsort(s->d, s->n, sizeof(*s->d), cmp_saved);
	*st = (struct ucast_state){engine_name, s, saved_free};
	*out = st;
	return 0;
}

/* The saved chain of d as switch indexes of f, if every switch is still
 * there, each step is an up link and the last switch is a top. */
static bool restore_one(const struct fabric *f, const struct ft_tree *t,
			const struct saved *s, const struct saved_dest *sd,
			struct ft_plan *p, uint32_t d)
{
	uint32_t *ch = p->chain + (size_t)d * p->stride;
	uint8_t *dg = p->digit + (size_t)d * p->stride;

	if (!sd->len || sd->len > p->stride)
		return false;
	for (unsigned i = 0; i < sd->len; i++) {
		struct ib_node *n =
		    fabric_node_by_guid(f, s->guids[sd->first + i]);
		if (!n || !node_is_switch(n))
			return false;
		ch[i] = (uint32_t)n->sw_idx;
		if (i == 0) {
			if (ch[0] != p->d[d].leaf)
				return false;
			dg[0] = 0;
			continue;
		}
		dg[i] = ft_via(t, ch[i - 1], ch[i]);
		if (t->level[ch[i]] != i || dg[i] >= t->nup[ch[i - 1]])
			return false;
	}
	if (t->nup[ch[sd->len - 1]])
		return false;
	p->d[d].len = sd->len;
	return true;
}

int ft_keep_chains(const struct fabric *f, const struct ft_tree *t,
		   struct ft_plan *p, const struct ucast_state *prev,
		   bool *have)
{
	const struct saved *s;

	if (!prev || prev->engine != engine_name || !prev->priv)
		return 0;
	s = prev->priv;
	for (uint32_t d = 0; d < p->n; d++) {
		struct saved_dest key = {.port_guid = p->d[d].owner->guid,
					 .off = p->d[d].off};
		const struct saved_dest *sd =
		    bsearch(&key, s->d, s->n, sizeof(*s->d), cmp_saved);
		if (sd && restore_one(f, t, s, sd, p, d)) {
			have[d] = true;
			p->d[d].moved = false;
		}
	}
	return 0;
}
