/* Persistence of the multicast groups in the state directory
 * (mcgroups.state): groups with their parameters and state, members with
 * their JoinState, and each tree (color, switches by GUID with their
 * parent and up port, in BFS order).  Written to a temporary file, synced
 * and renamed (atomic), coalesced to once per loop turn.  At start the
 * groups are loaded into the SA's table; after the first sweep each saved
 * tree is put back into the engine as it was (same color, hence the same
 * MLID and MFT entries), through a restore engine swapped in for the
 * call; a tree that no longer fits the fabric is routed afresh.
 *
 * Format, one record per line:
 *   ibsmd-mcgroups 1
 *   group MGID member_count state joined left qkey pkey mtu rate sl flow
 *         tclass life hop scope mlid
 *   member PORTGID join_state proxy
 *   tree ID color NNODES         (first group on a tree, then its nodes)
 *   node SWITCH_GUID PARENT_INDEX UP_PORT   (PARENT_INDEX -1 for the root)
 *   attach ID                    (a group on a tree listed before) */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/mcg_priv.h"
#include "daemon/sa_daemon.h"
#include "daemon/sa_priv.h"
#include "daemon/sm.h"
#include "lib/log.h"
#include "routing/mcast_dump.h"

#define STATE_FILE "mcgroups.state"

struct saved_node {
	uint64_t guid;
	int32_t parent;
	uint8_t up_port;
};

/* A group's saved tree, kept until the first sweep restores it. */
struct saved_tree {
	uint32_t id, color, n;
	struct saved_node *nodes;
	uint32_t new_tid; /* engine tree once restored, MC_NONE before */
};

static struct {
	struct saved_tree *trees;
	uint32_t n_trees;
	struct saved_link { /* group MGID -> its saved tree */
		uint8_t mgid[16];
		uint32_t tree;
	} * links;
	uint32_t n_links;
	struct sd_event_source *writer;
	bool state_dirty;	       /* mcgroups.state is older than memory */
	bool dumps_dirty;	       /* mfts.dump, mcgroups.dump too */
	uint64_t dumps_due_us;	       /* the dumps are written no sooner */
	const struct saved_tree *plan; /* for the restore engine */
	bool attach;
	struct mcg_mgr *mgr; /* for the durable-answer hooks */
} P;

/* ---- writing ---- */

static void put_gid(FILE *fp, const uint8_t g[16])
{
	char s[64];

	mcast_mgid_str(g, s, sizeof(s));
	fputs(s, fp);
}

/* BFS order of t's nodes: out[k] = node index, parents before children. */
static uint32_t bfs_order(const struct mc_tree *t, uint32_t *out, uint32_t *pos)
{
	uint32_t n = 0;

	for (uint32_t k = 0; k < t->n_nodes; k++)
		if (t->nodes[k].parent == MC_NONE)
			out[n++] = k;
	for (uint32_t h = 0; h < n; h++)
		for (uint32_t k = 0; k < t->n_nodes; k++)
			if (t->nodes[k].parent == out[h])
				out[n++] = k;
	for (uint32_t i = 0; i < n; i++)
		pos[out[i]] = i;
	return n;
}

static int write_tree(FILE *fp, const struct fabric *f, const struct mc_tree *t)
{
	uint32_t *ord = calloc(t->n_nodes * 2 + 1, sizeof(*ord)), n;

	if (!ord)
		return -ENOMEM;
	n = bfs_order(t, ord, ord + t->n_nodes);
	fprintf(fp, "tree %u %u %u\n", t->id, t->color, n);
	for (uint32_t i = 0; i < n; i++) {
		const struct mc_tnode *nd = &t->nodes[ord[i]];
		fprintf(fp, "node 0x%016" PRIx64 " %d %u\n",
			f->switches[nd->sw]->guid,
			nd->parent == MC_NONE
			    ? -1
			    : (int)ord[t->n_nodes + nd->parent],
			nd->up_port);
	}
	free(ord);
	return 0;
}

static void write_group(FILE *fp, struct mcg *g, uint8_t *tree_done)
{
	struct mcg_mgr *mgr = g->mgr;
	const struct sa_mcm_rec *r = &g->sa->rec;
	const struct mc_tree *t = g->eid != MC_NONE && mgr->mc
				      ? mcast_group_tree(mgr->mc, g->eid)
				      : NULL;

	fputs("group ", fp);
	put_gid(fp, r->mgid);
	fprintf(fp, " %u %u %u %u %u %u %u %u %u %u %u %u %u %u 0x%04x\n",
		r->member_count, g->sa->state, g->sa->joined, g->sa->left,
		r->qkey, r->pkey, r->mtu, r->rate, r->sl, r->flow_label,
		r->tclass, r->life, r->hop_limit, r->scope, r->mlid);
	for (uint32_t i = 0; i < g->sa->n_members; i++) {
		fputs("member ", fp);
		put_gid(fp, g->sa->members[i].port_gid);
		fprintf(fp, " %u %u\n", g->sa->members[i].join_state,
			g->sa->members[i].proxy);
	}
	if (!t)
		return;
	if (tree_done[t->id])
		fprintf(fp, "attach %u\n", t->id);
	else if (write_tree(fp, mgr->sm->fab, t) == 0)
		tree_done[t->id] = 1;
}

static int write_state(struct mcg_mgr *mgr, const char *dir)
{
	char path[600], tmp[620];
	uint8_t *done = calloc(mgr->mc ? mgr->mc->n_trees + 1 : 1, 1);
	FILE *fp;

	if (!done)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/" STATE_FILE, dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fp = fopen(tmp, "w");
	if (!fp) {
		free(done);
		return -errno;
	}
	fprintf(fp, "ibsmd-mcgroups 1\n");
	for (uint32_t i = 0; i < mgr->n; i++)
		write_group(fp, mgr->v[i], done);
	free(done);
	if (fflush(fp) != 0 || fsync(fileno(fp)) < 0 || ferror(fp)) {
		fclose(fp);
		unlink(tmp);
		return -EIO;
	}
	if (fclose(fp) != 0) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}

/* mcgroups.state is written when an answer waits for it (durable_ack.c:
 * at the end of the loop turn, so a burst of joins shares one write), or
 * else WRITE_DELAY_MS after a change.  The dumps (mfts.dump,
 * mcgroups.dump) are for people and tools, not for restarts: they are
 * written at most once per write gap, which is 20 times as long as
 * writing them took, so that with many groups they stay under 5% of the
 * loop's time. */
#define WRITE_DELAY_MS 50

static uint64_t write_gap_us = WRITE_DELAY_MS * 1000;

static void save_state(struct mcg_mgr *mgr)
{
	int rc;

	/* Saved trees not yet restored are still the truth: keep the file
	 * (and the answers: they go once the restored state is written). */
	if (!P.state_dirty || P.n_trees)
		return;
	rc = write_state(mgr, mgr->sm->cfg.state_dir);
	P.state_dirty = false;
	/* Written or not, the answers go: holding them longer would not make
	 * the change durable (the warning says it is not). */
	sa_durable_release(mgr->sm);
	if (rc < 0)
		log_warn("multicast: cannot write %s/" STATE_FILE ": %s; a "
			 "restart may lose the latest group changes",
			 mgr->sm->cfg.state_dir, strerror(-rc));
}

static int on_write(sd_event_source *s, uint64_t usec, void *ud)
{
	struct mcg_mgr *mgr = ud;
	uint64_t t0 = (uint64_t)txn_now_us(), t1;

	sd_event_source_set_enabled(s, SD_EVENT_OFF);
	save_state(mgr);
	if (!P.dumps_dirty)
		return 0;
	if (t0 < P.dumps_due_us) {
		sd_event_source_set_time(s, usec + (P.dumps_due_us - t0));
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	mcg_write_dumps_now(mgr);
	P.dumps_dirty = false;
	t1 = (uint64_t)txn_now_us();
	write_gap_us = 20 * (t1 - t0);
	if (write_gap_us < WRITE_DELAY_MS * 1000)
		write_gap_us = WRITE_DELAY_MS * 1000;
	P.dumps_due_us = t1 + write_gap_us;
	return 0;
}

/* mcgroups.state is older than the groups in memory. */
static bool persist_unsaved(void *ctx)
{
	return P.writer && P.state_dirty;
}

/* Write it at the end of this loop turn: answers wait for it. */
static void persist_flush_soon(void *ctx)
{
	uint64_t now;

	if (!P.writer || !P.mgr)
		return;
	sd_event_now(P.mgr->sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(P.writer, now);
	sd_event_source_set_enabled(P.writer, SD_EVENT_ONESHOT);
}

void mcg_persist_dirty(struct mcg_mgr *mgr)
{
	uint64_t now;
	int on = 0;

	if (!P.writer)
		return;
	P.state_dirty = P.dumps_dirty = true;
	sd_event_source_get_enabled(P.writer, &on);
	if (on != SD_EVENT_OFF)
		return;
	sd_event_now(mgr->sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(P.writer, now + WRITE_DELAY_MS * 1000);
	sd_event_source_set_enabled(P.writer, SD_EVENT_ONESHOT);
}

/* ---- loading ---- */

static int parse_gid(const char *s, uint8_t g[16])
{
	return inet_pton(AF_INET6, s, g) == 1 ? 0 : -EINVAL;
}

static struct mcg *load_group(struct mcg_mgr *mgr, const char *line)
{
	char mg[64];
	unsigned v[15], mlid;
	struct sa_mcm_rec r = {0};
	struct mcg *g;

	if (sscanf(line,
		   "group %63s %u %u %u %u %u %u %u %u %u %u %u %u %u %u "
		   "%x",
		   mg, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7],
		   &v[8], &v[9], &v[10], &v[11], &v[12], &v[13], &mlid) != 16 ||
	    parse_gid(mg, r.mgid) < 0)
		return NULL;
	r.member_count = (uint16_t)v[0];
	r.qkey = v[4];
	r.pkey = (uint16_t)v[5];
	r.mtu = (uint8_t)v[6];
	r.rate = (uint8_t)v[7];
	r.sl = (uint8_t)v[8];
	r.flow_label = v[9];
	r.tclass = (uint8_t)v[10];
	r.life = (uint8_t)v[11];
	r.hop_limit = (uint8_t)v[12];
	r.scope = (uint8_t)v[13];
	r.mtu_sel = r.rate_sel = r.life_sel = SA_SEL_EQ;
	g = mcg_find(mgr, r.mgid);
	if (!g)
		g = mcg_create(mgr, &r);
	if (!g)
		return NULL;
	g->sa->state = (uint8_t)v[1];
	g->sa->joined = (uint16_t)v[2];
	g->sa->left = (uint16_t)v[3];
	g->sa->rec.mlid = (uint16_t)mlid;
	return g;
}

static int link_group(const struct mcg *g, uint32_t tree)
{
	struct saved_link *nl = realloc(P.links, (P.n_links + 1) * sizeof(*nl));

	if (!nl)
		return -ENOMEM;
	P.links = nl;
	memcpy(nl[P.n_links].mgid, g->sa->rec.mgid, 16);
	nl[P.n_links++].tree = tree;
	return 0;
}

static int load_tree(FILE *fp, const char *line)
{
	struct saved_tree t = {.new_tid = MC_NONE};
	struct saved_tree *nt;
	char buf[128];

	if (sscanf(line, "tree %u %u %u", &t.id, &t.color, &t.n) != 3 ||
	    t.n > 65536)
		return -EINVAL;
	t.nodes = calloc(t.n + 1, sizeof(*t.nodes));
	if (!t.nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < t.n; i++) {
		unsigned up;
		if (!fgets(buf, sizeof(buf), fp) ||
		    sscanf(buf, "node %" SCNx64 " %d %u", &t.nodes[i].guid,
			   &t.nodes[i].parent, &up) != 3 ||
		    t.nodes[i].parent >= (int32_t)i) {
			free(t.nodes);
			return -EINVAL;
		}
		t.nodes[i].up_port = (uint8_t)up;
	}
	nt = realloc(P.trees, (P.n_trees + 1) * sizeof(*nt));
	if (!nt) {
		free(t.nodes);
		return -ENOMEM;
	}
	P.trees = nt;
	P.trees[P.n_trees++] = t;
	return 0;
}

static uint32_t saved_tree_index(uint32_t id)
{
	for (uint32_t i = 0; i < P.n_trees; i++)
		if (P.trees[i].id == id)
			return i;
	return MC_NONE;
}

static int load_line(struct mcg_mgr *mgr, FILE *fp, const char *line,
		     struct mcg **cur)
{
	char gid[64];
	unsigned js, proxy, id;

	if (!strncmp(line, "group ", 6)) {
		*cur = load_group(mgr, line);
		return *cur ? 0 : -EINVAL;
	}
	if (!*cur)
		return -EINVAL;
	if (!strncmp(line, "member ", 7)) {
		uint8_t g[16];
		if (sscanf(line, "member %63s %u %u", gid, &js, &proxy) != 3 ||
		    parse_gid(gid, g) < 0)
			return -EINVAL;
		return sa_mcg_member_set((*cur)->sa, g, (uint8_t)js,
					 (uint8_t)proxy);
	}
	if (!strncmp(line, "tree ", 5)) {
		int rc = load_tree(fp, line);
		return rc < 0 ? rc : link_group(*cur, P.n_trees - 1);
	}
	if (sscanf(line, "attach %u", &id) == 1) {
		uint32_t k = saved_tree_index(id);
		return k == MC_NONE ? -EINVAL : link_group(*cur, k);
	}
	return -EINVAL;
}

static void forget_saved(void)
{
	for (uint32_t i = 0; i < P.n_trees; i++)
		free(P.trees[i].nodes);
	free(P.trees);
	free(P.links);
	P.trees = NULL;
	P.links = NULL;
	P.n_trees = P.n_links = 0;
}

static int load_file(struct mcg_mgr *mgr);

int mcg_persist_load(struct mcg_mgr *mgr)
{
	P.mgr = mgr;
	if (sd_event_add_time(mgr->sm->ev, &P.writer, CLOCK_MONOTONIC,
			      UINT64_MAX, 1000, on_write, mgr) >= 0) {
		sd_event_source_set_enabled(P.writer, SD_EVENT_OFF);
		struct sa_durable_store st = {persist_unsaved,
					      persist_flush_soon, mgr};
		sa_durable_add_store(&st);
	}
	return load_file(mgr);
}

/* A standby taking over with its master's copy of this file
 * (daemon/sm_repl.c): its own groups give way to the file's, whose trees
 * the next sweep restores. */
int mcg_reload(struct sm *sm)
{
	struct mcg_mgr *mgr = sm->mcg;

	if (!mgr)
		return -ENODEV;
	for (uint32_t i = mgr->n; i-- > 0;) {
		struct mcg *g = mgr->v[i];
		if (i < mgr->n &&
		    memcmp(g->sa->rec.mgid, sa_ipoib_bcast_mgid, 16))
			mcg_destroy(g, "replaced by the master's copy");
	}
	forget_saved();
	return load_file(mgr);
}

static int load_file(struct mcg_mgr *mgr)
{
	char path[600], line[256];
	struct mcg *cur = NULL;
	unsigned lineno = 1;
	FILE *fp;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/" STATE_FILE, mgr->sm->cfg.state_dir);
	fp = fopen(path, "r");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(line, sizeof(line), fp) ||
	    strcmp(line, "ibsmd-mcgroups 1\n"))
		rc = -EINVAL;
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		lineno++;
		rc = load_line(mgr, fp, line, &cur);
	}
	fclose(fp);
	if (rc < 0) {
		log_err("multicast: %s:%u: unreadable (%s); groups from it are "
			"kept up to there and routed afresh",
			path, lineno, strerror(-rc));
		forget_saved();
		return 0;
	}
	/* Timeouts restart in full: the daemon was away meanwhile. */
	for (uint32_t i = 0; i < mgr->n; i++) {
		struct mcg *g = mgr->v[i];
		if (g->sa->state == MCG_RECEIVING_JOIN_REQ)
			mcg_arm_timer(g,
				      mgr->sm->cfg.multicast_join_timeout_ms);
		else if (g->sa->state == MCG_RECEIVING_LEAVE_REQ)
			mcg_arm_timer(g,
				      mgr->sm->cfg.multicast_leave_timeout_ms);
	}
	log_info("multicast: %u groups and %u trees from %s", mgr->n, P.n_trees,
		 path);
	return 0;
}

/* ---- restoring trees into the engine ---- */

static int restore_route(struct mc_ctx *c, struct mc_group *g)
{
	const struct saved_tree *st = P.plan;
	const struct fabric *f = c->f;
	struct mc_tree *t;

	if (st->new_tid != MC_NONE) { /* a merged tree already restored */
		t = &c->trees[st->new_tid];
		for (uint32_t i = 0; i < g->n_members; i++)
			if (mc_tree_add_member(t, g->members[i]) < 0)
				return -EINVAL;
		return mc_tree_attach(c, t, g);
	}
	if (st->color >= c->color_limit || !(t = mc_tree_new(c)))
		return -EINVAL;
	for (uint32_t i = 0; i < st->n; i++) {
		const struct ib_node *sw =
		    fabric_node_by_guid(f, st->nodes[i].guid);
		const struct saved_node *sn = &st->nodes[i];
		const struct ib_port *up;

		if (!sw || !node_is_switch(sw) ||
		    (sn->parent >= 0 &&
		     (sn->up_port > sw->nports ||
		      !(up = &sw->ports[sn->up_port])->remote ||
		      up->remote->node->guid != st->nodes[sn->parent].guid)) ||
		    mc_color_owner(c, (uint32_t)sw->sw_idx, st->color) !=
			MC_NONE ||
		    mc_tree_add(t, (uint32_t)sw->sw_idx,
				sn->parent < 0 ? MC_NONE : (uint32_t)sn->parent,
				sn->up_port,
				sn->parent < 0
				    ? 0
				    : sw->ports[sn->up_port].remote->num) ==
			MC_NONE) {
			mc_tree_free(c, t);
			return -EINVAL;
		}
	}
	for (uint32_t i = 0; i < g->n_members; i++)
		if (mc_tree_add_member(t, g->members[i]) < 0) {
			mc_tree_free(c, t);
			return -EINVAL;
		}
	if (mc_tree_commit(c, t, st->color, g) < 0) {
		mc_tree_free(c, t);
		return -EINVAL;
	}
	return 0;
}

static const struct mc_engine restore_engine = {
    .name = "restore",
    .route = restore_route,
};

/* Routes g over its saved tree when it has one; true if done. */
bool mcg_persist_restore(struct mcg *g, struct ib_port **ports, uint32_t n)
{
	struct mcg_mgr *mgr = g->mgr;
	const struct mc_engine *eng = mgr->mc->eng;
	struct saved_tree *st = NULL;
	int rc;

	for (uint32_t i = 0; i < P.n_links; i++)
		if (!memcmp(P.links[i].mgid, g->sa->rec.mgid, 16))
			st = &P.trees[P.links[i].tree];
	if (!st)
		return false;
	P.plan = st;
	mgr->mc->eng = &restore_engine;
	rc = mcast_group_add(mgr->mc, g->sa->rec.mgid, ports, n, &g->eid);
	mgr->mc->eng = eng;
	if (rc < 0) {
		char s[64];
		mcast_mgid_str(g->sa->rec.mgid, s, sizeof(s));
		log_warn("multicast: the saved tree of %s does not fit the "
			 "fabric; the group is routed afresh",
			 s);
		g->eid = MC_NONE;
		return false;
	}
	if (st->new_tid == MC_NONE)
		st->new_tid = mcast_group_tree(mgr->mc, g->eid)->id;
	return true;
}

/* The first sweep restored what it could: from now on the file follows
 * the groups. */
void mcg_persist_restored(struct mcg_mgr *mgr)
{
	if (P.n_trees)
		log_info("multicast: %u saved trees put back", P.n_trees);
	forget_saved();
	mcg_persist_dirty(mgr);
}

void mcg_persist_fini(struct mcg_mgr *mgr)
{
	forget_saved();
	sa_durable_remove_store(mgr);
	P.writer = sd_event_source_unref(P.writer);
}
