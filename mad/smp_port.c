/* PortInfo codec (IBA 14.2.5.6), every field of the 64-byte attribute. */
#include <string.h>

#include "mad/smp_port.h"

#define PI struct smp_port_info
const struct wire_field smp_port_info_fields[] = {
    WF("M_Key", 0, 64, PI, m_key),
    WF("GidPrefix", 64, 64, PI, gid_prefix),
    WF("LID", 128, 16, PI, lid),
    WF("MasterSMLID", 144, 16, PI, master_sm_lid),
    WF("CapabilityMask", 160, 32, PI, capability_mask),
    WF("DiagCode", 192, 16, PI, diag_code),
    WF("M_KeyLeasePeriod", 208, 16, PI, m_key_lease_period),
    WF("LocalPortNum", 224, 8, PI, local_port_num),
    WF("LinkWidthEnabled", 232, 8, PI, link_width_enabled),
    WF("LinkWidthSupported", 240, 8, PI, link_width_supported),
    WF("LinkWidthActive", 248, 8, PI, link_width_active),
    WF("LinkSpeedSupported", 256, 4, PI, link_speed_supported),
    WF("PortState", 260, 4, PI, port_state),
    WF("PortPhysicalState", 264, 4, PI, port_phys_state),
    WF("LinkDownDefaultState", 268, 4, PI, link_down_default_state),
    WF("M_KeyProtectBits", 272, 2, PI, m_key_protect_bits),
    WF("LMC", 277, 3, PI, lmc),
    WF("LinkSpeedActive", 280, 4, PI, link_speed_active),
    WF("LinkSpeedEnabled", 284, 4, PI, link_speed_enabled),
    WF("NeighborMTU", 288, 4, PI, neighbor_mtu),
    WF("MasterSMSL", 292, 4, PI, master_sm_sl),
    WF("VLCap", 296, 4, PI, vl_cap),
    WF("InitType", 300, 4, PI, init_type),
    WF("VLHighLimit", 304, 8, PI, vl_high_limit),
    WF("VLArbitrationHighCap", 312, 8, PI, vl_arb_high_cap),
    WF("VLArbitrationLowCap", 320, 8, PI, vl_arb_low_cap),
    WF("InitTypeReply", 328, 4, PI, init_type_reply),
    WF("MTUCap", 332, 4, PI, mtu_cap),
    WF("VLStallCount", 336, 3, PI, vl_stall_count),
    WF("HOQLife", 339, 5, PI, hoq_life),
    WF("OperationalVLs", 344, 4, PI, operational_vls),
    WF("PartitionEnforcementInbound", 348, 1, PI, partition_enf_inbound),
    WF("PartitionEnforcementOutbound", 349, 1, PI, partition_enf_outbound),
    WF("FilterRawInbound", 350, 1, PI, filter_raw_inbound),
    WF("FilterRawOutbound", 351, 1, PI, filter_raw_outbound),
    WF("M_KeyViolations", 352, 16, PI, m_key_violations),
    WF("P_KeyViolations", 368, 16, PI, p_key_violations),
    WF("Q_KeyViolations", 384, 16, PI, q_key_violations),
    WF("GUIDCap", 400, 8, PI, guid_cap),
    WF("ClientReregister", 408, 1, PI, client_reregister),
    WF("MulticastPKeyTrapSuppressionEnabled", 409, 2, PI,
       mcast_pkey_trap_suppr),
    WF("SubnetTimeOut", 411, 5, PI, subnet_timeout),
    WF("RespTimeValue", 419, 5, PI, resp_time_value),
    WF("LocalPhyErrors", 424, 4, PI, local_phy_errors),
    WF("OverrunErrors", 428, 4, PI, overrun_errors),
    WF("MaxCreditHint", 432, 16, PI, max_credit_hint),
    WF("LinkRoundTripLatency", 456, 24, PI, link_round_trip_latency),
    WF("CapabilityMask2", 480, 16, PI, capability_mask2),
    WF("LinkSpeedExtActive", 496, 4, PI, link_speed_ext_active),
    WF("LinkSpeedExtSupported", 500, 4, PI, link_speed_ext_supported),
    WF("LinkSpeedExtEnabled", 507, 5, PI, link_speed_ext_enabled),
};
const struct wire_field smp_port_info_ext2_fields[] = {
    WF("LinkSpeedExtActive2", 449, 2, PI, link_speed_ext_active2),
    WF("LinkSpeedExtSupported2", 451, 2, PI, link_speed_ext_supported2),
    WF("LinkSpeedExtEnabled2", 453, 3, PI, link_speed_ext_enabled2),
};
#undef PI
const size_t smp_port_info_nfields =
    sizeof(smp_port_info_fields) / sizeof(smp_port_info_fields[0]);
const size_t smp_port_info_ext2_nfields =
    sizeof(smp_port_info_ext2_fields) / sizeof(smp_port_info_ext2_fields[0]);

int smp_port_info_decode(struct smp_port_info *pi, const uint8_t *data,
			 size_t len)
{
	int rc;

	memset(pi, 0, sizeof(*pi));
	rc = wire_decode(smp_port_info_fields, smp_port_info_nfields, data, len,
			 pi);
	return rc < 0 ? rc
		      : wire_decode(smp_port_info_ext2_fields,
				    smp_port_info_ext2_nfields, data, len, pi);
}

int smp_port_info_encode(const struct smp_port_info *pi, uint8_t *data,
			 size_t len)
{
	int rc = wire_encode(smp_port_info_fields, smp_port_info_nfields, pi,
			     data, len);

	return rc < 0 ? rc
		      : wire_encode(smp_port_info_ext2_fields,
				    smp_port_info_ext2_nfields, pi, data, len);
}

#define EPI struct smp_mlnx_ext_port_info
const struct wire_field smp_mlnx_ext_port_info_fields[] = {
    WF("StateChangeEnable", 24, 8, EPI, state_change_enable),
    WF("LinkSpeedSupported", 56, 8, EPI, link_speed_supported),
    WF("LinkSpeedEnabled", 88, 8, EPI, link_speed_enabled),
    WF("LinkSpeedActive", 120, 8, EPI, link_speed_active),
};
#undef EPI
const size_t smp_mlnx_ext_port_info_nfields =
    sizeof(smp_mlnx_ext_port_info_fields) /
    sizeof(smp_mlnx_ext_port_info_fields[0]);

int smp_mlnx_ext_port_info_decode(struct smp_mlnx_ext_port_info *e,
				  const uint8_t *data, size_t len)
{
	memset(e, 0, sizeof(*e));
	return wire_decode(smp_mlnx_ext_port_info_fields,
			   smp_mlnx_ext_port_info_nfields, data, len, e);
}
