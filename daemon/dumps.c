/* The dump files (docs/design.md §4.4) of a swept model.  After a heavy sweep they
 * go to the state directory; `ibsmctl dump DIR` writes them anywhere.  The
 * big ones (lfts.dump, fdbs: tens of MB at thousands of hosts) depend only
 * on LIDs, LFTs and hop tables, which are final once the LFT blocks are
 * programmed, so a heavy sweep writes them on a helper thread while the
 * ports are being activated; subnet.lst (it shows port states) and
 * guid2lid follow when the sweep ends. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/sm.h"
#include "lib/dump.h"
#include "lib/log.h"

/* Until multicast routing programs MFTs, every switch's MFT is empty;
 * ibdmchk wants the file anyway. */
static int no_mft_entry(void *ctx, const struct ib_node *sw, uint32_t i,
			uint16_t *mlid, uint64_t mask[4])
{
	return 0;
}

static int write_tables(const char *dir, const struct fabric *f,
			const struct hops *h)
{
	struct hops_fdbs_ctx hc = {.f = f, .h = h};
	int rc = dump_write_lfts(dir, f);

	if (rc == 0)
		rc = dump_write_fdbs(dir, f, h->d ? hops_fdbs_cb : NULL, &hc);
	if (rc == 0)
		rc = dump_write_mfts(dir, f, no_mft_entry, NULL);
	return rc;
}

static int write_rest(const char *dir, const struct fabric *f)
{
	int rc = dump_write_subnet_lst(dir, f);

	return rc == 0 ? dump_write_guid2lid(dir, f) : rc;
}

int sm_write_dumps(struct sm *sm, const char *dir)
{
	int rc;

	if (!sm->fab)
		return -ENOENT;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rc = write_tables(dir, sm->fab, &sm->hops);
	return rc == 0 ? write_rest(dir, sm->fab) : rc;
}

struct dump_job {
	pthread_t th;
	bool running;
	const struct fabric *f;
	const struct hops *h;
	const char *dir;
	int rc;
};

static struct dump_job job;

static void *dump_thread(void *arg)
{
	struct dump_job *j = arg;

	j->rc = write_tables(j->dir, j->f, j->h);
	return NULL;
}

void dumps_start_tables(struct sm *sm, const struct fabric *f,
			const struct hops *h)
{
	sigset_t all, old;

	dumps_join(sm);
	job.f = f;
	job.h = h;
	job.dir = sm->cfg.state_dir;
	job.rc = 0;
	/* The helper must not take the loop's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	job.running = pthread_create(&job.th, NULL, dump_thread, &job) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!job.running)
		job.rc = write_tables(job.dir, f, h);
}

int dumps_join(struct sm *sm)
{
	if (job.running) {
		pthread_join(job.th, NULL);
		job.running = false;
	}
	return job.rc;
}

int dumps_finish(struct sm *sm)
{
	int rc = dumps_join(sm);
	int r2 = write_rest(sm->cfg.state_dir, sm->fab);

	return rc < 0 ? rc : r2;
}
