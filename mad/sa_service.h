/* ServiceRecord (SA attribute 0x0031, IBA 15.2.5.14), 176 bytes. */
#ifndef IBSM_SA_SERVICE_H
#define IBSM_SA_SERVICE_H

#include "mad/sa_wire.h"

enum {
	SA_SR_ID = 0,
	SA_SR_GID,
	SA_SR_PKEY,
	SA_SR_RESV,
	SA_SR_LEASE,
	SA_SR_KEY,
	SA_SR_NAME,
	SA_SR_DATA8_0 = 7,
	SA_SR_DATA16_0 = 23,
	SA_SR_DATA32_0 = 31,
	SA_SR_DATA64_0 = 35,
	SA_SR_NCOMPS = 37
};

#define SA_SR_LEASE_INFINITE 0xFFFFFFFFu

struct sa_service_rec {
	uint64_t id;
	uint8_t gid[16];
	uint16_t pkey;
	uint32_t lease; /* seconds, SA_SR_LEASE_INFINITE = forever */
	uint8_t key[16];
	uint8_t name[64];
	uint8_t data8[16];
	uint16_t data16[8];
	uint32_t data32[4];
	uint64_t data64[2];
};

extern const struct sa_rec_desc sa_service_rec_desc;

#endif
