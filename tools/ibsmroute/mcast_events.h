/* ibsmroute --groups files (docs/design.md §6): one event per line, "+ MGID
 * MEMBER..." creates a group, "- MGID" deletes one; members are host
 * NodeDescriptions or 0x port GUIDs.  Parsed whole before routing, so the
 * routing time excludes parsing. */
#ifndef IBSMROUTE_MCAST_EVENTS_H
#define IBSMROUTE_MCAST_EVENTS_H

#include <stdint.h>

#include "lib/fabric.h"

struct mc_event {
	uint8_t mgid[16];
	char op;		 /* '+' or '-' */
	uint32_t first, n;	 /* members: ev->ports[first .. first+n) */
	uint32_t line;
	uint32_t seq;		 /* index in file order (the order may change) */
};

struct mc_events {
	struct mc_event *ev;
	uint32_t n, cap;
	struct ib_port **ports;
	uint64_t nports, cap_ports;
	uint32_t creates;
};

/* Reads path.  0, or -errno / -EINVAL with "path:line: why" in err. */
int mc_events_load(const char *path, struct fabric *f, struct mc_events *e,
		   char *err, size_t errlen);
void mc_events_free(struct mc_events *e);

/* MGID -> value map (open addressing), for group ids by MGID. */
struct mgid_map {
	uint8_t (*keys)[16];
	uint32_t *vals;
	uint32_t cap, used;
};
int mgid_map_put(struct mgid_map *m, const uint8_t k[16], uint32_t v);
uint32_t mgid_map_get(const struct mgid_map *m, const uint8_t k[16]); /* UINT32_MAX if none */
void mgid_map_del(struct mgid_map *m, const uint8_t k[16]);
void mgid_map_free(struct mgid_map *m);

#endif
