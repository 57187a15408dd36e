/* Printers driven by the schema: the canonical configuration
 * (--check-config), the documented example conf/ibsmd.yaml and the key
 * reference of ibsmd.yaml(5).  Keys print as nested YAML mappings; one
 * section's keys are adjacent in the schema, so each section opens once. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "lib/config_priv.h"

#define DOC_WIDTH 76

static void print_quoted(FILE *o, const char *s)
{
	fputc('"', o);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;
		/* YAML reads NEL, LS and PS as line breaks inside a quoted
		 * scalar (folded to a space): their escapes keep them */
		if (ch == 0xC2 && (unsigned char)s[1] == 0x85) {
			fputs("\\N", o);
			s++;
		} else if (ch == 0xE2 && (unsigned char)s[1] == 0x80 &&
			   ((unsigned char)s[2] == 0xA8 ||
			    (unsigned char)s[2] == 0xA9)) {
			fputs((unsigned char)s[2] == 0xA8 ? "\\L" : "\\P", o);
			s += 2;
		} else if (ch == '"' || ch == '\\')
			fprintf(o, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(o, "\\x%02x", ch);
		else
			fputc(ch, o);
	}
	fputc('"', o);
}

static const char *enum_name(const struct cfg_key *k, int v)
{
	for (const struct cfg_enum *e = k->enums; e->name; e++)
		if (e->value == v)
			return e->name;
	return "?";
}

static void print_table_flow(FILE *o, const struct cfg_key *k,
			     const struct cfg_table *t);

/* A value in YAML flow form (one line) from base + k->off. */
static void print_value(FILE *o, const void *base, const struct cfg_key *k)
{
	const void *f = (const char *)base + k->off;

	switch (k->type) {
	case CFG_U32:
		fprintf(o, k->flags & CFG_F_HEX ? "0x%04x" : "%u",
			*(const uint32_t *)f);
		break;
	case CFG_GUID:
		fprintf(o, "0x%016" PRIx64, *(const uint64_t *)f);
		break;
	case CFG_STRING:
	case CFG_PATH:
		print_quoted(o, *(char *const *)f);
		break;
	case CFG_ENUM:
		fputs(enum_name(k, *(const int *)f), o);
		break;
	case CFG_LIST: {
		const struct cfg_strlist *l = f;
		fputc('[', o);
		for (uint32_t i = 0; i < l->n; i++) {
			if (i)
				fputs(", ", o);
			print_quoted(o, l->v[i]);
		}
		fputc(']', o);
		break;
	}
	case CFG_TABLE:
		print_table_flow(o, k, f);
		break;
	}
}

static void print_table_flow(FILE *o, const struct cfg_key *k,
			     const struct cfg_table *t)
{
	const struct cfg_item *it = k->item;

	fputc('[', o);
	for (uint32_t i = 0; i < t->n; i++) {
		const void *item = cfg_table_at(t, it, i);
		fputs(i ? ", {" : "{", o);
		for (size_t j = 0; j < it->n_keys; j++) {
			fprintf(o, "%s%s: ", j ? ", " : "", it->keys[j].key);
			print_value(o, item, &it->keys[j]);
		}
		fputc('}', o);
	}
	fputc(']', o);
}

/* A table in block form: "- key: value" items under the key's line. */
static void print_table_block(FILE *o, const struct cfg_key *k,
			      const struct cfg_table *t, unsigned indent)
{
	const struct cfg_item *it = k->item;

	if (!t->n) {
		fputs(" []\n", o);
		return;
	}
	fputc('\n', o);
	for (uint32_t i = 0; i < t->n; i++)
		for (size_t j = 0; j < it->n_keys; j++) {
			fprintf(o, "%*s%s%s: ", (int)indent, "",
				j ? "  " : "- ", it->keys[j].key);
			print_value(o, cfg_table_at(t, it, i), &it->keys[j]);
			fputc('\n', o);
		}
}

/* Word-wrapped comment lines at the given indentation, the lines after
 * the first indented by hang more after the "# ". */
static void print_comment_hang(FILE *o, unsigned indent, unsigned hang,
			       const char *text)
{
	const char *s = text;
	unsigned h = 0;

	while (*s) {
		size_t room = DOC_WIDTH - indent - 2 - h, n = strlen(s);
		if (n > room) {
			n = room;
			while (n > 0 && s[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(s, " ");
		}
		fprintf(o, "%*s# %*s%.*s\n", (int)indent, "", (int)h, "",
			(int)n, s);
		s += n;
		h = hang;
		while (*s == ' ')
			s++;
	}
}

static void print_comment(FILE *o, unsigned indent, const char *text)
{
	print_comment_hang(o, indent, 0, text);
}

/* Number of leading dotted components shared by the sections of a and b. */
static unsigned common_sections(const char *a, const char *b)
{
	unsigned n = 0;

	for (;;) {
		const char *da = strchr(a, '.'), *db = strchr(b, '.');
		if (!da || !db || da - a != db - b ||
		    strncmp(a, b, (size_t)(da - a)))
			return n;
		n++;
		a = da + 1;
		b = db + 1;
	}
}

/* The keys of a table's items, as comments above it. */
static void print_item_docs(FILE *o, unsigned indent, const struct cfg_item *it)
{
	fprintf(o, "%*s#\n%*s# Keys of each item:\n", (int)indent, "",
		(int)indent, "");
	for (size_t j = 0; j < it->n_keys; j++) {
		char *t = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&t, &len);
		if (!m)
			return;
		fprintf(m, "  %s: %s%s", it->keys[j].key,
			it->keys[j].def ? "" : "(required) ", it->keys[j].doc);
		fclose(m);
		print_comment_hang(o, indent, 4, t);
		free(t);
	}
}

static void print_tree(const struct config *c, FILE *o, bool docs)
{
	size_t n;
	const struct cfg_key *keys = config_schema(&n);
	const char *prev = "";

	for (size_t i = 0; i < n; i++) {
		const char *key = keys[i].key, *p = key;
		unsigned common = common_sections(prev, key), level = 0;
		if (docs && common == 0)
			fputc('\n', o);
		for (const char *d; (d = strchr(p, '.')); p = d + 1, level++)
			if (level >= common)
				fprintf(o, "%*s%.*s:\n", 2 * level, "",
					(int)(d - p), p);
		if (docs)
			print_comment(o, 2 * level, keys[i].doc);
		if (docs && keys[i].type == CFG_TABLE)
			print_item_docs(o, 2 * level, keys[i].item);
		fprintf(o, "%*s%s:", 2 * level, "", p);
		if (keys[i].type == CFG_TABLE) {
			print_table_block(
			    o, &keys[i],
			    (const struct cfg_table *)((const char *)c +
						       keys[i].off),
			    2 * level + 2);
		} else {
			fputc(' ', o);
			print_value(o, c, &keys[i]);
			fputc('\n', o);
		}
		prev = key;
	}
}

void config_print(const struct config *c, FILE *out)
{
	fputs("# ibsmd effective configuration\n", out);
	print_tree(c, out, false);
}

void config_write_example(FILE *out)
{
	struct config c;

	if (config_defaults(&c) < 0)
		return;
	fputs("# ibsmd configuration: /etc/ibsmd/ibsmd.yaml, or the file given "
	      "by ibsmd -c.\n"
	      "# Every key is shown at its built-in default, so this file "
	      "changes nothing\n"
	      "# until edited.  Nested keys may also be written dotted "
	      "(\"sm.priority: 5\"),\n"
	      "# and \"ibsmd -o KEY=VALUE\" overrides any key.  "
	      "\"ibsmd --check-config\"\n"
	      "# prints the effective configuration.  See ibsmd.yaml(5).\n"
	      "#\n"
	      "# Generated from the schema in lib/config.c (test_config "
	      "--regen); edit there.\n",
	      out);
	print_tree(&c, out, true);
	config_free(&c);
}

static void man_text(FILE *o, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", o);
		else if (*s == '-')
			fputs("\\-", o);
		else
			fputc(*s, o);
	}
}

static void man_type(FILE *o, const struct cfg_key *k)
{
	switch (k->type) {
	case CFG_U32:
		fprintf(o,
			k->flags & CFG_F_HEX ? "integer 0x%04x..0x%04x"
					     : "integer %u..%u",
			k->min, k->max);
		break;
	case CFG_GUID:
		fputs("GUID", o);
		break;
	case CFG_STRING:
		fputs("string", o);
		break;
	case CFG_PATH:
		fputs("absolute path", o);
		break;
	case CFG_ENUM:
		for (const struct cfg_enum *e = k->enums; e->name; e++)
			fprintf(o, "%s%s", e == k->enums ? "" : " | ",
				e->name);
		break;
	case CFG_LIST:
		fputs(k->flags & CFG_F_ONE ? "list or one value" : "list", o);
		for (const struct cfg_enum *e = k->enums; e && e->name; e++)
			fprintf(o, "%s%s", e == k->enums ? " of " : " | ",
				e->name);
		break;
	case CFG_TABLE:
		fprintf(o, "list of at most %u mappings", k->max);
		break;
	}
}

/* One .TP entry: key, (type; default), doc. */
static void man_key(FILE *out, const char *name, const void *base,
		    const struct cfg_key *k)
{
	char *v = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&v, &len);

	if (!m)
		return;
	if (k->def)
		print_value(m, base, k);
	fclose(m);
	fprintf(out, ".TP\n.B %s\n(", name);
	man_type(out, k);
	fputs(k->def ? "; default " : "; required", out);
	man_text(out, v);
	fputs(")\n.br\n", out);
	man_text(out, k->doc);
	fputc('\n', out);
	free(v);
}

/* The item keys of a table, "partitions[].pkey", with the items' own
 * defaults. */
static void man_item_keys(FILE *out, const struct cfg_key *k)
{
	const struct cfg_item *it = k->item;
	char err[256], name[160];
	void *item = calloc(1, it->size);

	if (!item)
		return;
	if (cfg_keys_defaults(item, it->keys, it->n_keys, err, sizeof(err)) ==
	    0)
		for (size_t j = 0; j < it->n_keys; j++) {
			snprintf(name, sizeof(name), "%s[].%s", k->key,
				 it->keys[j].key);
			man_key(out, name, item, &it->keys[j]);
		}
	cfg_keys_free(item, it->keys, it->n_keys);
	free(item);
}

void config_write_man_keys(FILE *out)
{
	size_t n;
	const struct cfg_key *keys = config_schema(&n);
	struct config c;

	if (config_defaults(&c) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		man_key(out, keys[i].key, &c, &keys[i]);
		if (keys[i].type == CFG_TABLE)
			man_item_keys(out, &keys[i]);
	}
	config_free(&c);
}
