/* SwitchInfo, LinearForwardingTable and MulticastForwardingTable codecs
 * (IBA 14.2.5.4, 14.2.5.10, 14.2.5.12). */
#include <errno.h>
#include <string.h>

#include "mad/cursor.h"
#include "mad/smp_switch.h"

#define SI struct smp_switch_info
const struct wire_field smp_switch_info_fields[] = {
    WF("LinearFDBCap", 0, 16, SI, lft_cap),
    WF("RandomFDBCap", 16, 16, SI, rft_cap),
    WF("MulticastFDBCap", 32, 16, SI, mft_cap),
    WF("LinearFDBTop", 48, 16, SI, lft_top),
    WF("DefaultPort", 64, 8, SI, default_port),
    WF("DefaultMulticastPrimaryPort", 72, 8, SI, default_mcast_primary_port),
    WF("DefaultMulticastNotPrimaryPort", 80, 8, SI,
       default_mcast_not_primary_port),
    WF("LifeTimeValue", 88, 5, SI, life_time_value),
    WF("PortStateChange", 93, 1, SI, port_state_change),
    WF("OptimizedSLtoVLMappingProgramming", 94, 2, SI, opt_sl2vl_programming),
    WF("LIDsPerPort", 96, 16, SI, lids_per_port),
    WF("PartitionEnforcementCap", 112, 16, SI, partition_enf_cap),
    WF("InboundEnforcementCap", 128, 1, SI, inbound_enf_cap),
    WF("OutboundEnforcementCap", 129, 1, SI, outbound_enf_cap),
    WF("FilterRawInboundCap", 130, 1, SI, filter_raw_inbound_cap),
    WF("FilterRawOutboundCap", 131, 1, SI, filter_raw_outbound_cap),
    WF("EnhancedPort0", 132, 1, SI, enhanced_port0),
    WF("MulticastFDBTop", 144, 16, SI, mft_top),
};
#undef SI
const size_t smp_switch_info_nfields =
    sizeof(smp_switch_info_fields) / sizeof(smp_switch_info_fields[0]);

int smp_switch_info_decode(struct smp_switch_info *si, const uint8_t *data,
			   size_t len)
{
	memset(si, 0, sizeof(*si));
	return wire_decode(smp_switch_info_fields, smp_switch_info_nfields,
			   data, len, si);
}

int smp_switch_info_encode(const struct smp_switch_info *si, uint8_t *data,
			   size_t len)
{
	return wire_encode(smp_switch_info_fields, smp_switch_info_nfields, si,
			   data, len);
}

int smp_lft_decode(uint8_t ports[LFT_BLOCK_SIZE], const uint8_t *data,
		   size_t len)
{
	struct cur c;

	cur_rd(&c, data, len);
	cur_get_bytes(&c, ports, LFT_BLOCK_SIZE);
	return cur_err(&c);
}

int smp_lft_encode(const uint8_t ports[LFT_BLOCK_SIZE], uint8_t *data,
		   size_t len)
{
	struct cur c;

	cur_wr(&c, data, len);
	cur_put_bytes(&c, ports, LFT_BLOCK_SIZE);
	return cur_err(&c);
}

int smp_mft_decode(uint16_t masks[MFT_BLOCK_SIZE], const uint8_t *data,
		   size_t len)
{
	struct cur c;

	cur_rd(&c, data, len);
	cur_get_u16s(&c, masks, MFT_BLOCK_SIZE);
	return cur_err(&c);
}

int smp_mft_encode(const uint16_t masks[MFT_BLOCK_SIZE], uint8_t *data,
		   size_t len)
{
	struct cur c;

	cur_wr(&c, data, len);
	cur_put_u16s(&c, masks, MFT_BLOCK_SIZE);
	return cur_err(&c);
}
