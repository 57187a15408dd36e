/* Shift permutations over the LFTs: host i sends to host i + s (mod N),
 * hosts in cabling order (lib/ca_order.h), base LIDs; for each shift the
 * busiest directed switch-to-switch link is the number of those N flows
 * that cross it.  A shift is congestion-free when no link carries two.
 * This is what an MPI all-to-all built from shifts meets (docs/design.md
 * §6).  Shifts are split over the pool; each worker keeps its own link
 * counters and clears only the ones a shift touched. */
#include "routing/verify/verify.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ca_order.h"

struct sjob {
	const struct fabric *f;
	const struct ca_slot *hosts;
	uint32_t n, *poff, *shift;
	uint32_t *busiest;     /* per evaluated shift */
	uint64_t *undelivered; /* per evaluated shift */
	struct sworker *w;
};

struct sworker {
	uint32_t *load;	   /* by poff + port */
	uint32_t *touched; /* link indexes with a nonzero load */
};

/* Walks one flow from src's switch to dst; adds 1 to every switch-to-
 * switch link crossed.  False if it is not delivered. */
static bool walk_flow(const struct sjob *j, struct sworker *w, uint32_t *nt,
		      uint32_t *top, const struct ca_slot *src,
		      const struct ca_slot *dst)
{
	const struct ib_node *x = src->sw;
	uint16_t lid = dst->port->lid;

	for (unsigned hop = 0; hop < IB_MAX_DR_HOPS; hop++) {
		uint8_t p = lid < x->lft_size ? x->lft[lid] : LFT_NO_PORT;
		const struct ib_port *r;
		uint32_t k;

		if (x == dst->sw && p == dst->sw_port)
			return true;
		if (p == 0 || p > x->nports || !(r = x->ports[p].remote) ||
		    !node_is_switch(r->node))
			return false;
		k = j->poff[x->sw_idx] + p;
		if (w->load[k]++ == 0)
			w->touched[(*nt)++] = k;
		if (w->load[k] > *top)
			*top = w->load[k];
		x = r->node;
	}
	return false;
}

static void run_shift(void *arg, size_t i, unsigned worker)
{
	const struct sjob *j = arg;
	struct sworker *w = &j->w[worker];
	uint32_t s = j->shift[i], nt = 0, top = 0;
	uint64_t lost = 0;

	for (uint32_t a = 0; a < j->n; a++) {
		const struct ca_slot *src = &j->hosts[a];
		const struct ca_slot *dst = &j->hosts[(a + s) % j->n];
		if (!dst->port->lid || !walk_flow(j, w, &nt, &top, src, dst))
			lost++;
	}
	for (uint32_t t = 0; t < nt; t++)
		w->load[w->touched[t]] = 0;
	j->busiest[i] = top;
	j->undelivered[i] = lost;
}

/* The shifts to walk: all of 1..n-1, or max of them evenly spread. */
static uint32_t pick_shifts(uint32_t n, uint32_t max, uint32_t *out)
{
	uint32_t all = n > 1 ? n - 1 : 0;

	if (!max || all <= max) {
		for (uint32_t s = 0; s < all; s++)
			out[s] = s + 1;
		return all;
	}
	for (uint32_t k = 0; k < max; k++)
		out[k] = 1 + (uint32_t)((uint64_t)k * all / max);
	return max;
}

static void summarize(const struct sjob *j, uint32_t count,
		      struct shift_report *r)
{
	double sum = 0;

	for (uint32_t i = 0; i < count; i++) {
		sum += j->busiest[i];
		if (j->busiest[i] > r->worst)
			r->worst = j->busiest[i];
		if (j->busiest[i] <= 1)
			r->congestion_free++;
		r->undelivered += j->undelivered[i];
	}
	r->mean_busiest = count ? sum / count : 0;
}

static int alloc_workers(struct sjob *j, unsigned nw, uint32_t links)
{
	j->w = calloc(nw, sizeof(*j->w));
	if (!j->w)
		return -ENOMEM;
	for (unsigned i = 0; i < nw; i++) {
		j->w[i].load = calloc(links + 1, sizeof(uint32_t));
		j->w[i].touched = malloc((links + 1) * sizeof(uint32_t));
		if (!j->w[i].load || !j->w[i].touched)
			return -ENOMEM;
	}
	return 0;
}

static void free_job(struct sjob *j, unsigned nw)
{
	for (unsigned i = 0; j->w && i < nw; i++) {
		free(j->w[i].load);
		free(j->w[i].touched);
	}
	free(j->w);
	free(j->poff);
	free(j->shift);
	free(j->busiest);
	free(j->undelivered);
	free((void *)j->hosts);
}

int verify_shifts(const struct fabric *f, struct pool *pool,
		  uint32_t max_shifts, struct shift_report *r)
{
	struct sjob j = {.f = f};
	struct ca_slot *hosts;
	unsigned nw = pool_threads(pool);
	uint32_t links = 0, count;
	int rc;

	memset(r, 0, sizeof(*r));
	rc = ca_order(f, &hosts, &j.n);
	j.hosts = hosts;
	j.poff = malloc((f->n_switches + 1) * sizeof(*j.poff));
	j.shift = malloc((j.n + 1) * sizeof(*j.shift));
	j.busiest = calloc(j.n + 1, sizeof(*j.busiest));
	j.undelivered = calloc(j.n + 1, sizeof(*j.undelivered));
	if (rc || !j.poff || !j.shift || !j.busiest || !j.undelivered)
		goto nomem;
	for (uint32_t s = 0; s < f->n_switches; s++) {
		j.poff[s] = links;
		links += f->switches[s]->nports + 1u;
	}
	if (alloc_workers(&j, nw, links) < 0)
		goto nomem;
	count = pick_shifts(j.n, max_shifts, j.shift);
	pool_for(pool, count, run_shift, &j);
	r->hosts = j.n;
	r->shifts = count;
	r->shifts_total = j.n > 1 ? j.n - 1 : 0;
	summarize(&j, count, r);
	free_job(&j, nw);
	return 0;
nomem:
	free_job(&j, nw);
	return -ENOMEM;
}
