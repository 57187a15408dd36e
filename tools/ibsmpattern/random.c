/* Random and churn patterns.  A random group has a size drawn uniformly in
 * [min, max] and that many distinct hosts drawn uniformly (a partial
 * Fisher-Yates over the host list).  Churn interleaves creates and deletes
 * of such groups, never more than `live` at once, and deletes whatever is
 * left at the end, so a correct engine ends with no tree, color or switch
 * entry in use. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "tools/ibsmpattern/pattern.h"

struct rand_ctx {
	struct pat_out *o;
	const struct pat_random *p;
	struct pat_rng rng;
	uint32_t *perm; /* host indexes, partially shuffled per group */
};

static int64_t create_one(struct rand_ctx *c)
{
	uint32_t n = c->o->n_hosts, lo = c->p->min, hi = c->p->max;

	if (hi > n)
		hi = n;
	if (lo > hi)
		lo = hi;
	uint32_t size = lo + (uint32_t)pat_rand_below(&c->rng, hi - lo + 1);

	for (uint32_t i = 0; i < size; i++) {
		uint32_t j = i + (uint32_t)pat_rand_below(&c->rng, n - i);
		uint32_t t = c->perm[i];

		c->perm[i] = c->perm[j];
		c->perm[j] = t;
	}
	return pat_emit_create(c->o, c->perm, size);
}

static int ctx_init(struct rand_ctx *c, struct pat_out *o,
		    const struct pat_random *p)
{
	if (!o->n_hosts || !p->max) {
		fprintf(stderr, "ibsmpattern: random groups need hosts and a "
				"size above 0\n");
		return -EINVAL;
	}
	c->o = o;
	c->p = p;
	c->rng.s = p->seed;
	c->perm = malloc(o->n_hosts * sizeof(*c->perm));
	if (!c->perm)
		return -ENOMEM;
	for (uint32_t i = 0; i < o->n_hosts; i++)
		c->perm[i] = i;
	return 0;
}

int pat_random_write(struct pat_out *o, const struct pat_random *p)
{
	struct rand_ctx c;
	int ret = ctx_init(&c, o, p);

	for (uint64_t g = 0; !ret && g < p->count; g++) {
		int64_t id = create_one(&c);

		ret = id < 0 ? (int)id : 0;
	}
	free(c.perm);
	return ret;
}

/* Deletes the live group at index i (swap-remove). */
static int delete_at(struct rand_ctx *c, uint64_t *live, uint64_t *n,
		     uint64_t i)
{
	int ret = pat_emit_delete(c->o, live[i]);

	live[i] = live[--*n];
	return ret;
}

int pat_churn_write(struct pat_out *o, const struct pat_random *p)
{
	struct rand_ctx c;
	uint64_t cap = p->live ? p->live : 1, n = 0, made = 0;
	int ret = ctx_init(&c, o, p);
	uint64_t *live = ret ? NULL : malloc(cap * sizeof(*live));

	if (!ret && !live)
		ret = -ENOMEM;
	while (!ret && made < p->count) {
		bool del =
		    n == cap || (n && pat_rand_below(&c.rng, 100) < p->del_pct);

		if (del) {
			ret =
			    delete_at(&c, live, &n, pat_rand_below(&c.rng, n));
			continue;
		}
		int64_t id = create_one(&c);

		if (id < 0)
			ret = (int)id;
		else
			live[n++] = (uint64_t)id, made++;
	}
	while (!ret && n)
		ret = delete_at(&c, live, &n, pat_rand_below(&c.rng, n));
	free(live);
	free(c.perm);
	return ret;
}
