/* State replication between ibsmd master and standby (docs/design.md
 * §3.8).  The master's state is three of its state files: mcgroups.state
 * (mcg_persist.c: groups, members, JoinStates, and each tree with its
 * color, hence MLID and MFT entries), services.state
 * (sa_service_store.c: the ServiceRecords with their leases) and
 * informs.state (sa_inform_store.c: the event subscriptions).  The
 * master serves a file in 160-byte chunks as the vendor SA attribute
 * SMStateChunk (0xFF3A), one SubnAdmGet per chunk (attribute modifier =
 * file << 24 | chunk index: file 0 is mcgroups.state, as before there
 * were others, 1 services.state, 2 informs.state, then the M_Key files,
 * 6 health.state: the unhealthy links), each answer one MAD
 * (ibsim has no RMPP); every chunk carries the length and an FNV-1a
 * checksum of the whole file, which is its generation.  After each poll
 * the master answers, the standby asks for chunk 0 of each file and, when
 * the generation differs from its copy, fetches the rest and keeps a
 * complete, checksummed copy (mcgroups.replica, services.replica,
 * informs.replica).  On takeover a copy that was current at the last
 * poll replaces the standby's own state, so the new master keeps every
 * MGID, MLID, member and tree (no MFT entry moves and no host needs to
 * join again), every ServiceRecord with its lease and every
 * subscription.  With an SM_Key configured the request must carry it.
 *
 * At 10,496 groups mcgroups.state is tens of MB, appended to by every
 * join.  The master keeps each file in memory between requests, reading
 * only what was appended since (and carrying its checksum on), instead
 * of reading and summing the whole file for every chunk; the standby,
 * when the master's file grew, fetches only the chunks from its own
 * length on and checks the checksum of the whole over its copy, which a
 * snapshot rewritten meanwhile fails (then it fetches everything).  A
 * fetch keeps at most REPL_INFLIGHT chunks asked at once. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "daemon/role/sm_elect.h"
#include "lib/log.h"
#include "mad/sa_mad.h"
#include "mad/sa_smstate.h"
#include "mad/umad_port.h"

/* Chunk bytes per answer: the SA data area less gen and length would hold
 * 192, but ibsim's client shim delivers only a MAD's first 224 bytes. */
#define REPL_CHUNK SA_SMSTATE_CHUNK_BYTES
#define REPL_MAX   (256u << 20) /* a state file larger than this is not served \
				 */
#define REPL_INFLIGHT	256	/* chunks a fetch asks for at once */
#define REPL_FILE_SHIFT 24	/* attribute modifier: file << 24 | index */
#define REPL_INDEX_MASK ((1u << REPL_FILE_SHIFT) - 1)

enum {
	REPL_MCAST,
	REPL_SERVICES,
	REPL_INFORMS,
	REPL_MKEYS,
	REPL_MKEY_NBRS,
	REPL_MKEY_SECRET,
	REPL_HEALTH,
	REPL_FILES
};

/* Files marked secret (the M_Key files) are served only with an SM_Key
 * configured, which the request must carry: without one any host could
 * read every port's management key. */
static const struct {
	const char *state, *replica;
	const char *what;   /* in log lines */
	const char *status; /* ibsmctl status key prefix */
	bool secret;
} FILES[REPL_FILES] = {
    {"mcgroups.state", "mcgroups.replica", "multicast state", "mcast_copy",
     false},
    {"services.state", "services.replica", "ServiceRecords", "services_copy",
     false},
    {"informs.state", "informs.replica", "event subscriptions", "informs_copy",
     false},
    {"guid2mkey", "guid2mkey.replica", "port M_Keys", "mkeys_copy", true},
    {"neighbors", "neighbors.replica", "M_Key neighbors", "mkey_nbrs_copy",
     true},
    {"mkey.secret", "mkey.secret.replica", "M_Key secret", "mkey_secret_copy",
     true},
    {"health.state", "health.replica", "unhealthy links", "health_copy", false},
};

/* One file's copy on the standby. */
struct repl {
	struct sm *sm;
	unsigned file;
	bool busy; /* a fetch is running */
	uint32_t have_gen, have_len;
	bool have;	   /* a complete copy of have_gen */
	bool current;	   /* the master's generation was have_gen at the last
			      poll */
	uint8_t *have_buf; /* the copy (have_len bytes) */
	uint8_t *buf;	   /* fetch in progress */
	uint32_t gen, len, nchunks, pending, next;
	uint32_t from; /* the fetch's first byte: have_len when only
			  what was appended is fetched, else 0 */
	bool failed;
	bool full_next; /* an appended part did not check: fetch all */
	uint64_t fetches, chunks;
};

/* The master's copy of a file it serves, kept between requests. */
struct served {
	dev_t dev;
	ino_t ino;
	struct timespec mtime;
	uint8_t *buf;
	uint32_t len, cap, fnv;
	bool valid;
};

static int agent = -1; /* SA client agent, < 0 when none */
static struct repl R[REPL_FILES];
static struct served S[REPL_FILES];

#define FNV_START 2166136261u

/* FNV-1a carried on from h over p[0..n) (h = FNV_START: from the start). */
static uint32_t fnv32_on(uint32_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

static uint32_t fnv32(const uint8_t *p, size_t n)
{
	return fnv32_on(FNV_START, p, n);
}

/* The chunk an answer carries, or -errno (no answer, short, not ours). */
static int answer_chunk(const struct txn_result *r, uint32_t *idx,
			struct sa_smstate_chunk *c)
{
	struct sa_hdr h;

	if (!r->mad || r->mad_len < MAD_SIZE ||
	    sa_hdr_decode(&h, r->mad, r->mad_len) < 0)
		return -EPROTO;
	if (h.status)
		return -EPROTO; /* busy, refused, or not an ibsmd master */
	*idx = h.attr_mod & REPL_INDEX_MASK;
	return sa_rec_decode(&sa_smstate_chunk_desc, r->mad + SA_HDR_SIZE,
			     r->mad_len - SA_HDR_SIZE, c);
}

/* ---- the master's side ---- */

/* Reads bytes [from, size) of fd into the served copy, its checksum
 * carried on; 0 or -errno. */
static int served_read(struct served *v, int fd, uint32_t from, uint32_t size)
{
	if (size > v->cap) {
		uint8_t *b = realloc(v->buf, size);

		if (!b)
			return -ENOMEM;
		v->buf = b;
		v->cap = size;
	}
	for (uint32_t off = from; off < size;) {
		ssize_t n = pread(fd, v->buf + off, size - off, off);

		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		off += (uint32_t)n;
	}
	v->fnv =
	    fnv32_on(from ? v->fnv : FNV_START, v->buf + from, size - from);
	v->len = size;
	return 0;
}

/* File f as it is now: the copy kept since the last request when the
 * file did not change, its appended bytes added when it only grew, else
 * read afresh.  NULL (len 0) when it does not exist or is too large. */
static const struct served *served_file(const struct sm *sm, unsigned f)
{
	struct served *v = &S[f];
	char path[600];
	struct stat st;
	bool same, grew;
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", sm->cfg.state_dir,
		 FILES[f].state);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size <= 0 ||
	    st.st_size > REPL_MAX) {
		if (fd >= 0)
			close(fd);
		v->valid = false;
		return NULL;
	}
	same = v->valid && v->dev == st.st_dev && v->ino == st.st_ino;
	grew = same && (uint32_t)st.st_size > v->len;
	if (same && (uint32_t)st.st_size == v->len &&
	    v->mtime.tv_sec == st.st_mtim.tv_sec &&
	    v->mtime.tv_nsec == st.st_mtim.tv_nsec) {
		close(fd);
		return v;
	}
	rc = served_read(v, fd, grew ? v->len : 0, (uint32_t)st.st_size);
	close(fd);
	v->valid = rc == 0;
	v->dev = st.st_dev;
	v->ino = st.st_ino;
	v->mtime = st.st_mtim;
	return v->valid ? v : NULL;
}

/* The answer's status; the chunk is encoded into data when it is 0. */
static uint16_t serve(struct sm *sm, const struct sa_hdr *q, uint8_t *data)
{
	uint32_t idx = q->attr_mod & REPL_INDEX_MASK,
		 file = q->attr_mod >> REPL_FILE_SHIFT, off = idx * REPL_CHUNK;
	const struct served *v =
	    file < REPL_FILES ? served_file(sm, file) : NULL;
	uint32_t len = v ? v->len : 0;
	struct sa_smstate_chunk c = {0};
	uint16_t status = 0;

	if (file >= REPL_FILES || (FILES[file].secret && !sm->cfg.sm_sm_key))
		status = MAD_STATUS_INVALID_FIELD;
	else if (sm->sm_state != SM_STATE_MASTER)
		status = MAD_STATUS_BUSY;
	else if (sm->cfg.sm_sm_key && q->sm_key != sm->cfg.sm_sm_key)
		status = MAD_STATUS_INVALID_FIELD;
	else if (idx > REPL_MAX / REPL_CHUNK || (off >= len && idx))
		status = MAD_STATUS_INVALID_FIELD;
	if (status == 0) {
		c.generation = v ? v->fnv : 0;
		c.length = len;
		if (off < len)
			memcpy(c.data, v->buf + off,
			       len - off < REPL_CHUNK ? len - off : REPL_CHUNK);
		if (sa_rec_encode(&sa_smstate_chunk_desc, &c, data) < 0)
			status = MAD_STATUS_INVALID_FIELD;
	}
	return status;
}

bool sm_repl_request(struct sm *sm, const struct txn_request *req)
{
	uint8_t out[MAD_SIZE] = {0};
	struct sa_hdr q, a;

	if (req->hdr->mgmt_class != SA_MGMT_CLASS ||
	    req->hdr->attr_id != SA_ATTR_SMSTATE_CHUNK)
		return false;
	if (sa_hdr_decode(&q, req->rx->mad, req->rx->len) < 0)
		return true; /* too short to answer: dropped */
	a = (struct sa_hdr){
	    .base_version = q.base_version,
	    .mgmt_class = q.mgmt_class,
	    .class_version = q.class_version,
	    .method = MAD_METHOD_GET_RESP,
	    .tid = q.tid,
	    .attr_id = q.attr_id,
	    .attr_mod = q.attr_mod,
	    .attr_offset = (8 + REPL_CHUNK) / 8,
	};
	a.status = q.method != MAD_METHOD_GET
		       ? MAD_STATUS_METHOD_ATTR_UNSUPP
		       : serve(sm, &q, out + SA_HDR_SIZE);
	sa_hdr_encode(&a, out);
	txn_respond_raw(sm->txn, req, out, sizeof(out));
	return true;
}

/* ---- the standby's side ---- */

int sm_repl_init(struct sm *sm)
{
	struct mad_agent_req r = {
	    .mgmt_class = SA_MGMT_CLASS,
	    .class_version = 2,
	};
	int rc = mad_port_register(sm->port, &r);

	if (rc < 0) {
		log_warn("cannot register an SA client agent: %s; a standby "
			 "will not copy the master's multicast groups and "
			 "ServiceRecords",
			 strerror(-rc));
		return 0;
	}
	agent = rc;
	for (unsigned f = 0; f < REPL_FILES; f++)
		R[f] = (struct repl){.sm = sm, .file = f};
	return 0;
}

void sm_repl_fini(struct sm *sm)
{
	(void)sm;
	for (unsigned f = 0; f < REPL_FILES; f++) {
		free(R[f].buf);
		free(R[f].have_buf);
		R[f].buf = R[f].have_buf = NULL;
		free(S[f].buf);
		S[f] = (struct served){0};
	}
}

static int ask(struct repl *r, uint32_t idx,
	       void (*cb)(void *, int, const struct txn_result *))
{
	struct sm *sm = r->sm;
	struct sm_elect *e = sm->elect;
	uint8_t mad[MAD_SIZE] = {0};
	struct mad_addr to = {
	    .lid = e->master_lid,
	    .qpn = 1,
	    .qkey = MAD_QKEY_GSI,
	};

	struct sa_hdr h = {
	    .base_version = 1,
	    .mgmt_class = SA_MGMT_CLASS,
	    .class_version = 2,
	    .method = MAD_METHOD_GET,
	    .attr_id = SA_ATTR_SMSTATE_CHUNK,
	    .attr_mod = r->file << REPL_FILE_SHIFT | idx,
	    .sm_key = sm->cfg.sm_sm_key,
	};

	sa_hdr_encode(&h, mad);
	return txn_submit_mad(sm->txn, agent, mad, sizeof(mad), &to,
			      txn_dest_lid(e->master_lid), cb, r);
}

/* The fetched bytes of the replica file: only the appended part
 * written when the copy grew (the rest is on disk from before), else the
 * whole file to a temporary name renamed over it. */
static int write_replica(struct repl *r)
{
	char path[600], tmp[610];
	FILE *fp;
	int rc = 0, fd;

	snprintf(path, sizeof(path), "%s/%s", r->sm->cfg.state_dir,
		 FILES[r->file].replica);
	if (r->from) {
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd >= 0 &&
		    pwrite(fd, r->buf + r->from, r->len - r->from, r->from) ==
			(ssize_t)(r->len - r->from) &&
		    ftruncate(fd, r->len) == 0 && close(fd) == 0)
			return 0;
		if (fd >= 0)
			close(fd);
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* 0600: the M_Key files must not become readable on the way */
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (fwrite(r->buf, 1, r->len, fp) != r->len)
		rc = -EIO;
	if (fclose(fp) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) < 0)
		rc = -errno;
	return rc;
}

/* The fetched copy checks against the generation the master announced:
 * a part fetched after what the standby had carries its checksum on. */
static bool fetched_ok(const struct repl *r)
{
	if (r->failed)
		return false;
	if (r->from)
		return fnv32_on(r->have_gen, r->buf + r->from,
				r->len - r->from) == r->gen;
	return fnv32(r->buf, r->len) == r->gen;
}

static void fetch_end(struct repl *r)
{
	int rc = -EIO;

	r->busy = false;
	if (fetched_ok(r))
		rc = write_replica(r);
	else if (r->from && !r->failed)
		r->full_next = true; /* rewritten meanwhile: all of it next */
	if (rc < 0) {
		log_info("copy of the master's %s (generation %08x, %u "
			 "chunks) failed: %s%s; tried again after the next "
			 "poll",
			 FILES[r->file].what, r->gen, r->nchunks,
			 r->failed ? "chunk lost, " : "", strerror(-rc));
		free(r->buf);
		r->buf = NULL;
		return;
	}
	r->have = r->current = true;
	r->have_gen = r->gen;
	r->have_len = r->len;
	free(r->have_buf);
	r->have_buf = r->buf; /* the next fetch adds to it */
	r->buf = NULL;
	r->fetches++;
	log_info("%s of master 0x%016" PRIx64 " copied (%u bytes, %u fetched, "
		 "generation %08x)",
		 FILES[r->file].what, r->sm->elect->master_guid, r->len,
		 r->len - r->from, r->gen);
}

static void chunk_cb(void *ctx, int status, const struct txn_result *res);

/* Asks for the next chunks, REPL_INFLIGHT at most out at once. */
static void refill(struct repl *r)
{
	while (r->pending < REPL_INFLIGHT && r->next < r->nchunks) {
		if (ask(r, r->next, chunk_cb) < 0) {
			r->failed = true;
			r->next = r->nchunks;
			break;
		}
		r->next++;
		r->pending++;
	}
	if (!r->pending)
		fetch_end(r);
}

/* A chunk: its bytes up to the length announced.  The file may have
 * grown since (its generation is newer): what was before that length is
 * the same in an appended file, and the checksum at the end says whether
 * it was. */
static void chunk_cb(void *ctx, int status, const struct txn_result *res)
{
	struct repl *r = ctx;
	struct sa_smstate_chunk c;
	uint32_t idx, off;

	if (status == -ECANCELED)
		return;
	if (status < 0 || answer_chunk(res, &idx, &c) < 0) {
		r->failed = true;
	} else {
		off = idx * REPL_CHUNK;
		if (off < r->len)
			memcpy(r->buf + off, c.data,
			       r->len - off < REPL_CHUNK ? r->len - off
							 : REPL_CHUNK);
		r->chunks++;
	}
	r->pending--;
	refill(r);
}

/* The fetch of what the master's head announced: only the chunks from
 * the standby's own length on when the file grew, else all of them. */
static void fetch_start(struct repl *r, const struct sa_smstate_chunk *c)
{
	bool grown =
	    r->have && r->have_buf && !r->full_next && r->len > r->have_len;

	r->from = grown ? r->have_len : 0;
	r->full_next = false;
	if (grown)
		memcpy(r->buf, r->have_buf, r->have_len);
	else
		memcpy(r->buf, c->data,
		       r->len < REPL_CHUNK ? r->len : REPL_CHUNK);
	r->busy = true;
	r->failed = false;
	r->nchunks = (r->len + REPL_CHUNK - 1) / REPL_CHUNK;
	r->next = grown ? r->from / REPL_CHUNK : 1;
	r->pending = 0;
	refill(r);
	loop_txn_kick(r->sm);
}

static void head_cb(void *ctx, int status, const struct txn_result *res)
{
	struct repl *r = ctx;
	struct sa_smstate_chunk c;
	uint32_t idx;

	if (status == -ECANCELED)
		return;
	r->busy = false;
	if (status < 0 || answer_chunk(res, &idx, &c) < 0)
		return; /* not an ibsmd master, or busy: no copy */
	r->gen = c.generation;
	r->len = c.length;
	if (r->have && r->gen == r->have_gen && r->len == r->have_len) {
		r->current = true;
		return;
	}
	r->current = false;
	if (r->len == 0 || r->len > REPL_MAX || !(r->buf = malloc(r->len)))
		return;
	fetch_start(r, &c);
}

void sm_repl_poll(struct sm *sm)
{
	if (agent < 0 || !sm->elect->master_lid)
		return;
	for (unsigned f = 0; f < REPL_FILES; f++)
		if (!R[f].busy && (!FILES[f].secret || sm->cfg.sm_sm_key) &&
		    ask(&R[f], 0, head_cb) == 0)
			R[f].busy = true;
}

void sm_repl_forget(struct sm *sm)
{
	(void)sm;
	for (unsigned f = 0; f < REPL_FILES; f++)
		R[f].have = R[f].current = false;
}

void sm_repl_print(FILE *out)
{
	for (unsigned f = 0; f < REPL_FILES; f++) {
		const struct repl *r = &R[f];
		const char *k = FILES[f].status;

		fprintf(out, "%s %s\n", k,
			!r->have     ? "none"
			: r->current ? "current"
				     : "stale");
		fprintf(out, "%s_generation %08x\n", k,
			r->have ? r->have_gen : 0);
		fprintf(out, "%s_fetches %" PRIu64 "\n", k, r->fetches);
		fprintf(out, "%s_chunks %" PRIu64 "\n", k, r->chunks);
	}
}

/* The copy of file f becomes this SM's state file; 0, or -ENOENT when
 * there is no current copy. */
static int adopt_file(struct sm *sm, unsigned f)
{
	char from[600], to[600];
	struct repl *r = &R[f];

	if (!r->have || !r->current)
		return -ENOENT;
	snprintf(from, sizeof(from), "%s/%s", sm->cfg.state_dir,
		 FILES[f].replica);
	snprintf(to, sizeof(to), "%s/%s", sm->cfg.state_dir, FILES[f].state);
	if (rename(from, to) < 0)
		return -errno;
	r->have = r->current = false;
	return 0;
}

static int adopt(struct sm *sm, unsigned f)
{
	int (*reload)(struct sm *) = f == REPL_MCAST	  ? sm->mcg_reload
				     : f == REPL_SERVICES ? sm->svc_reload
				     : f == REPL_INFORMS  ? sm->inform_reload
				     : f == REPL_HEALTH	  ? sm->health_reload
							  : sm->mkey_reload;
	int rc = adopt_file(sm, f);

	if (rc == 0)
		rc = reload ? reload(sm) : -ENODEV;
	if (rc == 0)
		log_notice("%s taken over from the master's copy (generation "
			   "%08x)",
			   FILES[f].what, R[f].have_gen);
	return rc;
}

void sm_repl_take_state(struct sm *sm)
{
	int rc = adopt(sm, REPL_MCAST), rs = adopt(sm, REPL_SERVICES),
	    ri = adopt(sm, REPL_INFORMS), rh = adopt(sm, REPL_HEALTH), rk = 0;

	for (unsigned f = REPL_MKEYS; f <= REPL_MKEY_SECRET; f++) {
		int r = adopt(sm, f);
		if (r < 0 && r != -ENOENT)
			rk = r;
	}

	/* Without the old master's multicast state (a foreign SM, or no
	 * current copy) the hosts must join their groups again; they
	 * register their services again then too. */
	sm->rereg_pending = rc < 0;
	if (rc < 0 && rc != -ENOENT)
		log_warn("cannot take over the master's multicast groups: %s; "
			 "hosts are asked to join again",
			 strerror(-rc));
	if (rs < 0 && rs != -ENOENT)
		log_warn("cannot take over the master's ServiceRecords: %s; "
			 "this SM keeps its own",
			 strerror(-rs));
	if (ri < 0 && ri != -ENOENT)
		log_warn("cannot take over the master's event subscriptions: "
			 "%s; this SM keeps its own",
			 strerror(-ri));
	if (rh < 0 && rh != -ENOENT)
		log_warn("cannot take over the master's unhealthy links: %s; "
			 "this SM keeps its own",
			 strerror(-rh));
	if (rk < 0)
		log_warn("cannot take over the master's M_Keys: %s; ports it "
			 "keyed per port may refuse this SM",
			 strerror(-rk));
}
