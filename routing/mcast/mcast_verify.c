/* Multicast verification that does not trust the engine's bookkeeping:
 * it reads only the per-switch MFT entries (mcast_mft_get: color -> port
 * mask), the groups' members and MLIDs, and the trees' claimed roots and
 * heights, and walks packets as switches would forward them.
 *
 * For each group, a packet injected by its first member is flooded: a
 * switch forwards to every port of its entry except the arrival port.
 * Checked: the arrival port is in the entry (links are used both ways),
 * no switch is reached twice (no loop, no duplicate), every member gets
 * the packet exactly once and the sender never gets it back.  Because
 * entries are symmetric along every used link and the flooded part is
 * loop-free, it is a tree, so every other member reaches all members
 * exactly once as well (mcast_verify_thorough floods from every member).
 * Also: colors below mft_size, and the height measured from the claimed
 * root over the entries equals the claimed height. */
#include "routing/mcast/mcast.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct walk {
	const struct mc_ctx *c;
	uint32_t *seen;	   /* per switch: stamp */
	uint8_t *depth;	   /* per switch */
	uint32_t *q;
	uint8_t *qin;	   /* arrival port */
	uint32_t stamp;
	char *err;
	size_t errlen;
};

static const char *sw_name(const struct mc_ctx *c, uint32_t s)
{
	return c->f->switches[s]->desc;
}

/* Floods color from switch s0 entered by port in0.  Counts deliveries to
 * CA ports in *deliv (ports compared against want[] members).  Returns
 * max depth to a CA (root mode: in0 == 0) or -1 on error. */
static int flood(struct walk *w, uint32_t color, uint32_t s0, uint8_t in0,
		 struct ib_port *const *want, uint32_t nwant, uint32_t *got,
		 const struct ib_port *sender)
{
	const struct mc_ctx *c = w->c;
	uint32_t head = 0, tail = 0;
	uint64_t mask[MC_MASK_WORDS];
	int height = 0;

	w->stamp++;
	w->q[tail] = s0;
	w->qin[tail++] = in0;
	w->seen[s0] = w->stamp;
	w->depth[s0] = 0;
	while (head < tail) {
		uint32_t s = w->q[head];
		uint8_t in = w->qin[head++];
		const struct ib_node *sw = c->f->switches[s];
		if (!mcast_mft_get(c, s, color, mask) ||
		    (in && !mc_mask_test(mask, in))) {
			snprintf(w->err, w->errlen,
				 "MLID 0x%04x: switch %s (0x%016llx) reached on port %u has no entry for it",
				 0xC000 + color, sw_name(c, s),
				 (unsigned long long)sw->guid, in);
			return -1;
		}
		for (unsigned p = 1; p <= sw->nports; p++) {
			const struct ib_port *r = sw->ports[p].remote;
			if (p == in || !mc_mask_test(mask, p))
				continue;
			if (!r) {
				snprintf(w->err, w->errlen, "MLID 0x%04x: switch %s forwards to unlinked port %u",
					 0xC000 + color, sw_name(c, s), p);
				return -1;
			}
			if (r->node->type != IB_NODE_SWITCH) {
				if (r == sender) {
					snprintf(w->err, w->errlen, "MLID 0x%04x: sender %s gets its own packet back",
						 0xC000 + color, r->node->desc);
					return -1;
				}
				for (uint32_t i = 0; i < nwant; i++)
					if (want[i] == r)
						got[i]++;
				if (w->depth[s] + 1 > height)
					height = w->depth[s] + 1;
				continue;
			}
			uint32_t t = (uint32_t)r->node->sw_idx;
			if (w->seen[t] == w->stamp) {
				snprintf(w->err, w->errlen,
					 "MLID 0x%04x: loop or duplicate: switch %s reached twice (from %s port %u)",
					 0xC000 + color, sw_name(c, t), sw_name(c, s), p);
				return -1;
			}
			w->seen[t] = w->stamp;
			w->depth[t] = (uint8_t)(w->depth[s] + 1);
			w->q[tail] = t;
			w->qin[tail++] = r->num;
		}
	}
	return height;
}

/* One group from one sender: all other members exactly once. */
static int check_from(struct walk *w, const struct mc_group *g, uint32_t color,
		      uint32_t si, uint32_t *got)
{
	const struct ib_port *snd = g->members[si];

	memset(got, 0, g->n_members * sizeof(*got));
	if (flood(w, color, mc_member_sw(snd), snd->remote->num, g->members,
		  g->n_members, got, snd) < 0)
		return -1;
	for (uint32_t i = 0; i < g->n_members; i++) {
		if (g->members[i] == snd || g->members[i]->node == snd->node)
			continue;
		if (got[i] != 1) {
			snprintf(w->err, w->errlen,
				 "MLID 0x%04x: member %s port %u gets %u copies from %s",
				 0xC000 + color, g->members[i]->node->desc,
				 g->members[i]->num, got[i], snd->node->desc);
			return -1;
		}
	}
	return 0;
}

static int check_group(struct walk *w, const struct mc_group *g, bool all)
{
	const struct mc_ctx *c = w->c;
	uint16_t mlid = mcast_group_mlid(c, g->id);
	uint32_t *got = malloc((g->n_members + 1) * sizeof(*got));
	uint32_t color = (uint32_t)mlid - 0xC000;
	int rc = 0;

	if (!got)
		return -1;
	if (!mlid || (c->prm.mft_size && color >= c->prm.mft_size)) {
		snprintf(w->err, w->errlen, "group %u: MLID 0x%04x outside the MFT (size %u)",
			 g->id, mlid, c->prm.mft_size);
		rc = -1;
	}
	for (uint32_t i = 0; rc == 0 && i < (all ? g->n_members : 1); i++)
		rc = check_from(w, g, color, i, got);
	free(got);
	return rc;
}

/* Height measured over the entries from the claimed root. */
static int check_tree(struct walk *w, const struct mc_tree *t)
{
	int h = flood(w, t->color, t->root, 0, NULL, 0, NULL, NULL);

	if (h < 0)
		return -1;
	if (h != t->height) {
		snprintf(w->err, w->errlen,
			 "MLID 0x%04x: tree rooted at %s claims height %u, entries give %d",
			 0xC000 + t->color, sw_name(w->c, t->root), t->height, h);
		return -1;
	}
	return 0;
}

static int verify(const struct mc_ctx *c, char *err, size_t errlen, bool all)
{
	struct walk w = { .c = c, .err = err, .errlen = errlen };
	int rc = 0;

	w.seen = calloc(c->n_sw + 1, sizeof(uint32_t));
	w.depth = calloc(c->n_sw + 1, 1);
	w.q = malloc((c->n_sw + 1) * sizeof(uint32_t));
	w.qin = malloc(c->n_sw + 1);
	if (!w.seen || !w.depth || !w.q || !w.qin) {
		snprintf(err, errlen, "out of memory");
		rc = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < c->n_groups && rc == 0; i++)
		if (c->groups[i].live && check_group(&w, &c->groups[i], all) < 0)
			rc = -EPROTO;
	for (uint32_t i = 0; i < c->n_trees && rc == 0; i++)
		if (c->trees[i].live && c->trees[i].n_groups &&
		    check_tree(&w, &c->trees[i]) < 0)
			rc = -EPROTO;
out:
	free(w.seen);
	free(w.depth);
	free(w.q);
	free(w.qin);
	return rc;
}

int mcast_verify(const struct mc_ctx *c, char *err, size_t errlen)
{
	return verify(c, err, errlen, false);
}

int mcast_verify_thorough(const struct mc_ctx *c, char *err, size_t errlen)
{
	return verify(c, err, errlen, true);
}
