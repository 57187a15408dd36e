/* The root of each further layer, chosen by what it adds: on a sample of
 * host-weighted switch pairs, the candidate root whose orientation gives
 * a legal shortest path to the most pairs that no layer so far gives one
 * (ties: the farther from the roots so far).  Once every sampled pair
 * has one, the farthest-first rule picks the rest (layered_orient.c).
 *
 * Why: a path is legal in the orientation from root r when it climbs
 * towards r and then descends, so r's far side acts as a cut no legal
 * path crosses, and roots chosen only to be far apart can put their cuts
 * where earlier layers have theirs.  Measured with ibsmroute on 17
 * fabrics (docs/design.md §5.3): at 4 layers the 20x20x10 torus's busiest
 * link fell from 77,817 to 50,154 routes, at 8 layers the 10x10x10 torus
 * with 2 hosts a switch from 6,360 to 5,510 and the 30x20x20 one from
 * 804,472 to 600,238; the small fabrics moved within +-5%.  Greedy
 * covering beyond the first cover (covering every pair twice, or
 * weighting pairs by how few layers cover them) was measured worse than
 * farthest-first there.
 *
 * Cost: per layer, candidates x pairs walks of a pair's shortest-path
 * DAG.  Candidates are every switch up to CAND; else CAND switches evenly
 * spread over the switch index and the CAND farthest from the roots so
 * far; pairs PAIRS drawn with a fixed seed.  Both are sampling budgets,
 * not fitted to a fabric: the estimate's error falls as 1/sqrt(PAIRS)
 * whatever the fabric. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "routing/unicast/layered.h"

#define CAND  64
#define PAIRS 512

struct cover {
	const struct fabric *f;
	const struct sw_graph *g;
	const struct hops *h;
	uint32_t n_pairs;
	uint32_t (*pair)[2];
	uint8_t *covered; /* [n_pairs] */
	const uint32_t *ord; /* a made layer's labels, or NULL: from (r, l) */
	/* DAG walk scratch: per switch the phases reached (bit 0 up, bit 1
	 * down) and a stack */
	uint8_t *seen;
	uint32_t *stack, *list;
};

/* The label order of layer l from root r without sorting: (rank, tie
 * hash, index), as layer_order() sorts them (layered_orient.c). */
static bool below(const struct cover *c, uint32_t r, uint32_t l, uint32_t a,
		  uint32_t b)
{
	uint8_t ra, rb;
	uint64_t ta, tb;

	if (c->ord)
		return c->ord[a] < c->ord[b];
	ra = hops_sw(c->h, r, a);
	rb = hops_sw(c->h, r, b);
	if (ra != rb)
		return ra < rb;
	ta = lay_tie(c->f->switches[a]->guid, l);
	tb = lay_tie(c->f->switches[b]->guid, l);
	return ta != tb ? ta < tb : a < b;
}

/* Has s a shortest path to t that is up* then down* in layer l of root
 * r?  A walk of the (switch, phase) states along the shortest-path DAG:
 * phase 0 has only climbed, phase 1 has descended and may only go on
 * descending. */
static bool legal_shortest(struct cover *c, uint32_t r, uint32_t l, uint32_t s,
			   uint32_t t)
{
	const struct sw_graph *g = c->g;
	uint32_t top = 0, n_seen = 0;
	bool found = false;

	c->seen[s] = 1;
	c->list[n_seen++] = s;
	c->stack[top++] = s << 1;
	while (top && !found) {
		uint32_t v = c->stack[--top], x = v >> 1, ph = v & 1;
		uint8_t dx = hops_sw(c->h, x, t);
		for (uint32_t k = g->start[x]; k < g->start[x + 1]; k++) {
			uint32_t y = g->peer[k];
			bool up;
			if (hops_sw(c->h, y, t) + 1 != dx)
				continue;
			up = below(c, r, l, y, x);
			if (ph && up)
				continue;
			if (y == t) {
				found = true;
				break;
			}
			uint32_t nph = ph || !up;
			if (c->seen[y] & (1u << nph))
				continue;
			if (!c->seen[y])
				c->list[n_seen++] = y;
			c->seen[y] |= (uint8_t)(1u << nph);
			c->stack[top++] = y << 1 | nph;
		}
	}
	while (n_seen)
		c->seen[c->list[--n_seen]] = 0;
	return found;
}

/* Pairs of distinct switches with hosts, drawn weighted by hosts. */
static int draw_pairs(struct cover *c)
{
	const struct sw_graph *g = c->g;
	uint64_t total = 0, z = 0x1234567ULL;
	uint64_t *cum = malloc((g->n + 1) * sizeof(*cum));

	if (!cum)
		return -ENOMEM;
	for (uint32_t x = 0; x < g->n; x++)
		cum[x] = total += g->hosts[x];
	c->n_pairs = 0;
	for (uint32_t i = 0; total && i < 4 * PAIRS && c->n_pairs < PAIRS;
	     i++) {
		uint32_t e[2];
		for (unsigned j = 0; j < 2; j++) {
			/* splitmix64: lay_tie with layer 0 is its finaliser */
			uint64_t v = lay_tie(z += 0x9e3779b97f4a7c15ULL, 0) % total;
			uint32_t lo = 0, hi = g->n - 1;
			while (lo < hi) {
				uint32_t mid = (lo + hi) / 2;
				if (cum[mid] > v)
					hi = mid;
				else
					lo = mid + 1;
			}
			e[j] = lo;
		}
		if (e[0] != e[1] && hops_sw(c->h, e[0], e[1]) != HOPS_INF) {
			c->pair[c->n_pairs][0] = e[0];
			c->pair[c->n_pairs++][1] = e[1];
		}
	}
	free(cum);
	return 0;
}

int layers_cover_init(struct layers_cover **out, const struct fabric *f,
		      const struct sw_graph *g, const struct hops *h)
{
	struct cover *c = calloc(1, sizeof(*c));
	uint32_t n = g->n + 1;

	*out = (struct layers_cover *)c;
	if (!c)
		return -ENOMEM;
	*c = (struct cover){.f = f, .g = g, .h = h};
	c->pair = malloc(PAIRS * sizeof(*c->pair));
	c->covered = calloc(PAIRS, 1);
	c->seen = calloc(n, 1);
	c->stack = malloc(2 * (size_t)n * sizeof(*c->stack));
	c->list = malloc((size_t)n * sizeof(*c->list));
	if (!c->pair || !c->covered || !c->seen || !c->stack || !c->list)
		return -ENOMEM;
	return draw_pairs(c);
}

void layers_cover_free(struct layers_cover *lc)
{
	struct cover *c = (struct cover *)lc;

	if (!c)
		return;
	free(c->pair);
	free(c->covered);
	free(c->seen);
	free(c->stack);
	free(c->list);
	free(c);
}

void layers_cover_mark(struct layers_cover *lc, uint32_t r, uint32_t l)
{
	struct cover *c = (struct cover *)lc;

	for (uint32_t i = 0; i < c->n_pairs; i++)
		if (!c->covered[i] &&
		    legal_shortest(c, r, l, c->pair[i][0], c->pair[i][1]))
			c->covered[i] = 1;
}

void layers_cover_mark_order(struct layers_cover *lc, const uint32_t *order)
{
	struct cover *c = (struct cover *)lc;

	c->ord = order;
	layers_cover_mark(lc, 0, 0);
	c->ord = NULL;
}

/* The pairs root r's layer l would cover that none covers yet. */
static uint32_t gain(struct cover *c, uint32_t r, uint32_t l)
{
	uint32_t k = 0;

	for (uint32_t i = 0; i < c->n_pairs; i++)
		k += !c->covered[i] &&
		     legal_shortest(c, r, l, c->pair[i][0], c->pair[i][1]);
	return k;
}

/* Candidate r: its gain, kept when it beats the best so far (ties: the
 * farther from the roots so far, then the lower index). */
static void consider(struct cover *c, uint32_t r, uint32_t l,
		     const uint8_t *mind, int64_t *best, uint32_t *bg)
{
	uint32_t k = gain(c, r, l);

	if (k > *bg || (k == *bg && k && *best >= 0 &&
			mind[r] > mind[(uint32_t)*best])) {
		*bg = k;
		*best = r;
	}
}

int64_t layers_cover_pick(struct layers_cover *lc, uint32_t l,
			  const uint8_t *mind)
{
	struct cover *c = (struct cover *)lc;
	uint32_t n = c->g->n, step = n > CAND ? n / CAND : 1, bg = 0;
	uint32_t hist[256] = {0}, thr = 255, above = 0, want, stride, i = 0;
	int64_t best = -1;

	/* every switch, or CAND spread over the index ... */
	for (uint32_t r = 0; r < n; r += step)
		consider(c, r, l, mind, &best, &bg);
	if (step == 1)
		return bg ? best : -1;
	/* ... and the CAND farthest from the roots so far (where the cuts
	 * of the layers so far are likeliest to fall: a torus's antipodes),
	 * those at the threshold distance spread over the index */
	for (uint32_t r = 0; r < n; r++)
		if (mind[r] != HOPS_INF)
			hist[mind[r]]++;
	while (thr > 0 && above + hist[thr] < CAND)
		above += hist[thr--];
	want = CAND - above;
	stride = hist[thr] > want ? hist[thr] / want : 1;
	for (uint32_t r = 0; r < n; r++) {
		if (mind[r] == HOPS_INF || mind[r] < thr)
			continue;
		if (mind[r] == thr && i++ % stride)
			continue;
		if (r % step) /* the others were considered above */
			consider(c, r, l, mind, &best, &bg);
	}
	return bg ? best : -1;
}
