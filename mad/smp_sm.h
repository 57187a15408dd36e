/* SMInfo (0x0020) and Notice (0x0002) SMP attribute codecs, IBA 14.2.5.13
 * and 13.4.8.2: what the SM answers to sminfo and to other SMs, and the
 * traps (128 link state change, 144 capability mask change) it receives
 * and represses. */
#ifndef IBSM_MAD_SMP_SM_H
#define IBSM_MAD_SMP_SM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mad/fields.h"

enum smp_sm_state {
	SM_STATE_NOT_ACTIVE = 0,
	SM_STATE_DISCOVERING = 1,
	SM_STATE_STANDBY = 2,
	SM_STATE_MASTER = 3
};

/* SMInfo Set attribute modifiers (SM control). */
enum {
	SMINFO_MOD_HANDOVER = 1,
	SMINFO_MOD_ACKNOWLEDGE = 2,
	SMINFO_MOD_DISABLE = 3,
	SMINFO_MOD_STANDBY = 4,
	SMINFO_MOD_DISCOVER = 5
};

struct smp_sm_info {
	uint64_t guid;
	uint64_t sm_key;
	uint32_t act_count;
	uint8_t priority; /* 4 bits */
	uint8_t state;	  /* 4 bits, enum smp_sm_state */
};

extern const struct wire_field smp_sm_info_fields[];
extern const size_t smp_sm_info_nfields;

int smp_sm_info_decode(struct smp_sm_info *si, const uint8_t *data, size_t len);
int smp_sm_info_encode(const struct smp_sm_info *si, uint8_t *data, size_t len);

/* Notice (the trap payload), 64 bytes in an SMP. */
struct smp_notice {
	uint8_t is_generic;	/* 1 bit */
	uint8_t type;		/* 7 bits */
	uint32_t producer_type; /* 24 bits (vendor id if not generic) */
	uint16_t trap_num;	/* generic; device id if not generic */
	uint16_t issuer_lid;
	uint8_t toggle;	     /* 1 bit */
	uint16_t count;	     /* 15 bits */
	uint8_t details[54]; /* DataDetails, raw */
};

extern const struct wire_field smp_notice_fields[];
extern const size_t smp_notice_nfields;

int smp_notice_decode(struct smp_notice *n, const uint8_t *data, size_t len);
int smp_notice_encode(const struct smp_notice *n, uint8_t *data, size_t len);

/* Trap 128: link state changed on the switch at lid. */
int smp_trap128_lid(const struct smp_notice *n, uint16_t *lid);

/* Trap 144: capability mask (or other local) change at lid. */
struct smp_trap144 {
	uint16_t lid;
	bool local_changes;
	uint32_t new_cap_mask;
	uint16_t change_flags; /* 6 bits used */
	uint16_t cap_mask2;
};
int smp_trap144_decode(const struct smp_notice *n, struct smp_trap144 *t);

/* The Trap Repress the SM sends back for a received trap (IBA 13.4.9):
 * TrapRepress method, same TID, attribute Notice, payload copied. Turns
 * the received trap SMP (already decoded into *s) into the repress. */
struct smp;
void smp_make_trap_repress(struct smp *s);

#endif
