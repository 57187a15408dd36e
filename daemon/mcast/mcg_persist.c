/* Persistence of the multicast groups in the state directory
 * (mcgroups.state): groups with their parameters and state, members with
 * their JoinState, and each tree (color, switches by GUID with their
 * parent and up port, in BFS order).  Written to a temporary file, synced
 * and renamed (atomic), coalesced to once per loop turn.  At start the
 * groups are loaded into the SA's table; after the first sweep each saved
 * tree is put back into the engine as it was (same color, hence the same
 * MLID and MFT entries), through a restore engine swapped in for the
 * call; a tree that no longer fits the fabric is routed afresh.  Every
 * later sweep does the same with the trees captured from the model it
 * replaces (mcg_persist_capture), so an unchanged fabric keeps every MLID
 * and a lost link moves only the groups whose trees used it.
 *
 * A join or leave must be on disk before it is answered, and rewriting
 * every group for each would make the loop's time grow with the number
 * of groups: so after the snapshot the file is a journal.  The groups a
 * join or leave changed are appended (their group, member and tree lines,
 * after a "journal" line), with one write and fdatasync per loop turn; a
 * group destroyed is appended as "gone MGID".  A tree listed again
 * replaces the earlier one with its ID for every group on it.  The snapshot,
 * with the trees, is rewritten WRITE_DELAY_MS after changes (at most once per
 * write gap), which empties the journal.
 *
 * Format, one record per line:
 *   ibsmd-mcgroups 1
 *   group MGID member_count state joined left qkey pkey mtu rate sl flow
 *         tclass life hop scope mlid
 *   member PORTGID join_state proxy
 *   tree ID color NNODES         (first group on a tree, then its nodes)
 *   node SWITCH_GUID PARENT_INDEX UP_PORT   (PARENT_INDEX -1 for the root)
 *   attach ID                    (a group on a tree listed before)
 *   journal                      (the snapshot ends; then, in order:)
 *   group/member/tree/node/attach (a group as it is now: replaces its
 *                                 members and tree link)
 *   gone MGID                    (the group was destroyed) */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "daemon/mcast/mcg_priv.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "lib/log.h"
#include "mad/sa_mad.h"
#include "routing/mcast/mcast.h"

#define STATE_FILE "mcgroups.state"

struct saved_node {
	uint64_t guid;
	int32_t parent;
	uint8_t up_port;
};

/* A group's saved tree, kept until the next sweep restores it. */
struct saved_tree {
	uint32_t id, color, n;
	struct saved_node *nodes;
	uint32_t new_tid; /* engine tree once restored, MC_NONE before */
};

static struct {
	struct saved_tree *trees;
	uint32_t n_trees, cap_trees;
	struct saved_link { /* group MGID -> its saved tree's ID */
		uint8_t mgid[16];
		uint32_t tree;
		uint32_t idx; /* its index in trees, once sorted */
	} * links;
	uint32_t n_links, cap_links;
	bool sorted; /* links by MGID, idx resolved (restore lookups) */
	struct sd_event_source *writer;
	bool state_dirty;	       /* mcgroups.state is older than memory */
	bool dumps_dirty;	       /* mfts.dump, mcgroups.dump too */
	uint64_t dumps_due_us;	       /* the dumps are written no sooner */
	const struct saved_tree *plan; /* for the restore engine */
	bool attach;
	struct mcg_mgr *mgr; /* for the durable-answer hooks */
	/* the journal after the snapshot */
	int fd;			/* the file open for appending, -1: none */
	uint32_t journal_lines; /* lines appended since the snapshot */
	uint64_t snap_due_us;	/* the snapshot is written no sooner */
	struct mcg **jq;	/* groups to append (mcg.journaled) */
	uint32_t jn, jcap;
	uint8_t (*gone)[16]; /* MGIDs of groups destroyed, to append */
	uint32_t gone_n, gone_cap;
} P = {.fd = -1};

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

/* g's group and member lines, then its tree (or "attach" when tree_done
 * says this file or journal entry already lists it). */
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

/* Opens the file for appending after its last complete line. */
static void open_append(const char *path)
{
	char last = '\n';

	if (P.fd >= 0)
		close(P.fd);
	P.fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (P.fd < 0)
		return;
	/* a torn last line (a crash mid-append) is ended, not continued */
	if (lseek(P.fd, -1, SEEK_END) >= 0 && read(P.fd, &last, 1) == 1 &&
	    last != '\n' && write(P.fd, "\n", 1) != 1) {
		close(P.fd);
		P.fd = -1;
	}
}

static void state_path(const struct mcg_mgr *mgr, char *buf, size_t n)
{
	snprintf(buf, n, "%s/" STATE_FILE, mgr->sm->cfg.state_dir);
}

/* Nothing waits to be appended any more. */
static void journal_clear(void)
{
	for (uint32_t i = 0; i < P.jn; i++)
		if (P.jq[i])
			P.jq[i]->journaled = false;
	P.jn = 0;
	P.gone_n = 0;
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
	if (rename(tmp, path) < 0)
		return -errno;
	/* every group is in the snapshot: the journal starts afresh */
	journal_clear();
	P.journal_lines = 0;
	open_append(path);
	return 0;
}

/* mcgroups.state is appended to when an answer waits for it
 * (durable_ack.c: at the end of the loop turn, so a burst of joins shares
 * one write); the snapshot is rewritten WRITE_DELAY_MS after a change,
 * and no sooner than one write gap after the last.  The dumps
 * (mfts.dump, mcgroups.dump) are for people and tools, not for restarts:
 * they are written with the snapshot.  The write gap is 20 times as long
 * as writing the snapshot and dumps took, so that with many groups they
 * stay under 5% of the loop's time. */
#define WRITE_DELAY_MS 50
/* A journal this long (lines) is replaced by a snapshot. */
#define JOURNAL_MAX 100000

static uint64_t write_gap_us = WRITE_DELAY_MS * 1000;

/* The journal entries waiting, as text; NULL on ENOMEM. */
static char *journal_text(struct mcg_mgr *mgr, size_t *len, uint32_t *lines)
{
	char *buf = NULL;
	uint8_t *done = calloc(mgr->mc ? mgr->mc->n_trees + 1 : 1, 1);
	FILE *fp = done ? open_memstream(&buf, len) : NULL;

	if (!fp) {
		free(done);
		return NULL;
	}
	if (!P.journal_lines)
		fputs("journal\n", fp);
	for (uint32_t i = 0; i < P.gone_n; i++) {
		fputs("gone ", fp);
		put_gid(fp, P.gone[i]);
		fputc('\n', fp);
	}
	for (uint32_t i = 0; i < P.jn; i++)
		if (P.jq[i])
			write_group(fp, P.jq[i], done);
	free(done);
	if (fclose(fp) != 0) {
		free(buf);
		return NULL;
	}
	*lines = 0;
	for (size_t i = 0; i < *len; i++)
		*lines += buf[i] == '\n';
	return buf;
}

static int append_journal(struct mcg_mgr *mgr)
{
	uint32_t lines;
	size_t len, off = 0;
	char *buf = journal_text(mgr, &len, &lines);
	int rc = 0;

	if (!buf)
		return -ENOMEM;
	while (off < len && rc == 0) {
		ssize_t w = write(P.fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	free(buf);
	if (rc == 0 && fdatasync(P.fd) < 0)
		rc = -errno;
	if (rc < 0) { /* maybe a torn line: the next write is a snapshot */
		close(P.fd);
		P.fd = -1;
		return rc;
	}
	P.journal_lines += lines;
	journal_clear();
	return 0;
}

static void warn_unwritten(struct mcg_mgr *mgr, int rc)
{
	if (rc < 0)
		log_warn("multicast: cannot write %s/" STATE_FILE ": %s; a "
			 "restart may lose the latest group changes",
			 mgr->sm->cfg.state_dir, strerror(-rc));
}

/* The snapshot.  Saved trees not yet restored are still the truth: the
 * snapshot waits for them (the journal does not). */
static int save_state(struct mcg_mgr *mgr)
{
	int rc;

	if (!P.state_dirty || P.n_trees)
		return 0;
	rc = write_state(mgr, mgr->sm->cfg.state_dir);
	P.state_dirty = false;
	warn_unwritten(mgr, rc);
	return rc;
}

/* The joins and leaves waiting, appended (or a snapshot when there is
 * no file to append to or the journal is long); then their answers go,
 * written or not (the warning says which). */
static void flush_journal(struct mcg_mgr *mgr)
{
	int rc = 0;

	if (!P.jn && !P.gone_n)
		return;
	if (P.fd >= 0 && P.journal_lines < JOURNAL_MAX)
		rc = append_journal(mgr);
	else if (!P.n_trees) {
		P.state_dirty = true;
		rc = save_state(mgr);
	} else {
		char path[600];

		state_path(mgr, path, sizeof(path));
		open_append(path);
		rc = P.fd >= 0 ? append_journal(mgr) : -errno;
	}
	warn_unwritten(mgr, rc);
	journal_clear(); /* written or warned about */
	sa_durable_release(mgr->sm);
}

static int on_write(sd_event_source *s, uint64_t usec, void *ud)
{
	struct mcg_mgr *mgr = ud;
	uint64_t t0 = (uint64_t)txn_now_us(), t1;

	sd_event_source_set_enabled(s, SD_EVENT_OFF);
	flush_journal(mgr);
	if (!P.state_dirty && !P.dumps_dirty)
		return 0;
	if (t0 < P.snap_due_us) {
		sd_event_source_set_time(s, usec + (P.snap_due_us - t0));
		sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
		return 0;
	}
	save_state(mgr);
	if (P.dumps_dirty)
		mcg_write_dumps_now(mgr);
	P.dumps_dirty = false;
	t1 = (uint64_t)txn_now_us();
	write_gap_us = 20 * (t1 - t0);
	if (write_gap_us < WRITE_DELAY_MS * 1000)
		write_gap_us = WRITE_DELAY_MS * 1000;
	P.snap_due_us = t1 + write_gap_us;
	return 0;
}

/* Joins or leaves wait to be appended. */
static bool persist_unsaved(void *ctx)
{
	return P.writer && (P.jn || P.gone_n);
}

/* Append them at the end of this loop turn: answers wait for it. */
static void persist_flush_soon(void *ctx)
{
	uint64_t now;

	if (!P.writer || !P.mgr)
		return;
	sd_event_now(P.mgr->sm->ev, CLOCK_MONOTONIC, &now);
	sd_event_source_set_time(P.writer, now);
	sd_event_source_set_enabled(P.writer, SD_EVENT_ONESHOT);
}

void mcg_persist_group(struct mcg *g)
{
	if (!P.writer || g->journaled)
		return;
	if (P.jn == P.jcap) {
		uint32_t cap = P.jcap ? 2 * P.jcap : 64;
		struct mcg **v = realloc(P.jq, cap * sizeof(*v));

		if (!v) { /* the snapshot carries it */
			P.state_dirty = true;
			return;
		}
		P.jq = v;
		P.jcap = cap;
	}
	P.jq[P.jn++] = g;
	g->journaled = true;
}

void mcg_persist_gone(struct mcg *g)
{
	if (!P.writer)
		return;
	if (g->journaled)
		for (uint32_t i = 0; i < P.jn; i++)
			if (P.jq[i] == g)
				P.jq[i] = NULL;
	g->journaled = false;
	if (P.gone_n == P.gone_cap) {
		uint32_t cap = P.gone_cap ? 2 * P.gone_cap : 16;
		uint8_t(*v)[16] = realloc(P.gone, cap * sizeof(*v));

		if (!v) {
			P.state_dirty = true;
			return;
		}
		P.gone = v;
		P.gone_cap = cap;
	}
	memcpy(P.gone[P.gone_n++], g->sa->rec.mgid, 16);
}

void mcg_persist_dirty(struct mcg_mgr *mgr)
{
	uint64_t now;
	int on = 0;

	if (!P.writer)
		return;
	sd_event_now(mgr->sm->ev, CLOCK_MONOTONIC, &now);
	if (!P.state_dirty && P.snap_due_us < now + WRITE_DELAY_MS * 1000)
		P.snap_due_us = now + WRITE_DELAY_MS * 1000;
	P.state_dirty = P.dumps_dirty = true;
	sd_event_source_get_enabled(P.writer, &on);
	if (on != SD_EVENT_OFF)
		return;
	sd_event_source_set_time(P.writer, P.snap_due_us);
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
	g->announced = true; /* created before the restart */
	g->sa->state = (uint8_t)v[1];
	g->sa->joined = (uint16_t)v[2];
	g->sa->left = (uint16_t)v[3];
	g->sa->rec.mlid = (uint16_t)mlid;
	return g;
}

/* Room for one more of n elements of size sz in *v (capacity *cap). */
static int grow(void **v, uint32_t n, uint32_t *cap, size_t sz)
{
	uint32_t nc = *cap ? *cap * 2 : 64;
	void *nv;

	if (n < *cap)
		return 0;
	if (!(nv = realloc(*v, (size_t)nc * sz)))
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static int link_group(const struct mcg *g, uint32_t tree)
{
	if (grow((void **)&P.links, P.n_links, &P.cap_links, sizeof(*P.links)) <
	    0)
		return -ENOMEM;
	memcpy(P.links[P.n_links].mgid, g->sa->rec.mgid, 16);
	P.links[P.n_links++].tree = tree;
	P.sorted = false;
	return 0;
}

static int add_tree(const struct saved_tree *t)
{
	if (grow((void **)&P.trees, P.n_trees, &P.cap_trees, sizeof(*P.trees)) <
	    0)
		return -ENOMEM;
	P.trees[P.n_trees++] = *t;
	P.sorted = false;
	return 0;
}

static int load_tree(FILE *fp, const char *line, unsigned *lineno)
{
	struct saved_tree t = {.new_tid = MC_NONE};
	char buf[128];

	if (sscanf(line, "tree %u %u %u", &t.id, &t.color, &t.n) != 3 ||
	    t.n > 65536)
		return -EINVAL;
	t.nodes = calloc(t.n + 1, sizeof(*t.nodes));
	if (!t.nodes)
		return -ENOMEM;
	for (uint32_t i = 0; i < t.n; i++) {
		unsigned up;
		bool got = fgets(buf, sizeof(buf), fp) != NULL;

		*lineno += got; /* errors name the node line */
		if (!got ||
		    sscanf(buf, "node %" SCNx64 " %d %u", &t.nodes[i].guid,
			   &t.nodes[i].parent, &up) != 3 ||
		    t.nodes[i].parent >= (int32_t)i) {
			free(t.nodes);
			return -EINVAL;
		}
		t.nodes[i].up_port = (uint8_t)up;
	}
	if (add_tree(&t) < 0) {
		free(t.nodes);
		return -ENOMEM;
	}
	return 0;
}

/* The saved tree with this ID: the last one listed (a journal entry
 * lists a tree again as it is now, for every group on it). */
static uint32_t saved_tree_index(uint32_t id)
{
	for (uint32_t i = P.n_trees; i-- > 0;)
		if (P.trees[i].id == id)
			return i;
	return MC_NONE;
}

static void unlink_group(const uint8_t mgid[16])
{
	P.sorted = false;
	for (uint32_t i = 0; i < P.n_links;)
		if (!memcmp(P.links[i].mgid, mgid, 16))
			P.links[i] = P.links[--P.n_links];
		else
			i++;
}

/* A journal's "gone MGID": the group and its saved tree link go. */
static int load_gone(struct mcg_mgr *mgr, const char *line)
{
	char mg[64];
	uint8_t g[16];
	struct mcg *grp;

	if (sscanf(line, "gone %63s", mg) != 1 || parse_gid(mg, g) < 0)
		return -EINVAL;
	unlink_group(g);
	grp = mcg_find(mgr, g);
	if (grp) {
		grp->announced = false; /* its end was reported then */
		mcg_destroy(grp, "destroyed before the restart");
	}
	return 0;
}

static int load_line(struct mcg_mgr *mgr, FILE *fp, const char *line,
		     struct mcg **cur, bool journal, unsigned *lineno)
{
	char gid[64];
	unsigned js, proxy, id;

	if (!strncmp(line, "group ", 6)) {
		*cur = load_group(mgr, line);
		if (*cur && journal) { /* its members and tree now follow */
			(*cur)->sa->n_members = 0;
			unlink_group((*cur)->sa->rec.mgid);
		}
		return *cur ? 0 : -EINVAL;
	}
	if (journal && !strncmp(line, "gone ", 5)) {
		*cur = NULL;
		return load_gone(mgr, line);
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
		int rc = load_tree(fp, line, lineno);
		return rc < 0 ? rc
			      : link_group(*cur, P.trees[P.n_trees - 1].id);
	}
	if (sscanf(line, "attach %u", &id) == 1)
		return saved_tree_index(id) == MC_NONE ? -EINVAL
						       : link_group(*cur, id);
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
	P.n_trees = P.n_links = P.cap_trees = P.cap_links = 0;
	P.sorted = false;
}

static int load_file(struct mcg_mgr *mgr);

/* Timeouts restart in full: the daemon was away meanwhile. */
static void arm_timeouts(struct mcg_mgr *mgr)
{
	for (uint32_t i = 0; i < mgr->n; i++) {
		struct mcg *g = mgr->v[i];
		if (g->sa->state == MCG_RECEIVING_JOIN_REQ)
			mcg_arm_timer(g,
				      mgr->sm->cfg.multicast_join_timeout_ms);
		else if (g->sa->state == MCG_RECEIVING_LEAVE_REQ)
			mcg_arm_timer(g,
				      mgr->sm->cfg.multicast_leave_timeout_ms);
	}
}

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
 * (daemon/role/sm_repl.c): its own groups give way to the file's, whose trees
 * the next sweep restores. */
int mcg_reload(struct sm *sm)
{
	struct mcg_mgr *mgr = sm->mcg;

	if (!mgr)
		return -ENODEV;
	for (uint32_t i = mgr->n; i-- > 0;) {
		struct mcg *g = mgr->v[i];
		if (i < mgr->n && !g->sa->permanent) {
			g->announced = false; /* not an end: the copy rules */
			mcg_destroy(g, "replaced by the master's copy");
		}
	}
	forget_saved();
	journal_clear(); /* the groups replaced are not "gone" from the copy */
	return load_file(mgr);
}

static int load_file(struct mcg_mgr *mgr)
{
	char path[600], line[256];
	struct mcg *cur = NULL;
	unsigned lineno = 1, jline = 0;
	FILE *fp;
	int rc = 0;

	state_path(mgr, path, sizeof(path));
	if (P.fd >= 0)
		close(P.fd);
	P.fd = -1;
	P.journal_lines = 0;
	fp = fopen(path, "r");
	if (!fp)
		return errno == ENOENT ? 0 : -errno;
	if (!fgets(line, sizeof(line), fp) ||
	    strcmp(line, "ibsmd-mcgroups 1\n"))
		rc = -EINVAL;
	while (rc == 0 && fgets(line, sizeof(line), fp)) {
		lineno++;
		if (!jline && !strcmp(line, "journal\n")) {
			jline = lineno;
			continue;
		}
		rc = load_line(mgr, fp, line, &cur, jline != 0, &lineno);
	}
	fclose(fp);
	if (rc < 0 && jline) {
		/* a torn or damaged journal: what came before it stands */
		log_err("multicast: %s:%u: unreadable (%s); the journal is "
			"read up to there",
			path, lineno, strerror(-rc));
	} else if (rc < 0) {
		log_err("multicast: %s:%u: unreadable (%s); groups from it are "
			"kept up to there and routed afresh",
			path, lineno, strerror(-rc));
		forget_saved();
		journal_clear();
		return 0; /* no append: the next write is a snapshot */
	}
	if (jline)
		P.journal_lines = lineno - jline + 1;
	journal_clear(); /* groups the journal destroyed are not news */
	open_append(path);
	arm_timeouts(mgr);
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
		t = st->new_tid < c->n_trees ? &c->trees[st->new_tid] : NULL;
		/* A group routed afresh in between (its saved tree did not
		 * fit) may have merged that tree away: then this group is
		 * routed afresh too, not attached to a freed tree. */
		if (!t || !t->live || t->color != st->color)
			return -EINVAL;
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

static int cmp_link(const void *a, const void *b)
{
	return memcmp(((const struct saved_link *)a)->mgid,
		      ((const struct saved_link *)b)->mgid, 16);
}

struct tree_pos {
	uint32_t id, idx;
};

static int cmp_tree_pos(const void *a, const void *b)
{
	const struct tree_pos *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Sorts the links by MGID and resolves each to its tree's index (the
 * last tree listed with that ID), so a sweep over thousands of groups
 * looks each up in log time instead of scanning every link. */
static int sort_links(void)
{
	struct tree_pos *tp = calloc(P.n_trees + 1, sizeof(*tp));

	if (!tp)
		return -ENOMEM;
	for (uint32_t i = 0; i < P.n_trees; i++)
		tp[i] = (struct tree_pos){P.trees[i].id, i};
	qsort(tp, P.n_trees, sizeof(*tp), cmp_tree_pos);
	qsort(P.links, P.n_links, sizeof(*P.links), cmp_link);
	for (uint32_t i = 0; i < P.n_links; i++) {
		uint32_t lo = 0, hi = P.n_trees; /* first id > tree */

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			if (tp[mid].id <= P.links[i].tree)
				lo = mid + 1;
			else
				hi = mid;
		}
		P.links[i].idx = lo && tp[lo - 1].id == P.links[i].tree
				     ? tp[lo - 1].idx
				     : MC_NONE;
	}
	free(tp);
	P.sorted = true;
	return 0;
}

static struct saved_tree *saved_tree_of(const uint8_t mgid[16])
{
	struct saved_link key, *l;

	if (!P.n_links || (!P.sorted && sort_links() < 0))
		return NULL;
	memcpy(key.mgid, mgid, 16);
	l = bsearch(&key, P.links, P.n_links, sizeof(*P.links), cmp_link);
	return l && l->idx != MC_NONE ? &P.trees[l->idx] : NULL;
}

/* Routes g over its saved tree when it has one; true if done. */
bool mcg_persist_restore(struct mcg *g, struct ib_port **ports, uint32_t n)
{
	struct mcg_mgr *mgr = g->mgr;
	const struct mc_engine *eng = mgr->mc->eng;
	struct saved_tree *st = saved_tree_of(g->sa->rec.mgid);
	int rc;

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

/* Saves t, routed on model f, as a saved tree (nodes by switch GUID). */
static int save_tree(const struct fabric *f, const struct mc_tree *t)
{
	struct saved_tree st = {
	    .id = t->id, .color = t->color, .new_tid = MC_NONE};
	uint32_t *ord = calloc(t->n_nodes * 2 + 1, sizeof(*ord));

	st.nodes = calloc(t->n_nodes + 1, sizeof(*st.nodes));
	if (!ord || !st.nodes)
		goto fail;
	st.n = bfs_order(t, ord, ord + t->n_nodes);
	for (uint32_t i = 0; i < st.n; i++) {
		const struct mc_tnode *nd = &t->nodes[ord[i]];

		st.nodes[i].guid = f->switches[nd->sw]->guid;
		st.nodes[i].parent =
		    nd->parent == MC_NONE
			? -1
			: (int32_t)ord[t->n_nodes + nd->parent];
		st.nodes[i].up_port = nd->up_port;
	}
	if (add_tree(&st) < 0)
		goto fail;
	free(ord);
	return 0;
fail:
	free(ord);
	free(st.nodes);
	return -ENOMEM;
}

/* Before a new model replaces old: every routed group's tree is saved as
 * a restart would read it, for the sweep's re-routing to put back.
 * Trees loaded from the file that no sweep has restored yet stay. */
void mcg_persist_capture(struct mcg_mgr *mgr, const struct fabric *old)
{
	uint8_t *saved;

	if (!mgr->mc || P.n_trees || P.n_links)
		return;
	saved = calloc(mgr->mc->n_trees + 1, 1);
	if (!saved)
		goto fail;
	for (uint32_t i = 0; i < mgr->n; i++) {
		const struct mcg *g = mgr->v[i];
		const struct mc_tree *t;

		if (g->eid == MC_NONE ||
		    !(t = mcast_group_tree(mgr->mc, g->eid)) ||
		    t->id >= mgr->mc->n_trees)
			continue;
		if (!saved[t->id] && save_tree(old, t) < 0)
			goto fail;
		saved[t->id] = 1;
		if (link_group(g, t->id) < 0)
			goto fail;
	}
	free(saved);
	return;
fail:
	free(saved);
	forget_saved();
	log_err("multicast: out of memory saving the trees before the sweep; "
		"every group is routed afresh");
}

/* The sweep restored what it could: from now on the file follows the
 * groups. */
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
	if (P.fd >= 0)
		close(P.fd);
	P.fd = -1;
	free(P.jq);
	free(P.gone);
	P.jq = NULL;
	P.gone = NULL;
	P.jn = P.jcap = P.gone_n = P.gone_cap = 0;
	sa_durable_remove_store(mgr);
	P.writer = sd_event_source_unref(P.writer);
}
