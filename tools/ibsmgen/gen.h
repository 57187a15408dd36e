/* ibsmgen internals: a generated fabric held as switch port tables before
 * it is written in ibsim's net-file form, and one builder per family. */
#ifndef IBSMGEN_GEN_H
#define IBSMGEN_GEN_H

#include <stdint.h>
#include <stdio.h>

#include "lib/fabric.h"

#define GT_HOST 0x80000000u /* gend.peer flag: the peer is a host */

struct gend {
	uint32_t peer; /* switch index, or GT_HOST | host index; 0 + port 0 = free */
	uint8_t pport; /* peer's port, 0 = this port is free */
};

/* Switches S1..Sn all with nports ports; hosts H1..Hm with one port each.
 * Names are 1-based; indexes in the code are 0-based. */
struct gtopo {
	uint32_t n_sw, n_hosts;
	unsigned nports;
	struct gend *adj;   /* [n_sw * nports], port p at (p - 1) */
	uint32_t *host_sw;  /* [n_hosts], UINT32_MAX = not attached */
	uint8_t *host_port;
};

int gt_init(struct gtopo *g, uint32_t n_sw, unsigned nports,
	    uint32_t n_hosts);
void gt_free(struct gtopo *g);
/* Lowest free port of switch s, or 0 when it has none. */
unsigned gt_free_port(const struct gtopo *g, uint32_t s);
/* Links a.pa and b.pb (ports 1-based, both must be free). 0 or -EINVAL. */
int gt_link(struct gtopo *g, uint32_t a, unsigned pa, uint32_t b,
	    unsigned pb);
/* Links a and b on the lowest free port of each. */
int gt_link_next(struct gtopo *g, uint32_t a, uint32_t b);
/* Attaches host h to switch s on its lowest free port. */
int gt_host_next(struct gtopo *g, uint32_t h, uint32_t s);
/* Writes the net file: H1 first (the SM's node under ibsim), S1..Sn, then
 * H2..Hm.  header is printed as '#' comment lines. */
int gt_write(const struct gtopo *g, FILE *out, const char *header);
/* Prints "-N nodes -S switches -P ports" for ibsim. */
void gt_print_ibsim_args(const struct gtopo *g, FILE *out);
void gen_print_ibsim_args(const struct fabric *f, FILE *out);

/* Deterministic PRNG (splitmix64), so a seed always gives one file. */
uint64_t gen_rand(uint64_t *state);
uint32_t gen_rand_below(uint64_t *state, uint32_t n);

/* Builders: 0 or -errno, with a message printed to stderr. */
int gen_fattree2(struct gtopo *g, uint32_t hosts, unsigned radix,
		 unsigned uplinks);
int gen_fattree3(struct gtopo *g, unsigned k);
int gen_pruned(struct gtopo *g, uint32_t hosts, unsigned radix,
	       unsigned uplinks);
/* 3-level pruned fat tree (pruned3.c): pods of `leaves` leaves of `hpl`
 * hosts under `middles` middle switches, each middle with `uplinks` links
 * to the `tops` top switches. */
struct pruned3 {
	unsigned pods, leaves, hpl, middles, tops, uplinks;
};
int gen_pruned3(struct gtopo *g, const struct pruned3 *p);
int gen_torus(struct gtopo *g, unsigned x, unsigned y, unsigned z,
	      unsigned hps);
int gen_dragonfly(struct gtopo *g, unsigned a, unsigned p, unsigned h);
int gen_random(struct gtopo *g, uint32_t switches, unsigned ports,
	       unsigned hps, uint64_t seed);

/* Generator subcommands (argv[0] is the family name). */
int gen_main(int argc, char **argv);

#endif
