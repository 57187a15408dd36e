/* PortInfoRecord layout table: the record header plus each PortInfo field
 * (IBA 14.2.5.6) at its wire offset, numbered as the IBA numbers the
 * PortInfoRecord components (libopensm IB_PIR_COMPMASK_*). */
#include "mad/sa_portinfo.h"
#include "mad/sa_mad.h"

#define R		    struct sa_portinfo_rec
#define PI(bit, bits, comp) SA_W(32 + (bit), bits, comp)
static const struct wire_field fields[] = {
    SA_F(R, lid, 0, 16, SA_PIR_LID),
    SA_F(R, port_num, 16, 8, SA_PIR_PORTNUM),
    SA_F(R, options, 24, 8, SA_PIR_OPTIONS),
    SA_F(R, port_info, 32, 512, SA_NO_COMP),
    PI(0, 64, 3),    /* M_Key */
    PI(64, 64, 4),   /* GidPrefix */
    PI(128, 16, 5),  /* LID */
    PI(144, 16, 6),  /* MasterSMLID */
    PI(160, 32, 7),  /* CapabilityMask */
    PI(192, 16, 8),  /* DiagCode */
    PI(208, 16, 9),  /* M_KeyLeasePeriod */
    PI(224, 8, 10),  /* LocalPortNum */
    PI(232, 8, 11),  /* LinkWidthEnabled */
    PI(240, 8, 12),  /* LinkWidthSupported */
    PI(248, 8, 13),  /* LinkWidthActive */
    PI(256, 4, 14),  /* LinkSpeedSupported */
    PI(260, 4, 15),  /* PortState */
    PI(264, 4, 16),  /* PortPhysicalState */
    PI(268, 4, 17),  /* LinkDownDefaultState */
    PI(272, 2, 18),  /* M_KeyProtectBits */
    PI(274, 3, 19),  /* reserved */
    PI(277, 3, 20),  /* LMC */
    PI(280, 4, 21),  /* LinkSpeedActive */
    PI(284, 4, 22),  /* LinkSpeedEnabled */
    PI(288, 4, 23),  /* NeighborMTU */
    PI(292, 4, 24),  /* MasterSMSL */
    PI(296, 4, 25),  /* VLCap */
    PI(300, 4, 26),  /* InitType */
    PI(304, 8, 27),  /* VLHighLimit */
    PI(312, 8, 28),  /* VLArbitrationHighCap */
    PI(320, 8, 29),  /* VLArbitrationLowCap */
    PI(328, 4, 30),  /* InitTypeReply */
    PI(332, 4, 31),  /* MTUCap */
    PI(336, 3, 32),  /* VLStallCount */
    PI(339, 5, 33),  /* HOQLife */
    PI(344, 4, 34),  /* OperationalVLs */
    PI(348, 1, 35),  /* PartitionEnforcementInbound */
    PI(349, 1, 36),  /* PartitionEnforcementOutbound */
    PI(350, 1, 37),  /* FilterRawInbound */
    PI(351, 1, 38),  /* FilterRawOutbound */
    PI(352, 16, 39), /* M_KeyViolations */
    PI(368, 16, 40), /* P_KeyViolations */
    PI(384, 16, 41), /* Q_KeyViolations */
    PI(400, 8, 42),  /* GUIDCap */
    PI(408, 1, 43),  /* ClientReregister */
    PI(409, 2, 44),  /* reserved */
    PI(411, 5, 45),  /* SubnetTimeOut */
    PI(416, 3, 46),  /* reserved */
    PI(419, 5, 47),  /* RespTimeValue */
    PI(424, 4, 48),  /* LocalPhyErrors */
    PI(428, 4, 49),  /* OverrunErrors */
    PI(432, 16, 50), /* MaxCreditHint */
    PI(448, 8, 51),  /* reserved */
    PI(456, 24, 52), /* LinkRoundTripLatency */
    PI(480, 16, 53), /* CapabilityMask2 */
    PI(496, 4, 54),  /* LinkSpeedExtActive */
    PI(500, 4, 55),  /* LinkSpeedExtSupported */
    PI(504, 3, 56),  /* reserved */
    PI(507, 5, 57),  /* LinkSpeedExtEnabled */
};
#undef PI
#undef R

const struct sa_rec_desc sa_portinfo_rec_desc = {
    .name = "PortInfoRecord",
    .attr_id = SA_ATTR_PORTINFO_REC,
    .size = 68,
    .n_comps = SA_PIR_NCOMPS,
    .n_fields = sizeof(fields) / sizeof(fields[0]),
    .fields = fields,
};
