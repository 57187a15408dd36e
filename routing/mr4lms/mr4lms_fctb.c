/* MR4LMS FCTB, "first color then build" (Algorithm 3).  For each color in
 * increasing order, G_color keeps the switches where the color is free
 * (for a new group, switches holding another tree of that color are cut
 * off by the paper's rules 1-3: their links to CAs and to free switches go).
 * A color is usable when some switch reaches every member switch in
 * G_color within the optimal worst-case distance of G; that switch is a
 * root of a lowest tree, which Dijkstra then builds inside G_color.
 *
 * Reading: the paper runs a BFS from each candidate root.  The
 * candidates are the optimal roots in G (mc_optimal_roots, least loaded
 * first, then lowest index): distances in G_color are never shorter than
 * in G, so a switch within the optimal worst-case distance of every
 * member in G_color has that worst case in G too.  A bounded BFS runs
 * from the first member switch, then from the next ones while more
 * candidates are left inside every ball so far than member switches
 * still to test (a color fails as soon as none is left); then one runs
 * from each candidate left, in order, stopping once it has found every
 * member, and the first to reach them all is the root: the least loaded
 * valid root, whichever way it is found.  Either search alone was slow
 * somewhere (routing the same): from the members only, the paper's
 * 30x20x20 torus with shuffled 28x28x28 groups at MFT 256 took a median
 * 4.9 ms per group (28 balls of up to 28 hops per color, for mostly 1 to
 * 10 candidates; 1.3 ms now); from the roots only, ft40 with 25x25x25-shuf
 * at MFT 128 took 0.43 ms instead of 0.2 (up to 400 core switches for
 * groups across pods) and p3th's 10,496 groups 1.55 s instead of 1.1 (the
 * first member's ball drops most candidates of a color that fails).
 * Colors are searched in parallel batches; the smallest usable color
 * wins, so the result does not depend on the thread count. */
#include "routing/mr4lms/mr4lms_priv.h"

#include <errno.h>

struct fctb_job {
	struct mc_ctx *c;
	struct mr4lms *m;
	uint32_t base;
	uint8_t bound;
	uint32_t nr; /* optimal roots in m->roots, least loaded first */
	uint32_t *res;
};

static void fctb_color(void *arg, size_t i, unsigned worker)
{
	struct fctb_job *j = arg;
	struct mc_ctx *c = j->c;

	j->res[i] =
	    mc_gc_first_root(c, worker, j->base + (uint32_t)i, 0, j->m->msw,
			     j->m->nmsw, j->bound, j->m->roots, j->nr,
			     j->m->wroots[worker < c->n_scr ? worker : 0]);
}

/* The hinted color if it has a valid root, else the smallest color with
 * one, or MC_NONE; *root gets the root. */
static uint32_t fctb_find(struct mc_ctx *c, struct mr4lms *m, uint8_t bound,
			  uint32_t nr, uint32_t *root)
{
	uint32_t top = mcast_colors_top(c), batch = 4 * c->n_scr, res[64];
	uint32_t end = top < c->color_limit ? top + 1 : c->color_limit;
	struct fctb_job j = {
	    .c = c, .m = m, .bound = bound, .nr = nr, .res = res};

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
	uint32_t color, root = MC_NONE, nr;
	uint8_t bound;
	struct mc_tree *t;
	int rc;

	if (!(nr = mc_optimal_roots(c, m->msw, m->nmsw, m->roots, &bound)))
		return -EHOSTUNREACH;
	if ((color = fctb_find(c, m, bound, nr, &root)) == MC_NONE)
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
