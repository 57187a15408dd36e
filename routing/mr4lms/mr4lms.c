/* MR4LMS engine entry: the FBTC -> FCTB -> FBTC switching policy of the
 * paper's Algorithm 7, and merging when neither finds a color.
 *
 * Readings of the paper's ambiguous steps (details beside the code):
 * - Policy: FBTC until it fails to color a group; from the next group on
 *   FCTB; after switch_threshold (20) consecutive FCTB successes back to
 *   FBTC; an FCTB failure resets the count.  The group that made FBTC
 *   fail is merged at once (Algorithm 7 line 8), not retried with FCTB.
 * - Root load (FBTC candidate order, FULB root rotation): the number of
 *   groups whose trees hold the switch (mcast_build.c).  FBTC keeps the
 *   first colorable root unless its tree would raise the highest EFI
 *   reached; then the best of up to 16, built with FULB's tie rule
 *   (mr4lms_fbtc.c).
 * - G_color for a group that owns trees of the color (merge, member
 *   addition): its own trees count as free (mcast.h, mc_gc_usable).
 * - FCTB root test by a bounded BFS from each candidate root, as the
 *   paper, the candidates being the optimal roots in G, least loaded
 *   first; smallest usable color wins (mr4lms_fctb.c).
 * - Merge target (departs from the paper, mr4lms_merge.c): the color
 *   whose trees on the group's switches can take it without pulling in
 *   others, priced by the link loads it leaves; formula (1), between
 *   distinct member switches, ties to the tree with fewer groups, and the
 *   pessimistic shortcut above 32 trees per color only when no color can
 *   (mr4lms_nearest.c).
 * - Early sharing under the offline planner's forecast: a group whose
 *   member switches are exactly a tree's shares it where more trees are
 *   coming than colors are free, unless trees to come at least four times
 *   as wide could spare those colors (mr4lms_share.c); tried before
 *   FBTC/FCTB.
 * - Temporary tree of a merge: several optimal roots tried, next hops
 *   free of the color preferred, the one pulling in fewest groups kept
 *   (mcast_merge.c).
 * - Root of a merged tree: best of the optimal roots of G by BFS in
 *   G_color, exact search only if none reaches (mcast_gcolor.c).
 * - Extend mode: the biggest old tree is kept as is and the others join
 *   whole along shortest G_color paths (least EFI among them), members
 *   likewise; Dijkstra of
 *   Algorithm 5 as the fallback (mcast_attach.c).  A group whose member
 *   switches are all on the chosen tree uses it as is (§3.2.1 remark).
 * - Deletion keeps the root even when it is left with one branch (the
 *   paper prunes only switches without downstream links). */
#include "routing/mr4lms/mr4lms_priv.h"

#include <errno.h>
#include <stdlib.h>

static int mr4lms_init(struct mc_ctx *c)
{
	struct mr4lms *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	c->engine_priv = m;
	m->alg = MR4LMS_FBTC;
	m->msw = malloc((c->n_sw + 1) * sizeof(uint32_t));
	m->roots = malloc((c->n_sw + 1) * sizeof(uint32_t));
	m->dmin = malloc(c->n_sw + 1);
	m->wroots = calloc(c->n_scr, sizeof(*m->wroots));
	if (!m->msw || !m->roots || !m->dmin || !m->wroots)
		return -ENOMEM;
	for (unsigned w = 0; w < c->n_scr; w++)
		if (!(m->wroots[w] = malloc((c->n_sw + 1) * sizeof(uint32_t))))
			return -ENOMEM;
	return 0;
}

static void mr4lms_fini(struct mc_ctx *c)
{
	struct mr4lms *m = c->engine_priv;

	if (!m)
		return;
	for (unsigned w = 0; m->wroots && w < c->n_scr; w++)
		free(m->wroots[w]);
	free(m->wroots);
	free(m->msw);
	free(m->roots);
	free(m->dmin);
	free(m->lb);
	free(m);
	c->engine_priv = NULL;
}

static int mr4lms_route(struct mc_ctx *c, struct mc_group *g)
{
	struct mr4lms *m = mr4lms_of(c);
	int rc;

	m->nmsw = mc_member_switches(c, g->members, g->n_members, m->msw);
	if ((rc = mr4lms_share(c, g)) != -ENOSPC)
		return rc;
	if (m->alg == MR4LMS_FBTC) {
		rc = mr4lms_fbtc(c, g);
		if (rc == -ENOSPC) {
			c->st.fbtc_fail++;
			m->alg = MR4LMS_FCTB;
			m->streak = 0;
		} else if (rc == 0) {
			c->st.fbtc_ok++;
		}
	} else {
		rc = mr4lms_fctb(c, g);
		if (rc == 0) {
			c->st.fctb_ok++;
			if (++m->streak >= c->prm.switch_threshold)
				m->alg = MR4LMS_FBTC;
		} else if (rc == -ENOSPC) {
			c->st.fctb_fail++;
			m->streak = 0;
		}
	}
	if (rc == -ENOSPC)
		rc = mr4lms_merge(c, g);
	return rc;
}

const struct mc_engine mcast_engine_mr4lms = {
	.name = "mr4lms",
	.init = mr4lms_init,
	.fini = mr4lms_fini,
	.route = mr4lms_route,
};
