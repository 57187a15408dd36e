/* Per-port records: PortInfoRecord, GUIDInfoRecord, P_KeyTableRecord.
 * PortInfo is the block the port last reported (cache) with the fields the
 * SM owns (LID, LMC, SM LID, state, GID prefix) taken from the fabric
 * model, which is what the SM programmed. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_portinfo.h"
#include "mad/sa_tables.h"

#define PI_CAP_IS_SM 0x2

/* Values ibsim reports, used when discovery fed no PortInfo. */
static void pi_defaults(const struct ib_port *p, uint8_t *pi)
{
	bool sw0 = node_is_switch(p->node) && p->num == 0;

	sa_pi_set(pi, SA_PI_LWE, 8, 2);
	sa_pi_set(pi, SA_PI_LWS, 8, 0x1F);
	sa_pi_set(pi, SA_PI_LSS, 4, 7);
	sa_pi_set(pi, SA_PI_LDDS, 4, 2);
	sa_pi_set(pi, SA_PI_LSE, 4, 1);
	sa_pi_set(pi, SA_PI_NMTU, 4, sw0 ? 1 : 4);
	sa_pi_set(pi, SA_PI_VLCAP, 4, 4);
	sa_pi_set(pi, SA_PI_VLARBHIGH, 8, 8);
	sa_pi_set(pi, SA_PI_VLARBLOW, 8, 8);
	sa_pi_set(pi, SA_PI_OPVLS, 4, 4);
	sa_pi_set(pi, SA_PI_GUIDCAP, 8, node_is_switch(p->node) ? 1 : 32);
}

void sa_portinfo_build(const struct sa *sa, const struct ib_port *p,
		       uint8_t pi[64])
{
	const uint8_t *raw =
	    sa_cache_get(sa, p->node->guid, p->num, SA_SMP_PORT_INFO);
	const struct ib_port *ep = node_port(p->node, p->num);
	bool endport = ep == p;

	if (raw)
		memcpy(pi, raw, SA_PORTINFO_SIZE);
	else {
		memset(pi, 0, SA_PORTINFO_SIZE);
		pi_defaults(p, pi);
	}
	sa_pi_set(pi, SA_PI_MKEY, 64, 0); /* never shown to requesters */
	if (endport) {
		/* A switch's external ports have no GID: their PortInfo
		 * keeps prefix, LID and SM LID 0 as the switch reports. */
		sa_pi_set(pi, SA_PI_GIDPREFIX, 64, sa->sm.subnet_prefix);
		sa_pi_set(pi, SA_PI_LID, 16, p->lid);
		sa_pi_set(pi, SA_PI_LMC, 3, p->lmc);
		sa_pi_set(pi, SA_PI_SMLID, 16, sa->sm.lid);
		if (sa->fabric->sm_node == p->node &&
		    (node_is_switch(p->node) || sa->fabric->sm_port == p->num))
			sa_pi_set(pi, SA_PI_CAPMASK, 32,
				  sa_pi_get(pi, SA_PI_CAPMASK, 32) |
				      PI_CAP_IS_SM);
	}
	if (!raw || !node_is_switch(p->node) || p->num)
		sa_pi_set(pi, SA_PI_LOCALPORT, 8, p->num);
	if (p->state)
		sa_pi_set(pi, SA_PI_STATE, 4, p->state);
	if (p->phys_state)
		sa_pi_set(pi, SA_PI_PHYS, 4, p->phys_state);
	if (p->width_active)
		sa_pi_set(pi, SA_PI_LWA, 8, p->width_active);
	if (p->speed_active)
		sa_pi_set(pi, SA_PI_LSA, 4, p->speed_active);
	if (p->speed_ext_active)
		sa_pi_set(pi, SA_PI_LSEA, 4, p->speed_ext_active);
	if (p->speed_ext2_active)
		sa_pi_set(pi, SA_PI_LSEA2, 2, p->speed_ext2_active);
	if (p->mtu_cap)
		sa_pi_set(pi, SA_PI_MTUCAP, 4, p->mtu_cap);
	if (p->vl_cap)
		sa_pi_set(pi, SA_PI_VLCAP, 4, p->vl_cap);
}

/* Ports a per-port table walks: a switch's every port, a CA's ports that
 * were discovered (linked or with a LID). */
static bool port_known(const struct ib_port *p)
{
	return node_is_switch(p->node) ? p->node->ports[0].lid != 0
				       : p->remote || p->lid;
}

/* PortInfoRecord's CapabilityMask and CapabilityMask2 components match
 * when every bit asked for is set (IsPortInfoCapMaskMatchSupported,
 * IsPortInfoCapMask2MatchSupported), not on equality. */
static bool caps_match(struct sa_ctx *c, const uint8_t *pi, unsigned comp,
		       unsigned bit, unsigned bits)
{
	uint64_t want;

	if (!sa_has(c, comp))
		return true;
	want = sa_req_get(c, comp);
	return (sa_pi_get(pi, bit, bits) & want) == want;
}

static int pir_emit(struct sa_ctx *c, const struct ib_port *p)
{
	struct sa_portinfo_rec r = {.lid = sa_port_lid(p), .port_num = p->num};
	const uint64_t caps = 1ull << SA_PIR_CAPMASK | 1ull << SA_PIR_CAPMASK2;
	uint64_t saved = c->mask;
	int e;

	sa_portinfo_build(c->sa, p, r.port_info);
	if (!caps_match(c, r.port_info, SA_PIR_CAPMASK, SA_PI_CAPMASK, 32) ||
	    !caps_match(c, r.port_info, SA_PIR_CAPMASK2, SA_PI_CAPMASK2, 16))
		return 0;
	c->mask &= ~caps;
	e = sa_emit(c, &r);
	c->mask = saved;
	return e;
}

static int pir_node(struct sa_ctx *c, struct ib_node *n)
{
	uint8_t first = node_is_switch(n) ? 0 : 1;

	for (unsigned pn = first; pn <= n->nports && !sa_ctx_done(c); pn++) {
		if (!port_known(&n->ports[pn]))
			continue;
		if (sa_has(c, SA_PIR_PORTNUM) &&
		    sa_req_get(c, SA_PIR_PORTNUM) != pn)
			continue;
		if (pir_emit(c, &n->ports[pn]) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* Walks the nodes a per-port request can concern: the one owning the
 * requested LID, else all in OpenSM's order. */
static int walk_nodes(struct sa_ctx *c, unsigned lid_comp,
		      int (*fn)(struct sa_ctx *, struct ib_node *))
{
	struct fabric *f = c->sa->fabric;
	struct ib_node **v;
	int e = 0;

	if (sa_has(c, lid_comp)) {
		struct ib_port *p =
		    fabric_port_by_lid(f, (uint16_t)sa_req_get(c, lid_comp));
		return p ? fn(c, p->node) : 0;
	}
	v = sa_nodes_sorted(f);
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && !e && !sa_ctx_done(c); i++)
		e = fn(c, v[i]);
	free(v);
	return e;
}

int sa_portinfo_handle(struct sa_ctx *c)
{
	return walk_nodes(c, SA_PIR_LID, pir_node);
}

static int gir_port(struct sa_ctx *c, const struct ib_port *p)
{
	uint8_t pi[SA_PORTINFO_SIZE];
	const uint8_t *raw =
	    sa_cache_get(c->sa, p->node->guid, p->num, SA_SMP_GUID_INFO);
	unsigned blocks;

	sa_portinfo_build(c->sa, p, pi);
	blocks = ((unsigned)sa_pi_get(pi, SA_PI_GUIDCAP, 8) + 7) / 8;
	if (!blocks)
		blocks = 1;
	for (unsigned b = 0; b < blocks && !sa_ctx_done(c); b++) {
		struct sa_guidinfo_rec r = {.lid = p->lid, .block = (uint8_t)b};

		if (b == 0) {
			for (int i = 0; raw && i < 8; i++)
				r.guid[i] = sa_get64(raw + 8 * i);
			r.guid[0] = p->guid;
		}
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int gir_node(struct sa_ctx *c, struct ib_node *n)
{
	if (node_is_switch(n))
		return n->ports[0].lid ? gir_port(c, &n->ports[0]) : 0;
	for (uint8_t pn = 1; pn <= n->nports && !sa_ctx_done(c); pn++)
		if (n->ports[pn].lid && gir_port(c, &n->ports[pn]) < 0)
			return -ENOMEM;
	return 0;
}

int sa_guidinfo_handle(struct sa_ctx *c)
{
	return walk_nodes(c, SA_GIR_LID, gir_node);
}

/* Blocks of 32 P_Keys a port has: NodeInfo PartitionCap for end ports;
 * for a switch's external ports SwitchInfo PartitionEnforcementCap. */
static unsigned pkey_blocks(const struct sa *sa, const struct ib_port *p)
{
	const struct ib_node *n = p->node;
	const uint8_t *ni = sa_cache_get(sa, n->guid, 0, SA_SMP_NODE_INFO);
	const uint8_t *si = sa_cache_get(sa, n->guid, 0, SA_SMP_SWITCH_INFO);
	unsigned cap;

	if (node_is_switch(n) && p->num)
		cap = si ? sa_get16(si + 14) : 0;
	else
		cap = ni ? sa_get16(ni + 28) : 0x40;
	return (cap + 31) / 32;
}

/* The table the SM programmed or read (pkeyprog.c), all its blocks. */
static int pkr_programmed(struct sa_ctx *c, const struct ib_port *p,
			  const uint16_t *tbl, int n)
{
	for (int b = 0; b * 32 < n && !sa_ctx_done(c); b++) {
		struct sa_pkey_rec r = {.lid = sa_port_lid(p),
					.block = (uint16_t)b,
					.port = node_is_switch(p->node) ? p->num
									: 0};

		for (int i = 0; i < 32 && b * 32 + i < n; i++)
			r.pkey[i] = tbl[b * 32 + i];
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int pkr_port(struct sa_ctx *c, const struct ib_port *p)
{
	const uint8_t *raw =
	    sa_cache_get(c->sa, p->node->guid, p->num, SA_SMP_PKEY_TABLE);
	unsigned blocks = pkey_blocks(c->sa, p);
	const uint16_t *tbl = NULL;
	int n =
	    c->sa->pkey_table ? c->sa->pkey_table(c->sa->pkey_ctx, p, &tbl) : 0;

	if (n > 0)
		return pkr_programmed(c, p, tbl, n);

	for (unsigned b = 0; b < blocks && !sa_ctx_done(c); b++) {
		struct sa_pkey_rec r = {.lid = sa_port_lid(p),
					.block = (uint16_t)b,
					.port = node_is_switch(p->node) ? p->num
									: 0};

		/* The default partition is what every port is in
		 * (docs/design.md: P_Key 0xFFFF); a port's own table wins when
		 * known. */
		if (b == 0 && raw)
			for (int i = 0; i < 32; i++)
				r.pkey[i] = sa_get16(raw + 2 * i);
		else if (b == 0)
			r.pkey[0] = 0xFFFF;
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int pkr_node(struct sa_ctx *c, struct ib_node *n)
{
	uint8_t first = node_is_switch(n) ? 0 : 1;

	for (unsigned pn = first; pn <= n->nports && !sa_ctx_done(c); pn++)
		if (port_known(&n->ports[pn]) &&
		    (n->ports[pn].lid || node_is_switch(n)) &&
		    pkr_port(c, &n->ports[pn]) < 0)
			return -ENOMEM;
	return 0;
}

int sa_pkey_handle(struct sa_ctx *c)
{
	/* P_Key tables say who may talk to whom: as OpenSM, only trusted
	 * requesters (the SM_Key) may read them. */
	if (!c->trusted)
		return SA_STATUS_REQ_INVALID;
	return walk_nodes(c, SA_PKR_LID, pkr_node);
}
