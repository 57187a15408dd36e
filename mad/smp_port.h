/* PortInfo (0x0015) SMP attribute codec, IBA 14.2.5.6: every field of
 * OpenSM's ib_port_info_t, the ones the SM sets and the ones it reads.
 * The attribute modifier is the port number (0 for switch port 0). */
#ifndef IBSM_MAD_SMP_PORT_H
#define IBSM_MAD_SMP_PORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/fields.h"

/* CapabilityMask bits the SM cares about. */
#define PI_CAP_IS_SM	       (1u << 1)
#define PI_CAP_IS_NOTICE_SUP   (1u << 2)
#define PI_CAP_IS_TRAP_SUP     (1u << 3)
#define PI_CAP_IS_SL_MAP       (1u << 6) /* IsSLMappingSupported */
#define PI_CAP_IS_SM_DISABLED  (1u << 10)
#define PI_CAP_IS_CAP_MASK2    (1u << 15)
#define PI_CAP_IS_CLIENT_REREG (1u << 25)

/* PortPhysicalState values */
enum {
	PI_PHYS_SLEEP = 1,
	PI_PHYS_POLLING = 2,
	PI_PHYS_DISABLED = 3,
	PI_PHYS_TRAINING = 4,
	PI_PHYS_LINKUP = 5,
	PI_PHYS_ERROR_RECOVERY = 6
};

struct smp_port_info {
	uint64_t m_key;
	uint64_t gid_prefix;
	uint16_t lid;
	uint16_t master_sm_lid;
	uint32_t capability_mask;
	uint16_t diag_code;
	uint16_t m_key_lease_period;
	uint8_t local_port_num;
	uint8_t link_width_enabled;
	uint8_t link_width_supported;
	uint8_t link_width_active;
	uint8_t link_speed_supported;	 /* 4 bits */
	uint8_t port_state;		 /* 4 bits; Set: 0 = no change */
	uint8_t port_phys_state;	 /* 4 bits; Set: 0 = no change */
	uint8_t link_down_default_state; /* 4 bits */
	uint8_t m_key_protect_bits;	 /* 2 bits */
	uint8_t lmc;			 /* 3 bits */
	uint8_t link_speed_active;	 /* 4 bits */
	uint8_t link_speed_enabled;	 /* 4 bits */
	uint8_t neighbor_mtu;		 /* 4 bits */
	uint8_t master_sm_sl;		 /* 4 bits */
	uint8_t vl_cap;			 /* 4 bits */
	uint8_t init_type;		 /* 4 bits */
	uint8_t vl_high_limit;
	uint8_t vl_arb_high_cap;
	uint8_t vl_arb_low_cap;
	uint8_t init_type_reply;	/* 4 bits */
	uint8_t mtu_cap;		/* 4 bits */
	uint8_t vl_stall_count;		/* 3 bits */
	uint8_t hoq_life;		/* 5 bits */
	uint8_t operational_vls;	/* 4 bits */
	uint8_t partition_enf_inbound;	/* 1 bit */
	uint8_t partition_enf_outbound; /* 1 bit */
	uint8_t filter_raw_inbound;	/* 1 bit */
	uint8_t filter_raw_outbound;	/* 1 bit */
	uint16_t m_key_violations;
	uint16_t p_key_violations;
	uint16_t q_key_violations;
	uint8_t guid_cap;
	uint8_t client_reregister;     /* 1 bit */
	uint8_t mcast_pkey_trap_suppr; /* 2 bits */
	uint8_t subnet_timeout;	       /* 5 bits */
	uint8_t resp_time_value;       /* 5 bits */
	uint8_t local_phy_errors;      /* 4 bits */
	uint8_t overrun_errors;	       /* 4 bits */
	uint16_t max_credit_hint;
	uint32_t link_round_trip_latency; /* 24 bits */
	uint16_t capability_mask2;
	uint8_t link_speed_ext_active;	  /* 4 bits */
	uint8_t link_speed_ext_supported; /* 4 bits */
	uint8_t link_speed_ext_enabled;	  /* 5 bits */
	/* IBA 1.7 (XDR), in what older layouts reserved; libibmad has them
	 * from rdma-core 50 on: smp_port_info_ext2_fields. */
	uint8_t link_speed_ext_active2;	   /* 2 bits */
	uint8_t link_speed_ext_supported2; /* 2 bits */
	uint8_t link_speed_ext_enabled2;   /* 3 bits */
};

extern const struct wire_field smp_port_info_fields[];
extern const size_t smp_port_info_nfields;
/* The XDR fields, apart because libibmad 44 (Debian 12) does not list
 * them and the table above is checked entry by entry against it. */
extern const struct wire_field smp_port_info_ext2_fields[];
extern const size_t smp_port_info_ext2_nfields;

/* Mellanox ExtendedPortInfo (vendor attribute 0xFF90, modifier = port
 * number): where FDR10, a vendor speed with QDR's LinkSpeedActive, shows
 * (LinkSpeed* bit 0).  Layout as libibmad's IB_MLNX_EXT_PORT_* fields and
 * OpenSM's ib_mlnx_ext_port_info_t. */
#define MLNX_SPEED_FDR10 0x01
struct smp_mlnx_ext_port_info {
	uint8_t state_change_enable;
	uint8_t link_speed_supported;
	uint8_t link_speed_enabled;
	uint8_t link_speed_active;
};
extern const struct wire_field smp_mlnx_ext_port_info_fields[];
extern const size_t smp_mlnx_ext_port_info_nfields;
int smp_mlnx_ext_port_info_decode(struct smp_mlnx_ext_port_info *e,
				  const uint8_t *data, size_t len);

/* Attribute modifier bit 31 of PortInfo Get/Set, SMSupportExtendedSpeeds
 * (IBA 1.3+): without it a port may hide LinkSpeedExt* (NDR ports report
 * nothing useful), so ibsmd sets it on every PortInfo SMP; an SMA that
 * refuses the modifier (pre-1.3, invalid-field status) is asked again
 * without it. */
#define PI_MOD_EXT_SPEEDS (1u << 31)
static inline uint32_t smp_port_info_mod(uint8_t port, bool ext)
{
	return port | (ext ? PI_MOD_EXT_SPEEDS : 0);
}

int smp_port_info_decode(struct smp_port_info *pi, const uint8_t *data,
			 size_t len);
/* -ERANGE when a member does not fit its field (e.g. lmc > 7). */
int smp_port_info_encode(const struct smp_port_info *pi, uint8_t *data,
			 size_t len);

#endif
