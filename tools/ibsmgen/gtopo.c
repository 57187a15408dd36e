/* The generated-fabric container and its writer (ibsim net-file form). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tools/ibsmgen/gen.h"

int gt_init(struct gtopo *g, uint32_t n_sw, unsigned nports, uint32_t n_hosts)
{
	memset(g, 0, sizeof(*g));
	if (nports < 1 || nports > 255) {
		fprintf(stderr,
			"ibsmgen: switch radix %u out of range "
			"1..255\n",
			nports);
		return -EINVAL;
	}
	g->n_sw = n_sw;
	g->nports = nports;
	g->n_hosts = n_hosts;
	g->adj = calloc((size_t)n_sw * nports + 1, sizeof(*g->adj));
	g->host_sw = malloc(((size_t)n_hosts + 1) * sizeof(*g->host_sw));
	g->host_port = calloc((size_t)n_hosts + 1, 1);
	if (!g->adj || !g->host_sw || !g->host_port) {
		gt_free(g);
		return -ENOMEM;
	}
	memset(g->host_sw, 0xff, ((size_t)n_hosts + 1) * sizeof(*g->host_sw));
	return 0;
}

void gt_free(struct gtopo *g)
{
	free(g->adj);
	free(g->host_sw);
	free(g->host_port);
	memset(g, 0, sizeof(*g));
}

static struct gend *end_of(const struct gtopo *g, uint32_t s, unsigned p)
{
	return &g->adj[(size_t)s * g->nports + p - 1];
}

unsigned gt_free_port(const struct gtopo *g, uint32_t s)
{
	for (unsigned p = 1; p <= g->nports; p++)
		if (!end_of(g, s, p)->pport)
			return p;
	return 0;
}

int gt_link(struct gtopo *g, uint32_t a, unsigned pa, uint32_t b, unsigned pb)
{
	if (a >= g->n_sw || b >= g->n_sw || !pa || !pb || pa > g->nports ||
	    pb > g->nports || (a == b && pa == pb) || end_of(g, a, pa)->pport ||
	    end_of(g, b, pb)->pport)
		return -EINVAL;
	*end_of(g, a, pa) = (struct gend){b, (uint8_t)pb};
	*end_of(g, b, pb) = (struct gend){a, (uint8_t)pa};
	return 0;
}

int gt_link_next(struct gtopo *g, uint32_t a, uint32_t b)
{
	unsigned pa = gt_free_port(g, a), pb;

	if (!pa)
		return -ENOSPC;
	end_of(g, a, pa)->pport = 0xff; /* reserve: a == b needs two ports */
	pb = gt_free_port(g, b);
	end_of(g, a, pa)->pport = 0;
	if (!pb)
		return -ENOSPC;
	return gt_link(g, a, pa, b, pb);
}

int gt_host_next(struct gtopo *g, uint32_t h, uint32_t s)
{
	unsigned p = gt_free_port(g, s);

	if (!p || h >= g->n_hosts || g->host_sw[h] != UINT32_MAX)
		return -ENOSPC;
	*end_of(g, s, p) = (struct gend){GT_HOST | h, 1};
	g->host_sw[h] = s;
	g->host_port[h] = (uint8_t)p;
	return 0;
}

static void write_host(const struct gtopo *g, uint32_t h, FILE *out)
{
	fprintf(out, "Hca\t1 \"H%u\"\n", h + 1);
	if (g->host_sw[h] != UINT32_MAX)
		fprintf(out, "[1]\t\"S%u\"[%u]\n", g->host_sw[h] + 1,
			g->host_port[h]);
	fputc('\n', out);
}

static void write_switch(const struct gtopo *g, uint32_t s, FILE *out)
{
	fprintf(out, "Switch\t%u \"S%u\"\n", g->nports, s + 1);
	for (unsigned p = 1; p <= g->nports; p++) {
		const struct gend *e = end_of(g, s, p);
		if (!e->pport)
			continue;
		if (e->peer & GT_HOST)
			fprintf(out, "[%u]\t\"H%u\"[1]\n", p,
				(e->peer & ~GT_HOST) + 1);
		else
			fprintf(out, "[%u]\t\"S%u\"[%u]\n", p, e->peer + 1,
				e->pport);
	}
	fputc('\n', out);
}

int gt_write(const struct gtopo *g, FILE *out, const char *header)
{
	const char *s = header;

	while (s && *s) {
		size_t n = strcspn(s, "\n");
		fprintf(out, "# %.*s\n", (int)n, s);
		s += n + (s[n] == '\n');
	}
	fprintf(out,
		"# %u switches of %u ports, %u hosts; the first node is "
		"a host so ibsim attaches the SM to a CA port.\n\n",
		g->n_sw, g->nports, g->n_hosts);
	if (g->n_hosts)
		write_host(g, 0, out);
	for (uint32_t i = 0; i < g->n_sw; i++)
		write_switch(g, i, out);
	for (uint32_t h = 1; h < g->n_hosts; h++)
		write_host(g, h, out);
	return ferror(out) ? -EIO : 0;
}

/* ibsim 0.10's switches hold 30,720 LFT entries (LIDs 0..30719) unless
 * told otherwise with -L; a fabric with more LIDs gets -L 49152, every
 * unicast LID, so that it comes up whole (ibsmd leaves out what does not
 * fit below the cap: docs/design.md §3.4). */
#define IBSIM_DEFAULT_LFT_CAP 30720

/* ibsim counts a switch's ports with port 0, a CA's without.  Its MFT
 * entries are two 16-bit port masks (NUMBEROFPORTMASK 2 in ibsim's
 * sim.h): multicast only reaches ports 0..31, so warn above that.
 * lids: the LIDs the fabric needs at LMC 0 (switches and CA ports). */
static void print_args(uint32_t nodes, uint32_t switches, uint64_t ports,
		       uint64_t lids, unsigned max_sw_ports, FILE *out)
{
	if (max_sw_ports > 31)
		fprintf(stderr,
			"ibsmgen: warning: switches have %u ports; "
			"ibsim's multicast tables hold ports 0..31 only\n",
			max_sw_ports);
	fprintf(out, "-N %u -S %u -P %llu", nodes, switches,
		(unsigned long long)ports);
	if (lids >= IBSIM_DEFAULT_LFT_CAP)
		fprintf(out, " -L %u", IB_LID_UCAST_END + 1);
	fputc('\n', out);
}

void gt_print_ibsim_args(const struct gtopo *g, FILE *out)
{
	print_args(g->n_sw + g->n_hosts, g->n_sw,
		   (uint64_t)g->n_sw * (g->nports + 1) + g->n_hosts,
		   (uint64_t)g->n_sw + g->n_hosts, g->n_sw ? g->nports : 0,
		   out);
}

void gen_print_ibsim_args(const struct fabric *f, FILE *out)
{
	uint64_t ports = 0, lids = 0;
	unsigned max_sw = 0;

	for (uint32_t i = 0; i < f->n_nodes; i++) {
		const struct ib_node *n = f->nodes[i];
		ports += n->nports + (n->type == IB_NODE_SWITCH);
		lids += n->type == IB_NODE_SWITCH ? 1 : n->nports;
		if (n->type == IB_NODE_SWITCH && n->nports > max_sw)
			max_sw = n->nports;
	}
	print_args(f->n_nodes, f->n_switches, ports, lids, max_sw, out);
}

uint64_t gen_rand(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint32_t gen_rand_below(uint64_t *state, uint32_t n)
{
	return (uint32_t)(gen_rand(state) % n);
}
