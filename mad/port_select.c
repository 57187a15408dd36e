/* Local port choice: see port_select.h.  libibumad's own resolver
 * (resolve_ca_port) ranks ports the same way; ours also sees every CA at
 * once, skips SM-disabled plane ports and says why nothing fits. */
#include "mad/port_select.h"

#include <stdio.h>
#include <string.h>

const char *port_cand_unfit(const struct port_cand *c)
{
	/* libibumad reports "IB" when sysfs has no link_layer file (older
	 * kernels, umad2sim). */
	if (c->link_layer && *c->link_layer &&
	    strcmp(c->link_layer, "InfiniBand") && strcmp(c->link_layer, "IB"))
		return "not InfiniBand (Ethernet/RoCE link layer)";
	if (c->capmask & PORT_CAP_IS_SM_DISABLED)
		return "SM-disabled (IsSMDisabled: a GSI-only plane of a "
		       "planarized HCA; its SMI device carries the SM)";
	return NULL;
}

static bool wanted(const struct port_cand *c, const struct port_want *w)
{
	if (w->guid)
		return c->guid == w->guid;
	if (w->ca && strcmp(c->ca, w->ca) != 0)
		return false;
	return !(w->ca && w->num && c->num != w->num);
}

/* ACTIVE, then LinkUp (the SM's own port under a fabric without an SM is
 * INIT: bringing it up is the SM's job), then anything else. */
static int rank(const struct port_cand *c)
{
	return c->state == 4 ? 2 : c->phys_state == 5 ? 1 : 0;
}

static void say_missing(const struct port_want *w, char *why, size_t len)
{
	if (w->guid)
		snprintf(why, len, "no port with GUID 0x%016llx",
			 (unsigned long long)w->guid);
	else if (w->ca && w->num)
		snprintf(why, len, "device %s has no port %d", w->ca, w->num);
	else if (w->ca)
		snprintf(why, len, "no InfiniBand device named %s", w->ca);
	else
		snprintf(why, len, "the InfiniBand devices have no port");
}

int port_choose(const struct port_cand *c, size_t n, const struct port_want *w,
		char *why, size_t whylen)
{
	const struct port_cand *unfit = NULL;
	int best = -1, best_rank = -1;

	for (size_t i = 0; i < n; i++) {
		if (!wanted(&c[i], w))
			continue;
		if (port_cand_unfit(&c[i])) {
			if (!unfit)
				unfit = &c[i];
			continue;
		}
		if (rank(&c[i]) > best_rank) {
			best = (int)i;
			best_rank = rank(&c[i]);
		}
	}
	if (best >= 0)
		return best;
	if (unfit)
		snprintf(why, whylen,
			 "no port can carry the SM: %s port %d is "
			 "%s",
			 unfit->ca, unfit->num, port_cand_unfit(unfit));
	else
		say_missing(w, why, whylen);
	return -1;
}
