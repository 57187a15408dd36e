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
 * of groups: so after the snapshot the file is a journal (mcg_journal.c:
 * one record per join or leave, appended once per loop turn and synced on
 * the syncer's thread, one fdatasync per batch).  The snapshot, with the
 * trees, is rewritten when the journal outgrows it (twice its lines, at
 * least JOURNAL_MIN), or WRITE_DELAY_MS after a change the journal does
 * not carry (trees a sweep moved); that empties the journal.
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
 *   join MGID PORTGID join_state proxy state joined left mlid
 *                                (a member added or changed, and the
 *                                 group's state and counts after it)
 *   drop MGID PORTGID state joined left mlid (a member removed)
 *   route MGID state mlid        (the group's tree now: tree/node or
 *                                 attach lines follow, or none)
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
	struct mcg_mgr *mgr;  /* for the durable-answer hooks */
	uint32_t snap_lines;  /* lines of the last snapshot */
	uint64_t snap_due_us; /* the snapshot is written no sooner */
} P;

/* ---- writing ---- */

static void state_path(const struct mcg_mgr *mgr, char *buf, size_t n)
{
	snprintf(buf, n, "%s/" STATE_FILE, mgr->sm->cfg.state_dir);
}

static int write_state(struct mcg_mgr *mgr, const char *dir)
{
	char path[600], tmp[620];
	uint8_t *done = calloc(mgr->mc ? mgr->mc->n_trees + 1 : 1, 1);
	uint32_t lines = 1;
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
		lines += mcg_write_group(fp, mgr->v[i], done);
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
	P.snap_lines = lines;
	return 0;
}

/* mcgroups.state is appended to at the end of every loop turn that made
 * journal records (mcg_journal.c); the snapshot is rewritten when the
 * journal outgrows it, or WRITE_DELAY_MS after a change the journal does
 * not carry, and no sooner than one write gap after the last.  The dumps
 * (mfts.dump, mcgroups.dump) are for people and tools, not for restarts:
 * they are written on the same timer.  The write gap is 20 times as long
 * as writing the snapshot and dumps took, so that with many groups they
 * stay under 5% of the loop's time. */
#define WRITE_DELAY_MS 50
/* The journal may grow to twice the snapshot's lines, and to this many
 * lines at least, before a snapshot replaces it: its cost per record
 * stays bounded whatever the number of groups. */
#define JOURNAL_MIN 100000

static uint64_t write_gap_us = WRITE_DELAY_MS * 1000;

static void warn_unwritten(struct mcg_mgr *mgr, int rc)
{
	if (rc < 0)
		log_warn("multicast: cannot write %s/" STATE_FILE ": %s; a "
			 "restart may lose the latest group changes",
			 mgr->sm->cfg.state_dir, strerror(-rc));
}

/* The snapshot.  Saved trees not yet restored are still the truth: the
 * snapshot waits for them (the journal does not).  It carries every
 * journal record made so far. */
static int save_state(struct mcg_mgr *mgr)
{
	char path[600];
	int rc;

	if (!P.state_dirty || P.n_trees)
		return 0;
	rc = write_state(mgr, mgr->sm->cfg.state_dir);
	P.state_dirty = false;
	warn_unwritten(mgr, rc);
	state_path(mgr, path, sizeof(path));
	mcg_journal_snapshot_done(mgr, path, rc);
	return rc;
}

/* The records of this turn, appended (or a snapshot when there is no
 * file to append to or the journal is long); their answers go when the
 * syncer has them on disk (or at once, written or not, the warning says
 * which). */
static void flush_journal(struct mcg_mgr *mgr)
{
	uint32_t limit = 2 * P.snap_lines;
	char path[600];
	int rc = -EBADF;

	if (!mcg_journal_pending(mgr))
		return;
	if (limit < JOURNAL_MIN)
		limit = JOURNAL_MIN;
	if (mcg_journal_open(mgr) && mcg_journal_lines(mgr) < limit)
		rc = mcg_journal_flush(mgr);
	if (rc == 0)
		return;
	if (!P.n_trees) {
		P.state_dirty = true;
		save_state(mgr);
		return;
	}
	/* saved trees not restored yet: the snapshot waits, so append */
	state_path(mgr, path, sizeof(path));
	if (!mcg_journal_open(mgr))
		mcg_journal_reopen(mgr, path, mcg_journal_lines(mgr));
	rc = mcg_journal_flush(mgr);
	if (rc < 0) {
		warn_unwritten(mgr, rc);
		mcg_journal_snapshot_done(mgr, path, rc);
	}
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

/* Journal records wait to be on disk. */
static bool persist_unsaved(void *ctx)
{
	return P.writer && mcg_journal_unsaved(ctx);
}

static uint64_t persist_ticket(void *ctx)
{
	return mcg_journal_ticket(ctx);
}

static uint64_t persist_durable(void *ctx)
{
	return mcg_journal_durable(ctx);
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

static void journal_due(struct mcg_mgr *mgr)
{
	persist_flush_soon(mgr);
}

static void files_dirty(struct mcg_mgr *mgr, bool state)
{
	uint64_t now;
	int on = 0;

	if (!P.writer)
		return;
	sd_event_now(mgr->sm->ev, CLOCK_MONOTONIC, &now);
	if (!P.state_dirty && !P.dumps_dirty &&
	    P.snap_due_us < now + WRITE_DELAY_MS * 1000)
		P.snap_due_us = now + WRITE_DELAY_MS * 1000;
	P.state_dirty |= state;
	P.dumps_dirty = true;
	sd_event_source_get_enabled(P.writer, &on);
	if (on != SD_EVENT_OFF)
		return;
	sd_event_source_set_time(P.writer, P.snap_due_us);
	sd_event_source_set_enabled(P.writer, SD_EVENT_ONESHOT);
}

void mcg_persist_dirty(struct mcg_mgr *mgr)
{
	files_dirty(mgr, true);
}

void mcg_persist_dumps_dirty(struct mcg_mgr *mgr)
{
	files_dirty(mgr, false);
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

/* The group named by a journal record, and its state and counts after
 * it (the "STATE JOINED LEFT MLID" that ends join and drop records). */
static void set_counts(struct mcg *g, const unsigned v[4])
{
	g->sa->state = (uint8_t)v[0];
	g->sa->joined = (uint16_t)v[1];
	g->sa->left = (uint16_t)v[2];
	g->sa->rec.mlid = (uint16_t)v[3];
}

/* A journal's "join" (add: a member added or changed) or "drop". */
static int load_member(struct mcg_mgr *mgr, const char *line, bool add)
{
	char mg[64], pg[64];
	unsigned js = 0, proxy = 0, v[4];
	uint8_t m[16], p[16];
	struct mcg *g;
	int n = add ? sscanf(line, "join %63s %63s %u %u %u %u %u %x", mg, pg,
			     &js, &proxy, &v[0], &v[1], &v[2], &v[3])
		    : sscanf(line, "drop %63s %63s %u %u %u %x", mg, pg, &v[0],
			     &v[1], &v[2], &v[3]);

	if (n != (add ? 8 : 6) || parse_gid(mg, m) < 0 ||
	    parse_gid(pg, p) < 0 || !(g = mcg_find(mgr, m)))
		return -EINVAL;
	if (add && sa_mcg_member_set(g->sa, p, (uint8_t)js, (uint8_t)proxy) < 0)
		return -ENOMEM;
	if (!add)
		sa_mcg_member_del(g->sa, p);
	set_counts(g, v);
	return 0;
}

/* A journal's "route MGID STATE MLID": the group's tree lines follow
 * (its tree link is replaced), or none. */
static int load_route(struct mcg_mgr *mgr, const char *line, struct mcg **cur)
{
	char mg[64];
	unsigned st, mlid;
	uint8_t m[16];

	*cur = NULL;
	if (sscanf(line, "route %63s %u %x", mg, &st, &mlid) != 3 ||
	    parse_gid(mg, m) < 0 || !(*cur = mcg_find(mgr, m)))
		return -EINVAL;
	(*cur)->sa->state = (uint8_t)st;
	(*cur)->sa->rec.mlid = (uint16_t)mlid;
	unlink_group(m);
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
			sa_mcg_members_clear((*cur)->sa);
			unlink_group((*cur)->sa->rec.mgid);
		}
		return *cur ? 0 : -EINVAL;
	}
	if (journal && !strncmp(line, "gone ", 5)) {
		*cur = NULL;
		return load_gone(mgr, line);
	}
	if (journal && !strncmp(line, "join ", 5)) {
		*cur = NULL;
		return load_member(mgr, line, true);
	}
	if (journal && !strncmp(line, "drop ", 5)) {
		*cur = NULL;
		return load_member(mgr, line, false);
	}
	if (journal && !strncmp(line, "route ", 6))
		return load_route(mgr, line, cur);
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
	int rc;

	P.mgr = mgr;
	mgr->journal_due = journal_due;
	rc = mcg_journal_start(mgr);
	if (rc < 0)
		return rc;
	if (sd_event_add_time(mgr->sm->ev, &P.writer, CLOCK_MONOTONIC,
			      UINT64_MAX, 1000, on_write, mgr) >= 0) {
		sd_event_source_set_enabled(P.writer, SD_EVENT_OFF);
		struct sa_durable_store st = {.unsaved = persist_unsaved,
					      .flush_soon = persist_flush_soon,
					      .ctx = mgr,
					      .ticket = persist_ticket,
					      .durable = persist_durable};
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
	/* the groups replaced are not "gone" from the copy */
	mcg_journal_forget(mgr);
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
	mcg_journal_reopen(mgr, NULL, 0); /* nothing to append to yet */
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
		mcg_journal_forget(mgr);
		return 0; /* no append: the next write is a snapshot */
	}
	mcg_journal_forget(mgr); /* groups the journal destroyed are not news */
	mcg_journal_reopen(mgr, path, jline ? lineno - jline + 1 : 0);
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
	st.n = mcg_tree_order(t, ord);
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
	/* The trees now carry this engine context's IDs, which the
	 * journal's route records use from now on: the file lists them
	 * first, or a record could replace another tree of the same ID. */
	P.state_dirty = true;
	save_state(mgr);
	mcg_persist_dumps_dirty(mgr);
}

void mcg_persist_fini(struct mcg_mgr *mgr)
{
	forget_saved();
	mcg_journal_stop(mgr);
	sa_durable_remove_store(mgr);
	P.writer = sd_event_source_unref(P.writer);
}
