/* The YAML side of the configuration: libyaml loads the document; nested
 * mappings are walked with a dotted path ("routing" + "updown" + "roots"),
 * so a file may nest keys or write them dotted.  Every error names the
 * file and line of the node at fault. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "lib/config_priv.h"

#define MAX_PATH_LEN 128

struct ywalk {
	struct config *c;
	yaml_document_t *doc;
	const char *name;
	char *err;
	size_t errlen;
	uint32_t *seen; /* per schema key: line where set, 0 = not yet */
	bool no_lines;	/* text of one -o value: name it, not its lines */
};

static unsigned line_of(const yaml_node_t *n)
{
	return (unsigned)n->start_mark.line + 1;
}

static int yerr(struct ywalk *w, const yaml_node_t *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void where_of(const struct ywalk *w, const yaml_node_t *n, char *out,
		     size_t len)
{
	if (w->no_lines)
		snprintf(out, len, "%s", w->name ? w->name : "");
	else
		snprintf(out, len, "%s:%u", w->name, line_of(n));
}

static int yerr(struct ywalk *w, const yaml_node_t *n, const char *fmt, ...)
{
	char where[300], msg[512];
	va_list ap;

	where_of(w, n, where, sizeof(where));
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return cfg_err(w->err, w->errlen, where, "%s", msg);
}

static bool is_null(const yaml_node_t *n)
{
	const char *s = (const char *)n->data.scalar.value;

	return n->type == YAML_SCALAR_NODE &&
	       n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE &&
	       (!*s || !strcmp(s, "~") || !strcmp(s, "null") ||
		!strcmp(s, "Null") || !strcmp(s, "NULL"));
}

static const char *kind_name(const yaml_node_t *n)
{
	return n->type == YAML_MAPPING_NODE ? "a mapping" :
	       n->type == YAML_SEQUENCE_NODE ? "a list" : "a scalar";
}

/* The key's whole-list check, its error at the line of the item at
 * fault (or of the list). */
static int check_list(struct ywalk *w, const struct cfg_key *k, yaml_node_t *v,
		      const struct cfg_strlist *l)
{
	char why[300];
	uint32_t bad;
	yaml_node_t *at = v;

	if (cfg_check_list(k, l, &bad, why, sizeof(why)) == 0)
		return 0;
	if (v->type == YAML_SEQUENCE_NODE && bad < l->n)
		at = yaml_document_get_node(w->doc,
					    v->data.sequence.items.start[bad]);
	return yerr(w, at, "%s", why);
}

static int set_list(struct ywalk *w, void *base, const struct cfg_key *k,
		    yaml_node_t *v)
{
	struct cfg_strlist nl = { 0 };
	int r = 0;

	if (v->type == YAML_SCALAR_NODE && !is_null(v) &&
	    (k->flags & CFG_F_ONE)) {
		char ew[300];
		const char *s = (const char *)v->data.scalar.value;
		where_of(w, v, ew, sizeof(ew));
		if (!(r = cfg_check_item(k, s, ew, w->err, w->errlen)))
			r = cfg_list_push(&nl, s);
	} else if ((v->type == YAML_SCALAR_NODE && !is_null(v)) ||
		   v->type == YAML_MAPPING_NODE) {
		return yerr(w, v, "%s: expected a list, e.g. [a, b]", k->key);
	}
	if (v->type == YAML_SEQUENCE_NODE) {
		for (yaml_node_item_t *it = v->data.sequence.items.start;
		     it < v->data.sequence.items.top && !r; it++) {
			yaml_node_t *e = yaml_document_get_node(w->doc, *it);
			char ew[300];
			if (e->type != YAML_SCALAR_NODE || is_null(e)) {
				r = yerr(w, e, "%s: list items must be "
					 "GUIDs or names, got %s", k->key,
					 is_null(e) ? "an empty item"
						    : kind_name(e));
				break;
			}
			where_of(w, e, ew, sizeof(ew));
			const char *s = (const char *)e->data.scalar.value;
			if (!(r = cfg_check_item(k, s, ew, w->err, w->errlen)))
				r = cfg_list_push(&nl, s);
		}
	}
	if (!r)
		r = check_list(w, k, v, &nl);
	if (r) {
		cfg_list_free(&nl);
		return r;
	}
	struct cfg_strlist *dst =
		(struct cfg_strlist *)((char *)base + k->off);
	cfg_list_free(dst);
	*dst = nl;
	return 0;
}

static int set_table(struct ywalk *w, void *base, const struct cfg_key *k,
		     yaml_node_t *v);

/* One key's value node into base (the config or a table item). */
static int set_value_node(struct ywalk *w, void *base, const struct cfg_key *k,
			  yaml_node_t *v)
{
	char where[300];

	where_of(w, v, where, sizeof(where));
	if (k->type == CFG_LIST)
		return set_list(w, base, k, v);
	if (k->type == CFG_TABLE)
		return set_table(w, base, k, v);
	if (v->type != YAML_SCALAR_NODE)
		return yerr(w, v, "%s: expected a single value, got %s",
			    k->key, kind_name(v));
	if (is_null(v) && k->type != CFG_STRING)
		return yerr(w, v, "%s: no value given", k->key);
	return cfg_set_value(base, k, is_null(v) ? "" :
			     (const char *)v->data.scalar.value, where, w->err,
			     w->errlen);
}

static int set_key(struct ywalk *w, const struct cfg_key *k,
		   const yaml_node_t *kn, yaml_node_t *v)
{
	size_t i = cfg_index(k);

	if (w->seen[i]) {
		char first[16];
		snprintf(first, sizeof(first), "%u", w->seen[i]);
		return yerr(w, kn, "duplicate key \"%s\" (first at line %s)",
			    k->key, first);
	}
	w->seen[i] = line_of(kn);
	return set_value_node(w, w->c, k, v);
}

/* One item of a table: a mapping of the item's keys. */
static int set_item(struct ywalk *w, const struct cfg_key *k, void *item,
		    uint32_t idx, yaml_node_t *map)
{
	const struct cfg_item *it = k->item;
	uint32_t seen[32] = { 0 };
	char name[160];
	int r;

	snprintf(name, sizeof(name), "%s[%u]", k->key, idx);
	if (map->type != YAML_MAPPING_NODE)
		return yerr(w, map, "%s: expected a mapping (name: ..., "
			    "pkey: ...), got %s", name, kind_name(map));
	if ((r = cfg_keys_defaults(item, it->keys, it->n_keys, w->err,
				   w->errlen)))
		return r;
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(w->doc, p->key);
		yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
		size_t j = 0;
		if (kn->type == YAML_SCALAR_NODE)
			while (j < it->n_keys &&
			       strcmp(it->keys[j].key,
				      (char *)kn->data.scalar.value))
				j++;
		if (kn->type != YAML_SCALAR_NODE || j == it->n_keys)
			return yerr(w, kn, "%s: unknown key \"%s\"", name,
				    kn->type == YAML_SCALAR_NODE
					? (char *)kn->data.scalar.value
					: kind_name(kn));
		if (seen[j])
			return yerr(w, kn, "%s: duplicate key \"%s\" (first "
				    "at line %u)", name, it->keys[j].key,
				    seen[j]);
		seen[j] = line_of(kn);
		/* messages name the key as "partitions[1].pkey" */
		struct cfg_key kk = it->keys[j];
		char full[200];
		snprintf(full, sizeof(full), "%s.%s", name, kk.key);
		kk.key = full;
		if ((r = set_value_node(w, item, &kk, v)))
			return r;
	}
	for (size_t j = 0; j < it->n_keys; j++)
		if (!it->keys[j].def && !seen[j])
			return yerr(w, map, "%s: %s is required", name,
				    it->keys[j].key);
	return 0;
}

static int table_items(struct ywalk *w, const struct cfg_key *k,
		       struct cfg_table *t, yaml_node_t *v)
{
	uint32_t idx = 0, bad = 0;
	char msg[512];
	int r = 0;

	for (yaml_node_item_t *it = v->data.sequence.items.start;
	     it < v->data.sequence.items.top && !r; it++, idx++) {
		yaml_node_t *e = yaml_document_get_node(w->doc, *it);
		void *item;
		if (idx >= k->max)
			return yerr(w, e, "%s: more than %u items", k->key,
				    k->max);
		if (!(item = cfg_table_push(t, k->item)))
			return -ENOMEM;
		r = set_item(w, k, item, idx, e);
	}
	if (r || !cfg_table_check(k, t, &bad, msg, sizeof(msg)))
		return r;
	return yerr(w, yaml_document_get_node(
			   w->doc, v->data.sequence.items.start[bad]),
		    "%s", msg);
}

/* A list of mappings; null is an empty list. */
static int set_table(struct ywalk *w, void *base, const struct cfg_key *k,
		     yaml_node_t *v)
{
	struct cfg_table nt = { 0 };
	struct cfg_table *dst = (struct cfg_table *)((char *)base + k->off);
	int r = 0;

	if (v->type != YAML_SEQUENCE_NODE && !is_null(v))
		return yerr(w, v, "%s: expected a list of mappings (- name: "
			    "...), got %s", k->key, kind_name(v));
	if (v->type == YAML_SEQUENCE_NODE)
		r = table_items(w, k, &nt, v);
	if (r) {
		cfg_table_free(&nt, k->item);
		return r;
	}
	cfg_table_free(dst, k->item);
	*dst = nt;
	return 0;
}

static int walk_mapping(struct ywalk *w, yaml_node_t *map, const char *prefix);

/* Two equal keys in one mapping (a repeated section, say). */
static int check_dup_in_mapping(struct ywalk *w, yaml_node_t *map,
				yaml_node_pair_t *p, const char *path)
{
	yaml_node_t *kn = yaml_document_get_node(w->doc, p->key);

	for (yaml_node_pair_t *q = map->data.mapping.pairs.start; q < p; q++) {
		yaml_node_t *qn = yaml_document_get_node(w->doc, q->key);
		if (qn->type == YAML_SCALAR_NODE &&
		    !strcmp((char *)qn->data.scalar.value,
			    (char *)kn->data.scalar.value))
			return yerr(w, kn, "duplicate key \"%s\" (first at "
				    "line %u)", path, line_of(qn));
	}
	return 0;
}

static int walk_pair(struct ywalk *w, yaml_node_t *map, yaml_node_pair_t *p,
		     const char *prefix)
{
	yaml_node_t *kn = yaml_document_get_node(w->doc, p->key);
	yaml_node_t *v = yaml_document_get_node(w->doc, p->value);
	const struct cfg_key *k;
	char path[MAX_PATH_LEN];
	int r;

	if (kn->type != YAML_SCALAR_NODE)
		return yerr(w, kn, "keys must be names, got %s",
			    kind_name(kn));
	if ((size_t)snprintf(path, sizeof(path), "%s%s%s", prefix,
			     *prefix ? "." : "",
			     (char *)kn->data.scalar.value) >= sizeof(path))
		return yerr(w, kn, "key too long");
	if ((r = check_dup_in_mapping(w, map, p, path)) < 0)
		return r;
	if ((k = cfg_find(path)))
		return set_key(w, k, kn, v);
	if (!cfg_is_section(path))
		return yerr(w, kn, "unknown key \"%s\"", path);
	if (v->type == YAML_MAPPING_NODE)
		return walk_mapping(w, v, path);
	if (is_null(v))
		return 0; /* an empty section: nothing set */
	return yerr(w, v, "\"%s\" is a section: expected a mapping of its "
		    "keys, got %s", path, kind_name(v));
}

static int walk_mapping(struct ywalk *w, yaml_node_t *map, const char *prefix)
{
	int r = 0;

	for (yaml_node_pair_t *p = map->data.mapping.pairs.start;
	     p < map->data.mapping.pairs.top && !r; p++)
		r = walk_pair(w, map, p, prefix);
	return r;
}

static int syntax_error(const yaml_parser_t *p, const char *name, char *err,
			size_t errlen)
{
	char where[300];

	snprintf(where, sizeof(where), "%s:%zu", name,
		 p->problem_mark.line + 1);
	if (p->error == YAML_MEMORY_ERROR)
		return cfg_err(err, errlen, name, "out of memory");
	if (p->context)
		return cfg_err(err, errlen, where, "YAML syntax error: %s (%s "
			       "at line %zu)", p->problem ? p->problem : "?",
			       p->context, p->context_mark.line + 1);
	return cfg_err(err, errlen, where, "YAML syntax error: %s",
		       p->problem ? p->problem : "unknown");
}

int config_load_string(struct config *c, const char *yaml, const char *name,
		       char *err, size_t errlen)
{
	size_t n_keys;
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int r = 0;

	config_schema(&n_keys);
	if (!name)
		name = "<string>";
	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)yaml,
				     strlen(yaml));
	if (!yaml_parser_load(&parser, &doc)) {
		r = syntax_error(&parser, name, err, errlen);
		yaml_parser_delete(&parser);
		return r;
	}
	root = yaml_document_get_root_node(&doc);
	if (root && !is_null(root)) {
		struct ywalk w = { c, &doc, name, err, errlen,
				   calloc(n_keys, sizeof(uint32_t)), false };
		if (!w.seen)
			r = -ENOMEM;
		else if (root->type != YAML_MAPPING_NODE)
			r = yerr(&w, root, "expected a mapping of keys at the "
				 "top level, got %s", kind_name(root));
		else
			r = walk_mapping(&w, root, "");
		free(w.seen);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

int cfg_table_from_text(void *base, const struct cfg_key *k, const char *s,
			const char *where, char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int r;

	if (!yaml_parser_initialize(&parser))
		return -ENOMEM;
	yaml_parser_set_input_string(&parser, (const unsigned char *)s,
				     strlen(s));
	if (!yaml_parser_load(&parser, &doc)) {
		r = cfg_err(err, errlen, where, "%s: YAML syntax error: %s",
			    k->key, parser.problem ? parser.problem : "?");
		yaml_parser_delete(&parser);
		return r;
	}
	root = yaml_document_get_root_node(&doc);
	{
		struct ywalk w = { NULL, &doc, where, err, errlen, NULL, true };
		yaml_node_t empty = { .type = YAML_SCALAR_NODE };
		empty.data.scalar.value = (yaml_char_t *)"";
		empty.data.scalar.style = YAML_PLAIN_SCALAR_STYLE;
		r = set_table(&w, base, k, root ? root : &empty);
	}
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return r;
}

int config_load_file(struct config *c, const char *path, char *err,
		     size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0;
	int r;

	if (!f) {
		r = -errno;
		cfg_err(err, errlen, path, "%s", strerror(errno));
		return r;
	}
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	r = ferror(f) ? -(errno ? errno : EIO) : 0;
	fclose(f);
	fclose(m);
	if (r)
		cfg_err(err, errlen, path, "%s", strerror(-r));
	else if (memchr(buf, '\0', len))
		r = cfg_err(err, errlen, path, "contains a NUL byte; not a "
			    "YAML text file");
	else
		r = config_load_string(c, buf, path, err, errlen);
	free(buf);
	return r;
}
