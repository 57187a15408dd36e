/* PortInfoRecord (SA attribute 0x0012, IBA 15.2.5.3): EndportLID, PortNum,
 * Options and the 64-byte PortInfo (IBA 14.2.5.6), kept as a byte block:
 * the SA answers with PortInfo as the port reported it.  The table gives
 * every PortInfo field its wire position for component-mask matching;
 * sa_pi_* offsets let the server patch the fields the SM owns. */
#ifndef IBSM_SA_PORTINFO_H
#define IBSM_SA_PORTINFO_H

#include "mad/sa_wire.h"

#define SA_PORTINFO_SIZE 64

enum sa_pir_comp {
	SA_PIR_LID = 0,
	SA_PIR_PORTNUM = 1,
	SA_PIR_OPTIONS = 2,
	SA_PIR_MKEY = 3,
	SA_PIR_GIDPREFIX = 4,
	SA_PIR_BASELID = 5,
	SA_PIR_SMLID = 6,
	SA_PIR_CAPMASK = 7,
	SA_PIR_LOCALPORTNUM = 10,
	SA_PIR_PORTSTATE = 15,
	SA_PIR_LMC = 20,
	SA_PIR_MTUCAP = 31,
	SA_PIR_CAPMASK2 = 53,
	SA_PIR_NCOMPS = 58,
};

/* Bit offsets of PortInfo fields inside the 64-byte PortInfo block. */
enum sa_pi_bit {
	SA_PI_MKEY = 0,
	SA_PI_GIDPREFIX = 64,
	SA_PI_LID = 128,
	SA_PI_SMLID = 144,
	SA_PI_CAPMASK = 160,
	SA_PI_LOCALPORT = 224,
	SA_PI_LWE = 232,
	SA_PI_LWS = 240,
	SA_PI_LWA = 248,
	SA_PI_LSS = 256,
	SA_PI_STATE = 260,
	SA_PI_PHYS = 264,
	SA_PI_LDDS = 268,
	SA_PI_LMC = 277,
	SA_PI_LSA = 280,
	SA_PI_LSE = 284,
	SA_PI_NMTU = 288,
	SA_PI_SMSL = 292,
	SA_PI_VLCAP = 296,
	SA_PI_VLHIGH = 304,
	SA_PI_VLARBHIGH = 312,
	SA_PI_VLARBLOW = 320,
	SA_PI_MTUCAP = 332,
	SA_PI_VLSTALL = 336,
	SA_PI_HOQLIFE = 339,
	SA_PI_OPVLS = 344,
	SA_PI_PARTENFIN = 348,
	SA_PI_GUIDCAP = 400,
	SA_PI_LSEA2 = 449, /* LinkSpeedExtActive2 (XDR), 2 bits */
	SA_PI_SUBNTO = 411,
	SA_PI_RESPTIME = 419,
	SA_PI_LSEA = 496, /* LinkSpeedExtActive, 4 bits */
	SA_PI_CAPMASK2 = 480,
};

struct sa_portinfo_rec {
	uint16_t lid;
	uint8_t port_num, options;
	uint8_t port_info[SA_PORTINFO_SIZE];
};

extern const struct sa_rec_desc sa_portinfo_rec_desc;

/* PortInfo field access (bit offsets from enum sa_pi_bit). */
static inline uint64_t sa_pi_get(const uint8_t *pi, unsigned bit, unsigned bits)
{
	return sa_get_bits(pi, SA_PORTINFO_SIZE, bit, bits);
}
static inline void sa_pi_set(uint8_t *pi, unsigned bit, unsigned bits,
			     uint64_t v)
{
	sa_put_bits(pi, SA_PORTINFO_SIZE, bit, bits, v);
}

#endif
