/* Performance management MADs (IBA 16.1, class 0x04): ClassPortInfo,
 * PortCounters (0x0012) and PortCountersExtended (0x001D), as the
 * daemon's performance manager reads and clears them.  The counters are
 * one table (perf_counters[]) giving each its place in both attributes,
 * its CounterSelect bit and the name the daemon shows it by; the layout
 * is checked against libibmad's IB_PC_* fields (tests/unit/test_mad_perf.c). */
#ifndef IBSM_MAD_PERF_H
#define IBSM_MAD_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PERF_MGMT_CLASS	   0x04
#define PERF_CLASS_VERSION 1
#define PERF_DATA_OFF	   64 /* 24-byte header, 40 reserved bytes */
#define PERF_DATA_SIZE	   192

enum {
	PERF_ATTR_CPI = 0x0001,
	PERF_ATTR_PORT_COUNTERS = 0x0012,
	PERF_ATTR_PORT_COUNTERS_EXT = 0x001D,
};

/* ClassPortInfo CapabilityMask bits of the PerfMgt class. */
#define PERF_CAP_ALL_PORT_SELECT  (1u << 8)
#define PERF_CAP_EXT_WIDTH	  (1u << 9)  /* all 8 extended counters */
#define PERF_CAP_EXT_WIDTH_NOIETF (1u << 10) /* the first 4 only */
#define PERF_CAP_XMIT_WAIT	  (1u << 12)

enum perf_counter {
	PC_SYMBOL_ERRORS,
	PC_LINK_ERROR_RECOVERY,
	PC_LINK_DOWNED,
	PC_RCV_ERRORS,
	PC_RCV_REMOTE_PHYSICAL_ERRORS,
	PC_RCV_SWITCH_RELAY_ERRORS,
	PC_XMIT_DISCARDS,
	PC_XMIT_CONSTRAINT_ERRORS,
	PC_RCV_CONSTRAINT_ERRORS,
	PC_LOCAL_LINK_INTEGRITY_ERRORS,
	PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS,
	PC_VL15_DROPPED,
	PC_XMIT_DATA, /* in 4-byte words, as the IBA counts them */
	PC_RCV_DATA,
	PC_XMIT_PKTS,
	PC_RCV_PKTS,
	PC_XMIT_WAIT,
	PC_UNICAST_XMIT_PKTS, /* PortCountersExtended only */
	PC_UNICAST_RCV_PKTS,
	PC_MULTICAST_XMIT_PKTS,
	PC_MULTICAST_RCV_PKTS,
	PERF_COUNTERS
};

struct perf_counter_desc {
	const char *name;   /* snake_case, e.g. "symbol_errors" */
	uint16_t pc_bit;    /* bit offset in PortCounters data */
	uint8_t pc_width;   /* 0: not in PortCounters */
	uint16_t ext_bit;   /* bit offset in PortCountersExtended, 0: none */
	bool ext_noietf;    /* in the NoIETF subset of the extended ones */
	uint8_t select;	    /* PortCounters CounterSelect bit; 16:
			       CounterSelect2 bit 0 (PortXmitWait) */
	uint8_t ext_select; /* PortCountersExtended CounterSelect bit */
};
extern const struct perf_counter_desc perf_counters[PERF_COUNTERS];

/* One reading of a port: v[c] is valid with width[c] bits (16, 32, 64...)
 * when width[c] != 0. */
struct perf_sample {
	uint64_t v[PERF_COUNTERS];
	uint8_t width[PERF_COUNTERS];
};

/* A Get or Set request of attr (PortCounters, PortCountersExtended or
 * ClassPortInfo) for port_select; a Set clears the counters whose bit
 * (1 << enum perf_counter) is in clear.  0 or -EINVAL. */
int perf_encode(uint8_t *mad, size_t len, uint8_t method, uint16_t attr,
		uint8_t port_select, uint32_t clear);
/* The answer's data into s: PortCounters fills the counters it holds;
 * PortCountersExtended (after it) replaces the data and packet counters
 * with their 64-bit values, all 8 or with noietf the first 4.  0,
 * -EPROTO (not such an answer), or -EREMOTEIO (MAD status != 0). */
int perf_decode_pc(const uint8_t *mad, size_t len, struct perf_sample *s);
int perf_decode_pc_ext(const uint8_t *mad, size_t len, bool noietf,
		       struct perf_sample *s);
/* ClassPortInfo CapabilityMask.  0, -EPROTO or -EREMOTEIO. */
int perf_decode_cpi(const uint8_t *mad, size_t len, uint16_t *cap);

#endif
