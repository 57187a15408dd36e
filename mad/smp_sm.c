/* SMInfo and Notice codecs (IBA 14.2.5.13, 13.4.8.2) and the trap 128/144
 * DataDetails the SM acts on. */
#include <errno.h>
#include <string.h>

#include "mad/cursor.h"
#include "mad/smp.h"
#include "mad/smp_sm.h"

#define SMI struct smp_sm_info
const struct wire_field smp_sm_info_fields[] = {
    WF("GUID", 0, 64, SMI, guid),
    WF("SM_Key", 64, 64, SMI, sm_key),
    WF("ActCount", 128, 32, SMI, act_count),
    WF("Priority", 160, 4, SMI, priority),
    WF("SMState", 164, 4, SMI, state),
};
#undef SMI
const size_t smp_sm_info_nfields =
    sizeof(smp_sm_info_fields) / sizeof(smp_sm_info_fields[0]);

int smp_sm_info_decode(struct smp_sm_info *si, const uint8_t *data, size_t len)
{
	memset(si, 0, sizeof(*si));
	return wire_decode(smp_sm_info_fields, smp_sm_info_nfields, data, len,
			   si);
}

int smp_sm_info_encode(const struct smp_sm_info *si, uint8_t *data, size_t len)
{
	return wire_encode(smp_sm_info_fields, smp_sm_info_nfields, si, data,
			   len);
}

#define NT struct smp_notice
const struct wire_field smp_notice_fields[] = {
    WF("IsGeneric", 0, 1, NT, is_generic),
    WF("Type", 1, 7, NT, type),
    WF("ProducerType", 8, 24, NT, producer_type),
    WF("TrapNumber", 32, 16, NT, trap_num),
    WF("IssuerLID", 48, 16, NT, issuer_lid),
    WF("NoticeToggle", 64, 1, NT, toggle),
    WF("NoticeCount", 65, 15, NT, count),
};
#undef NT
const size_t smp_notice_nfields =
    sizeof(smp_notice_fields) / sizeof(smp_notice_fields[0]);

#define NOTICE_DETAILS_OFF 10

int smp_notice_decode(struct smp_notice *n, const uint8_t *data, size_t len)
{
	int rc;

	memset(n, 0, sizeof(*n));
	rc = wire_decode(smp_notice_fields, smp_notice_nfields, data, len, n);
	if (rc)
		return rc;
	if (len < NOTICE_DETAILS_OFF + sizeof(n->details))
		return -EOVERFLOW;
	memcpy(n->details, data + NOTICE_DETAILS_OFF, sizeof(n->details));
	return 0;
}

int smp_notice_encode(const struct smp_notice *n, uint8_t *data, size_t len)
{
	int rc;

	rc = wire_encode(smp_notice_fields, smp_notice_nfields, n, data, len);
	if (rc)
		return rc;
	if (len < NOTICE_DETAILS_OFF + sizeof(n->details))
		return -EOVERFLOW;
	memcpy(data + NOTICE_DETAILS_OFF, n->details, sizeof(n->details));
	return 0;
}

int smp_trap128_lid(const struct smp_notice *n, uint16_t *lid)
{
	struct cur c;

	if (!n->is_generic || n->trap_num != 128)
		return -EINVAL;
	cur_rd(&c, n->details, sizeof(n->details));
	*lid = cur_get_u16(&c); /* DataDetails 0..1: LIDADDR */
	return cur_err(&c);
}

int smp_trap144_decode(const struct smp_notice *n, struct smp_trap144 *t)
{
	struct cur c;

	if (!n->is_generic || n->trap_num != 144)
		return -EINVAL;
	cur_rd(&c, n->details, sizeof(n->details));
	cur_seek(&c, 2);
	t->lid = cur_get_u16(&c);
	cur_skip(&c, 1);
	t->local_changes = cur_get_u8(&c) & 1;
	t->new_cap_mask = cur_get_u32(&c);
	t->change_flags = cur_get_u16(&c) & 0x3F;
	t->cap_mask2 = cur_get_u16(&c);
	return cur_err(&c);
}

void smp_make_trap_repress(struct smp *s)
{
	s->hdr.method = MAD_METHOD_TRAP_REPRESS;
	s->status = 0;
	if (smp_is_dr(s))
		s->direction = true;
}
