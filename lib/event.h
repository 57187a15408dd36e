/* Events as structured log lines (OpenSM's event plugin, for log
 * shippers): one line per event, "event {JSON object}", at notice level,
 * the object's first keys "event" (its name) and "time" (UTC, RFC 3339
 * with milliseconds), then the event's own keys.  Names and keys are in
 * docs/design.md §4.4 and man/ibsmd.8.  A writer:
 *
 *	struct event_line e;
 *	if (event_begin(&e, "trap") == 0) {
 *		json_kv_uint(&e.j, "trap", 128);
 *		event_end(&e);
 *	}
 *
 * An event that cannot be built (no memory) is dropped with a warning. */
#ifndef IBSM_EVENT_H
#define IBSM_EVENT_H

#include <stdint.h>
#include <stdio.h>

#include "lib/json.h"

struct event_line {
	struct json j;
	FILE *f;
	char *buf;
	size_t len;
};

/* 0, or -ENOMEM (nothing to end) or -ECANCELED (notice level is off). */
int event_begin(struct event_line *e, const char *name);
/* Ends the object and logs the line. */
void event_end(struct event_line *e);
/* A GUID as the "0x%016x" text the other logs and ibsmctl use. */
void event_kv_guid(struct event_line *e, const char *key, uint64_t guid);

#endif
