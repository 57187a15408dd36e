/* The ftree unicast engine: on a fat tree (2, 3 or more levels, full or
 * pruned, with links or switches missing; ftree_tree.c says what counts)
 * every destination LID gets a chain of switches down to it
 * (ftree_chain.c) and every switch routes towards the chains
 * (ftree_fill.c), so shift permutations over the hosts in cabling order
 * cross no link twice where the tree's bandwidth allows it
 * (docs/design.md §5).  On any other fabric it routes as minhop does. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"
#include "routing/unicast/ftree.h"

static uint32_t count_moved(const struct ft_plan *p)
{
	uint32_t m = 0;

	for (uint32_t d = 0; d < p->n; d++)
		m += p->d[d].moved;
	return m;
}

static int plan_and_fill(struct fabric *f, const struct hops *h,
			 struct pool *pool, const struct ft_tree *t,
			 const struct ucast_params *prm, bool as_is,
			 struct ft_plan *p)
{
	bool keep = prm && prm->keep_lft && prm->prev;
	bool *have = calloc(p->n + 1, sizeof(*have));
	int rc = have ? 0 : -ENOMEM;

	if (rc == 0 && keep)
		rc = ft_keep_chains(f, t, p, prm->prev, have);
	if (rc == 0)
		rc = ft_chains(f, t, p, have);
	if (rc == 0)
		rc = ft_fill(f, h, pool, t, p, keep, as_is);
	if (rc == 0 && keep)
		log_info("ftree: %u of %u destination LIDs on new chains; "
			 "entries still on min-hop links kept",
			 count_moved(p), p->n);
	free(have);
	return rc;
}

int ft_route_tree(struct fabric *f, const struct hops *h, struct pool *pool,
		  const struct ft_tree *t, const struct ucast_params *prm,
		  bool as_is, struct ucast_result *res)
{
	struct ft_plan p;
	int rc = ft_plan_init(f, t, &p);

	if (rc == 0)
		rc = plan_and_fill(f, h, pool, t, prm, as_is, &p);
	if (rc == 0)
		rc = ft_state_save(f, &p, &res->state);
	if (rc < 0)
		snprintf(res->error, sizeof(res->error),
			 "ftree: out of memory routing %u switches, max LID "
			 "%u",
			 f->n_switches, f->max_lid);
	res->ca_order = rc == 0;
	ft_plan_free(&p);
	return rc;
}

static int ftree_route(struct fabric *f, const struct hops *h,
		       struct pool *pool, const struct ucast_params *prm,
		       struct ucast_result *res)
{
	struct ft_tree t;
	char why[160] = "";
	int rc = ft_tree_build(f, h, pool, &t, why, sizeof(why));

	if (rc == -ENOTSUP) {
		log_notice("ftree: not a fat tree (%s); routing as minhop",
			   why);
		return ucast_minhop.route(f, h, pool, prm, res);
	}
	if (rc < 0) {
		snprintf(res->error, sizeof(res->error),
			 "ftree: out of memory for %u switches", f->n_switches);
		return rc;
	}
	log_info("ftree: %u levels, %u switches", t.height + 1u, t.n);
	rc = ft_route_tree(f, h, pool, &t, prm, false, res);
	ft_tree_free(&t);
	return rc < 0 ? rc : ucast_verify(f, h, pool, "ftree", res);
}

const struct ucast_engine ucast_ftree = {.name = "ftree", .route = ftree_route};
