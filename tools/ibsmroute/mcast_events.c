/* Parsing of ibsmroute --groups files and the MGID map: see
 * mcast_events.h.  Members named by NodeDescription resolve to the CA's
 * first linked port (as ibsmpattern picks hosts) through a hash of the
 * descriptions built once, since the fabric's own lookup is linear. */
#include "tools/ibsmroute/mcast_events.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

static uint32_t hash_bytes(const void *p, size_t n)
{
	const uint8_t *b = p;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 16777619u;
	return h;
}

/* ---- MGID map ---- */

static int mgid_map_grow(struct mgid_map *m)
{
	uint32_t nc = m->cap ? m->cap * 2 : 1024;
	uint8_t(*nk)[16] = calloc(nc, 16);
	uint32_t *nv = malloc(nc * sizeof(*nv));

	if (!nk || !nv) {
		free(nk);
		free(nv);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < nc; i++)
		nv[i] = NONE;
	for (uint32_t i = 0; i < m->cap; i++) {
		if (m->vals[i] == NONE)
			continue;
		uint32_t j = hash_bytes(m->keys[i], 16) & (nc - 1);
		while (nv[j] != NONE)
			j = (j + 1) & (nc - 1);
		memcpy(nk[j], m->keys[i], 16);
		nv[j] = m->vals[i];
	}
	free(m->keys);
	free(m->vals);
	m->keys = nk;
	m->vals = nv;
	m->cap = nc;
	return 0;
}

static uint32_t mgid_slot(const struct mgid_map *m, const uint8_t k[16])
{
	uint32_t j = hash_bytes(k, 16) & (m->cap - 1);

	while (m->vals[j] != NONE && memcmp(m->keys[j], k, 16) != 0)
		j = (j + 1) & (m->cap - 1);
	return j;
}

int mgid_map_put(struct mgid_map *m, const uint8_t k[16], uint32_t v)
{
	if ((m->used + 1) * 2 > m->cap && mgid_map_grow(m) < 0)
		return -ENOMEM;
	uint32_t j = mgid_slot(m, k);
	if (m->vals[j] == NONE)
		m->used++;
	memcpy(m->keys[j], k, 16);
	m->vals[j] = v;
	return 0;
}

uint32_t mgid_map_get(const struct mgid_map *m, const uint8_t k[16])
{
	return m->cap ? m->vals[mgid_slot(m, k)] : NONE;
}

/* Deletion with backward-shift so probes stay correct. */
void mgid_map_del(struct mgid_map *m, const uint8_t k[16])
{
	uint32_t i, j;

	if (!m->cap || m->vals[i = mgid_slot(m, k)] == NONE)
		return;
	m->vals[i] = NONE;
	m->used--;
	for (j = (i + 1) & (m->cap - 1); m->vals[j] != NONE; j = (j + 1) & (m->cap - 1)) {
		uint32_t h = hash_bytes(m->keys[j], 16) & (m->cap - 1);
		/* can the entry at j move to the hole at i? */
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			memcpy(m->keys[i], m->keys[j], 16);
			m->vals[i] = m->vals[j];
			m->vals[j] = NONE;
			i = j;
		}
	}
}

void mgid_map_free(struct mgid_map *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- host names ---- */

struct desc_map {
	struct ib_port **v;
	uint32_t cap;
};

static struct ib_port *first_linked(struct ib_node *n)
{
	for (unsigned p = 1; p <= n->nports; p++)
		if (n->ports[p].remote)
			return &n->ports[p];
	return NULL;
}

static int desc_map_build(struct desc_map *d, const struct fabric *f)
{
	d->cap = 1024;
	while (d->cap < f->n_nodes * 2)
		d->cap *= 2;
	d->v = calloc(d->cap, sizeof(*d->v));
	if (!d->v)
		return -ENOMEM;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		struct ib_node *n = f->nodes[i];
		struct ib_port *p;
		if (n->type == IB_NODE_SWITCH || !(p = first_linked(n)))
			continue;
		uint32_t j = hash_bytes(n->desc, strlen(n->desc)) & (d->cap - 1);
		while (d->v[j] && strcmp(d->v[j]->node->desc, n->desc) != 0)
			j = (j + 1) & (d->cap - 1);
		if (!d->v[j]) /* first node with that description wins */
			d->v[j] = p;
	}
	return 0;
}

static struct ib_port *desc_map_get(const struct desc_map *d, const char *s)
{
	uint32_t j = hash_bytes(s, strlen(s)) & (d->cap - 1);

	while (d->v[j] && strcmp(d->v[j]->node->desc, s) != 0)
		j = (j + 1) & (d->cap - 1);
	return d->v[j];
}

/* ---- events ---- */

static struct ib_port *resolve(const struct fabric *f, const struct desc_map *d,
			       const char *tok)
{
	struct ib_port *p;

	if (tok[0] == '0' && (tok[1] == 'x' || tok[1] == 'X')) {
		char *e;
		uint64_t g = strtoull(tok, &e, 16);
		if (!*e && (p = fabric_port_by_guid(f, g)) &&
		    p->node->type != IB_NODE_SWITCH)
			return p;
	}
	return desc_map_get(d, tok);
}

static int push_event(struct mc_events *e, const struct mc_event *ev)
{
	if (e->n == e->cap) {
		uint32_t nc = e->cap ? e->cap * 2 : 1024;
		struct mc_event *ne = realloc(e->ev, nc * sizeof(*ne));
		if (!ne)
			return -ENOMEM;
		e->ev = ne;
		e->cap = nc;
	}
	e->ev[e->n] = *ev;
	e->ev[e->n].seq = e->n;
	e->n++;
	return 0;
}

static int push_port(struct mc_events *e, struct ib_port *p)
{
	if (e->nports == e->cap_ports) {
		uint64_t nc = e->cap_ports ? e->cap_ports * 2 : 4096;
		struct ib_port **np = realloc(e->ports, nc * sizeof(*np));
		if (!np)
			return -ENOMEM;
		e->ports = np;
		e->cap_ports = nc;
	}
	e->ports[e->nports++] = p;
	return 0;
}

/* One line; returns 0, 1 (blank/comment), or -EINVAL with err set. */
static int parse_line(char *s, uint32_t ln, const struct fabric *f,
		      const struct desc_map *d, struct mc_events *e,
		      char *err, size_t errlen)
{
	char *save = NULL, *op = strtok_r(s, " \t\r\n", &save), *tok;
	struct mc_event ev = { .line = ln };

	if (!op || op[0] == '#')
		return 1;
	if ((op[0] != '+' && op[0] != '-') || op[1]) {
		snprintf(err, errlen, "line %u: expected '+' or '-', got '%s'", ln, op);
		return -EINVAL;
	}
	ev.op = op[0];
	tok = strtok_r(NULL, " \t\r\n", &save);
	if (!tok || inet_pton(AF_INET6, tok, ev.mgid) != 1 || ev.mgid[0] != 0xff) {
		snprintf(err, errlen, "line %u: bad MGID '%s'", ln, tok ? tok : "");
		return -EINVAL;
	}
	ev.first = (uint32_t)e->nports;
	while ((tok = strtok_r(NULL, " \t\r\n", &save))) {
		struct ib_port *p = ev.op == '+' ? resolve(f, d, tok) : NULL;
		if (!p) {
			snprintf(err, errlen, ev.op == '+'
				 ? "line %u: unknown member '%s' (no host with that NodeDescription or port GUID)"
				 : "line %u: a delete takes no member ('%s')", ln, tok);
			return -EINVAL;
		}
		if (push_port(e, p) < 0)
			return -ENOMEM;
		ev.n++;
	}
	if (ev.op == '+' && !ev.n) {
		snprintf(err, errlen, "line %u: group without members", ln);
		return -EINVAL;
	}
	e->creates += ev.op == '+';
	return push_event(e, &ev);
}

int mc_events_load(const char *path, struct fabric *f, struct mc_events *e,
		   char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	struct desc_map d = { 0 };
	char *line = NULL, why[256];
	size_t cap = 0;
	uint32_t ln = 0;
	int rc = 0;

	memset(e, 0, sizeof(*e));
	if (!fp) {
		rc = -errno;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return rc;
	}
	if ((rc = desc_map_build(&d, f)) < 0) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto out;
	}
	while (getline(&line, &cap, fp) > 0) {
		rc = parse_line(line, ++ln, f, &d, e, why, sizeof(why));
		if (rc == -ENOMEM)
			snprintf(why, sizeof(why), "line %u: out of memory", ln);
		if (rc < 0) {
			snprintf(err, errlen, "%s:%s", path, why + 5);
			goto out;
		}
		rc = 0;
	}
out:
	free(line);
	free(d.v);
	fclose(fp);
	if (rc < 0)
		mc_events_free(e);
	return rc;
}

void mc_events_free(struct mc_events *e)
{
	free(e->ev);
	free(e->ports);
	memset(e, 0, sizeof(*e));
}
