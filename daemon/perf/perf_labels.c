/* The port families' names, help and label sets, for the metrics page's
 * two writers: perf_page.c (every port's counters) and perf_metrics.c
 * (the unhealthy links, labelled like the ports). */
#include <inttypes.h>
#include <stdio.h>

#include "daemon/perf/perf_priv.h"
#include "lib/prom.h"

/* The data counters count 4-byte words; the page shows bytes. */
bool perf_in_bytes(unsigned c)
{
	return c == PC_XMIT_DATA || c == PC_RCV_DATA;
}

size_t perf_metric_name(unsigned c, char *buf, size_t len)
{
	int n =
	    snprintf(buf, len, "ibsmd_port_%s%s_total", perf_counters[c].name,
		     perf_in_bytes(c) ? "_bytes" : "");

	return n < 0 ? 0 : (size_t)n;
}

/* The help of each counter's family (the IBA's attribute field). */
static const char *const counter_help[PERF_COUNTERS] = {
    [PC_SYMBOL_ERRORS] = "SymbolErrorCounter: minor link errors on a lane",
    [PC_LINK_ERROR_RECOVERY] =
	"LinkErrorRecoveryCounter: link error recoveries completed",
    [PC_LINK_DOWNED] =
	"LinkDownedCounter: link error recoveries that failed, link down",
    [PC_RCV_ERRORS] = "PortRcvErrors: packets received with errors",
    [PC_RCV_REMOTE_PHYSICAL_ERRORS] =
	"PortRcvRemotePhysicalErrors: packets received marked bad (EBP)",
    [PC_RCV_SWITCH_RELAY_ERRORS] =
	"PortRcvSwitchRelayErrors: packets a switch could not forward",
    [PC_XMIT_DISCARDS] = "PortXmitDiscards: outbound packets discarded",
    [PC_XMIT_CONSTRAINT_ERRORS] =
	"PortXmitConstraintErrors: packets not sent (partition, raw)",
    [PC_RCV_CONSTRAINT_ERRORS] =
	"PortRcvConstraintErrors: packets received and dropped (partition, "
	"raw)",
    [PC_LOCAL_LINK_INTEGRITY_ERRORS] =
	"LocalLinkIntegrityErrors: physical error bursts over the limit",
    [PC_EXCESSIVE_BUFFER_OVERRUN_ERRORS] =
	"ExcessiveBufferOverrunErrors: consecutive buffer overruns over the "
	"limit",
    [PC_VL15_DROPPED] = "VL15Dropped: subnet management packets dropped",
    [PC_XMIT_DATA] = "PortXmitData: bytes sent (the IBA counts 4-byte words)",
    [PC_RCV_DATA] = "PortRcvData: bytes received (the IBA counts 4-byte words)",
    [PC_XMIT_PKTS] = "PortXmitPkts: packets sent",
    [PC_RCV_PKTS] = "PortRcvPkts: packets received",
    [PC_XMIT_WAIT] = "PortXmitWait: ticks with data to send and no credit",
    [PC_UNICAST_XMIT_PKTS] = "PortUnicastXmitPkts: unicast packets sent",
    [PC_UNICAST_RCV_PKTS] = "PortUnicastRcvPkts: unicast packets received",
    [PC_MULTICAST_XMIT_PKTS] = "PortMulticastXmitPkts: multicast packets sent",
    [PC_MULTICAST_RCV_PKTS] =
	"PortMulticastRcvPkts: multicast packets received",
};

const char *perf_counter_help(unsigned c)
{
	return counter_help[c];
}

size_t perf_end_labels(char *dst, size_t len, uint64_t guid, uint8_t port,
		       const char *desc, uint64_t rguid, uint8_t rport,
		       const char *rdesc, const struct prom_label *extra,
		       unsigned nextra)
{
	char g[24], p[8], rg[24] = "", rp[8] = "";
	struct prom_label l[8] = {
	    {"node_guid", g},	 {"port", p},	      {"node_desc", desc},
	    {"remote_guid", rg}, {"remote_port", rp}, {"remote_desc", rdesc},
	};

	snprintf(g, sizeof(g), "0x%016" PRIx64, guid);
	snprintf(p, sizeof(p), "%u", port);
	if (rguid) {
		snprintf(rg, sizeof(rg), "0x%016" PRIx64, rguid);
		snprintf(rp, sizeof(rp), "%u", rport);
	}
	for (unsigned i = 0; i < nextra && i < 2; i++)
		l[6 + i] = extra[i];
	return prom_labels_fmt(dst, len, l, 6 + (nextra < 2 ? nextra : 2));
}
