/* Dump writers and the lfts.dump reader: see dump.h.  The formats are the
 * ones OpenSM 3.3 writes (checked against files OpenSM wrote under ibsim)
 * and ibdmchk parses (ibdm's parseSubnetLine/parseFdbFile/parseMCFdbFile):
 * field order, hex case and widths follow them exactly. */
#include "lib/dump.h"
#include "lib/ca_order.h"
#include "lib/outfile.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* fsync only guid2lid, which LIDs depend on after a restart; the rest is
 * diagnostics. */
static int out_open(struct outfile *o, const char *dir, const char *name)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return -ENAMETOOLONG;
	return outfile_open(o, p, 1 << 20);
}

static uint64_t port_guid(const struct ib_port *p)
{
	return node_is_switch(p->node) ? p->node->guid : p->guid;
}

/* ibdmchk reads the description up to the first '}': keep it out. */
static void clean_desc(const char *in, char *out, size_t len)
{
	size_t i;

	for (i = 0; in[i] && i + 1 < len; i++)
		out[i] = in[i] == '}' || in[i] == '\n' ? ')' : in[i];
	out[i] = 0;
}

static const char *width_str(uint8_t w)
{
	switch (w) {
	case 1:
		return "1x";
	case 4:
		return "8x";
	case 8:
		return "12x";
	case 16:
		return "2x";
	default:
		return "4x"; /* 2 = 4x, and the offline default */
	}
}

/* OpenSM prints 2.5 for a link it knows no speed of (offline models
 * without speeds are SDR, as ibsim makes them). */
static const char *spd(const struct ib_port *p)
{
	enum ib_speed s = port_speed(p);

	return s == IB_SPEED_NONE ? "2.5" : ib_speed_spd(s);
}

static const char *state_str(uint8_t s)
{
	switch (s) {
	case IB_PORT_DOWN:
		return "DWN";
	case IB_PORT_INIT:
		return "INI";
	case IB_PORT_ARMED:
		return "ARM";
	default:
		return "ACT"; /* ACTIVE, or unknown offline: as if up */
	}
}

static void lst_port(FILE *fp, const struct ib_port *p, bool second)
{
	const struct ib_node *n = p->node;
	char desc[IB_DESC_LEN + 1];

	clean_desc(n->desc, desc, sizeof(desc));
	fprintf(fp,
		"{ %s Ports:%02X SystemGUID:%016" PRIx64 " NodeGUID:%016" PRIx64
		" PortGUID:%016" PRIx64 " VenID:%0*X DevID:%04X Rev:%08X {%s}"
		" LID:%04X PN:%02X }",
		node_is_switch(n) ? "SW" : "CA", n->nports,
		n->sysguid ? n->sysguid : n->guid, n->guid, port_guid(p),
		second ? 8 : 6, n->vendor_id, n->device_id, 0u, desc, p->lid,
		p->num);
}

int dump_write_subnet_lst(const char *dir, const struct fabric *f)
{
	struct outfile o;
	int rc = out_open(&o, dir, "subnet.lst");

	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		for (unsigned p = 1; p <= n->nports; p++) {
			const struct ib_port *a = &n->ports[p], *b = a->remote;
			/* Without a LID the port is not part of the subnet
			 * (not reachable from the SM): OpenSM would not
			 * have discovered it either. */
			if (!b || !a->lid || !b->lid)
				continue;
			lst_port(o.fp, a, false);
			fputc(' ', o.fp);
			lst_port(o.fp, b, true);
			fprintf(o.fp, " PHY=%s LOG=%s SPD=%s\n",
				width_str(a->width_active), state_str(a->state),
				spd(a));
		}
	}
	return outfile_close(&o, rc);
}

static const char *type_str(const struct ib_node *n)
{
	switch (n->type) {
	case IB_NODE_CA:
		return "Channel Adapter";
	case IB_NODE_SWITCH:
		return "Switch";
	case IB_NODE_ROUTER:
		return "Router";
	default:
		return "Unknown";
	}
}

/* The " # <type> portguid 0x..: 'desc'" tail of each lfts.dump line,
 * built once per LID rather than once per (switch, LID). */
static char **lid_notes(const struct fabric *f)
{
	char **v = calloc((size_t)f->max_lid + 1, sizeof(*v));

	if (!v)
		return NULL;
	for (uint32_t l = 1; l <= f->max_lid; l++) {
		const struct ib_port *p = fabric_port_by_lid(f, (uint16_t)l);
		int r;
		if (p)
			r = asprintf(
			    &v[l], "%s portguid 0x%016" PRIx64 ": '%s'",
			    type_str(p->node), port_guid(p), p->node->desc);
		else
			r = asprintf(&v[l], "unknown node and type");
		if (r < 0)
			v[l] = NULL;
	}
	return v;
}

static void notes_free(char **v, uint32_t max_lid)
{
	if (!v)
		return;
	for (uint32_t l = 0; l <= max_lid; l++)
		free(v[l]);
	free(v);
}

int dump_write_lfts(const char *dir, const struct fabric *f)
{
	struct outfile o;
	char **notes = lid_notes(f);
	int rc = notes ? out_open(&o, dir, "lfts.dump") : -ENOMEM;

	if (rc < 0) {
		notes_free(notes, f->max_lid);
		return rc;
	}
	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		fprintf(
		    o.fp,
		    "Unicast lids [0-%u] of switch Lid %u guid 0x%016" PRIx64
		    " ('%s'):\n",
		    f->max_lid, sw->ports[0].lid, sw->guid, sw->desc);
		for (uint32_t l = 0; l <= f->max_lid && l < sw->lft_size; l++) {
			uint8_t p = sw->lft[l];
			if (p > sw->nports)
				continue;
			fprintf(o.fp, "0x%04x %03u # %s\n", l, p,
				notes[l] ? notes[l] : "");
		}
		fprintf(o.fp, "%u lids dumped\n", f->max_lid);
	}
	notes_free(notes, f->max_lid);
	return outfile_close(&o, rc);
}

int dump_write_fdbs(const char *dir, const struct fabric *f, dump_hops_fn hops,
		    void *ctx)
{
	struct outfile o;
	int rc = out_open(&o, dir, "fdbs");

	if (rc < 0)
		return rc;
	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		fprintf(o.fp,
			"dump_ucast_routes: Switch 0x%016" PRIx64 "\n"
			"LID    : Port : Hops : Optimal\n",
			sw->guid);
		for (uint32_t l = 1; l <= f->max_lid; l++) {
			uint8_t p = l < sw->lft_size ? sw->lft[l] : LFT_NO_PORT;
			uint8_t h = 0, best = 0;
			if (!fabric_port_by_lid(f, (uint16_t)l))
				continue;
			if (p > sw->nports) {
				fprintf(o.fp, "0x%04X : UNREACHABLE\n", l);
				continue;
			}
			if (hops)
				h = hops(ctx, sw, (uint16_t)l, p, &best);
			fprintf(o.fp, "0x%04X : %03u  : %02u   : %s\n", l, p, h,
				h <= best ? "yes" : "no");
		}
	}
	return outfile_close(&o, rc);
}

static int write_guid2lid(struct outfile *o, const struct fabric *f)
{
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		unsigned last = node_is_switch(n) ? 0 : n->nports;
		for (unsigned p = node_is_switch(n) ? 0 : 1; p <= last; p++) {
			const struct ib_port *pp = &n->ports[p];
			if (!pp->lid || !port_guid(pp))
				continue;
			/* OpenSM's osm_db writes a blank line after each */
			fprintf(o->fp, "0x%016" PRIx64 " 0x%04x 0x%04x\n\n",
				port_guid(pp), pp->lid,
				pp->lid + (1u << pp->lmc) - 1);
		}
	}
	return 0;
}

int dump_write_guid2lid(const char *dir, const struct fabric *f)
{
	struct outfile o;
	int rc = out_open(&o, dir, "guid2lid");

	if (rc < 0)
		return rc;
	o.sync = true;
	return outfile_close(&o, write_guid2lid(&o, f));
}

int dump_write_roots(const char *dir, struct ib_node *const *roots, uint32_t n)
{
	struct outfile o;
	int rc = out_open(&o, dir, "updn-roots.dump");

	if (rc < 0)
		return rc;
	for (uint32_t i = 0; i < n; i++)
		fprintf(o.fp, "0x%016" PRIx64 "\n", roots[i]->guid);
	return outfile_close(&o, rc);
}

int dump_write_ca_order(const char *dir, const struct fabric *f)
{
	struct outfile o;
	struct ca_slot *v;
	uint32_t n;
	int rc = ca_order(f, &v, &n);

	if (rc < 0)
		return rc;
	rc = out_open(&o, dir, "ftree-ca-order.dump");
	if (rc < 0) {
		free(v);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++)
		fprintf(o.fp, "0x%04x\t%s\n", v[i].port->lid,
			v[i].port->node->desc);
	free(v);
	return outfile_close(&o, rc);
}

int dump_write_mfts(const char *dir, const struct fabric *f,
		    dump_mft_entry_fn entry, void *ctx)
{
	struct outfile o;
	int rc = out_open(&o, dir, "mfts.dump");

	if (rc < 0)
		return rc;
	for (uint32_t s = 0; s < f->n_switches; s++) {
		const struct ib_node *sw = f->switches[s];
		uint16_t mlid;
		uint64_t mask[4];
		bool hdr = false;
		for (uint32_t i = 0; entry(ctx, sw, i, &mlid, mask) == 1; i++) {
			if (!(mask[0] | mask[1] | mask[2] | mask[3]))
				continue;
			if (!hdr)
				fprintf(o.fp,
					"\nSwitch 0x%016" PRIx64
					"\nLID    : Out Port(s)\n",
					sw->guid);
			hdr = true;
			fprintf(o.fp, "0x%04X :", mlid);
			for (unsigned p = 0; p <= sw->nports && p < 256; p++)
				if (mask[p / 64] >> (p % 64) & 1)
					fprintf(o.fp, " 0x%03X ", p);
			fputc('\n', o.fp);
		}
	}
	return outfile_close(&o, rc);
}

/* "Unicast lids [0-N] of switch Lid L guid 0x<guid> (...)" */
static int lfts_header(const char *s, uint64_t *guid)
{
	const char *g = strstr(s, " guid 0x");

	if (strncmp(s, "Unicast lids [", 14) != 0 || !g)
		return -1;
	*guid = strtoull(g + 8, NULL, 16);
	return 0;
}

static int lfts_entry(struct ib_node *sw, const char *s)
{
	char *e;
	unsigned long lid = strtoul(s, &e, 16), port;

	if (e == s || *e != ' ')
		return -1;
	port = strtoul(e, &e, 10);
	if (port > sw->nports || lid > IB_LID_UCAST_END)
		return -1;
	if (node_lft_reserve(sw, (uint16_t)lid) < 0)
		return -ENOMEM;
	sw->lft[lid] = (uint8_t)port;
	return 0;
}

int dump_read_lfts(const char *path, struct fabric *f, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	struct ib_node *sw = NULL;
	char line[512];
	unsigned ln = 0;
	int rc = 0;

	if (!fp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	for (uint32_t s = 0; s < f->n_switches; s++)
		if (f->switches[s]->lft)
			memset(f->switches[s]->lft, LFT_NO_PORT,
			       f->switches[s]->lft_size);
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		uint64_t g;
		ln++;
		if (lfts_header(line, &g) == 0) {
			sw = fabric_node_by_guid(f, g);
			if (!sw || !node_is_switch(sw)) {
				snprintf(err, errlen,
					 "%s:%u: no switch with "
					 "GUID 0x%016" PRIx64,
					 path, ln, g);
				rc = -EINVAL;
			}
		} else if (strncmp(line, "0x", 2) == 0) {
			rc = sw ? lfts_entry(sw, line + 2) : -1;
			if (rc == -1) {
				snprintf(err, errlen, "%s:%u: bad LFT entry",
					 path, ln);
				rc = -EINVAL;
			}
		}
	}
	fclose(fp);
	return rc;
}
