/* The partition plan (pkeys.h).  Each partition is resolved over the end
 * ports with one byte per port: 0 not a member, else 1 + 2 * specific +
 * full, where specific means the port was named (NodeDescription, GUID)
 * rather than reached by all/hosts/switches.  The highest code wins, so a
 * name in limited beats "members: all" and, between equals, full wins.
 * Partitions are resolved in P_Key order so each port's entries come out
 * sorted. */
#include "lib/pkeys.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/log.h"

#define UNKNOWN_LOGGED 10

static bool is_end_port(const struct ib_node *n, uint8_t pn)
{
	return node_is_switch(n) ? pn == 0 : pn >= 1;
}

static uint32_t slot_of(const struct pkey_plan *pl, const struct ib_port *p)
{
	return pl->node_slot[p->node->idx] + p->num;
}

/* Whether p belongs to the plan's fabric (the SA may hold a port of
 * another model only by a bug; answer "no partition" then). */
static bool in_plan(const struct pkey_plan *pl, const struct ib_port *p)
{
	const struct ib_node *n = p->node;

	return n->idx < pl->n_nodes && pl->nodes[n->idx] == n;
}

static int cmp_desc(const void *a, const void *b)
{
	return strcmp((*(struct ib_node *const *)a)->desc,
		      (*(struct ib_node *const *)b)->desc);
}

struct resolve {
	const struct fabric *f;
	struct pkey_plan *pl;
	struct ib_node **by_desc; /* nodes sorted by NodeDescription */
	uint8_t *code;		  /* per slot, this partition */
	const char *part;	  /* partition name, for logs */
	bool log;		  /* log names that match nothing */
};

static void mark(struct resolve *r, const struct ib_port *p, uint8_t code)
{
	uint32_t s = slot_of(r->pl, p);

	if (code > r->code[s])
		r->code[s] = code;
}

static void mark_node(struct resolve *r, const struct ib_node *n, uint8_t code)
{
	for (unsigned pn = 0; pn <= n->nports; pn++)
		if (is_end_port(n, (uint8_t)pn))
			mark(r, &n->ports[pn], code);
}

static void mark_kind(struct resolve *r, const char *kind, bool full)
{
	bool hosts = strcmp(kind, "switches") != 0;
	bool sws = strcmp(kind, "hosts") != 0;

	for (uint32_t i = 0; i < r->f->n_nodes; i++) {
		const struct ib_node *n = r->f->nodes[i];
		if (node_is_switch(n) ? sws : hosts)
			mark_node(r, n, (uint8_t)(1 + full));
	}
}

/* Every node of that description (names need not be unique). */
static bool mark_desc(struct resolve *r, const char *desc, uint8_t code)
{
	struct ib_node key = {0}, *kp = &key, **hit;
	bool found = false;

	snprintf(key.desc, sizeof(key.desc), "%s", desc);
	hit = bsearch(&kp, r->by_desc, r->f->n_nodes, sizeof(*r->by_desc),
		      cmp_desc);
	if (!hit)
		return false;
	while (hit > r->by_desc && !cmp_desc(hit - 1, &kp))
		hit--;
	for (; hit < r->by_desc + r->f->n_nodes && !cmp_desc(hit, &kp); hit++) {
		mark_node(r, *hit, code);
		found = true;
	}
	return found;
}

/* A port GUID (CA port, switch), else a node GUID (all its end ports). */
static bool mark_guid(struct resolve *r, const char *s, uint8_t code)
{
	uint64_t g = strtoull(s, NULL, 16);
	struct ib_port *p = fabric_port_by_guid(r->f, g);
	struct ib_node *n;

	if (p) {
		mark(r, p, code);
		return true;
	}
	n = fabric_node_by_guid(r->f, g);
	if (n)
		mark_node(r, n, code);
	return n != NULL;
}

static void mark_list(struct resolve *r, const struct cfg_strlist *l, bool full)
{
	for (uint32_t i = 0; i < l->n; i++) {
		const char *m = l->v[i];
		uint8_t code = (uint8_t)(3 + full); /* named: specific */
		bool found;

		if (!strcmp(m, "all") || !strcmp(m, "hosts") ||
		    !strcmp(m, "switches")) {
			mark_kind(r, m, full);
			continue;
		}
		found = (m[0] == '0' && (m[1] == 'x' || m[1] == 'X'))
			    ? mark_guid(r, m + 2, code)
			    : mark_desc(r, m, code);
		if (!found && r->pl->unknown++ < UNKNOWN_LOGGED && r->log)
			log_warn("partition %s: member \"%s\" names no port "
				 "of the fabric; ignored until it appears",
				 r->part, m);
	}
}

/* The SA must be reachable: everyone at least limited in the default
 * partition, the SM's port full (as OpenSM does). */
static void mark_default(struct resolve *r)
{
	const struct fabric *f = r->f;

	mark_kind(r, "all", false);
	if (f->sm_node)
		mark(r,
		     &f->sm_node
			  ->ports[node_is_switch(f->sm_node) ? 0 : f->sm_port],
		     4);
}

/* Partitions sorted by P_Key, with the default one added if absent
 * (a NULL entry). */
static const struct cfg_partition **sorted_parts(const struct cfg_table *t,
						 uint32_t *n)
{
	const struct cfg_partition *v = t->v;
	const struct cfg_partition **o = calloc(t->n + 1, sizeof(*o));
	bool have_default = false;
	uint32_t k = 0;

	if (!o)
		return NULL;
	for (uint32_t i = 0; i < t->n; i++)
		have_default |= v[i].pkey == PKEY_DEFAULT;
	/* insertion by P_Key: a few dozen partitions at most */
	for (uint32_t i = 0; i <= t->n; i++) {
		const struct cfg_partition *p = i < t->n ? &v[i] : NULL;
		uint32_t key = p ? p->pkey : PKEY_DEFAULT, j = k;
		if (!p && have_default)
			continue;
		while (j > 0 &&
		       (o[j - 1] ? o[j - 1]->pkey : PKEY_DEFAULT) > key) {
			o[j] = o[j - 1];
			j--;
		}
		o[j] = p;
		k++;
	}
	*n = k;
	return o;
}

static int append_keys(struct pkey_plan *pl, uint32_t *cnt, uint16_t base,
		       const uint8_t *code, uint16_t **lists, uint32_t *cap)
{
	for (uint32_t s = 0; s < pl->n_slots; s++) {
		uint16_t e;
		if (!code[s])
			continue;
		e = base | ((code[s] - 1) & 1 ? PKEY_FULL_BIT : 0);
		if (cnt[s] == cap[s]) {
			uint32_t nc = cap[s] ? cap[s] * 2 : 2;
			uint16_t *nl = realloc(lists[s], nc * sizeof(*nl));
			if (!nl)
				return -ENOMEM;
			lists[s] = nl;
			cap[s] = nc;
		}
		lists[s][cnt[s]++] = e;
	}
	return 0;
}

static int index_slots(struct pkey_plan *pl, const struct fabric *f)
{
	uint32_t s = 0;

	pl->node_slot = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(uint32_t));
	pl->nodes = calloc(f->n_nodes ? f->n_nodes : 1, sizeof(*pl->nodes));
	if (!pl->node_slot || !pl->nodes)
		return -ENOMEM;
	memcpy(pl->nodes, f->nodes, f->n_nodes * sizeof(*pl->nodes));
	pl->n_nodes = f->n_nodes;
	for (uint32_t i = 0; i < f->n_nodes; i++) {
		pl->node_slot[i] = s;
		s += f->nodes[i]->nports + 1u;
	}
	pl->n_slots = s;
	return 0;
}

/* Lists per slot into the flat off/keys arrays. */
static int flatten(struct pkey_plan *pl, uint16_t **lists, const uint32_t *cnt)
{
	uint32_t total = 0;

	pl->off = calloc(pl->n_slots + 1, sizeof(uint32_t));
	if (!pl->off)
		return -ENOMEM;
	for (uint32_t s = 0; s < pl->n_slots; s++) {
		pl->off[s] = total;
		total += cnt[s];
	}
	pl->off[pl->n_slots] = total;
	pl->keys = calloc(total ? total : 1, sizeof(uint16_t));
	if (!pl->keys)
		return -ENOMEM;
	for (uint32_t s = 0; s < pl->n_slots; s++)
		if (cnt[s])
			memcpy(pl->keys + pl->off[s], lists[s],
			       cnt[s] * sizeof(uint16_t));
	return 0;
}

static int resolve_all(struct resolve *r, const struct cfg_table *parts,
		       uint16_t **lists, uint32_t *cnt, uint32_t *cap)
{
	uint32_t np;
	const struct cfg_partition **ps = sorted_parts(parts, &np);
	int rc = ps ? 0 : -ENOMEM;

	for (uint32_t i = 0; i < np && !rc; i++) {
		const struct cfg_partition *p = ps[i];
		memset(r->code, 0, r->pl->n_slots);
		r->part = p ? p->name : "default";
		if (p) {
			mark_list(r, &p->members, true);
			mark_list(r, &p->limited, false);
		}
		if (!p || p->pkey == PKEY_DEFAULT)
			mark_default(r);
		rc = append_keys(r->pl, cnt,
				 p ? (uint16_t)p->pkey : PKEY_DEFAULT, r->code,
				 lists, cap);
	}
	free(ps);
	return rc;
}

/* The partitions' SLs, for the SA's PathRecords (pkey_plan_sl). */
static int note_sls(struct pkey_plan *pl, const struct cfg_table *parts)
{
	const struct cfg_partition *p = parts->v;

	pl->sls = calloc(parts->n ? parts->n : 1, sizeof(*pl->sls));
	if (!pl->sls)
		return -ENOMEM;
	for (uint32_t i = 0; i < parts->n; i++)
		if (p[i].sl != CFG_SL_AUTO)
			pl->sls[pl->n_sls++] =
			    (struct pkey_sl){.pkey = (uint16_t)p[i].pkey,
					     .sl = (uint8_t)p[i].sl};
	return 0;
}

int pkey_plan_sl(const struct pkey_plan *pl, uint16_t pkey)
{
	for (uint32_t i = 0; pl && i < pl->n_sls; i++)
		if (pl->sls[i].pkey == (pkey & PKEY_BASE_MASK))
			return pl->sls[i].sl;
	return -1;
}

int pkey_plan_build(struct pkey_plan *pl, const struct fabric *f,
		    const struct cfg_table *parts, bool log_unknown)
{
	struct resolve r = {.f = f, .pl = pl, .log = log_unknown};
	uint16_t **lists = NULL;
	uint32_t *cnt = NULL, *cap = NULL;
	int rc;

	memset(pl, 0, sizeof(*pl));
	rc = index_slots(pl, f);
	if (!rc) {
		size_t ns = pl->n_slots ? pl->n_slots : 1;
		lists = calloc(ns, sizeof(*lists));
		cnt = calloc(ns, sizeof(*cnt));
		cap = calloc(ns, sizeof(*cap));
		r.code = calloc(ns, 1);
		r.by_desc =
		    malloc((f->n_nodes ? f->n_nodes : 1) * sizeof(*r.by_desc));
		if (!lists || !cnt || !cap || !r.code || !r.by_desc)
			rc = -ENOMEM;
	}
	if (!rc) {
		memcpy(r.by_desc, f->nodes, f->n_nodes * sizeof(*r.by_desc));
		qsort(r.by_desc, f->n_nodes, sizeof(*r.by_desc), cmp_desc);
		rc = resolve_all(&r, parts, lists, cnt, cap);
	}
	if (!rc)
		rc = flatten(pl, lists, cnt);
	if (!rc)
		rc = note_sls(pl, parts);
	if (pl->unknown > UNKNOWN_LOGGED && log_unknown)
		log_warn("partitions: %u more members name no port of the "
			 "fabric",
			 pl->unknown - UNKNOWN_LOGGED);
	for (uint32_t s = 0; lists && s < pl->n_slots; s++)
		free(lists[s]);
	free(lists);
	free(cnt);
	free(cap);
	free(r.code);
	free(r.by_desc);
	if (rc)
		pkey_plan_free(pl);
	return rc;
}

void pkey_plan_free(struct pkey_plan *pl)
{
	free(pl->node_slot);
	free(pl->nodes);
	free(pl->off);
	free(pl->keys);
	free(pl->sls);
	memset(pl, 0, sizeof(*pl));
}

static const uint16_t default_full[1] = {PKEY_DEFAULT | PKEY_FULL_BIT};

const uint16_t *pkey_plan_port(const struct pkey_plan *pl,
			       const struct ib_port *p, uint32_t *n)
{
	uint32_t s;

	*n = 0;
	if (!is_end_port(p->node, p->num))
		return NULL;
	if (!pl) {
		*n = 1;
		return default_full;
	}
	if (!pl->off || !in_plan(pl, p))
		return NULL;
	s = slot_of(pl, p);
	*n = pl->off[s + 1] - pl->off[s];
	return pl->keys + pl->off[s];
}

uint16_t pkey_plan_entry(const struct pkey_plan *pl, const struct ib_port *p,
			 uint16_t pkey)
{
	uint32_t n;
	const uint16_t *k = pkey_plan_port(pl, p, &n);

	for (uint32_t i = 0; i < n; i++)
		if (pkey_base(k[i]) == pkey_base(pkey))
			return k[i];
	return 0;
}

static bool pair_ok(uint16_t a, uint16_t b)
{
	return a && b && ((a | b) & PKEY_FULL_BIT);
}

bool pkey_plan_share_this(const struct pkey_plan *pl, const struct ib_port *a,
			  const struct ib_port *b, uint16_t pkey)
{
	return pair_ok(pkey_plan_entry(pl, a, pkey),
		       pkey_plan_entry(pl, b, pkey));
}

uint16_t pkey_plan_common(const struct pkey_plan *pl, const struct ib_port *a,
			  const struct ib_port *b)
{
	uint32_t na, nb, i = 0, j = 0;
	const uint16_t *ka = pkey_plan_port(pl, a, &na);
	const uint16_t *kb = pkey_plan_port(pl, b, &nb);

	while (i < na && j < nb) {
		uint16_t x = pkey_base(ka[i]), y = pkey_base(kb[j]);
		if (x == y && pair_ok(ka[i], kb[j]))
			return ka[i];
		i += x <= y;
		j += y <= x;
	}
	return 0;
}
