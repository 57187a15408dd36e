/* Shared fixture of the SA server tests: a small fabric built in code
 * (the ibsim example net.2sw2path4hca plus a third switch behind a 1X link
 * with a 1024-MTU host), LFTs computed here by BFS (independently of the
 * code under test), and helpers to encode requests and read answers. */
#ifndef SA_FIXTURE_H
#define SA_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "daemon/sa/sa_server.h"
#include "mad/sa_mad.h"
#include "mad/sa_wire.h"

struct fx {
	struct fabric f;
	struct sa sa;
	struct sa_out out;
	struct ib_node *sw[3], *h[5];
	uint64_t now;
	uint16_t from_lid; /* requester of fx_ask, 0: LID 2 (Hca1's port) */
	uint64_t sm_key;   /* SM_Key fx_ask puts in the SA header */
};

static struct fx *fx_cur;
static uint64_t fx_now(void)
{
	return fx_cur->now;
}

static void fx_port(struct ib_port *p, uint8_t width, uint8_t mtu)
{
	p->state = IB_PORT_ACTIVE;
	p->phys_state = 5;
	p->width_active = width;
	p->speed_active = 1;
	p->mtu_cap = mtu;
	p->vl_cap = 4;
}

static void fx_link(struct fx *x, struct ib_node *a, uint8_t pa,
		    struct ib_node *b, uint8_t pb, uint8_t width)
{
	fabric_link(&x->f, a, pa, b, pb);
	fx_port(&a->ports[pa], width, 4);
	fx_port(&b->ports[pb], width, 4);
}

/* Every switch's LFT: for each LID the lowest-numbered port on a shortest
 * path, by BFS over nodes from the destination. */
static void fx_route(struct fx *x)
{
	struct fabric *f = &x->f;
	uint32_t n = f->n_nodes, *dist = calloc(n, sizeof(*dist)),
		 *q = calloc(n, sizeof(*q));

	for (uint32_t i = 0; i < f->n_switches; i++)
		node_lft_reserve(f->switches[i], f->max_lid);
	for (uint16_t lid = 1; lid <= f->max_lid; lid++) {
		struct ib_port *dp = fabric_port_by_lid(f, lid);
		uint32_t head = 0, tail = 0;

		if (!dp)
			continue;
		for (uint32_t i = 0; i < n; i++)
			dist[i] = UINT32_MAX;
		dist[dp->node->idx] = 0;
		q[tail++] = dp->node->idx;
		while (head < tail) {
			struct ib_node *nd = f->nodes[q[head++]];

			if (!node_is_switch(nd) && nd != dp->node)
				continue; /* hosts do not forward */
			for (uint8_t pn = 1; pn <= nd->nports; pn++) {
				struct ib_node *pe = port_peer_node(nd, pn);

				if (pe && dist[pe->idx] == UINT32_MAX) {
					dist[pe->idx] = dist[nd->idx] + 1;
					q[tail++] = pe->idx;
				}
			}
		}
		for (uint32_t i = 0; i < f->n_switches; i++) {
			struct ib_node *sw = f->switches[i];

			if (sw == dp->node) {
				sw->lft[lid] = 0;
				continue;
			}
			for (uint8_t pn = 1; pn <= sw->nports; pn++) {
				struct ib_node *pe = port_peer_node(sw, pn);

				if (pe && dist[pe->idx] + 1 == dist[sw->idx]) {
					sw->lft[lid] = pn;
					break;
				}
			}
		}
	}
	for (uint32_t i = 0; i < f->n_switches; i++)
		f->switches[i]->lft_top = f->max_lid;
	free(dist);
	free(q);
}

static int fx_setup(void **state)
{
	struct fx *x = calloc(1, sizeof(*x));
	static const char *hn[] = {"Hca1", "Hca2", "Hca3", "Hca4", "Hca5"};
	static const uint64_t hg[] = {0x100000, 0x100003, 0x100006, 0x100009,
				      0x10000c};
	struct sa_sm_info sm = {.guid = 0x200000,
				.sm_key = 0x1234,
				.act_count = 42,
				.priority = 5,
				.state = 3,
				.lid = 1};

	fabric_init(&x->f);
	for (int i = 0; i < 3; i++) {
		char name[24];

		snprintf(name, sizeof(name), "Switch%d", (i + 1) % 10);
		x->sw[i] = fabric_add_node(&x->f, IB_NODE_SWITCH, 0x200000 + i,
					   8, name);
		x->sw[i]->sysguid = x->sw[i]->guid;
		x->sw[i]->lft_cap = 0x7800;
		x->sw[i]->mft_cap = 0x400;
		fx_port(&x->sw[i]->ports[0], 2, 4);
	}
	for (int i = 0; i < 5; i++) {
		x->h[i] = fabric_add_node(&x->f, IB_NODE_CA, hg[i], 2, hn[i]);
		x->h[i]->sysguid = hg[i];
		fabric_set_port_guid(&x->f, &x->h[i]->ports[1], hg[i] + 1);
	}
	fx_link(x, x->sw[0], 1, x->h[0], 1, 2);
	fx_link(x, x->sw[0], 2, x->h[2], 1, 2);
	fx_link(x, x->sw[0], 3, x->sw[1], 3, 2);
	fx_link(x, x->sw[0], 5, x->sw[1], 5, 2);
	fx_link(x, x->sw[1], 1, x->h[1], 1, 2);
	fx_link(x, x->sw[1], 2, x->h[3], 1, 2);
	fx_link(x, x->sw[1], 6, x->sw[2], 2, 1); /* 1X: 2.5 Gb/s */
	fx_link(x, x->sw[2], 1, x->h[4], 1, 2);
	x->h[4]->ports[1].mtu_cap = 3; /* 1024 */
	fabric_set_lid(&x->f, &x->sw[0]->ports[0], 1, 0);
	fabric_set_lid(&x->f, &x->h[0]->ports[1], 2, 0);
	fabric_set_lid(&x->f, &x->sw[1]->ports[0], 3, 0);
	fabric_set_lid(&x->f, &x->h[1]->ports[1], 4, 0);
	fabric_set_lid(&x->f, &x->h[2]->ports[1], 5, 0);
	fabric_set_lid(&x->f, &x->h[3]->ports[1], 6, 0);
	fabric_set_lid(&x->f, &x->sw[2]->ports[0], 7, 0);
	fabric_set_lid(&x->f, &x->h[4]->ports[1], 8, 0);
	x->f.sm_node = x->sw[0];
	x->f.sm_port = 0;
	fx_route(x);
	sa_init(&x->sa, &x->f, &sm);
	fx_cur = x;
	x->now = 1000000;
	x->sa.now_ms = fx_now;
	*state = x;
	return 0;
}

static int fx_teardown(void **state)
{
	struct fx *x = *state;

	sa_free(&x->sa);
	sa_out_free(&x->out);
	fabric_free(&x->f);
	free(x);
	return 0;
}

/* Encodes a request MAD (256 bytes) into mad. */
static void fx_req(uint8_t *mad, uint8_t method, uint16_t attr, uint64_t mask,
		   const struct sa_rec_desc *d, const void *rec)
{
	struct sa_hdr h = {.base_version = 1,
			   .mgmt_class = SA_MGMT_CLASS,
			   .class_version = SA_CLASS_VERSION,
			   .method = method,
			   .tid = 0xabcd0001,
			   .attr_id = attr,
			   .comp_mask = mask};

	memset(mad, 0, SA_MAD_SIZE);
	sa_hdr_encode(&h, mad);
	if (d && rec)
		sa_rec_encode(d, rec, mad + SA_HDR_SIZE);
}

/* Sends a request; returns the MAD status of the answer (-1: dropped). */
static int fx_ask(struct fx *x, uint8_t method, uint16_t attr, uint64_t mask,
		  const struct sa_rec_desc *d, const void *rec)
{
	uint8_t mad[SA_MAD_SIZE];
	struct sa_peer from = {.lid = x->from_lid ? x->from_lid : 2};

	fx_req(mad, method, attr, mask, d, rec);
	sa_put64(mad + 36, x->sm_key);
	if (sa_handle(&x->sa, &from, mad, sizeof(mad), &x->out) < 0)
		return -1;
	return sa_get16(x->out.buf + 4);
}

/* Record i of the last answer, decoded. */
static void fx_rec(struct fx *x, const struct sa_rec_desc *d, uint32_t i,
		   void *rec)
{
	size_t at = SA_HDR_SIZE + i * sa_rec_stride(d);

	memset(rec, 0, 1); /* callers pass zeroed structs */
	sa_rec_decode(d, x->out.buf + at, x->out.len - at, rec);
}

#endif
