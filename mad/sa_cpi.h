/* ClassPortInfo (common attribute 0x0001, IBA 13.4.8.1) as the SA class
 * reports it, 72 bytes. */
#ifndef IBSM_SA_CPI_H
#define IBSM_SA_CPI_H

#include "mad/sa_wire.h"

struct sa_cpi {
	uint8_t base_version, class_version;
	uint16_t cap_mask;
	uint32_t cap_mask2; /* 27 bits */
	uint8_t resp_time;  /* 5 bits */
	uint8_t redir_gid[16];
	uint8_t redir_tc, redir_sl;
	uint32_t redir_fl;
	uint16_t redir_lid, redir_pkey;
	uint32_t redir_qp, redir_qkey;
	uint8_t trap_gid[16];
	uint8_t trap_tc, trap_sl;
	uint32_t trap_fl;
	uint16_t trap_lid, trap_pkey;
	uint8_t trap_hl;
	uint32_t trap_qp, trap_qkey;
};

extern const struct sa_rec_desc sa_cpi_desc;

#endif
