/* Streaming JSON writer: see json.h.  Each value first calls begin_value(),
 * which writes the separator and indentation its position needs and checks
 * that a value is allowed there. */
#include "lib/json.h"

#include <errno.h>
#include <math.h>

void json_init(struct json *j, FILE *out, bool pretty)
{
	*j = (struct json){ .out = out, .pretty = pretty };
}

static void set_err(struct json *j, int err)
{
	if (!j->err)
		j->err = err;
}

static void newline_indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->out);
	for (unsigned i = 0; i < j->depth; i++)
		fputs("  ", j->out);
}

/* Separator before a new member of the current container. */
static void begin_member(struct json *j)
{
	if (j->nonempty[j->depth - 1])
		fputc(',', j->out);
	j->nonempty[j->depth - 1] = true;
	newline_indent(j);
}

static bool begin_value(struct json *j)
{
	if (j->err)
		return false;
	if (j->depth == 0) {
		if (j->top_done) {
			set_err(j, -EINVAL);
			return false;
		}
		return true;
	}
	if (j->kind[j->depth - 1] == 'o') {
		if (!j->after_key) {
			set_err(j, -EINVAL); /* object member without a key */
			return false;
		}
		j->after_key = false;
		return true;
	}
	begin_member(j);
	return true;
}

static void end_value(struct json *j)
{
	if (j->depth == 0)
		j->top_done = true;
}

static void open_container(struct json *j, char kind)
{
	if (!begin_value(j))
		return;
	if (j->depth == JSON_MAX_DEPTH) {
		set_err(j, -EINVAL);
		return;
	}
	fputc(kind == 'o' ? '{' : '[', j->out);
	j->kind[j->depth] = kind;
	j->nonempty[j->depth] = false;
	j->depth++;
}

static void close_container(struct json *j, char kind)
{
	if (j->err)
		return;
	if (j->depth == 0 || j->kind[j->depth - 1] != kind || j->after_key) {
		set_err(j, -EINVAL);
		return;
	}
	bool had = j->nonempty[j->depth - 1];
	j->depth--;
	if (had)
		newline_indent(j);
	fputc(kind == 'o' ? '}' : ']', j->out);
	end_value(j);
}

void json_begin_object(struct json *j) { open_container(j, 'o'); }
void json_end_object(struct json *j) { close_container(j, 'o'); }
void json_begin_array(struct json *j) { open_container(j, 'a'); }
void json_end_array(struct json *j) { close_container(j, 'a'); }

static void write_escaped(FILE *o, const char *s)
{
	fputc('"', o);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", o); break;
		case '\\': fputs("\\\\", o); break;
		case '\b': fputs("\\b", o); break;
		case '\f': fputs("\\f", o); break;
		case '\n': fputs("\\n", o); break;
		case '\r': fputs("\\r", o); break;
		case '\t': fputs("\\t", o); break;
		default:
			if (*p < 0x20)
				fprintf(o, "\\u%04x", *p);
			else
				fputc(*p, o); /* UTF-8 passes through */
		}
	}
	fputc('"', o);
}

void json_key(struct json *j, const char *key)
{
	if (j->err)
		return;
	if (j->depth == 0 || j->kind[j->depth - 1] != 'o' || j->after_key) {
		set_err(j, -EINVAL);
		return;
	}
	begin_member(j);
	write_escaped(j->out, key);
	fputs(j->pretty ? ": " : ":", j->out);
	j->after_key = true;
}

void json_string(struct json *j, const char *s)
{
	if (!begin_value(j))
		return;
	if (s)
		write_escaped(j->out, s);
	else
		fputs("null", j->out);
	end_value(j);
}

void json_int(struct json *j, long long v)
{
	if (!begin_value(j))
		return;
	fprintf(j->out, "%lld", v);
	end_value(j);
}

void json_uint(struct json *j, unsigned long long v)
{
	if (!begin_value(j))
		return;
	fprintf(j->out, "%llu", v);
	end_value(j);
}

void json_double(struct json *j, double v)
{
	if (!begin_value(j))
		return;
	if (!isfinite(v))
		fputs("null", j->out);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(j->out, "%.1f", v); /* keep it a JSON number with a
					      fraction, so readers see a float */
	else
		fprintf(j->out, "%.15g", v);
	end_value(j);
}

void json_bool(struct json *j, bool v)
{
	if (!begin_value(j))
		return;
	fputs(v ? "true" : "false", j->out);
	end_value(j);
}

void json_null(struct json *j)
{
	if (!begin_value(j))
		return;
	fputs("null", j->out);
	end_value(j);
}

void json_kv_string(struct json *j, const char *key, const char *s)
{
	json_key(j, key);
	json_string(j, s);
}

void json_kv_int(struct json *j, const char *key, long long v)
{
	json_key(j, key);
	json_int(j, v);
}

void json_kv_uint(struct json *j, const char *key, unsigned long long v)
{
	json_key(j, key);
	json_uint(j, v);
}

void json_kv_double(struct json *j, const char *key, double v)
{
	json_key(j, key);
	json_double(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
	json_key(j, key);
	json_bool(j, v);
}

int json_finish(struct json *j)
{
	if (!j->err && (j->depth || !j->top_done))
		set_err(j, -EINVAL);
	if (!j->err)
		fputc('\n', j->out);
	if (fflush(j->out) != 0 || ferror(j->out))
		set_err(j, -EIO);
	return j->err;
}
