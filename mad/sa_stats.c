/* SA answers by attribute and status, and their latency: see
 * sa_stats.h. */
#include "mad/sa_stats.h"

#include "mad/sa_mad.h"
#include "mad/sa_wire.h"
#include "mad/smp.h"
#include "mad/txn.h"

static const struct {
	uint16_t id;
	const char *name;
} attrs[SA_STATS_ATTRS - 1] = {
    {SA_ATTR_CLASS_PORT_INFO, "ClassPortInfo"},
    {SA_ATTR_NOTICE, "Notice"},
    {SA_ATTR_INFORM_INFO, "InformInfo"},
    {SA_ATTR_NODE_REC, "NodeRecord"},
    {SA_ATTR_PORTINFO_REC, "PortInfoRecord"},
    {SA_ATTR_SL2VL_REC, "SLtoVLMappingTableRecord"},
    {SA_ATTR_SWITCHINFO_REC, "SwitchInfoRecord"},
    {SA_ATTR_LFT_REC, "LinearForwardingTableRecord"},
    {SA_ATTR_MFT_REC, "MulticastForwardingTableRecord"},
    {SA_ATTR_SMINFO_REC, "SMInfoRecord"},
    {SA_ATTR_LINK_REC, "LinkRecord"},
    {SA_ATTR_GUIDINFO_REC, "GUIDInfoRecord"},
    {SA_ATTR_SERVICE_REC, "ServiceRecord"},
    {SA_ATTR_PKEY_TABLE_REC, "PKeyTableRecord"},
    {SA_ATTR_PATH_REC, "PathRecord"},
    {SA_ATTR_VLARB_REC, "VLArbitrationTableRecord"},
    {SA_ATTR_MCMEMBER_REC, "MCMemberRecord"},
    {SA_ATTR_MULTIPATH_REC, "MultiPathRecord"},
    {SA_ATTR_MCGSTATE_REC, "MCGStateRecord"},
};

static const char *const status_names[SA_ST_N] = {
    "success",		"busy",		"unsupported", "invalid", "no_records",
    "too_many_records", "no_resources", "denied",      "other",
};

/* From 25 us (an answer from the cache) to 1 s (a loop busy routing). */
static const uint32_t lat_bounds_us[] = {
    25,	  50,	 100,	250,   500,    1000,   2500,
    5000, 10000, 25000, 50000, 100000, 250000, 1000000,
};

void sa_answer_stats_init(struct sa_answer_stats *st)
{
	for (unsigned a = 0; a < SA_STATS_ATTRS; a++)
		prom_hist_init(&st->lat[a], lat_bounds_us,
			       sizeof(lat_bounds_us) /
				   sizeof(lat_bounds_us[0]));
}

static unsigned attr_slot(uint16_t id)
{
	for (unsigned i = 0; i < SA_STATS_ATTRS - 1; i++)
		if (attrs[i].id == id)
			return i;
	return SA_STATS_ATTRS - 1;
}

/* IBA 13.4.7: the common bits first (busy, unsupported, invalid field),
 * then the SA's class-specific code in the high byte (15.2.1.2). */
static enum sa_stats_status status_slot(uint16_t s)
{
	if (!s)
		return SA_ST_SUCCESS;
	if (s & MAD_STATUS_BUSY)
		return SA_ST_BUSY;
	switch (s & MAD_STATUS_FIELD_MASK) {
	case MAD_STATUS_BAD_VERSION:
	case MAD_STATUS_METHOD_UNSUPP:
	case MAD_STATUS_METHOD_ATTR_UNSUPP:
		return SA_ST_UNSUPPORTED;
	case MAD_STATUS_INVALID_FIELD:
		return SA_ST_INVALID;
	}
	switch (s >> 8) {
	case SA_STATUS_NO_RESOURCES:
		return SA_ST_NO_RESOURCES;
	case SA_STATUS_REQ_INVALID:
	case SA_STATUS_INVALID_GID:
	case SA_STATUS_INSUF_COMPS:
		return SA_ST_INVALID;
	case SA_STATUS_NO_RECORDS:
		return SA_ST_NO_RECORDS;
	case SA_STATUS_TOO_MANY_RECORDS:
		return SA_ST_TOO_MANY;
	case SA_STATUS_REQ_DENIED:
		return SA_ST_DENIED;
	}
	return SA_ST_OTHER;
}

void sa_answer_stats_note(struct sa_answer_stats *st, const uint8_t *answer,
			  size_t len, int64_t rx_us)
{
	unsigned a;

	if (len < 18)
		return;
	a = attr_slot(sa_get16(answer + 16));
	__atomic_fetch_add(&st->n[a][status_slot(sa_get16(answer + 4))], 1,
			   __ATOMIC_RELAXED);
	if (rx_us > 0) {
		int64_t d = txn_now_us() - rx_us;
		prom_hist_observe(&st->lat[a], d > 0 ? (uint64_t)d : 0);
	}
}

static const char *attr_name(unsigned a)
{
	return a < SA_STATS_ATTRS - 1 ? attrs[a].name : "other";
}

void sa_answer_stats_write(struct prom_out *o, const struct sa_answer_stats *st)
{
	uint64_t total[SA_STATS_ATTRS] = {0};

	prom_family(o, "ibsmd_sa_requests_total", PROM_COUNTER,
		    "SA requests answered, by attribute and answer status "
		    "(dropped requests get no answer and are not counted).");
	for (unsigned a = 0; a < SA_STATS_ATTRS; a++)
		for (unsigned s = 0; s < SA_ST_N; s++) {
			uint64_t v =
			    __atomic_load_n(&st->n[a][s], __ATOMIC_RELAXED);
			struct prom_label l[] = {{"attribute", attr_name(a)},
						 {"status", status_names[s]}};

			total[a] += v;
			if (v)
				prom_sample_u64(o, "ibsmd_sa_requests_total", l,
						2, v);
		}
	prom_family(o, "ibsmd_sa_request_duration_seconds", PROM_HISTOGRAM,
		    "Time from an SA request's arrival to its answer being "
		    "sent, by attribute.");
	for (unsigned a = 0; a < SA_STATS_ATTRS; a++) {
		struct prom_label l[] = {{"attribute", attr_name(a)}};

		if (total[a])
			prom_hist_write(o, "ibsmd_sa_request_duration_seconds",
					l, 1, &st->lat[a]);
	}
}
