/* Fat-tree builders: 2-level leaf/spine, the standard 3-level k-ary fat
 * tree (Al-Fares et al.: k pods of k/2 edge and k/2 aggregation switches,
 * (k/2)^2 cores, k^3/4 hosts), and 3-level pruned fat trees.
 * Hosts are numbered leaf by leaf, so host order is topology order. */
#include <errno.h>
#include <stdio.h>

#include "tools/ibsmgen/gen.h"

/* Smallest common radix with radix^2/2 >= hosts for a 2-level tree. */
static unsigned auto_radix(uint32_t hosts)
{
	static const unsigned radices[] = { 8, 12, 16, 18, 24, 32, 36, 48,
					    64, 96, 128, 192, 254 };

	for (size_t i = 0; i < sizeof(radices) / sizeof(*radices); i++)
		if ((uint64_t)radices[i] * radices[i] / 2 >= hosts)
			return radices[i];
	return 0;
}

/* Hosts 0..n-1 onto leaves 0.., hpl per leaf, on the leaves' first ports. */
static int attach_hosts(struct gtopo *g, uint32_t n, unsigned hpl)
{
	for (uint32_t h = 0; h < n; h++)
		if (gt_host_next(g, h, h / hpl) < 0)
			return -ENOSPC;
	return 0;
}

/* Leaves S1..SL with radix - U hosts each and U spines (U = radix/2 when
 * up is 0: the full tree), each leaf linked once to every spine.  U <
 * radix/2 is a pruned (oversubscribed) 2-level tree. */
int gen_fattree2(struct gtopo *g, uint32_t hosts, unsigned radix, unsigned up)
{
	unsigned hpl, spines;
	uint32_t leaves;
	int r;

	if (!radix && !(radix = auto_radix(hosts))) {
		fprintf(stderr, "ibsmgen: %u hosts is too many for a 2-level "
			"fat tree\n", hosts);
		return -EINVAL;
	}
	if (radix < 2 || radix % 2 || !hosts || up >= radix) {
		fprintf(stderr, "ibsmgen: fattree2 needs hosts > 0, an "
				"even radix and uplinks < radix\n");
		return -EINVAL;
	}
	spines = up ? up : radix / 2;
	hpl = radix - spines;
	leaves = (hosts + hpl - 1) / hpl;
	if (leaves > radix) {
		fprintf(stderr, "ibsmgen: %u hosts need %u leaves but a "
			"radix-%u spine has %u ports (max %u hosts); raise "
			"--radix\n", hosts, leaves, radix, radix,
			radix * hpl);
		return -EINVAL;
	}
	if ((r = gt_init(g, leaves + spines, radix, hosts)) < 0 ||
	    (r = attach_hosts(g, hosts, hpl)) < 0)
		return r;
	for (uint32_t l = 0; l < leaves; l++)
		for (unsigned s = 0; s < spines; s++)
			if ((r = gt_link(g, l, hpl + 1 + s, leaves + s,
					 l + 1)) < 0)
				return r;
	return 0;
}

/* Switch order: all edge switches (pod by pod), all aggregation
 * switches, then the cores. */
int gen_fattree3(struct gtopo *g, unsigned k)
{
	unsigned h = k / 2;
	uint32_t edges = k * h, aggs = k * h, cores = h * h;
	int r;

	if (k < 2 || k % 2 || k > 254) {
		fprintf(stderr, "ibsmgen: fattree3 needs an even k in "
			"2..254\n");
		return -EINVAL;
	}
	if ((r = gt_init(g, edges + aggs + cores, k, edges * h)) < 0 ||
	    (r = attach_hosts(g, edges * h, h)) < 0)
		return r;
	for (unsigned pod = 0; pod < k; pod++)
		for (unsigned e = 0; e < h; e++)
			for (unsigned a = 0; a < h; a++)
				if ((r = gt_link(g, pod * h + e, h + 1 + a,
						 edges + pod * h + a,
						 e + 1)) < 0)
					return r;
	for (unsigned pod = 0; pod < k; pod++)
		for (unsigned a = 0; a < h; a++)
			for (unsigned c = 0; c < h; c++)
				if ((r = gt_link(g, edges + pod * h + a,
						 h + 1 + c,
						 edges + aggs + a * h + c,
						 pod + 1)) < 0)
					return r;
	return 0;
}

/* Pruned 3-level fat tree.  The papers' machines have "U paths between
 * each leaf switch and the top-level switches"; read literally: from any
 * leaf to any top switch there are exactly U shortest paths, one through
 * each of the leaf's U middle switches.  So: a leaf has radix/2 hosts and
 * U uplinks, one to each of its pod's U middle switches; a pod has D
 * leaves; every middle switch links once to each of the T top switches;
 * a top switch has one port per middle switch, so there are radix/U pods.
 * D = leaves / pods (rounded up) and T = radix - D use the middle
 * switches' ports fully.  With radix 64 the papers' sizes come out exact:
 * --hosts 8704 --uplinks 8 gives 8 pods of 34 leaves of 32 hosts, and
 * --hosts 40960 --uplinks 2 gives 32 pods of 40 leaves. */
int gen_pruned(struct gtopo *g, uint32_t hosts, unsigned radix, unsigned up)
{
	unsigned hpl = radix / 2;
	uint32_t leaves, pods, d, tops, mids;
	int r;

	if (radix < 4 || radix % 2 || radix > 254 || !up || up > hpl ||
	    !hosts) {
		fprintf(stderr, "ibsmgen: pruned needs hosts > 0, an even "
			"radix 4..254 and 1 <= uplinks <= radix/2\n");
		return -EINVAL;
	}
	leaves = (hosts + hpl - 1) / hpl;
	pods = radix / up < leaves ? radix / up : leaves;
	d = (leaves + pods - 1) / pods;
	if (d >= radix) {
		fprintf(stderr, "ibsmgen: %u hosts need %u leaves per pod but "
			"a radix-%u middle switch has room for %u (max %u "
			"hosts); raise --radix or --uplinks\n", hosts, d,
			radix, radix - 1, (radix - 1) * pods * hpl);
		return -EINVAL;
	}
	tops = radix - d;
	mids = pods * up;
	if ((r = gt_init(g, leaves + mids + tops, radix, hosts)) < 0 ||
	    (r = attach_hosts(g, hosts, hpl)) < 0)
		return r;
	for (uint32_t l = 0; l < leaves; l++)
		for (unsigned j = 0; j < up; j++)
			if ((r = gt_link(g, l, hpl + 1 + j,
					 leaves + (l / d) * up + j,
					 l % d + 1)) < 0)
				return r;
	for (uint32_t m = 0; m < mids; m++)
		for (unsigned t = 0; t < tops; t++)
			if ((r = gt_link(g, leaves + m, d + 1 + t,
					 leaves + mids + t, m + 1)) < 0)
				return r;
	return 0;
}
