/* Direct-network builders: 3-D torus, HyperX, dragonfly, random
 * irregular.
 * Each switch carries its hosts on its first ports, then its network
 * links; hosts are numbered switch by switch (topology order). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ibsmgen/gen.h"

static int hosts_per_switch(struct gtopo *g, unsigned hps)
{
	for (uint32_t h = 0; h < g->n_hosts; h++)
		if (gt_host_next(g, h, h / hps) < 0)
			return -ENOSPC;
	return 0;
}

/* Switch (x,y,z) is S(1 + x + X*(y + Y*z)).  Ports after the hosts:
 * x+, x-, y+, y-, z+, z-.  A dimension of size 1 has no links; of size 2,
 * the wrap-around makes two parallel links, as in a real 2-ring. */
int gen_torus(struct gtopo *g, unsigned x, unsigned y, unsigned z,
	      unsigned hps)
{
	const unsigned dim[3] = { x, y, z };
	uint32_t n = x * y * z;
	int r;

	if (!x || !y || !z || (uint64_t)x * y * z > 1000000 || hps > 249) {
		fprintf(stderr, "ibsmgen: torus needs sizes >= 1 and at most "
			"249 hosts per switch\n");
		return -EINVAL;
	}
	if ((r = gt_init(g, n, hps + 6, n * hps)) < 0 ||
	    (r = hosts_per_switch(g, hps)) < 0)
		return r;
	for (uint32_t s = 0; s < n; s++) {
		unsigned c[3] = { s % x, (s / x) % y, s / (x * y) };
		for (unsigned d = 0; d < 3; d++) {
			if (dim[d] < 2)
				continue;
			unsigned nc[3] = { c[0], c[1], c[2] };
			nc[d] = (c[d] + 1) % dim[d];
			uint32_t t = nc[0] + x * (nc[1] + y * nc[2]);
			if ((r = gt_link(g, s, hps + 1 + 2 * d, t,
					 hps + 2 + 2 * d)) < 0)
				return r;
		}
	}
	return 0;
}

/* HyperX (Ahn et al.): switches on an X x Y (x Z) grid, each linked to
 * every other switch that differs in one coordinate only, so every
 * dimension is a complete graph.  Switch (x,y,z) is S(1 + x + X*(y +
 * Y*z)); after the hosts, ports go to the other switches of its x line
 * in increasing x, then of its y line, then of its z line. */
int gen_hyperx(struct gtopo *g, unsigned x, unsigned y, unsigned z,
	       unsigned hps)
{
	const unsigned dim[3] = {x, y, z}, stride[3] = {1, x, x * y};
	uint32_t n = x * y * z;
	unsigned ports = hps + (x - 1) + (y - 1) + (z - 1);
	int r;

	if (!x || !y || !z || (uint64_t)x * y * z > 1000000 || ports > 255) {
		fprintf(stderr, "ibsmgen: hyperx needs sizes >= 1 and hosts "
				"plus (X-1)+(Y-1)+(Z-1) links <= 255 ports\n");
		return -EINVAL;
	}
	if ((r = gt_init(g, n, ports, n * hps)) < 0 ||
	    (r = hosts_per_switch(g, hps)) < 0)
		return r;
	for (uint32_t s = 0; s < n; s++) {
		unsigned c[3] = {s % x, (s / x) % y, s / (x * y)}, base = hps;
		for (unsigned d = 0; d < 3; base += dim[d] - 1, d++)
			for (unsigned v = c[d] + 1; v < dim[d]; v++) {
				uint32_t t = s + (v - c[d]) * stride[d];
				/* the port of a peer at coordinate v is
				 * base + v (+1 past our own, 0-based) */
				if ((r = gt_link(g, s, base + v, t,
						 base + c[d] + 1)) < 0)
					return r;
			}
	}
	return 0;
}

/* Dragonfly (Kim et al.): g = a*h + 1 groups of a switches, all-to-all
 * inside a group, every pair of groups joined by one global link.  Global
 * link k (0..a*h-1) of group i goes to group k if k < i, else k + 1; it
 * leaves from switch k / h, global port k % h.  Ports: p hosts, a-1 local
 * links, h global links. */
int gen_dragonfly(struct gtopo *g, unsigned a, unsigned p, unsigned h)
{
	uint32_t groups = a * h + 1, n = groups * a;
	unsigned local0 = p + 1, global0 = p + a; /* first port numbers */
	int r;

	if (!a || !h || p + a - 1 + h > 255) {
		fprintf(stderr, "ibsmgen: dragonfly needs a, h >= 1 and "
			"p + a - 1 + h <= 255 ports\n");
		return -EINVAL;
	}
	if ((r = gt_init(g, n, p + a - 1 + h, n * p)) < 0 ||
	    (r = hosts_per_switch(g, p)) < 0)
		return r;
	for (uint32_t gi = 0; gi < groups; gi++)
		for (unsigned i = 0; i < a; i++)
			for (unsigned j = i + 1; j < a; j++)
				if ((r = gt_link(g, gi * a + i, local0 + j - 1,
						 gi * a + j, local0 + i)) < 0)
					return r;
	for (uint32_t gi = 0; gi < groups; gi++)
		for (uint32_t gj = gi + 1; gj < groups; gj++) {
			uint32_t ki = gj - 1, kj = gi; /* gi < gj */
			if ((r = gt_link(g, gi * a + ki / h, global0 + ki % h,
					 gj * a + kj / h,
					 global0 + kj % h)) < 0)
				return r;
		}
	return 0;
}

static bool linked(const struct gtopo *g, uint32_t a, uint32_t b)
{
	for (unsigned p = 1; p <= g->nports; p++) {
		const struct gend *e = &g->adj[(size_t)a * g->nports + p - 1];
		if (e->pport && e->peer == b)
			return true;
	}
	return false;
}

/* A random spanning tree first (each switch in a random order joins a
 * random earlier one that still has a free port), so the network is
 * connected; then the remaining switch ports are paired at random,
 * avoiding self-links and parallel links where a few retries allow. */
static int random_tree(struct gtopo *g, uint32_t *order, uint64_t *rs)
{
	uint32_t n = g->n_sw;

	for (uint32_t i = 0; i < n; i++)
		order[i] = i;
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = gen_rand_below(rs, i), t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
	for (uint32_t i = 1; i < n; i++) {
		uint32_t j, tries = 0;
		do
			j = order[gen_rand_below(rs, i)];
		while (!gt_free_port(g, j) && ++tries < 64 * n);
		if (!gt_free_port(g, j) || gt_link_next(g, order[i], j) < 0)
			return -ENOSPC;
	}
	return 0;
}

static int random_fill(struct gtopo *g, uint64_t *rs)
{
	uint32_t *stub = malloc(((size_t)g->n_sw * g->nports + 1) *
				sizeof(*stub));
	size_t ns = 0;

	if (!stub)
		return -ENOMEM;
	for (uint32_t s = 0; s < g->n_sw; s++)
		for (unsigned p = 1; p <= g->nports; p++)
			if (!g->adj[(size_t)s * g->nports + p - 1].pport)
				stub[ns++] = s;
	for (size_t i = ns; i > 1; i--) {
		size_t j = gen_rand(rs) % i;
		uint32_t t = stub[i - 1];
		stub[i - 1] = stub[j];
		stub[j] = t;
	}
	for (size_t i = 0; i + 1 < ns; i += 2) {
		/* Swap in a later stub if this pair is a self or parallel
		 * link; give up (keep it, or skip a self-link) after 32. */
		for (int t = 0; t < 32 && i + 2 < ns &&
				(stub[i] == stub[i + 1] ||
				 linked(g, stub[i], stub[i + 1]));
		     t++) {
			size_t j = i + 2 + gen_rand(rs) % (ns - i - 2);
			uint32_t x = stub[i + 1];
			stub[i + 1] = stub[j];
			stub[j] = x;
		}
		if (stub[i] != stub[i + 1])
			gt_link_next(g, stub[i], stub[i + 1]);
	}
	free(stub);
	return 0;
}

int gen_random(struct gtopo *g, uint32_t switches, unsigned ports,
	       unsigned hps, uint64_t seed)
{
	uint64_t rs = seed;
	uint32_t *order;
	int r;

	if (!switches || hps + 2 > ports || ports > 255) {
		fprintf(stderr, "ibsmgen: random needs switches >= 1 and "
			"hosts-per-switch + 2 <= ports <= 255\n");
		return -EINVAL;
	}
	if ((r = gt_init(g, switches, ports, switches * hps)) < 0 ||
	    (r = hosts_per_switch(g, hps)) < 0)
		return r;
	if (!(order = malloc(switches * sizeof(*order))))
		return -ENOMEM;
	r = random_tree(g, order, &rs);
	free(order);
	if (r < 0) {
		fprintf(stderr, "ibsmgen: could not build a spanning tree\n");
		return r;
	}
	return random_fill(g, &rs);
}
