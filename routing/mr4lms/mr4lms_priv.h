/* MR4LMS internals shared by its step files: FBTC (mr4lms_fbtc.c), FCTB
 * (mr4lms_fctb.c), merge target selection (mr4lms_merge.c) and the
 * switching policy (mr4lms.c). */
#ifndef IBSM_MR4LMS_PRIV_H
#define IBSM_MR4LMS_PRIV_H

#include "routing/mr4lms/mr4lms.h"

enum mr4lms_alg { MR4LMS_FBTC, MR4LMS_FCTB };

struct mr4lms {
	enum mr4lms_alg alg;
	unsigned streak;	/* FCTB successes in a row */
	uint32_t *msw;		/* member switches of the group being routed */
	uint32_t nmsw;
	uint32_t *roots;	/* [n_sw] */
	uint32_t **wroots;	/* per worker [n_sw] (FCTB roots, merge trees) */
	float *lb;		/* per tree lower bound (merge) */
	uint8_t *dmin;		/* [n_sw] distance to the group (merge) */
};

static inline struct mr4lms *mr4lms_of(struct mc_ctx *c)
{
	return c->engine_priv;
}

/* Each returns 0 with g routed, -ENOSPC when no color fits, or -errno. */
int mr4lms_fbtc(struct mc_ctx *c, struct mc_group *g);
int mr4lms_fctb(struct mc_ctx *c, struct mc_group *g);
int mr4lms_merge(struct mc_ctx *c, struct mc_group *g);
/* Early sharing under a forecast (mr4lms_share.c): 0 with g on a tree of
 * the same member switches, -ENOSPC when not called for. */
int mr4lms_share(struct mc_ctx *c, struct mc_group *g);

/* The paper's merge targets (mr4lms_nearest.c): the tree nearest to the
 * group being routed by formula (1), or the color with the fewest groups;
 * MC_NONE if there is none. */
uint32_t mr4lms_nearest_tree(struct mc_ctx *c, struct mr4lms *m);
uint32_t mr4lms_emptiest_color(const struct mc_ctx *c);

#endif
