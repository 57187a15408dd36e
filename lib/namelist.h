/* One log line for a condition that many nodes or ports share in a sweep
 * (a switch without port groups, a port left without a LID): how many,
 * and the first few names, instead of one line each. */
#ifndef IBSM_NAMELIST_H
#define IBSM_NAMELIST_H

#include <stddef.h>
#include <stdint.h>

#define NAMELIST_FIRST 4

struct namelist {
	uint32_t n;	 /* names added */
	char first[160]; /* the first NAMELIST_FIRST, ", "-separated */
};

/* Counts name; keeps it when it is among the first few (cut to fit). */
void namelist_add(struct namelist *l, const char *name);
/* "S1, S2, S3, S4 and 61 more" (or "none") into buf; returns buf. */
const char *namelist_str(const struct namelist *l, char *buf, size_t len);
static inline void namelist_clear(struct namelist *l)
{
	l->n = 0;
	l->first[0] = '\0';
}

#endif
