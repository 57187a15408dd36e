/* ibsmpattern internals: the multicast-pattern generators (grid, random,
 * churn) over a list of host ports, and the event writer that prints the
 * docs/design.md §6 event lines ("+ MGID MEMBER..." / "- MGID"). */
#ifndef IBSMPATTERN_H
#define IBSMPATTERN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* One host port, in topology-file order. */
struct pat_host {
	const char *desc; /* NodeDescription of its CA */
	uint64_t guid;	  /* port GUID */
};

struct pat_out {
	FILE *fp;
	const struct pat_host *hosts;
	uint32_t n_hosts;
	bool by_guid;	  /* members as 0x port GUIDs, else NodeDescriptions */
	uint64_t next_id; /* MGID counter, the low 64 bits of the MGID */
	uint64_t groups, deletes;
};

/* splitmix64: small, seedable, the same stream on every platform. */
struct pat_rng {
	uint64_t s;
};
uint64_t pat_rand(struct pat_rng *r);
/* Uniform in [0, n), n > 0. */
uint64_t pat_rand_below(struct pat_rng *r, uint64_t n);
/* Fisher-Yates shuffle of v[0..n). */
void pat_shuffle(struct pat_rng *r, uint32_t *v, uint32_t n);

/* Formats the MGID with low 64 bits `id` in inet_ntop form into buf
 * (at least 46 bytes). */
void pat_mgid(uint64_t id, char *buf, size_t len);
/* Prints a "+" line for a group of the given host indexes (duplicates
 * already removed); returns the MGID counter it used.  -errno on a write
 * error. */
int64_t pat_emit_create(struct pat_out *o, const uint32_t *hosts, uint32_t n);
int pat_emit_delete(struct pat_out *o, uint64_t id);

struct pat_grid {
	uint32_t dim[3]; /* extents; ndim 2 or 3 */
	unsigned ndim;
	unsigned ppn; /* processes per host */
	bool shuffle; /* topology-unaware placement */
	uint64_t seed;
};

/* Number of groups a grid creates (one per line along each axis whose
 * extent is above 1). */
uint64_t pat_grid_count(const struct pat_grid *g);
/* Writes the grid's groups.  -EINVAL when the grid needs more process
 * slots than n_hosts * ppn (message printed), -errno on write errors. */
int pat_grid_write(struct pat_out *o, const struct pat_grid *g);

struct pat_random {
	uint64_t count;	   /* groups to create */
	uint32_t min, max; /* size range, uniform, members are hosts */
	uint64_t seed;
	/* churn only: at most `live` groups exist at once; a delete is drawn
	 * with probability del_pct percent while groups exist */
	uint64_t live;
	unsigned del_pct;
};

int pat_random_write(struct pat_out *o, const struct pat_random *p);
/* Create/delete mix ending with every group deleted. */
int pat_churn_write(struct pat_out *o, const struct pat_random *p);

#endif
