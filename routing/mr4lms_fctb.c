/* MR4LMS FCTB, "first color then build" (Algorithm 3).  For each color in
 * increasing order, G_color keeps the switches where the color is free
 * (for a new group, switches holding another tree of that color are cut
 * off by the paper's rules 1-3: their links to CAs and to free switches go).
 * A color is usable when some switch reaches every member switch in
 * G_color within the optimal worst-case distance of G; that switch is a
 * root of a lowest tree, which Dijkstra then builds inside G_color.
 *
 * Reading: the paper runs a BFS from each candidate root; we run the
 * equivalent bounded BFS from each member switch (fewer sources, and it
 * also performs the paper's connectivity test: a color fails as soon as
 * one member's ball misses every surviving candidate).  Colors are
 * searched in parallel batches; the smallest usable color wins, so the
 * result does not depend on the thread count.  Among the valid roots the
 * least loaded is taken. */
#include "routing/mr4lms.h"

#include <errno.h>

struct fctb_job {
	struct mc_ctx *c;
	struct mr4lms *m;
	uint32_t base;
	uint8_t bound;
	uint32_t *res;
};

static void fctb_color(void *arg, size_t i, unsigned worker)
{
	struct fctb_job *j = arg;
	struct mc_ctx *c = j->c;
	uint32_t *roots = j->m->wroots[worker < c->n_scr ? worker : 0];
	uint32_t k =
	    mc_gc_bounded_roots(c, worker, j->base + (uint32_t)i, 0, j->m->msw,
				j->m->nmsw, j->bound, roots);
	uint32_t best = MC_NONE;

	for (uint32_t r = 0; r < k; r++)
		if (best == MC_NONE ||
		    c->sw_load[roots[r]] < c->sw_load[best] ||
		    (c->sw_load[roots[r]] == c->sw_load[best] &&
		     roots[r] < best))
			best = roots[r];
	j->res[i] = best;
}

/* The hinted color if it has a valid root, else the smallest color with
 * one, or MC_NONE; *root gets the root. */
static uint32_t fctb_find(struct mc_ctx *c, struct mr4lms *m, uint8_t bound,
			  uint32_t *root)
{
	uint32_t top = mcast_colors_top(c), batch = 4 * c->n_scr, res[64];
	uint32_t end = top < c->color_limit ? top + 1 : c->color_limit;
	struct fctb_job j = {.c = c, .m = m, .bound = bound, .res = res};

	if (batch > 64)
		batch = 64;
	if (c->color_hint < c->color_limit) { /* the hinted color first */
		j.base = c->color_hint;
		fctb_color(&j, 0, 0);
		if (res[0] != MC_NONE) {
			*root = res[0];
			return c->color_hint;
		}
	}
	for (j.base = 0; j.base < end; j.base += batch) {
		uint32_t n = end - j.base < batch ? end - j.base : batch;
		pool_for(n > 1 ? c->pool : NULL, n, fctb_color, &j);
		for (uint32_t i = 0; i < n; i++)
			if (res[i] != MC_NONE) {
				*root = res[i];
				return j.base + i;
			}
	}
	return MC_NONE;
}

int mr4lms_fctb(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	uint32_t color, root = MC_NONE;
	uint8_t bound = mc_worst_hops(c, m->msw, m->nmsw, c->scr[0].bytes);
	struct mc_tree *t;
	int rc;

	if (bound == HOPS_INF)
		return -EHOSTUNREACH;
	if ((color = fctb_find(c, m, bound, &root)) == MC_NONE)
		return -ENOSPC;
	if (!(t = mc_tree_new(c)))
		return -ENOMEM;
	rc = mc_gc_build(c, 0, color, 0, false, root, g->members, g->n_members,
			 t);
	if (rc == 0)
		rc = mc_tree_commit(c, t, color, g);
	if (rc < 0)
		mc_tree_free(c, t);
	return rc;
}
