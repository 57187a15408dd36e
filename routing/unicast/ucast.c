/* Unicast engine registry: see ucast.h. */
#include "routing/unicast/unicast.h"

#include <stdlib.h>
#include <string.h>

extern const struct ucast_engine ucast_minhop;
extern const struct ucast_engine ucast_updown;

static const struct ucast_engine *const engines[] = {
	&ucast_minhop,
	&ucast_updown,
};

const struct ucast_engine *ucast_engine_find(const char *name)
{
	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++)
		if (strcmp(engines[i]->name, name) == 0)
			return engines[i];
	return NULL;
}

void ucast_result_free(struct ucast_result *res)
{
	free(res->roots);
	res->roots = NULL;
	res->n_roots = 0;
	free(res->updown_order);
	free(res->updown_rank);
	res->updown_order = res->updown_rank = NULL;
}
