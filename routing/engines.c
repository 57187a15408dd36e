/* Engines by name: see engines.h. */
#include "routing/engines.h"

#include <errno.h>
#include <string.h>

#include "routing/mr4lms/mr4lms.h"

static const struct ucast_engine *const ucast_engines[] = {
    &ucast_minhop,
    &ucast_updown,
    &ucast_ftree,
};

static const struct {
	const char *name;
	const struct mc_engine *eng;
	bool rr;
} mcast_engines[] = {
    {"mr4lms", &mcast_engine_mr4lms, false},
    {"fulb", &mcast_engine_fulb, true},
    {"minhop", &mcast_engine_minhop, false},
    {"minhop-rr", &mcast_engine_minhop, true},
    {"sssp", &mcast_engine_sssp, false},
    {"sssp-rr", &mcast_engine_sssp, true},
};

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))

const struct ucast_engine *ucast_engine_find(const char *name)
{
	for (size_t i = 0; i < N_OF(ucast_engines); i++)
		if (strcmp(ucast_engines[i]->name, name) == 0)
			return ucast_engines[i];
	return NULL;
}

const struct mc_engine *mcast_engine_find(const char *name, bool *root_rotation)
{
	for (size_t i = 0; i < N_OF(mcast_engines); i++)
		if (strcmp(mcast_engines[i].name, name) == 0) {
			if (root_rotation)
				*root_rotation = mcast_engines[i].rr;
			return mcast_engines[i].eng;
		}
	return NULL;
}

int mcast_create(struct mc_ctx **out, struct fabric *f, const struct hops *h,
		 struct pool *pool, const char *engine,
		 const struct mc_params *prm)
{
	bool rr = false;
	const struct mc_engine *eng =
	    mcast_engine_find(engine ? engine : "mr4lms", &rr);

	*out = NULL;
	if (!eng)
		return -EINVAL;
	return mcast_create_with(out, f, h, pool, eng, rr, prm);
}
