/* daemon/perf on the metrics page (daemon/metrics, man/ibsmd.8 METRICS):
 * every port's counters as ibsmd_port_<counter>_total, the unhealthy
 * links, and the performance manager's own figures.  It reads its state
 * through its front door (perf.h), as a part above would.
 *
 * The port families are hundreds of megabytes at 16,000 hosts (96,000
 * ports, 21 counters, 6 labels each), so they are one block (lib/prom.h)
 * made when a scrape first asks after a round ended or the model changed,
 * and put by reference into every page until then: a scrape neither
 * copies it nor makes it again, and without scrapers it is never made.
 * Its values are each port's totals at its last reading. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "daemon/metrics/metrics.h"
#include "daemon/perf/perf_priv.h"
#include "lib/log.h"

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

/* The data counters count 4-byte words; the page shows bytes. */
static bool in_bytes(unsigned c)
{
	return c == PC_XMIT_DATA || c == PC_RCV_DATA;
}

static void metric_name(unsigned c, char *buf, size_t len)
{
	snprintf(buf, len, "ibsmd_port_%s%s_total", perf_counters[c].name,
		 in_bytes(c) ? "_bytes" : "");
}

struct row {
	size_t labels; /* offset in the label text */
	const uint64_t *total;
	uint32_t valid;
};

struct rows {
	struct row *r;
	uint32_t n, cap;
	char *text; /* the label sets, each NUL-terminated */
	size_t len, size;
};

static int add_text(struct rows *rs, const char *s, size_t n)
{
	if (rs->len + n + 1 > rs->size) {
		size_t size = rs->size ? rs->size * 2 : 1 << 16;
		char *t;

		while (size < rs->len + n + 1)
			size *= 2;
		t = realloc(rs->text, size);
		if (!t)
			return -1;
		rs->text = t;
		rs->size = size;
	}
	memcpy(rs->text + rs->len, s, n + 1);
	rs->len += n + 1;
	return 0;
}

/* The six labels of a port, or of a link's end with its peer. */
static size_t end_labels(char *dst, size_t len, uint64_t guid, uint8_t port,
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

static int add_row(void *ctx, const struct perf_port_view *v)
{
	struct rows *rs = ctx;
	char buf[1024];
	size_t n =
	    end_labels(buf, sizeof(buf), v->node_guid, v->port, v->node_desc,
		       v->remote_guid, v->remote_port, v->remote_desc, NULL, 0);

	if (n >= sizeof(buf))
		return 0; /* cannot be: descriptions are 64 bytes */
	if (rs->n == rs->cap) {
		uint32_t cap = rs->cap ? rs->cap * 2 : 1024;
		struct row *r = realloc(rs->r, cap * sizeof(*r));

		if (!r)
			return -1;
		rs->r = r;
		rs->cap = cap;
	}
	rs->r[rs->n++] = (struct row){rs->len, v->total, v->valid};
	return add_text(rs, buf, n);
}

static void counter_family(struct prom_out *o, const struct rows *rs,
			   unsigned c)
{
	char name[80], help[160];
	uint32_t bit = 1u << c;
	bool any = false;

	for (uint32_t i = 0; i < rs->n && !any; i++)
		any = rs->r[i].valid & bit;
	if (!any)
		return;
	metric_name(c, name, sizeof(name));
	snprintf(help, sizeof(help),
		 "%s, 64-bit total since ibsmd first read "
		 "the port.",
		 counter_help[c]);
	prom_family(o, name, PROM_COUNTER, help);
	for (uint32_t i = 0; i < rs->n; i++)
		if (rs->r[i].valid & bit)
			prom_sample_raw(o, name, rs->text + rs->r[i].labels,
					rs->r[i].total[c] *
					    (in_bytes(c) ? 4 : 1));
}

/* The port families of every port read at least once, as one block. */
static struct prom_block *make_block(struct perf *pf)
{
	struct rows rs = {0};
	struct prom_out o = {0};
	struct prom_block *b = NULL;

	if (perf_foreach_port(pf->sm, add_row, &rs) == 0) {
		for (unsigned c = 0; c < PERF_COUNTERS; c++)
			counter_family(&o, &rs, c);
		b = prom_block_make(&o);
	}
	prom_out_free(&o);
	free(rs.text);
	free(rs.r);
	return b;
}

static void put_ports(struct perf *pf, struct prom_out *o)
{
	int64_t t0;

	if (pf->page_stale || !pf->page) {
		t0 = txn_now_us();
		prom_block_unref(pf->page);
		pf->page = make_block(pf);
		pf->page_stale = false;
		pf->page_s = (double)(txn_now_us() - t0) / 1e6;
		if (!pf->page)
			log_err("perfmgr: out of memory making the port "
				"counters' page; the scrape shows none");
	}
	prom_put_block(o, pf->page);
}

static int link_samples(void *ctx, const struct health_link_view *v)
{
	struct prom_out *o = ctx;
	struct prom_label ex[2] = {{"tripped", v->tripped},
				   {"action", health_action_name(v->action)}};
	char l[1200];

	if (end_labels(l, sizeof(l), v->guid[0], v->port[0], v->desc[0],
		       v->guid[1], v->port[1], v->desc[1], ex, 2) >= sizeof(l))
		return 0;
	prom_sample_raw(o, "ibsmd_link_unhealthy", l, 1);
	return 0;
}

static int link_since(void *ctx, const struct health_link_view *v)
{
	struct prom_out *o = ctx;
	char l[1200];

	if (end_labels(l, sizeof(l), v->guid[0], v->port[0], v->desc[0],
		       v->guid[1], v->port[1], v->desc[1], NULL,
		       0) >= sizeof(l))
		return 0;
	prom_sample_raw(o, "ibsmd_link_unhealthy_since_timestamp_seconds", l,
			(uint64_t)v->since);
	return 0;
}

static void health_families(struct perf *pf, struct prom_out *o,
			    const struct perf_stats *st)
{
	prom_family(o, "ibsmd_health_unhealthy_links", PROM_GAUGE,
		    "Links listed by ibsmctl health.");
	prom_sample(o, "ibsmd_health_unhealthy_links", NULL, 0, st->unhealthy);
	prom_family(o, "ibsmd_link_unhealthy", PROM_GAUGE,
		    "1 for each unhealthy link: its ends, what tripped, the "
		    "action taken.");
	health_foreach_link(pf->sm, link_samples, o);
	prom_family(o, "ibsmd_link_unhealthy_since_timestamp_seconds",
		    PROM_GAUGE,
		    "When each unhealthy link's episode began (Unix time).");
	health_foreach_link(pf->sm, link_since, o);
}

static void one(struct prom_out *o, const char *name, enum prom_type t,
		const char *help, double v)
{
	prom_family(o, name, t, help);
	prom_sample(o, name, NULL, 0, v);
}

static void perfmgr_families(struct perf *pf, struct prom_out *o,
			     const struct perf_stats *st)
{
	one(o, "ibsmd_perfmgr_enabled", PROM_GAUGE, "1 when perfmgr.enable.",
	    pf->sm->cfg.perfmgr_enable);
	one(o, "ibsmd_perfmgr_rounds_total", PROM_COUNTER,
	    "Counter rounds completed.", (double)st->rounds);
	one(o, "ibsmd_perfmgr_mads_total", PROM_COUNTER,
	    "PerfMgt MADs sent (reads and clears).", (double)st->mads);
	one(o, "ibsmd_perfmgr_read_errors_total", PROM_COUNTER,
	    "Counter reads that failed (no answer, error status).",
	    (double)st->errors);
	one(o, "ibsmd_perfmgr_clears_total", PROM_COUNTER,
	    "Counters cleared before they saturate.", (double)st->clears);
	one(o, "ibsmd_perfmgr_last_round_ports", PROM_GAUGE,
	    "Ports the last round read.", st->ports);
	one(o, "ibsmd_perfmgr_last_round_mads", PROM_GAUGE,
	    "MADs the last round sent.", (double)st->last_mads);
	one(o, "ibsmd_perfmgr_last_round_seconds", PROM_GAUGE,
	    "How long the last round took.", st->last_ms / 1000.0);
	one(o, "ibsmd_perfmgr_page_build_seconds", PROM_GAUGE,
	    "Time the port counters' block took to make, on the event loop, "
	    "the last time a scrape needed it.",
	    pf->page_s);
}

static void source(struct sm *sm, struct prom_out *o, void *ctx)
{
	struct perf *pf = ctx;
	struct perf_stats st;

	perf_get_stats(sm, &st);
	perfmgr_families(pf, o, &st);
	health_families(pf, o, &st);
	put_ports(pf, o);
}

int perf_metrics_init(struct perf *pf)
{
	return metrics_add(pf->sm, source, pf);
}

void perf_metrics_fini(struct perf *pf)
{
	metrics_remove(pf->sm, source, pf);
	prom_block_unref(pf->page);
	pf->page = NULL;
}
