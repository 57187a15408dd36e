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
		if (ch == '"' || ch == '\\')
			fprintf(o, "\\%c", ch);
		else if (ch < 0x20 || ch == 0x7f)
			fprintf(o, "\\x%02x", ch);
		else
			fputc(ch, o);
	}
	fputc('"', o);
}

static void print_value(FILE *o, const struct config *c,
			const struct cfg_key *k)
{
	const void *f = (const char *)c + k->off;

	switch (k->type) {
	case CFG_U32:
		fprintf(o, "%u", *(const uint32_t *)f);
		break;
	case CFG_GUID:
		fprintf(o, "0x%016" PRIx64, *(const uint64_t *)f);
		break;
	case CFG_STRING:
	case CFG_PATH:
		print_quoted(o, *(char *const *)f);
		break;
	case CFG_ENUM:
		fputs(config_enum_name(k->key, *(const int *)f), o);
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
	}
}

/* Word-wrapped comment lines at the given indentation. */
static void print_comment(FILE *o, unsigned indent, const char *text)
{
	const char *s = text;

	while (*s) {
		size_t room = DOC_WIDTH - indent - 2, n = strlen(s);
		if (n > room) {
			n = room;
			while (n > 0 && s[n] != ' ')
				n--;
			if (n == 0)
				n = strcspn(s, " ");
		}
		fprintf(o, "%*s# %.*s\n", (int)indent, "", (int)n, s);
		s += n;
		while (*s == ' ')
			s++;
	}
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
		fprintf(o, "%*s%s: ", 2 * level, "", p);
		print_value(o, c, &keys[i]);
		fputc('\n', o);
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
		fprintf(o, "integer %u..%u", k->min, k->max);
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
		fputs("list", o);
		for (const struct cfg_enum *e = k->enums; e && e->name; e++)
			fprintf(o, "%s%s", e == k->enums ? " of " : " | ",
				e->name);
		break;
	}
}

void config_write_man_keys(FILE *out)
{
	size_t n;
	const struct cfg_key *keys = config_schema(&n);
	struct config c;

	if (config_defaults(&c) < 0)
		return;
	for (size_t i = 0; i < n; i++) {
		char *v = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&v, &len);
		if (!m)
			break;
		print_value(m, &c, &keys[i]);
		fclose(m);
		fprintf(out, ".TP\n.B %s\n(", keys[i].key);
		man_type(out, &keys[i]);
		fputs("; default ", out);
		man_text(out, v);
		fputs(")\n.br\n", out);
		man_text(out, keys[i].doc);
		fputc('\n', out);
		free(v);
	}
	config_free(&c);
}
