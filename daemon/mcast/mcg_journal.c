/* The journal of mcgroups.state (after its snapshot, mcg_persist.c) and
 * its group commit.  Each join or leave adds its record as it happens,
 * in order, to a buffer: a member line for a collective group or a
 * standard group's member (join, drop), a whole group when one is
 * created, "gone" when one is destroyed.  A group whose tree changed
 * gets a route record (its state, MLID and tree) once per batch, at the
 * end of the loop turn, when the buffer is appended to the file with one
 * write.  The sync of what was written runs on the syncer's thread
 * (lib/syncer.c), one fdatasync for everything appended meanwhile: the
 * loop goes on answering and appending while the disk works, and a held
 * answer (durable_ack.c) goes once the sync covering its record is done.
 * Records are numbered by the bytes made so far (ticket), written and on
 * disk (durable), counted across snapshots.
 *
 * So a join costs one line, whatever the size of its group (writing the
 * whole group per join made the file grow with the square of a group's
 * size), and the loop never waits for the disk on a join. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <systemd/sd-event.h>
#include <unistd.h>

#include "daemon/core/sm.h"
#include "daemon/mcast/mcg_priv.h"
#include "daemon/sa_daemon/sa_daemon.h"
#include "lib/log.h"
#include "lib/syncer.h"
#include "routing/mcast/mcast.h"

struct mcg_journal {
	struct mcg_mgr *mgr;
	int fd;		/* mcgroups.state open for appending, -1: none */
	uint32_t lines; /* journal lines in the file */
	char *buf;	/* records not written yet */
	size_t len, cap;
	bool lost;	     /* a record did not fit in memory: only a
				snapshot can carry the state now */
	uint64_t ticket;     /* bytes of records made */
	uint64_t written;    /* of which in the file */
	uint64_t durable;    /* of which on disk */
	struct mcg **routes; /* groups whose route record is due */
	size_t n_routes, cap_routes;
	struct syncer *sync;
	struct sd_event_source *sync_src;
	bool syncing; /* a sync asked for and not reported yet */
	uint64_t records, writes, syncs;
};

/* ---- formatting (shared with the snapshot) ---- */

void mcg_put_gid(FILE *fp, const uint8_t g[16])
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

uint32_t mcg_tree_order(const struct mc_tree *t, uint32_t *ord)
{
	return bfs_order(t, ord, ord + t->n_nodes);
}

/* The tree's lines; how many, or 0 when out of memory. */
static uint32_t write_tree(FILE *fp, const struct fabric *f,
			   const struct mc_tree *t)
{
	uint32_t *ord = calloc(t->n_nodes * 2 + 1, sizeof(*ord)), n;

	if (!ord)
		return 0;
	n = mcg_tree_order(t, ord);
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
	return n + 1;
}

static const struct mc_tree *tree_of(const struct mcg *g)
{
	return g->eid != MC_NONE && g->mgr->mc
		   ? mcast_group_tree(g->mgr->mc, g->eid)
		   : NULL;
}

/* g's tree, or "attach ID" when tree_done (NULL: none) says it is
 * listed already; lines written. */
static uint32_t write_tree_of(FILE *fp, const struct mcg *g, uint8_t *tree_done)
{
	const struct mc_tree *t = tree_of(g);
	uint32_t n;

	if (!t)
		return 0;
	if (tree_done && tree_done[t->id]) {
		fprintf(fp, "attach %u\n", t->id);
		return 1;
	}
	n = write_tree(fp, g->mgr->sm->fab, t);
	if (n && tree_done)
		tree_done[t->id] = 1;
	return n;
}

uint32_t mcg_write_group(FILE *fp, struct mcg *g, uint8_t *tree_done)
{
	const struct sa_mcm_rec *r = &g->sa->rec;

	fputs("group ", fp);
	mcg_put_gid(fp, r->mgid);
	fprintf(fp, " %u %u %u %u %u %u %u %u %u %u %u %u %u %u 0x%04x\n",
		r->member_count, g->sa->state, g->sa->joined, g->sa->left,
		r->qkey, r->pkey, r->mtu, r->rate, r->sl, r->flow_label,
		r->tclass, r->life, r->hop_limit, r->scope, r->mlid);
	for (uint32_t i = 0; i < g->sa->n_members; i++) {
		fputs("member ", fp);
		mcg_put_gid(fp, g->sa->members[i].port_gid);
		fprintf(fp, " %u %u\n", g->sa->members[i].join_state,
			g->sa->members[i].proxy);
	}
	return 1 + g->sa->n_members + write_tree_of(fp, g, tree_done);
}

/* ---- records ---- */

/* Room for need elements of size sz in *v (capacity *cap, doubled). */
static int grow(void **v, size_t *cap, size_t need, size_t sz)
{
	size_t nc = *cap ? *cap : 64;
	void *nv;

	if (need <= *cap)
		return 0;
	while (nc < need)
		nc *= 2;
	if (!(nv = realloc(*v, nc * sz)))
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static struct mcg_journal *J(struct mcg_mgr *m)
{
	return m->journal;
}

/* Adds what fn printed to the buffer; the batch is written at the end
 * of the loop turn. */
static void add(struct mcg_mgr *m, void (*fn)(FILE *, const void *),
		const void *arg)
{
	struct mcg_journal *j = J(m);
	char *text = NULL;
	size_t n = 0;
	FILE *fp;

	if (!j || j->lost)
		return;
	fp = open_memstream(&text, &n);
	if (fp) {
		fn(fp, arg);
		if (fclose(fp) != 0)
			n = 0;
	}
	if (!n || (j->cap - j->len < n &&
		   grow((void **)&j->buf, &j->cap, j->len + n, 1) < 0)) {
		j->lost = true; /* the snapshot carries it */
		free(text);
		return;
	}
	memcpy(j->buf + j->len, text, n);
	j->len += n;
	j->ticket += n;
	j->records++;
	free(text);
	if (m->journal_due)
		m->journal_due(m);
}

/* "STATE JOINED LEFT MLID" of a group, after a member line. */
static void put_counts(FILE *fp, const struct mcg *g)
{
	fprintf(fp, " %u %u %u 0x%04x\n", g->sa->state, g->sa->joined,
		g->sa->left, g->sa->rec.mlid);
}

struct member_arg {
	const struct mcg *g;
	const uint8_t *gid;
};

static void fmt_member(FILE *fp, const void *arg)
{
	const struct member_arg *a = arg;
	const struct sa_mcg_member *mb = sa_mcg_member_find(a->g->sa, a->gid);

	if (mb) {
		fputs("join ", fp);
		mcg_put_gid(fp, a->g->sa->rec.mgid);
		fputc(' ', fp);
		mcg_put_gid(fp, a->gid);
		fprintf(fp, " %u %u", mb->join_state, mb->proxy);
	} else {
		fputs("drop ", fp);
		mcg_put_gid(fp, a->g->sa->rec.mgid);
		fputc(' ', fp);
		mcg_put_gid(fp, a->gid);
	}
	put_counts(fp, a->g);
}

void mcg_journal_member(struct mcg *g, const uint8_t port_gid[16])
{
	struct member_arg a = {g, port_gid};

	add(g->mgr, fmt_member, &a);
}

static void fmt_group(FILE *fp, const void *arg)
{
	mcg_write_group(fp, (struct mcg *)arg, NULL);
}

void mcg_journal_group(struct mcg *g)
{
	add(g->mgr, fmt_group, g);
}

static void fmt_gone(FILE *fp, const void *arg)
{
	fputs("gone ", fp);
	mcg_put_gid(fp, arg);
	fputc('\n', fp);
}

void mcg_journal_gone(struct mcg *g)
{
	struct mcg_journal *j = J(g->mgr);

	if (j && g->journaled)
		for (size_t i = 0; i < j->n_routes; i++)
			if (j->routes[i] == g)
				j->routes[i] = NULL;
	g->journaled = false;
	add(g->mgr, fmt_gone, g->sa->rec.mgid);
}

void mcg_journal_route(struct mcg *g)
{
	struct mcg_journal *j = J(g->mgr);

	if (!j || g->journaled)
		return;
	if (grow((void **)&j->routes, &j->cap_routes, j->n_routes + 1,
		 sizeof(*j->routes)) < 0) {
		j->lost = true;
		return;
	}
	j->routes[j->n_routes++] = g;
	g->journaled = true;
	if (g->mgr->journal_due)
		g->mgr->journal_due(g->mgr);
}

/* "route MGID STATE MLID" and the tree lines (none: no tree). */
static void fmt_route(FILE *fp, const void *arg)
{
	const struct mcg *g = arg;

	fputs("route ", fp);
	mcg_put_gid(fp, g->sa->rec.mgid);
	fprintf(fp, " %u 0x%04x\n", g->sa->state, g->sa->rec.mlid);
	write_tree_of(fp, g, NULL);
}

/* The route records of the batch: the trees as they are now. */
static void add_routes(struct mcg_journal *j)
{
	for (size_t i = 0; i < j->n_routes; i++) {
		struct mcg *g = j->routes[i];

		if (!g)
			continue;
		g->journaled = false;
		add(j->mgr, fmt_route, g);
	}
	j->n_routes = 0;
}

/* ---- the file and its syncs ---- */

static void sync_next(struct mcg_journal *j)
{
	if (j->syncing || j->durable >= j->written || j->fd < 0)
		return;
	if (syncer_request(j->sync, j->fd, j->written) < 0) {
		log_warn("multicast: cannot sync mcgroups.state: %s; joins are "
			 "answered without it",
			 strerror(errno));
		j->durable = j->written;
		sa_durable_release(j->mgr->sm);
		return;
	}
	j->syncing = true;
}

static int on_synced(sd_event_source *s, int fd, uint32_t rev, void *ud)
{
	struct mcg_journal *j = ud;
	int err = 0;
	uint64_t t = syncer_done(j->sync, &err);

	j->syncing = false;
	j->syncs++;
	if (err)
		log_warn("multicast: syncing mcgroups.state failed: %s; a "
			 "restart may lose the latest group changes",
			 strerror(-err));
	if (t > j->durable)
		j->durable = t;
	sync_next(j); /* what was written meanwhile: the next batch */
	sa_durable_release(j->mgr->sm);
	return 0;
}

int mcg_journal_flush(struct mcg_mgr *m)
{
	struct mcg_journal *j = J(m);
	size_t off = 0;
	uint32_t lines = 0;

	if (!j)
		return 0;
	add_routes(j);
	if (j->fd < 0 || j->lost)
		return -EBADF; /* a snapshot, then */
	for (size_t i = 0; i < j->len; i++)
		lines += j->buf[i] == '\n';
	if (j->len && !j->lines) {
		static const char hdr[] = "journal\n";

		if (write(j->fd, hdr, sizeof(hdr) - 1) != sizeof(hdr) - 1)
			goto torn;
		j->lines = 1;
	}
	while (off < j->len) {
		ssize_t w = write(j->fd, j->buf + off, j->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			goto torn;
		off += (size_t)w;
	}
	if (j->len)
		j->writes++;
	j->lines += lines;
	j->written += j->len;
	j->len = 0;
	sync_next(j);
	return 0;
torn: /* maybe a torn line: the next write is a snapshot */
	close(j->fd);
	j->fd = -1;
	return -EIO;
}

bool mcg_journal_unsaved(struct mcg_mgr *m)
{
	struct mcg_journal *j = J(m);

	return j && (j->ticket > j->durable || j->n_routes);
}

bool mcg_journal_pending(struct mcg_mgr *m)
{
	struct mcg_journal *j = J(m);

	return j && (j->len || j->n_routes);
}

uint64_t mcg_journal_ticket(struct mcg_mgr *m)
{
	return J(m) ? J(m)->ticket : 0;
}

uint64_t mcg_journal_durable(struct mcg_mgr *m)
{
	return J(m) ? J(m)->durable : 0;
}

uint32_t mcg_journal_lines(struct mcg_mgr *m)
{
	return J(m) ? J(m)->lines : 0;
}

bool mcg_journal_open(struct mcg_mgr *m)
{
	return J(m) && J(m)->fd >= 0;
}

/* Opens path for appending after its last complete line (NULL: closes
 * the file); lines: the journal lines it holds. */
void mcg_journal_reopen(struct mcg_mgr *m, const char *path, uint32_t lines)
{
	struct mcg_journal *j = J(m);
	char last = '\n';

	if (!j)
		return;
	if (j->fd >= 0)
		close(j->fd);
	j->fd = -1;
	j->lines = lines;
	if (!path)
		return;
	j->fd = open(path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (j->fd < 0)
		return;
	/* a torn last line (a crash mid-append) is ended, not continued */
	if (lseek(j->fd, -1, SEEK_END) >= 0 && read(j->fd, &last, 1) == 1 &&
	    last != '\n' && write(j->fd, "\n", 1) != 1) {
		close(j->fd);
		j->fd = -1;
	}
}

/* The records waiting count as saved (a snapshot carries them, or they
 * need no saving). */
static void drop_pending(struct mcg_journal *j)
{
	for (size_t i = 0; i < j->n_routes; i++)
		if (j->routes[i])
			j->routes[i]->journaled = false;
	j->n_routes = 0;
	j->len = 0;
	j->lost = false;
	j->written = j->durable = j->ticket;
}

void mcg_journal_snapshot_done(struct mcg_mgr *m, const char *path, int rc)
{
	struct mcg_journal *j = J(m);

	if (!j)
		return;
	/* written (synced) or warned about: every record made so far is as
	 * safe as it will be */
	drop_pending(j);
	if (rc == 0)
		mcg_journal_reopen(m, path, 0);
	sa_durable_release(m->sm);
}

void mcg_journal_forget(struct mcg_mgr *m)
{
	if (J(m))
		drop_pending(J(m));
}

void mcg_journal_print(struct mcg_mgr *m, FILE *out)
{
	struct mcg_journal *j = J(m);

	if (!j)
		return;
	fprintf(out, "journal_records %" PRIu64 "\n", j->records);
	fprintf(out, "journal_writes %" PRIu64 "\n", j->writes);
	fprintf(out, "journal_syncs %" PRIu64 "\n", j->syncs);
	fprintf(out, "journal_lines %u\n", j->lines);
}

int mcg_journal_start(struct mcg_mgr *m)
{
	struct mcg_journal *j = calloc(1, sizeof(*j));

	if (!j)
		return -ENOMEM;
	j->mgr = m;
	j->fd = -1;
	j->sync = syncer_new();
	if (!j->sync ||
	    sd_event_add_io(m->sm->ev, &j->sync_src, syncer_fd(j->sync),
			    EPOLLIN, on_synced, j) < 0) {
		syncer_free(j->sync);
		free(j);
		return -ENOMEM;
	}
	m->journal = j;
	return 0;
}

void mcg_journal_stop(struct mcg_mgr *m)
{
	struct mcg_journal *j = J(m);

	if (!j)
		return;
	syncer_free(j->sync); /* joins a sync that runs */
	sd_event_source_unref(j->sync_src);
	if (j->fd >= 0)
		close(j->fd);
	free(j->buf);
	free(j->routes);
	free(j);
	m->journal = NULL;
}
