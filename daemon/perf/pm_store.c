/* The port table on disk.  state_dir/port_counters.state keeps, per port,
 * the totals and the raw values last read, so that a restarted ibsmd
 * adds only what grew since (a counter lower than its last value was
 * cleared meanwhile, and its value is the growth): no old total is
 * counted twice.  It is binary (a header, then one struct pm_saved per
 * port, this machine's byte order): 100,000 ports at 16,000 hosts are
 * 40 MB written in a few tens of milliseconds after every round.  A
 * file of another layout is ignored with a warning (the totals then
 * restart from the counters).  port_counters.dump is the text twin for
 * people and scripts, OpenSM's perfmgr dump (dumps: counters). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "daemon/perf/perf_priv.h"
#include "lib/log.h"
#include "lib/outfile.h"

#define STATE_MAGIC "IBSMDPC1"

struct state_hdr {
	char magic[8];
	uint32_t counters; /* PERF_COUNTERS */
	uint32_t size;	   /* sizeof(struct pm_saved) */
	uint64_t n;
};

static void state_path(const struct perf *pf, char *path, size_t len)
{
	snprintf(path, len, "%s/port_counters.state", pf->sm->cfg.state_dir);
}

int pm_store_save(const struct perf *pf)
{
	struct state_hdr h = {.counters = PERF_COUNTERS,
			      .size = sizeof(struct pm_saved),
			      .n = pf->n_ports};
	struct outfile o;
	char path[600];
	int rc;

	memcpy(h.magic, STATE_MAGIC, sizeof(h.magic));
	state_path(pf, path, sizeof(path));
	rc = outfile_open(&o, path, 1 << 20);
	if (rc < 0)
		return rc;
	if (fwrite(&h, sizeof(h), 1, o.fp) != 1)
		rc = -EIO;
	for (uint32_t i = 0; i < pf->n_ports && rc == 0; i++)
		if (fwrite(&pf->ports[i].s, sizeof(pf->ports[i].s), 1, o.fp) !=
		    1)
			rc = -EIO;
	return outfile_close(&o, rc);
}

static int load_records(struct perf *pf, FILE *fp, uint64_t n)
{
	struct pm_saved s;

	for (uint64_t i = 0; i < n; i++) {
		struct pm_port *p;

		if (fread(&s, sizeof(s), 1, fp) != 1)
			return -EIO;
		p = pm_port_get(pf, s.guid, s.port);
		if (!p)
			return -ENOMEM;
		p->s = s;
	}
	return 0;
}

int pm_store_load(struct perf *pf)
{
	struct state_hdr h;
	char path[600];
	FILE *fp;
	int rc = 0;

	state_path(pf, path, sizeof(path));
	fp = fopen(path, "rb");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	if (fread(&h, sizeof(h), 1, fp) != 1 ||
	    memcmp(h.magic, STATE_MAGIC, sizeof(h.magic)) != 0 ||
	    h.counters != PERF_COUNTERS || h.size != sizeof(struct pm_saved) ||
	    h.n > (1u << 24))
		rc = -EINVAL;
	else
		rc = load_records(pf, fp, h.n);
	fclose(fp);
	if (rc < 0) {
		log_warn("perfmgr: %s is not a port counter state of this "
			 "version (%s); the totals restart from the counters",
			 path, strerror(-rc));
		pm_table_free(pf);
		return 0;
	}
	log_info("perfmgr: %u ports' counter totals read from %s", pf->n_ports,
		 path);
	return 0;
}

/* One line per port of the model: GUID, port, then every counter's total
 * ("-" never read), the node's description last. */
static void dump_port(FILE *fp, const struct ib_node *n, uint8_t pn,
		      const struct pm_port *p)
{
	fprintf(fp, "0x%016" PRIx64 " %u", n->guid, pn);
	for (unsigned c = 0; c < PERF_COUNTERS; c++)
		if (p->s.valid & (1u << c))
			fprintf(fp, " %" PRIu64, p->s.total[c]);
		else
			fprintf(fp, " -");
	fprintf(fp, " \"%s\"\n", n->desc);
}

int pm_dump_write(const struct perf *pf, const char *path)
{
	const struct fabric *f = pf->sm->fab;
	struct outfile o;
	int rc = outfile_open(&o, path, 1 << 20);

	if (rc < 0)
		return rc;
	fprintf(o.fp, "# ibsmd port counters: 64-bit totals\n# node_guid port");
	for (unsigned c = 0; c < PERF_COUNTERS; c++)
		fprintf(o.fp, " %s", perf_counters[c].name);
	fprintf(o.fp, " node_desc\n");
	for (uint32_t i = 0; f && i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];

		for (unsigned pn = 1; pn <= n->nports; pn++) {
			const struct pm_port *p =
			    pm_port_find(pf, n->guid, (uint8_t)pn);

			if (p && p->s.valid)
				dump_port(o.fp, n, (uint8_t)pn, p);
		}
	}
	return outfile_close(&o, ferror(o.fp) ? -EIO : 0);
}
