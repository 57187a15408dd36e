/* Fabric builders for the multicast unit tests: hand-drawn switches and
 * hosts, and generated fat trees and tori.  Header-only (static), included
 * by test_mcast*.c and test_mr4lms*.c. */
#ifndef TEST_MCAST_FAB_H
#define TEST_MCAST_FAB_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/fabric.h"

static uint64_t fab_next_guid __attribute__((unused)) = 0x1000;

static inline struct ib_node *fab_sw(struct fabric *f, const char *name, uint8_t nports)
{
	struct ib_node *n = fabric_add_node(f, IB_NODE_SWITCH, fab_next_guid++,
					    nports, name);
	if (!n)
		abort();
	return n;
}

/* A one-port CA linked to sw.port; returns its port 1. */
static inline struct ib_port *fab_host(struct fabric *f, const char *name,
				struct ib_node *sw, uint8_t port)
{
	struct ib_node *n = fabric_add_node(f, IB_NODE_CA, fab_next_guid++, 1, name);
	if (!n || fabric_set_port_guid(f, &n->ports[1], fab_next_guid++) < 0 ||
	    fabric_link(f, sw, port, n, 1) < 0)
		abort();
	return &n->ports[1];
}

static inline void fab_link(struct fabric *f, struct ib_node *a, uint8_t pa,
		     struct ib_node *b, uint8_t pb)
{
	if (fabric_link(f, a, pa, b, pb) < 0)
		abort();
}

/* Two-level fat tree: nl leaves with nh hosts each, ns spines; leaf port
 * 1..nh hosts, nh+1.. spines.  hosts[] gets nl*nh ports in leaf order. */
static inline void fab_fat2(struct fabric *f, unsigned nl, unsigned nh, unsigned ns,
		     struct ib_port **hosts)
{
	struct ib_node *sp[64], *lf;
	char name[32];

	for (unsigned s = 0; s < ns; s++) {
		snprintf(name, sizeof(name), "spine%u", s);
		sp[s] = fab_sw(f, name, (uint8_t)nl);
	}
	for (unsigned l = 0; l < nl; l++) {
		snprintf(name, sizeof(name), "leaf%u", l);
		lf = fab_sw(f, name, (uint8_t)(nh + ns));
		for (unsigned h = 0; h < nh; h++) {
			snprintf(name, sizeof(name), "h%u", l * nh + h);
			hosts[l * nh + h] = fab_host(f, name, lf, (uint8_t)(h + 1));
		}
		for (unsigned s = 0; s < ns; s++)
			fab_link(f, lf, (uint8_t)(nh + 1 + s), sp[s], (uint8_t)(l + 1));
	}
}

/* Three-level fat tree of k-port switches (k even, small): k pods of k/2
 * edge and k/2 aggregation switches, (k/2)^2 cores, k/2 hosts per edge. */
static inline unsigned fab_fat3(struct fabric *f, unsigned k, struct ib_port **hosts)
{
	unsigned h = k / 2, nh = 0;
	struct ib_node *core[64], *agg[16], *edge;
	char name[32];

	for (unsigned c = 0; c < h * h; c++) {
		snprintf(name, sizeof(name), "core%u", c);
		core[c] = fab_sw(f, name, (uint8_t)k);
	}
	for (unsigned p = 0; p < k; p++) {
		for (unsigned a = 0; a < h; a++) {
			snprintf(name, sizeof(name), "agg%u.%u", p, a);
			agg[a] = fab_sw(f, name, (uint8_t)k);
			for (unsigned c = 0; c < h; c++)
				fab_link(f, agg[a], (uint8_t)(h + 1 + c),
					 core[a * h + c], (uint8_t)(p + 1));
		}
		for (unsigned e = 0; e < h; e++) {
			snprintf(name, sizeof(name), "edge%u.%u", p, e);
			edge = fab_sw(f, name, (uint8_t)k);
			for (unsigned a = 0; a < h; a++)
				fab_link(f, edge, (uint8_t)(h + 1 + a), agg[a],
					 (uint8_t)(e + 1));
			for (unsigned i = 0; i < h; i++) {
				snprintf(name, sizeof(name), "h%u", nh);
				hosts[nh++] = fab_host(f, name, edge, (uint8_t)(i + 1));
			}
		}
	}
	return nh;
}

/* X*Y*Z torus, 2 hosts per switch on ports 7, 8; ports 1..6 = +x -x +y -y
 * +z -z.  Dimensions of 2 get a single link (no double edges). */
static inline unsigned fab_torus(struct fabric *f, unsigned X, unsigned Y, unsigned Z,
			  struct ib_port **hosts)
{
	struct ib_node **sw = calloc(X * Y * Z, sizeof(*sw));
	unsigned nh = 0, dim[3] = { X, Y, Z };
	char name[32];

	for (unsigned i = 0; i < X * Y * Z; i++) {
		snprintf(name, sizeof(name), "t%u", i);
		sw[i] = fab_sw(f, name, 8);
		for (unsigned hh = 0; hh < 2; hh++) {
			snprintf(name, sizeof(name), "h%u", nh);
			hosts[nh++] = fab_host(f, name, sw[i], (uint8_t)(7 + hh));
		}
	}
	for (unsigned i = 0; i < X * Y * Z; i++) {
		unsigned c[3] = { i % X, (i / X) % Y, i / (X * Y) };
		for (unsigned d = 0; d < 3; d++) {
			if (dim[d] < 2 || (dim[d] == 2 && c[d] == 1))
				continue;
			unsigned n[3] = { c[0], c[1], c[2] };
			n[d] = (c[d] + 1) % dim[d];
			unsigned j = n[0] + X * (n[1] + Y * n[2]);
			fab_link(f, sw[i], (uint8_t)(1 + 2 * d), sw[j], (uint8_t)(2 + 2 * d));
		}
	}
	free(sw);
	return nh;
}

#endif
