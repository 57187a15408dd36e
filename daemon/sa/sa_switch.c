/* Switch records: SwitchInfoRecord, LinearForwardingTableRecord (from the
 * LFTs as programmed), MulticastForwardingTableRecord (from the multicast
 * manager's MFT blocks through sa->mft_block). */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mad/sa_switch.h"
#include "mad/smp_switch.h"

static void switchinfo_build(const struct sa *sa, const struct ib_node *sw,
			     uint8_t si[SA_SWITCHINFO_SIZE])
{
	const uint8_t *raw = sa_cache_get(sa, sw->guid, 0, SA_SMP_SWITCH_INFO);
	/* ibsim's values for what the model does not keep */
	struct smp_switch_info i = {.life_time_value = 18,
				    .partition_enf_cap = 0x40,
				    .filter_raw_inbound_cap = 1,
				    .filter_raw_outbound_cap = 1};

	if (raw)
		smp_switch_info_decode(&i, raw, SA_SWITCHINFO_SIZE);
	if (sw->lft_cap)
		i.lft_cap = sw->lft_cap;
	if (sw->mft_cap)
		i.mft_cap = sw->mft_cap;
	i.lft_top = sw->lft_top; /* as the SM programmed it */
	memset(si, 0, SA_SWITCHINFO_SIZE);
	smp_switch_info_encode(&i, si, SA_SWITCHINFO_SIZE);
}

static int each_switch(struct sa_ctx *c, unsigned lid_comp,
		       int (*fn)(struct sa_ctx *, const struct ib_node *))
{
	struct fabric *f = c->sa->fabric;
	struct ib_node **v;
	int e = 0;

	if (sa_has(c, lid_comp)) {
		struct ib_port *p =
		    fabric_port_by_lid(f, (uint16_t)sa_req_get(c, lid_comp));
		return p && node_is_switch(p->node) ? fn(c, p->node) : 0;
	}
	v = sa_nodes_sorted(f);
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes && !e && !sa_ctx_done(c); i++)
		if (node_is_switch(v[i]) && v[i]->ports[0].lid)
			e = fn(c, v[i]);
	free(v);
	return e;
}

static int swir_one(struct sa_ctx *c, const struct ib_node *sw)
{
	struct sa_switchinfo_rec r = {.lid = sw->ports[0].lid};

	switchinfo_build(c->sa, sw, r.switch_info);
	return sa_emit(c, &r) < 0 ? -ENOMEM : 0;
}

int sa_switchinfo_handle(struct sa_ctx *c)
{
	return each_switch(c, SA_SWIR_LID, swir_one);
}

static int lft_one(struct sa_ctx *c, const struct ib_node *sw)
{
	unsigned top = sw->lft_top;

	for (unsigned b = 0; b <= top / 64 && !sa_ctx_done(c); b++) {
		struct sa_lft_rec r = {.lid = sw->ports[0].lid,
				       .block = (uint16_t)b};

		if (sa_has(c, SA_LFTR_BLOCK) &&
		    sa_req_get(c, SA_LFTR_BLOCK) != b)
			continue;
		for (unsigned i = 0; i < 64; i++) {
			unsigned lid = b * 64 + i;

			r.lft[i] = lid < sw->lft_size && lid <= top
				       ? sw->lft[lid]
				       : LFT_NO_PORT;
		}
		if (sa_emit(c, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

int sa_lft_handle(struct sa_ctx *c)
{
	return each_switch(c, SA_LFTR_LID, lft_one);
}

static int mft_one(struct sa_ctx *c, const struct ib_node *sw)
{
	struct sa *sa = c->sa;
	unsigned blocks = (sw->mft_cap + 31u) / 32,
		 positions = sw->nports / 16 + 1;

	for (unsigned b = 0; b < blocks && !sa_ctx_done(c); b++) {
		for (unsigned pos = 0; pos < positions; pos++) {
			struct sa_mft_rec r = {.lid = sw->ports[0].lid,
					       .position = (uint8_t)pos,
					       .block = (uint16_t)b};
			uint16_t masks[32] = {0};
			int got = sa->mft_block(sa->mft_ctx, sw, (uint16_t)b,
						(uint8_t)pos, masks);

			if (got < 0)
				return 0;
			if (!got)
				continue;
			smp_mft_encode(masks, r.mft, sizeof(r.mft));
			if (sa_emit(c, &r) < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

int sa_mft_handle(struct sa_ctx *c)
{
	if (!c->sa->mft_block)
		return 0;
	return each_switch(c, SA_MFTR_LID, mft_one);
}
