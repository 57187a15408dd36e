/* PerfMgt MADs: see perf.h.  Offsets are IBA 16.1.3.5 (PortCounters) and
 * 16.1.4.11 (PortCountersExtended), in bits from the start of the data. */
#include "mad/perf.h"

#include <errno.h>
#include <string.h>

#include "mad/cursor.h"
#include "mad/smp.h"

#define SEL2 16 /* select: CounterSelect2 bit 0 */

const struct perf_counter_desc perf_counters[PERF_COUNTERS] = {
    [PC_SYMBOL_ERRORS] = {"symbol_errors", 32, 16, 0, false, 0, 0},
    [PC_LINK_ERROR_RECOVERY] = {"link_error_recovery", 48, 8, 0, false, 1, 0},
    [PC_LINK_DOWNED] = {"link_downed", 56, 8, 0, false, 2, 0},
    [PC_RCV_ERRORS] = {"rcv_errors", 64, 16, 0, false, 3, 0},
    [PC_RCV_REMOTE_PHYSICAL_ERRORS] = {"rcv_remote_physical_errors", 80, 16, 0,
				       false, 4, 0},
    [PC_RCV_SWITCH_RELAY_ERRORS] = {"rcv_switch_relay_errors", 96, 16, 0, false,
				    5, 0},
    [PC_XMIT_DISCARDS] = {"xmit_discards", 112, 16, 0, false, 6, 0},
    [PC_XMIT_CONSTRAINT_ERRORS] = {"xmit_constraint_errors", 128, 8, 0, false,
				   7, 0},
    [PC_RCV_CONSTRAINT_ERRORS] = {"rcv_constraint_errors", 136, 8, 0, false, 8,
				  0},
    [PC_LOCAL_LINK_INTEGRITY_ERRORS] = {"local_link_integrity_errors", 152, 4,
					0, false, 9, 0},
    [PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] = {"excessive_buffer_overrun_errors",
					    156, 4, 0, false, 10, 0},
    [PC_VL15_DROPPED] = {"vl15_dropped", 176, 16, 0, false, 11, 0},
    [PC_XMIT_DATA] = {"xmit_data", 192, 32, 64, true, 12, 0},
    [PC_RCV_DATA] = {"rcv_data", 224, 32, 128, true, 13, 1},
    [PC_XMIT_PKTS] = {"xmit_pkts", 256, 32, 192, true, 14, 2},
    [PC_RCV_PKTS] = {"rcv_pkts", 288, 32, 256, true, 15, 3},
    [PC_XMIT_WAIT] = {"xmit_wait", 320, 32, 0, false, SEL2, 0},
    [PC_UNICAST_XMIT_PKTS] = {"unicast_xmit_pkts", 0, 0, 320, false, 0, 4},
    [PC_UNICAST_RCV_PKTS] = {"unicast_rcv_pkts", 0, 0, 384, false, 0, 5},
    [PC_MULTICAST_XMIT_PKTS] = {"multicast_xmit_pkts", 0, 0, 448, false, 0, 6},
    [PC_MULTICAST_RCV_PKTS] = {"multicast_rcv_pkts", 0, 0, 512, false, 0, 7},
};

static void select_bits(uint16_t attr, uint32_t clear, uint16_t *sel,
			uint8_t *sel2)
{
	*sel = 0;
	*sel2 = 0;
	for (unsigned c = 0; c < PERF_COUNTERS; c++) {
		const struct perf_counter_desc *d = &perf_counters[c];

		if (!(clear & (1u << c)))
			continue;
		if (attr == PERF_ATTR_PORT_COUNTERS_EXT && d->ext_bit)
			*sel |= (uint16_t)(1u << d->ext_select);
		else if (attr == PERF_ATTR_PORT_COUNTERS && d->pc_width &&
			 d->select == SEL2)
			*sel2 = 1;
		else if (attr == PERF_ATTR_PORT_COUNTERS && d->pc_width)
			*sel |= (uint16_t)(1u << d->select);
	}
}

int perf_encode(uint8_t *mad, size_t len, uint8_t method, uint16_t attr,
		uint8_t port_select, uint32_t clear)
{
	struct mad_hdr h = {
	    .base_version = 1,
	    .mgmt_class = PERF_MGMT_CLASS,
	    .class_version = PERF_CLASS_VERSION,
	    .method = method,
	    .attr_id = attr,
	};
	struct cur c;
	uint16_t sel;
	uint8_t sel2;

	if (len < MAD_SIZE ||
	    (method != MAD_METHOD_GET && method != MAD_METHOD_SET))
		return -EINVAL;
	memset(mad, 0, MAD_SIZE);
	if (mad_hdr_encode(&h, mad, len) < 0)
		return -EINVAL;
	if (attr == PERF_ATTR_CPI)
		return 0;
	select_bits(attr, method == MAD_METHOD_SET ? clear : 0, &sel, &sel2);
	cur_wr(&c, mad + PERF_DATA_OFF, PERF_DATA_SIZE);
	cur_put_bits(&c, 8, 8, port_select);
	cur_put_bits(&c, 16, 16, sel);
	if (attr == PERF_ATTR_PORT_COUNTERS)
		cur_put_bits(&c, 144, 8, sel2);
	return cur_err(&c) ? -EINVAL : 0;
}

/* The answer's header: a GetResp of attr with status 0. */
static int answer_ok(const uint8_t *mad, size_t len, uint16_t attr)
{
	struct mad_hdr h;

	if (len < PERF_DATA_OFF + PERF_DATA_SIZE ||
	    mad_hdr_decode(&h, mad, len) < 0 ||
	    h.mgmt_class != PERF_MGMT_CLASS || h.attr_id != attr ||
	    h.method != MAD_METHOD_GET_RESP)
		return -EPROTO;
	return h.status ? -EREMOTEIO : 0;
}

int perf_decode_pc(const uint8_t *mad, size_t len, struct perf_sample *s)
{
	int rc = answer_ok(mad, len, PERF_ATTR_PORT_COUNTERS);
	struct cur c;

	if (rc < 0)
		return rc;
	cur_rd(&c, mad + PERF_DATA_OFF, PERF_DATA_SIZE);
	for (unsigned i = 0; i < PERF_COUNTERS; i++) {
		const struct perf_counter_desc *d = &perf_counters[i];

		if (!d->pc_width)
			continue;
		s->v[i] = cur_get_bits(&c, d->pc_bit, d->pc_width);
		s->width[i] = d->pc_width;
	}
	return cur_err(&c) ? -EPROTO : 0;
}

int perf_decode_pc_ext(const uint8_t *mad, size_t len, bool noietf,
		       struct perf_sample *s)
{
	int rc = answer_ok(mad, len, PERF_ATTR_PORT_COUNTERS_EXT);
	struct cur c;

	if (rc < 0)
		return rc;
	cur_rd(&c, mad + PERF_DATA_OFF, PERF_DATA_SIZE);
	for (unsigned i = 0; i < PERF_COUNTERS; i++) {
		const struct perf_counter_desc *d = &perf_counters[i];

		if (!d->ext_bit || (noietf && !d->ext_noietf))
			continue;
		s->v[i] = cur_peek_be(&c, d->ext_bit / 8, 8);
		s->width[i] = 64;
	}
	return cur_err(&c) ? -EPROTO : 0;
}

int perf_decode_cpi(const uint8_t *mad, size_t len, uint16_t *cap)
{
	int rc = answer_ok(mad, len, PERF_ATTR_CPI);
	struct cur c;

	if (rc < 0)
		return rc;
	cur_rd(&c, mad + PERF_DATA_OFF, PERF_DATA_SIZE);
	cur_seek(&c, 2);
	*cap = cur_get_u16(&c);
	return cur_err(&c) ? -EPROTO : 0;
}
