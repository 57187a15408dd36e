/* Which local port the SM runs on, decided from a description of the
 * ports libibumad lists (no I/O here, so the rules are unit-tested on
 * made-up CAs): an InfiniBand port that is not SM-disabled, ACTIVE before
 * LinkUp before any other, the first in umad's order on ties. */
#ifndef IBSM_MAD_PORT_SELECT_H
#define IBSM_MAD_PORT_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PortInfo CapabilityMask IsSMDisabled: on kernels >= 6.11 a planarized
 * HCA lists each plane as a GSI-only device with this bit set beside the
 * one SMI device that may carry SMPs. */
#define PORT_CAP_IS_SM_DISABLED (1u << 10)
/* IsSM: a process holds the port's issm device (an SM runs on it). */
#define PORT_CAP_IS_SM (1u << 1)

/* One port as umad_get_ca() describes it, in umad's order. */
struct port_cand {
	const char *ca;
	int num;
	uint64_t guid;		/* host order */
	uint8_t state;		/* PortState 1..4 */
	uint8_t phys_state;	/* 5 = LinkUp */
	const char *link_layer; /* "InfiniBand", "IB" or "Ethernet" */
	uint32_t capmask;	/* host order */
};

/* What the configuration asks for (mad_port_sel's fields). */
struct port_want {
	uint64_t guid;	/* 0 = any */
	const char *ca; /* NULL = any */
	int num;	/* 0 = any port of ca */
};

/* Why a port cannot carry the SM, or NULL when it can. */
const char *port_cand_unfit(const struct port_cand *c);

/* Index of the chosen candidate, or -1 with why[] saying what is missing
 * ("no InfiniBand port", "port 2 of mlx5_1 is Ethernet (RoCE)", ...).  A
 * port named exactly (GUID, or CA and port number) that cannot carry the
 * SM is an error, not skipped. */
int port_choose(const struct port_cand *c, size_t n, const struct port_want *w,
		char *why, size_t whylen);

#endif
