/* The dump files (docs/design.md §4.4) of the adopted model.  After a heavy
 * sweep the ones the dumps key lists go to the state directory on a helper
 * thread, started once the model is adopted, so they never delay the
 * subnet coming up nor hold the loop: lfts.dump and fdbs grow with
 * switches x LIDs (2.3 GB at 16,000 hosts) and are off by default.
 * guid2lid is state, not a dump: it is written in the loop, first, since
 * it carries LIDs across restarts.  `ibsmctl dump DIR` writes every dump.
 * The helper reads only sm->fab and sm->hops, which nothing changes until
 * the next model is adopted; the adoption joins it first. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/sweep/sweep_priv.h"
#include "lib/dump.h"
#include "lib/log.h"
#include "routing/unicast/layers.h"
#include "mad/txn.h"

enum {
	DUMP_SUBNET = 1,
	DUMP_LFTS = 2,
	DUMP_FDBS = 4,
	DUMP_MFTS = 8,
	DUMP_CA_ORDER = 16, /* ftree-ca-order.dump, whenever ftree routed */
	DUMP_PATH_SL = 32,  /* path-sl.dump, with lfts when layered routed */
};

struct dump_job {
	pthread_t th;
	bool running;
	const struct fabric *f;
	const struct hops *h;
	const struct ucast_layers *ly; /* sm->layers, for path-sl.dump */
	char dir[256];
	unsigned want; /* DUMP_* */
	int rc;
	int64_t start_us, end_us;
};

/* Without a multicast manager (--once) every MFT is empty; ibdmchk wants
 * the file anyway.  A daemon's manager writes the real one. */
static int no_mft_entry(void *ctx, const struct ib_node *sw, uint32_t i,
			uint16_t *mlid, uint64_t mask[4])
{
	return 0;
}

struct sl_ctx {
	const struct ucast_layers *ly;
	const struct fabric *f;
};

/* The SLs the SA answers (daemon/sa/sa_path.c, layers_answer_sl). */
static int lid_sls(void *ctx, uint16_t lid, int8_t *sl)
{
	const struct sl_ctx *c = ctx;
	int rc = layers_lid_sls(c->ly, c->f, lid, sl);

	for (uint32_t x = 0; rc == 0 && x < c->f->n_switches; x++)
		if (sl[x] >= 0)
			sl[x] = (int8_t)layers_answer_sl(c->ly, sl[x]);
	return rc;
}

static int write_some(const char *dir, const struct fabric *f,
		      const struct hops *h, const struct ucast_layers *ly,
		      unsigned want)
{
	struct sl_ctx sc = {ly, f};
	struct hops_fdbs_ctx hc = {.f = f, .h = h};
	int rc = 0;

	if (want & DUMP_SUBNET)
		rc = dump_write_subnet_lst(dir, f);
	if (rc == 0 && (want & DUMP_LFTS))
		rc = dump_write_lfts(dir, f);
	if (rc == 0 && (want & DUMP_FDBS))
		rc = dump_write_fdbs(dir, f, h->d ? hops_fdbs_cb : NULL, &hc);
	if (rc == 0 && (want & DUMP_MFTS))
		rc = dump_write_mfts(dir, f, no_mft_entry, NULL);
	if (rc == 0 && (want & DUMP_CA_ORDER))
		rc = dump_write_ca_order(dir, f);
	if (rc == 0 && (want & DUMP_PATH_SL) && ly &&
	    ly->n_switches == f->n_switches)
		rc = dump_write_path_sl(dir, f, lid_sls, &sc);
	return rc;
}

int sm_write_dumps(struct sm *sm, const char *dir)
{
	int rc;

	if (!sm->fab)
		return -ENOENT;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rc = write_some(dir, sm->fab, &sm->hops, sm->layers,
			DUMP_SUBNET | DUMP_LFTS | DUMP_FDBS | DUMP_MFTS |
			    DUMP_PATH_SL | (sm->ca_order ? DUMP_CA_ORDER : 0));
	return rc == 0 ? dump_write_guid2lid(dir, sm->fab) : rc;
}

static unsigned wanted(const struct sm *sm)
{
	const struct config *c = &sm->cfg;
	unsigned w = 0;

	w |= config_dump_wanted(c, "subnet") ? DUMP_SUBNET : 0;
	w |= config_dump_wanted(c, "lfts") ? DUMP_LFTS | DUMP_PATH_SL : 0;
	w |= config_dump_wanted(c, "fdbs") ? DUMP_FDBS : 0;
	if (!sm->mcg && config_dump_wanted(c, "mfts"))
		w |= DUMP_MFTS;
	/* small, and what job launchers place ranks by: always */
	w |= sm->ca_order ? DUMP_CA_ORDER : 0;
	return w;
}

static void *dump_thread(void *arg)
{
	struct dump_job *j = arg;

	j->rc = write_some(j->dir, j->f, j->h, j->ly, j->want);
	j->end_us = txn_now_us();
	return NULL;
}

int dumps_join(struct sm *sm)
{
	struct dump_job *j = sm->dump_job;

	if (!j || !j->running)
		return j ? j->rc : 0;
	pthread_join(j->th, NULL);
	j->running = false;
	if (j->rc < 0)
		log_err("cannot write the dumps to %s: %s", j->dir,
			strerror(-j->rc));
	else
		log_info("dumps written to %s in %.1f ms", j->dir,
			 (j->end_us - j->start_us) / 1000.0);
	return j->rc;
}

static void start_job(struct sm *sm, unsigned want)
{
	struct dump_job *j = sm->dump_job;
	sigset_t all, old;

	if (!j && !(j = sm->dump_job = calloc(1, sizeof(*j)))) {
		log_err("cannot write the dumps: out of memory");
		return;
	}
	*j = (struct dump_job){
	    .f = sm->fab, .h = &sm->hops, .ly = sm->layers, .want = want};
	snprintf(j->dir, sizeof(j->dir), "%s", sm->cfg.state_dir);
	j->start_us = txn_now_us();
	/* The helper must not take the loop's signals. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	j->running = pthread_create(&j->th, NULL, dump_thread, j) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!j->running) /* no thread to be had: write them here */
		dump_thread(j);
}

int dumps_after_sweep(struct sm *sm)
{
	unsigned want = wanted(sm);
	int rc = dump_write_guid2lid(sm->cfg.state_dir, sm->fab);

	if (want)
		start_job(sm, want);
	return rc;
}

void dumps_free(struct sm *sm)
{
	dumps_join(sm);
	free(sm->dump_job);
	sm->dump_job = NULL;
}
