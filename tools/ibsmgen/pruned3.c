/* 3-level pruned fat trees built like the Sunway machines: pods of leaves
 * under the pod's middle switches, the middles trunked to a top layer.
 * Every leaf links once to each middle of its pod; middle j of a pod
 * spreads its U uplinks over the tops round robin from top j*U, so with
 * M*U >= T every top is reached from every pod, by M*U/T links (trunks of
 * U/T parallel links when U > T).  A leaf then has M*U/T shortest paths
 * to each top switch, the "few paths" of the real machines, and pods talk
 * only through the top layer.  Switch order: leaves pod by pod, middles
 * pod by pod, then the tops; hosts leaf by leaf. */
#include <errno.h>
#include <stdio.h>

#include "tools/ibsmgen/gen.h"

/* Ports the biggest switch needs: leaf H + M, middle L + U, top at most
 * the rounded-up share of each pod's M*U uplinks (round robin). */
static unsigned pruned3_radix(const struct pruned3 *p)
{
	uint64_t per_pod = ((uint64_t)p->middles * p->uplinks + p->tops - 1) /
			   p->tops;
	uint64_t top = per_pod * p->pods;
	uint64_t r = p->hpl + p->middles;

	if (p->leaves + p->uplinks > r)
		r = p->leaves + p->uplinks;
	if (top > r)
		r = top;
	return r > 255 ? 256 : (unsigned)r;
}

static int pruned3_check(const struct pruned3 *p)
{
	if (!p->pods || !p->leaves || !p->hpl || !p->middles || !p->tops ||
	    !p->uplinks) {
		fputs("ibsmgen: pruned3 needs --pods, --leaves, "
		      "--hosts-per-leaf, --middles, --tops and --uplinks, "
		      "all > 0\n", stderr);
		return -EINVAL;
	}
	if ((uint64_t)p->middles * p->uplinks < p->tops) {
		fprintf(stderr, "ibsmgen: pruned3: %u middles x %u uplinks "
			"per pod cannot reach %u tops; raise --uplinks or "
			"lower --tops\n", p->middles, p->uplinks, p->tops);
		return -EINVAL;
	}
	if (pruned3_radix(p) > 254) {
		fprintf(stderr, "ibsmgen: pruned3 needs a %u-port switch "
			"(max 254); use fewer pods, leaves or uplinks\n",
			pruned3_radix(p));
		return -EINVAL;
	}
	return 0;
}

int gen_pruned3(struct gtopo *g, const struct pruned3 *p)
{
	uint32_t leaves = p->pods * p->leaves, mids = p->pods * p->middles;
	uint32_t hosts = leaves * p->hpl;
	int r;

	if ((r = pruned3_check(p)) < 0)
		return r;
	if ((r = gt_init(g, leaves + mids + p->tops, pruned3_radix(p),
			 hosts)) < 0)
		return r;
	for (uint32_t h = 0; h < hosts; h++)
		if ((r = gt_host_next(g, h, h / p->hpl)) < 0)
			return r;
	for (uint32_t l = 0; l < leaves; l++)
		for (unsigned j = 0; j < p->middles; j++)
			if ((r = gt_link_next(g, l, leaves + (l / p->leaves) *
							    p->middles + j)) < 0)
				return r;
	for (uint32_t m = 0; m < mids; m++)
		for (unsigned k = 0; k < p->uplinks; k++) {
			uint32_t j = m % p->middles;
			uint32_t t = (j * p->uplinks + k) % p->tops;
			if ((r = gt_link_next(g, leaves + m,
					      leaves + mids + t)) < 0)
				return r;
		}
	return 0;
}
