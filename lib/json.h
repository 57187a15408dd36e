/* A small streaming JSON writer (for ibsmroute's report, ibsmctl and the
 * benchmarks): objects, arrays, keys, escaped strings, integers, doubles,
 * booleans and null, written straight to a FILE.  Misuse (a value in an
 * object without a key, unbalanced ends) is remembered and reported by
 * json_finish() instead of producing invalid output silently. */
#ifndef IBSM_JSON_H
#define IBSM_JSON_H

#include <stdbool.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *out;
	bool pretty;
	unsigned depth;
	int err;	/* first error, 0 or negative errno */
	bool after_key; /* a key was written, its value is due */
	bool top_done;	/* the top-level value is complete */
	/* per open container: 'o' object or 'a' array, and whether it
	 * already holds a member (so the next one needs a comma) */
	char kind[JSON_MAX_DEPTH];
	bool nonempty[JSON_MAX_DEPTH];
};

/* pretty: newlines and two-space indentation; else one line. */
void json_init(struct json *j, FILE *out, bool pretty);

void json_begin_object(struct json *j);
void json_end_object(struct json *j);
void json_begin_array(struct json *j);
void json_end_array(struct json *j);
void json_key(struct json *j, const char *key);

void json_string(struct json *j, const char *s);
void json_int(struct json *j, long long v);
void json_uint(struct json *j, unsigned long long v);
/* NaN and infinities, which JSON cannot hold, are written as null. */
void json_double(struct json *j, double v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);

/* key + value in one call, for the common case. */
void json_kv_string(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_uint(struct json *j, const char *key, unsigned long long v);
void json_kv_double(struct json *j, const char *key, double v);
void json_kv_bool(struct json *j, const char *key, bool v);

/* Ends the document (newline).  0, -EINVAL on misuse or unbalanced
 * containers, -EIO on a write error. */
int json_finish(struct json *j);

#endif
