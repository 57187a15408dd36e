/* The SA's own records: ClassPortInfo of the SA class and SMInfoRecord of
 * the (only known) SM, this one. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <string.h>

#include "mad/sa_cpi.h"
#include "mad/sa_sminfo.h"

/* ClassPortInfo CapabilityMask bits we can stand behind: 0x0002 (as
 * OpenSM sets it), IsUDMulticastSupported (0x0200) and
 * IsPortInfoCapMaskMatchSupported (0x2000).  Unlike OpenSM (0x2602) no
 * IsMultiPathSupported (0x0400): GetMulti is not implemented. */
#define SA_CAP_MASK 0x2202
/* CapabilityMask2 as OpenSM's (0xB5E8) less IsMulticastServiceRecord-
 * Supported (bit 8: ServiceRecords need a port GID here): IsMcastTop (3,
 * SwitchInfoRecord carries MulticastFDBTop), IsAdditionalGUIDs (5, every
 * GUIDInfo block), IsFullPortInfoRecord (6), IsExtendedLinkSpeeds (7),
 * IsPortInfoCapMask2Match (10, bitwise as CapabilityMask), and the link
 * width/speed values PortInfo passes through unchanged (12, 13, 15). */
#define SA_CAP_MASK2 0xB4E8
/* 4.096 us * 2^16 = 268 ms, the same response time OpenSM advertises. */
#define SA_RESP_TIME 16
#define QP1_QKEY     0x80010000u

int sa_cpi_handle(struct sa_ctx *c)
{
	struct sa_cpi cpi = {
	    .base_version = 1,
	    .class_version = 2,
	    .cap_mask = SA_CAP_MASK,
	    .cap_mask2 = SA_CAP_MASK2,
	    .resp_time = SA_RESP_TIME,
	    .redir_qp = 1,
	    .redir_qkey = QP1_QKEY,
	    .trap_qkey = QP1_QKEY,
	};

	return sa_append(c, &cpi) < 0 ? -ENOMEM : 0;
}

int sa_sminfo_handle(struct sa_ctx *c)
{
	const struct sa_sm_info *sm = &c->sa->sm;
	struct sa_sminfo_rec r = {
	    .lid = sm->lid,
	    .guid = sm->guid,
	    /* The SM_Key is for trusted requesters only (IBA 14.4.1). */
	    .sm_key = c->trusted ? sm->sm_key : 0,
	    .act_count = sm->act_count,
	    .priority = sm->priority,
	    .state = sm->state,
	};

	return sa_emit(c, &r) < 0 ? -ENOMEM : 0;
}
