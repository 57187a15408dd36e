/* Topology-file parser: ibnetdiscover output and ibsim's net files.
 *
 * It follows ibsim's own parser (ibsim/sim_net.c) so that one file means
 * the same fabric to ibsim and to us: line keywords are prefixes at the
 * start of a line (Switch, Hca, Ca, Rt, switchguid, caguid, hcaguids,
 * rtguid, devid, width, speed), a node record is its header line plus the
 * port lines ('[') that follow up to the next line of anything else,
 * unknown lines are ignored, and GUIDs/descriptions not in the file are
 * made up as ibsim makes them up.  Where ibsim would silently do something
 * odd (a port line outside a record, a 'do' command, aliases, includes,
 * module prefixes) we stop with an error instead.  Departures, chosen for
 * files from real fabrics: an explicit CA port GUID "[1](guid)" and a
 * "4xQDR" rate in ibnetdiscover output are honoured (ibsim ignores both),
 * and sysimgguid= sets the system GUID (ibsim uses the node GUID).
 *
 * Two passes: the first creates nodes and records port lines; the second
 * resolves names and links both ends after checking they agree. */
#include "lib/topo.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ibsim's start values (absguids[] in sim_net.c). */
#define IBSIM_CA_GUID_BASE 0x100000ULL
#define IBSIM_SW_GUID_BASE 0x200000ULL
/* ibsim enable masks: width 1=1x 2=4x 4=8x 8=12x, speed 1=SDR 2=DDR 4=QDR;
 * the same encodings as PortInfo LinkWidthActive/LinkSpeedActive. */
#define IBSIM_DEF_WIDTH 2
#define IBSIM_DEF_SPEED 1

struct tp_port {
	uint32_t node;	/* fabric node index */
	uint32_t line;
	const char *rname;
	uint8_t port, rport;
	uint8_t wena, sena; /* enabled masks (ibsim w=/s=, width=/speed=) */
	uint8_t eena;	    /* extended speeds enabled (e=, extspeed=):
			       1 FDR, 2 EDR, 4 HDR, 8 NDR */
	uint8_t wact, sact; /* explicit active rate ("4xSDR"), 0 if none */
	uint8_t eact;	    /* explicit extended speed: 1..8 as eena, or
			       EACT_XDR / EACT_FDR10 */
};

/* Explicit speeds with no LinkSpeedExtActive code of their own. */
#define EACT_XDR 0x10	/* LinkSpeedExtActive2 1 */
#define EACT_FDR10 0x20 /* vendor speed: QDR's LinkSpeedActive */

struct name_map {
	uint32_t *slot; /* node index + 1, 0 = empty */
	uint32_t cap, used;
};

struct tp {
	const char *file;
	char *err;
	size_t errlen;
	uint32_t line;
	struct fabric *f;
	uint64_t absguid[4], guid[4]; /* by enum ib_node_type */
	uint64_t sysguid;	      /* pending sysimgguid=, 0 = none */
	uint32_t vendid;
	uint16_t devid;
	uint8_t netwidth, netspeed, netspeedext;
	struct ib_node *cur; /* node whose port lines may follow */
	const char **names;  /* per node index: the quoted id */
	uint32_t *node_line;
	uint32_t cap_names;
	struct name_map map;
	struct tp_port *pl;
	uint32_t n_pl, cap_pl;
};

static int perr_at(struct tp *t, uint32_t line, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int perr_at(struct tp *t, uint32_t line, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(t->err, t->errlen, "%s:%u: ", t->file, line);

	if (n < 0 || (size_t)n >= t->errlen)
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(t->err + n, t->errlen - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

#define perr(t, ...) perr_at((t), (t)->line, __VA_ARGS__)

static char *skip_ws(char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int64_t name_find(const struct tp *t, const char *name)
{
	const struct name_map *m = &t->map;

	if (!m->cap)
		return -1;
	for (uint32_t h = str_hash(name) & (m->cap - 1); m->slot[h];
	     h = (h + 1) & (m->cap - 1))
		if (strcmp(t->names[m->slot[h] - 1], name) == 0)
			return m->slot[h] - 1;
	return -1;
}

static int name_put(struct tp *t, uint32_t idx)
{
	struct name_map *m = &t->map;

	if ((m->used + 1) * 2 > m->cap) {
		uint32_t ncap = m->cap ? m->cap * 2 : 1024;
		uint32_t *ns = calloc(ncap, sizeof(*ns));
		if (!ns)
			return -ENOMEM;
		for (uint32_t i = 0; i < m->cap; i++) {
			if (!m->slot[i])
				continue;
			uint32_t h = str_hash(t->names[m->slot[i] - 1]) &
				     (ncap - 1);
			while (ns[h])
				h = (h + 1) & (ncap - 1);
			ns[h] = m->slot[i];
		}
		free(m->slot);
		m->slot = ns;
		m->cap = ncap;
	}
	uint32_t h = str_hash(t->names[idx]) & (m->cap - 1);
	while (m->slot[h])
		h = (h + 1) & (m->cap - 1);
	m->slot[h] = idx + 1;
	m->used++;
	return 0;
}

/* Quoted string at *p (after optional blanks): NUL-terminates it in place
 * and advances *p past the closing quote.  NULL if there is none. */
static char *take_quoted(char **p)
{
	char *s = skip_ws(*p), *e;

	if (*s != '"' || !(e = strchr(s + 1, '"')))
		return NULL;
	*e = '\0';
	*p = e + 1;
	return s + 1;
}

/* The NodeDescription after '#', as ibsim's parse_node_desc() finds it:
 * quoted, or up to " enhanced port ", " base port ", " lid " or " lmc ".
 * *rest is left at what follows it. */
static char *take_desc(char **rest)
{
	static const char *const stops[] = { " enhanced port ", " base port ",
					     " lid ", " lmc " };
	char *s = strchr(*rest, '#'), *e = NULL;

	if (!s)
		return NULL;
	s = skip_ws(s + 1);
	if (*s == '"') {
		s++;
		e = strchr(s, '"');
		if (e)
			*e++ = '\0';
	} else {
		for (size_t i = 0; !e && i < sizeof(stops) / sizeof(*stops);
		     i++)
			if ((e = strstr(s, stops[i])))
				*e++ = '\0';
	}
	*rest = e ? e : s + strlen(s);
	return s;
}

/* "lid N" / "lmc N" anywhere in s (ibsim's parse_port_lid_and_lmc). */
static int take_lid_lmc(struct tp *t, const char *s, uint16_t *lid,
			uint8_t *lmc)
{
	const char *p;
	unsigned long v;

	*lid = 0;
	*lmc = 0;
	if ((p = strstr(s, "lid "))) {
		v = strtoul(p + 4, NULL, 0);
		if (v > IB_LID_UCAST_END)
			return perr(t, "LID %lu is not a unicast LID", v);
		*lid = (uint16_t)v;
	}
	if ((p = strstr(s, "lmc "))) {
		v = strtoul(p + 4, NULL, 0);
		if (v > 7)
			return perr(t, "LMC %lu out of range 0..7", v);
		*lmc = (uint8_t)v;
	}
	return 0;
}

static int set_lid(struct tp *t, struct ib_port *p, uint16_t lid,
		   uint8_t lmc)
{
	if (!lid)
		return 0;
	for (unsigned l = lid; l < lid + (1u << lmc) && l <= IB_LID_UCAST_END;
	     l++) {
		struct ib_port *o = fabric_port_by_lid(t->f, (uint16_t)l);
		if (o && o->node != p->node)
			return perr(t, "LID %u already used by \"%s\"", l,
				    t->names[o->node->idx]);
	}
	fabric_set_lid(t->f, p, lid, lmc);
	return 0;
}

static int remember_name(struct tp *t, struct ib_node *n, const char *id)
{
	if (n->idx >= t->cap_names) {
		uint32_t nc = t->cap_names ? t->cap_names * 2 : 1024;
		const char **nn = realloc(t->names, nc * sizeof(*nn));
		if (!nn)
			return -ENOMEM;
		t->names = nn;
		uint32_t *nl = realloc(t->node_line, nc * sizeof(*nl));
		if (!nl)
			return -ENOMEM;
		t->node_line = nl;
		t->cap_names = nc;
	}
	t->names[n->idx] = id;
	t->node_line[n->idx] = t->line;
	return name_put(t, n->idx);
}

static int check_new_node(struct tp *t, const char *id, uint64_t guid)
{
	int64_t other = name_find(t, id);
	struct ib_node *g;

	if (!*id)
		return perr(t, "empty node id");
	if (strchr(id, '#') || strchr(id, '@'))
		return perr(t, "node id \"%s\": '#' and '@' are reserved", id);
	if (other >= 0)
		return perr(t, "duplicate node id \"%s\" (first at line %u)",
			    id, t->node_line[other]);
	if ((g = fabric_node_by_guid(t->f, guid)))
		return perr(t, "node \"%s\": GUID 0x%016" PRIx64
			    " already used by \"%s\" (line %u)",
			    id, guid, t->names[g->idx], t->node_line[g->idx]);
	return 0;
}

/* Port GUIDs of a new CA/router: node GUID + port number (ibsim's
 * init_ports()); port lines may override them. */
static int set_ca_port_guids(struct tp *t, struct ib_node *n)
{
	for (unsigned p = 1; p <= n->nports; p++) {
		uint64_t g = n->guid + p;
		struct ib_port *o = fabric_port_by_guid(t->f, g);
		if (o)
			return perr(t, "port GUID 0x%016" PRIx64 " of \"%s\" "
				    "port %u already used by \"%s\"", g,
				    t->names[n->idx], p,
				    t->names[o->node->idx]);
		if (fabric_set_port_guid(t->f, &n->ports[p], g) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int add_node(struct tp *t, enum ib_node_type type, unsigned nports,
		    const char *id, const char *desc, char *rest)
{
	uint64_t guid = t->guid[type];
	struct ib_node *n;
	int r;

	if ((r = check_new_node(t, id, guid)) < 0)
		return r;
	n = fabric_add_node(t->f, type, guid, (uint8_t)nports,
			    desc && *desc ? desc : id);
	if (!n)
		return -ENOMEM;
	if ((r = remember_name(t, n, id)) < 0)
		return r;
	t->guid[type] += type == IB_NODE_SWITCH ? 1 : nports + 1;
	n->sysguid = t->sysguid ? t->sysguid : guid;
	t->sysguid = 0;
	n->vendor_id = t->vendid;
	n->device_id = t->devid;
	for (unsigned p = 0; p <= nports; p++) {
		n->ports[p].state = IB_PORT_DOWN;
		n->ports[p].phys_state = 2; /* Polling */
	}
	if (type == IB_NODE_SWITCH) {
		uint16_t lid;
		uint8_t lmc;
		n->ports[0].state = IB_PORT_ACTIVE;
		n->ports[0].phys_state = 5; /* LinkUp */
		if ((r = take_lid_lmc(t, rest, &lid, &lmc)) < 0 ||
		    (r = set_lid(t, &n->ports[0], lid, lmc)) < 0)
			return r;
	} else if ((r = set_ca_port_guids(t, n)) < 0) {
		return r;
	}
	if (!t->f->sm_node) {
		t->f->sm_node = n;
		t->f->sm_port = type == IB_NODE_SWITCH ? 0 : 1;
	}
	t->cur = n;
	return 0;
}

static int parse_header(struct tp *t, char *s, size_t kwlen,
			enum ib_node_type type)
{
	char *p = skip_ws(s + kwlen), *end, *id, *desc;
	unsigned long np;

	if (!isdigit((unsigned char)*p))
		return perr(t, "expected the number of ports after \"%.*s\"",
			    (int)kwlen, s);
	np = strtoul(p, &end, 10);
	if (np < 1 || np > 255)
		return perr(t, "number of ports %lu out of range 1..255", np);
	p = end;
	if (!(id = take_quoted(&p)))
		return perr(t, "expected a quoted node id after the number of "
			    "ports");
	desc = take_desc(&p);
	return add_node(t, type, (unsigned)np, id, desc, p);
}

static int parse_rate_token(const char *tok, uint8_t *w, uint8_t *s,
			    uint8_t *ext)
{
	/* PortInfo LinkSpeedActive stops at QDR; faster links carry their
	 * speed in LinkSpeedExtActive (FDR..NDR) or LinkSpeedExtActive2
	 * (XDR), with QDR's LinkSpeedActive beside, as ibsim reports them. */
	static const struct { const char *name; uint8_t v, ext; } speeds[] = {
		{ "SDR", 1, 0 }, { "DDR", 2, 0 }, { "QDR", 4, 0 },
		{ "FDR10", 4, EACT_FDR10 }, { "FDR", 4, 1 }, { "EDR", 4, 2 },
		{ "HDR", 4, 4 }, { "NDR", 4, 8 }, { "XDR", 4, EACT_XDR },
	};
	char *e;
	unsigned long x = strtoul(tok, &e, 10);

	if (e == tok || *e != 'x')
		return -1;
	switch (x) {
	case 1: *w = 1; break;
	case 4: *w = 2; break;
	case 8: *w = 4; break;
	case 12: *w = 8; break;
	case 2: *w = 16; break;
	default: return -1;
	}
	for (size_t i = 0; i < sizeof(speeds) / sizeof(*speeds); i++)
		if (strcmp(e + 1, speeds[i].name) == 0) {
			*s = speeds[i].v;
			*ext = speeds[i].ext;
			return 0;
		}
	return -1;
}

/* Port options before any '#': "w=N" and "s=N" as ibsim's parse_port_opt
 * takes them (enable masks). */
static int parse_port_opts(struct tp *t, char *p, struct tp_port *pl)
{
	char *hash = strchr(p, '#');
	char *tok, *save = NULL;

	if (hash)
		*hash = '\0';
	for (tok = strtok_r(p, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save)) {
		char *e;
		unsigned long v;
		if ((tok[0] != 'w' && tok[0] != 's' && tok[0] != 'e') ||
		    tok[1] != '=')
			return perr(t, "unknown port option \"%s\" (ibsim "
				    "knows w=N, s=N and e=N)", tok);
		v = strtoul(tok + 2, &e, 0);
		if (*e || e == tok + 2)
			return perr(t, "bad value in \"%s\"", tok);
		if (tok[0] == 'w' && (v < 1 || v > 15))
			return perr(t, "link width mask %lu out of range "
				    "1..15", v);
		if (tok[0] == 's' && (v < 1 || v > 7))
			return perr(t, "link speed mask %lu out of range 1..7",
				    v);
		if (tok[0] == 'e' && v > 15)
			return perr(t, "extended link speed mask %lu out of "
				    "range 0..15", v);
		if (tok[0] == 'w')
			pl->wena = (uint8_t)v;
		else if (tok[0] == 's')
			pl->sena = (uint8_t)v;
		else
			pl->eena = (uint8_t)v;
	}
	if (hash)
		*hash = '#';
	return 0;
}

/* Trailing "4xSDR" of ibnetdiscover output, if the last word is one. */
static void parse_rate_suffix(char *line, struct tp_port *pl)
{
	char *end = line + strlen(line), *w;

	while (end > line && isspace((unsigned char)end[-1]))
		end--;
	w = end;
	while (w > line && !isspace((unsigned char)w[-1]))
		w--;
	if (w == end || w == line)
		return;
	char save = *end;
	*end = '\0';
	if (parse_rate_token(w, &pl->wact, &pl->sact, &pl->eact) < 0)
		pl->wact = pl->sact = pl->eact = 0;
	*end = save;
}

static int push_port_line(struct tp *t, const struct tp_port *pl)
{
	if (t->n_pl == t->cap_pl) {
		uint32_t nc = t->cap_pl ? t->cap_pl * 2 : 4096;
		struct tp_port *np = realloc(t->pl, nc * sizeof(*np));
		if (!np)
			return -ENOMEM;
		t->pl = np;
		t->cap_pl = nc;
	}
	t->pl[t->n_pl++] = *pl;
	return 0;
}

/* "(hexguid)" right after a port number, as ibnetdiscover prints it. */
static int take_paren_guid(struct tp *t, char **p, uint64_t *g)
{
	char *e;

	*g = 0;
	if (**p != '(')
		return 0;
	*g = strtoull(*p + 1, &e, 16);
	if (*e != ')' || e == *p + 1)
		return perr(t, "bad GUID in parentheses");
	*p = e + 1;
	return 0;
}

static int set_explicit_port_guid(struct tp *t, struct ib_node *n,
				  unsigned pn, uint64_t g)
{
	struct ib_port *o = fabric_port_by_guid(t->f, g);

	if (!g || n->type == IB_NODE_SWITCH || n->ports[pn].guid == g)
		return 0;
	if (o)
		return perr(t, "port GUID 0x%016" PRIx64 " already used by "
			    "\"%s\" port %u", g, t->names[o->node->idx],
			    o->num);
	return fabric_set_port_guid(t->f, &n->ports[pn], g) < 0 ? -ENOMEM : 0;
}

static int parse_port_line(struct tp *t, char *s)
{
	struct ib_node *n = t->cur;
	struct tp_port pl = { .node = n->idx, .line = t->line,
			      .wena = t->netwidth, .sena = t->netspeed,
			      .eena = t->netspeedext };
	char *p = s + 1, *e;
	unsigned long pn, rp = 1;
	uint64_t pguid, rguid;
	int r;

	pn = strtoul(p, &e, 10);
	if (e == p || *e != ']')
		return perr(t, "bad port number in \"%s\"", s);
	if (pn < 1 || pn > n->nports)
		return perr(t, "port %lu out of range for \"%s\" (ports "
			    "1..%u)", pn, t->names[n->idx], n->nports);
	p = e + 1;
	if ((r = take_paren_guid(t, &p, &pguid)) < 0)
		return r;
	if (!(pl.rname = take_quoted(&p)))
		return perr(t, "expected the quoted id of the remote node");
	if (*p == '[') {
		rp = strtoul(p + 1, &e, 10);
		if (e == p + 1 || *e != ']' || rp < 1 || rp > 255)
			return perr(t, "bad remote port number");
		p = e + 1;
	}
	if ((r = take_paren_guid(t, &p, &rguid)) < 0)
		return r;
	pl.port = (uint8_t)pn;
	pl.rport = (uint8_t)rp;
	parse_rate_suffix(p, &pl);
	if ((r = set_explicit_port_guid(t, n, (unsigned)pn, pguid)) < 0)
		return r;
	if (n->type != IB_NODE_SWITCH) {
		uint16_t lid;
		uint8_t lmc;
		if ((r = take_lid_lmc(t, p, &lid, &lmc)) < 0 ||
		    (r = set_lid(t, &n->ports[pn], lid, lmc)) < 0)
			return r;
	}
	/* Last: it cuts p into words. */
	if ((r = parse_port_opts(t, p, &pl)) < 0)
		return r;
	return push_port_line(t, &pl);
}

/* switchguid=/caguid=/rtguid=: "=V" sets the next GUID absolutely, "+V"
 * relative to the last absolute base (ibsim's parse_guidbase). */
static int parse_guidbase(struct tp *t, char *s, enum ib_node_type type)
{
	char *p = strpbrk(s, "=+"), *e;
	uint64_t v;

	if (!p)
		return perr(t, "missing '=' or '+'");
	v = strtoull(p + 1, &e, 0);
	if (e == p + 1)
		return perr(t, "bad GUID after '%c'", *p);
	if (*p == '=') {
		t->absguid[type] = v;
		v = 0;
	}
	t->guid[type] = t->absguid[type] + v;
	return 0;
}

static int parse_assign(struct tp *t, char *s, unsigned long max,
			unsigned long *out)
{
	char *p = strchr(s, '='), *e;

	if (!p)
		return perr(t, "missing '='");
	*out = strtoul(p + 1, &e, 0);
	if (e == p + 1 || *out > max)
		return perr(t, "bad value after '='");
	return 0;
}

static int parse_setting(struct tp *t, char *s)
{
	unsigned long v;
	int r = 0;

	if (!strncmp(s, "switchguid", 10))
		return parse_guidbase(t, s, IB_NODE_SWITCH);
	if (!strncmp(s, "hcaguids", 8) || !strncmp(s, "caguid", 6))
		return parse_guidbase(t, s, IB_NODE_CA);
	if (!strncmp(s, "rtguid", 6))
		return parse_guidbase(t, s, IB_NODE_ROUTER);
	if (!strncmp(s, "sysimgguid", 10)) {
		char *p = strchr(s, '=');
		if (!p)
			return perr(t, "missing '='");
		t->sysguid = strtoull(p + 1, NULL, 0);
	} else if (!strncmp(s, "vendid", 6)) {
		if (!(r = parse_assign(t, s, 0xffffff, &v)))
			t->vendid = (uint32_t)v;
	} else if (!strncmp(s, "devid", 5)) {
		if (!(r = parse_assign(t, s, 0xffff, &v)))
			t->devid = (uint16_t)v;
	} else if (!strncmp(s, "width", 5)) {
		if (!(r = parse_assign(t, s, 15, &v)) && !v)
			r = perr(t, "link width mask must be 1..15");
		t->netwidth = (uint8_t)v;
	} else if (!strncmp(s, "extspeed", 8)) {
		if (!(r = parse_assign(t, s, 15, &v)))
			t->netspeedext = (uint8_t)v;
	} else if (!strncmp(s, "speed", 5)) {
		if (!(r = parse_assign(t, s, 7, &v)) && !v)
			r = perr(t, "link speed mask must be 1..7");
		t->netspeed = (uint8_t)v;
	} else if (!strncmp(s, "module", 6) || !strncmp(s, "include", 7) ||
		   (!strncmp(s, "do", 2) && isspace((unsigned char)s[2]))) {
		r = perr(t, "\"%.*s\" lines are not supported here",
			 (int)strcspn(s, " \t="), s);
	}
	/* Anything else is ignored, as ibsim ignores it. */
	return r;
}

static int parse_line(struct tp *t, char *s)
{
	if (*s == '#')
		return 0;
	if (*s == '[' || *s == '@') {
		if (*s == '@')
			return perr(t, "port aliases ('@') are not supported");
		if (!t->cur)
			return perr(t, "port line outside a node record (a "
				    "blank line ends a record)");
		return parse_port_line(t, s);
	}
	t->cur = NULL;
	if (!strncmp(s, "Switch", 6))
		return parse_header(t, s, 6, IB_NODE_SWITCH);
	if (!strncmp(s, "Hca", 3))
		return parse_header(t, s, 3, IB_NODE_CA);
	if (!strncmp(s, "Ca", 2))
		return parse_header(t, s, 2, IB_NODE_CA);
	if (!strncmp(s, "Rt", 2))
		return parse_header(t, s, 2, IB_NODE_ROUTER);
	return parse_setting(t, s);
}

/* Highest common bit of two enable masks, ibsim's get_active_link*(). */
static uint8_t best_common(uint8_t a, uint8_t b, uint8_t top)
{
	for (uint8_t bit = top; bit; bit >>= 1)
		if (a & b & bit)
			return bit;
	return 0;
}

static int link_rate(struct tp *t, const struct tp_port *a,
		     const struct tp_port *b, uint8_t *w, uint8_t *s,
		     uint8_t *ext)
{
	*w = a->wact ? a->wact : b->wact;
	*s = a->sact ? a->sact : b->sact;
	*ext = a->wact ? a->eact : b->wact ? b->eact
					  : best_common(a->eena, b->eena, 8);
	if (!*w && !(*w = best_common(a->wena, b->wena, 8)))
		return perr_at(t, a->line, "no common link width between "
			       "\"%s\" port %u and \"%s\" port %u",
			       t->names[a->node], a->port, a->rname, a->rport);
	if (!*s && !(*s = best_common(a->sena, b->sena, 4)))
		return perr_at(t, a->line, "no common link speed between "
			       "\"%s\" port %u and \"%s\" port %u",
			       t->names[a->node], a->port, a->rname, a->rport);
	return 0;
}

static void set_linked(struct ib_port *p, uint8_t w, uint8_t s, uint8_t ext)
{
	uint8_t caps = ext == EACT_XDR		   ? IB_SPEED_CAP_EXT | IB_SPEED_CAP_EXT2
		       : ext && ext != EACT_FDR10 ? IB_SPEED_CAP_EXT
						  : 0;

	p->state = IB_PORT_ACTIVE;
	p->phys_state = 5; /* LinkUp */
	p->width_active = w;
	p->speed_active = s;
	p->fdr10 = ext == EACT_FDR10;
	p->speed_ext_active = ext < EACT_XDR ? ext : 0;
	p->speed_ext2_active = ext == EACT_XDR;
	/* A switch's external ports have the capabilities of its port 0. */
	p->speed_caps |= caps;
	if (p->node->type == IB_NODE_SWITCH)
		p->node->ports[0].speed_caps |= caps;
}

static int link_one(struct tp *t, const int32_t *by_port,
		    const uint32_t *base, const struct tp_port *a)
{
	const char *an = t->names[a->node];
	int64_t bi = name_find(t, a->rname);
	struct ib_node *A = t->f->nodes[a->node], *B;
	const struct tp_port *b;
	uint8_t w, s, ext;
	int32_t m;
	int r;

	if (bi < 0)
		return perr_at(t, a->line, "\"%s\" port %u: no node named "
			       "\"%s\"", an, a->port, a->rname);
	B = t->f->nodes[bi];
	if (a->rport > B->nports)
		return perr_at(t, a->line, "\"%s\" port %u: remote port %u out "
			       "of range for \"%s\" (ports 1..%u)", an,
			       a->port, a->rport, a->rname, B->nports);
	if (A == B && a->port == a->rport)
		return perr_at(t, a->line, "\"%s\" port %u is linked to itself",
			       an, a->port);
	m = by_port[base[bi] + a->rport];
	if (m < 0)
		return perr_at(t, a->line, "\"%s\" port %u -> \"%s\"[%u], but "
			       "\"%s\" lists no port %u", an, a->port,
			       a->rname, a->rport, a->rname, a->rport);
	b = &t->pl[m];
	if (b->rport != a->port || strcmp(b->rname, an) != 0)
		return perr_at(t, a->line, "\"%s\" port %u -> \"%s\"[%u], but "
			       "\"%s\" port %u -> \"%s\"[%u] (line %u)", an,
			       a->port, a->rname, a->rport, a->rname,
			       a->rport, b->rname, b->rport, b->line);
	if (B->idx < A->idx || (A == B && a->rport < a->port))
		return 0; /* linked when its other end was visited */
	if ((r = link_rate(t, a, b, &w, &s, &ext)) < 0)
		return r;
	if (fabric_link(t->f, A, a->port, B, a->rport) < 0)
		return -EINVAL;
	set_linked(&A->ports[a->port], w, s, ext);
	set_linked(&B->ports[a->rport], w, s, ext);
	return 0;
}

static int link_all(struct tp *t)
{
	struct fabric *f = t->f;
	uint32_t *base = malloc(((size_t)f->n_nodes + 1) * sizeof(*base));
	int32_t *by_port = NULL;
	int r = -ENOMEM;

	if (!base)
		return -ENOMEM;
	base[0] = 0;
	for (uint32_t i = 0; i < f->n_nodes; i++)
		base[i + 1] = base[i] + f->nodes[i]->nports + 1;
	by_port = malloc(((size_t)base[f->n_nodes] + 1) * sizeof(*by_port));
	if (!by_port)
		goto out;
	memset(by_port, 0xff, ((size_t)base[f->n_nodes] + 1) * sizeof(*by_port));
	for (uint32_t i = 0; i < t->n_pl; i++) {
		const struct tp_port *pl = &t->pl[i];
		int32_t *slot = &by_port[base[pl->node] + pl->port];
		if (*slot >= 0) {
			r = perr_at(t, pl->line, "\"%s\" port %u listed twice "
				    "(first at line %u)", t->names[pl->node],
				    pl->port, t->pl[*slot].line);
			goto out;
		}
		*slot = (int32_t)i;
	}
	r = 0;
	for (uint32_t i = 0; i < t->n_pl && !r; i++)
		r = link_one(t, by_port, base, &t->pl[i]);
out:
	free(base);
	free(by_port);
	return r;
}

static void tp_init(struct tp *t, struct fabric *f, const char *name,
		    char *err, size_t errlen)
{
	memset(t, 0, sizeof(*t));
	t->f = f;
	t->file = name ? name : "<string>";
	t->err = err;
	t->errlen = errlen;
	t->absguid[IB_NODE_CA] = t->guid[IB_NODE_CA] = IBSIM_CA_GUID_BASE;
	/* ibsim's guids[] initialiser stops before ROUTER_NODE: routers
	 * start at GUID 0 (observed: "Rt 2" first gets 0, ports 1 and 2). */
	t->absguid[IB_NODE_ROUTER] = t->guid[IB_NODE_ROUTER] = 0;
	t->absguid[IB_NODE_SWITCH] = t->guid[IB_NODE_SWITCH] =
		IBSIM_SW_GUID_BASE;
	t->netwidth = IBSIM_DEF_WIDTH;
	t->netspeed = IBSIM_DEF_SPEED;
}

static void tp_free(struct tp *t)
{
	free(t->names);
	free(t->node_line);
	free(t->map.slot);
	free(t->pl);
}

/* Parses text in place (it is modified and must outlive the parse). */
static int parse_text(struct fabric *f, char *text, const char *name,
		      char *err, size_t errlen)
{
	struct tp t;
	char *s = text, *nl;
	int r = 0;

	if (errlen)
		err[0] = '\0';
	tp_init(&t, f, name, err, errlen);
	while (s && !r) {
		t.line++;
		nl = strchr(s, '\n');
		if (nl)
			*nl = '\0';
		size_t len = strlen(s);
		if (len && s[len - 1] == '\r')
			s[len - 1] = '\0';
		r = parse_line(&t, s);
		s = nl && nl[1] ? nl + 1 : NULL;
	}
	if (!r && !f->n_nodes)
		r = perr(&t, "no nodes in the topology");
	if (!r)
		r = link_all(&t);
	if (r == -ENOMEM)
		snprintf(err, errlen, "%s: out of memory", t.file);
	tp_free(&t);
	if (r) {
		fabric_free(f);
		fabric_init(f);
	}
	return r;
}

int topo_load_string(struct fabric *f, const char *text, const char *name,
		     char *err, size_t errlen)
{
	char *copy = strdup(text);
	int r;

	if (!copy)
		return -ENOMEM;
	r = parse_text(f, copy, name, err, errlen);
	free(copy);
	return r;
}

int topo_load_file(struct fabric *f, FILE *fp, const char *name, char *err,
		   size_t errlen)
{
	size_t cap = 1 << 16, len = 0, n;
	char *buf = malloc(cap);
	int r;

	if (!buf)
		return -ENOMEM;
	while ((n = fread(buf + len, 1, cap - len - 1, fp)) > 0) {
		len += n;
		if (cap - len - 1 == 0) {
			char *nb = realloc(buf, cap * 2);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
	}
	if (ferror(fp)) {
		snprintf(err, errlen, "%s: read error", name);
		free(buf);
		return -EIO;
	}
	buf[len] = '\0';
	r = parse_text(f, buf, name, err, errlen);
	free(buf);
	return r;
}

int topo_load(struct fabric *f, const char *path, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	int r;

	if (!fp) {
		r = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return r;
	}
	r = topo_load_file(f, fp, path, err, errlen);
	fclose(fp);
	return r;
}

static struct ib_node *node_by_name_or_guid(struct fabric *f, const char *s,
					    struct ib_port **port)
{
	struct ib_node *n = fabric_node_by_desc(f, s);
	const char *h = s;
	char *e;

	*port = NULL;
	if (n)
		return n;
	if ((s[0] == 'S' || s[0] == 'H' || s[0] == 'R') && s[1] == '-')
		h = s + 2;
	uint64_t g = strtoull(h, &e, 16);
	if (e == h || *e)
		return NULL;
	if ((n = fabric_node_by_guid(f, g)))
		return n;
	*port = fabric_port_by_guid(f, g);
	return *port ? (*port)->node : NULL;
}

struct ib_node *topo_find_node(struct fabric *f, const char *name_or_guid)
{
	struct ib_port *p;

	return node_by_name_or_guid(f, name_or_guid, &p);
}

int topo_set_sm_node(struct fabric *f, const char *name_or_guid)
{
	struct ib_port *p;
	struct ib_node *n = node_by_name_or_guid(f, name_or_guid, &p);

	if (!n)
		return -ENOENT;
	f->sm_node = n;
	if (n->type == IB_NODE_SWITCH)
		f->sm_port = 0;
	else
		f->sm_port = p ? p->num : 1;
	return 0;
}
