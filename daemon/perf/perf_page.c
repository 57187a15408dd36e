/* The port families' block on the metrics page (perf_metrics.c): every
 * port's counters as ibsmd_port_<counter>_total, about 2 million samples
 * and 330 MB at 16,000 hosts, which take a second or more to write.  So
 * the block is made in slices of a few milliseconds on the loop (an idle
 * priority event: everything else the loop has to do goes first), after
 * each round and after a new model, while metrics.listen is set; pages
 * put the last finished block meanwhile.  First slices: each port's label
 * set, once; then one family after the other, each port's total as it is
 * when its line is written. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-event.h>

#include "daemon/perf/perf_priv.h"
#include "lib/log.h"
#include "lib/prom.h"

#define SLICE_US   5000 /* a slice's time on the loop */
#define SLICE_STEP 256	/* lines between two looks at the clock */

struct pm_row {
	uint32_t port; /* index in pf->ports */
	uint32_t off;  /* its labels in the label text */
	uint32_t len;
};

struct pm_page {
	struct sd_event_source *ev;
	bool building, again; /* again: asked while building */
	unsigned phase;	      /* 0: labels, 1 + c: family c */
	uint32_t node, at;    /* the cursors of the phase */
	struct pm_row *rows;
	uint32_t n, cap, any; /* any: counters some row has */
	char *text;
	size_t len, size;
	struct prom_out o;
	int64_t spent_us;
};

static int add_text(struct pm_page *pg, const char *s, size_t n)
{
	if (pg->len + n > pg->size) {
		size_t size = pg->size ? pg->size * 2 : 1 << 20;
		char *t;

		while (size < pg->len + n)
			size *= 2;
		t = realloc(pg->text, size);
		if (!t)
			return -ENOMEM;
		pg->text = t;
		pg->size = size;
	}
	memcpy(pg->text + pg->len, s, n);
	pg->len += n;
	return 0;
}

static int add_row(struct perf *pf, struct pm_page *pg, const struct ib_node *n,
		   unsigned p)
{
	const struct pm_port *pp = pm_port_find(pf, n->guid, (uint8_t)p);
	struct perf_port_view v = {
	    .node_guid = n->guid, .port = (uint8_t)p, .node_desc = n->desc};
	char buf[1024];
	size_t len;

	if (!pp || !pp->s.valid)
		return 0;
	perf_fill_peer(pf, &n->ports[p], &v);
	len = perf_end_labels(buf, sizeof(buf), v.node_guid, v.port,
			      v.node_desc, v.remote_guid, v.remote_port,
			      v.remote_desc, NULL, 0);
	if (len >= sizeof(buf))
		return 0; /* cannot be: descriptions are 64 bytes */
	if (pg->n == pg->cap) {
		uint32_t cap = pg->cap ? pg->cap * 2 : 4096;
		struct pm_row *r = realloc(pg->rows, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		pg->rows = r;
		pg->cap = cap;
	}
	pg->rows[pg->n++] = (struct pm_row){(uint32_t)(pp - pf->ports),
					    (uint32_t)pg->len, (uint32_t)len};
	pg->any |= pp->s.valid;
	return add_text(pg, buf, len);
}

/* Some of the label sets; true when all are made. */
static int labels_step(struct perf *pf, struct pm_page *pg, int64_t end)
{
	const struct fabric *f = pf->sm->fab;
	unsigned k = 0;
	int rc;

	for (; f && pg->node < f->n_nodes; pg->node++) {
		const struct ib_node *n = f->nodes[pg->node];

		for (unsigned p = 1; p <= n->nports; p++)
			if ((rc = add_row(pf, pg, n, p)) < 0)
				return rc;
		if (++k % 16 == 0 && txn_now_us() > end) {
			pg->node++;
			return 0;
		}
	}
	return 1;
}

/* Some lines of family c; true when it is whole. */
static bool family_step(struct perf *pf, struct pm_page *pg, unsigned c,
			int64_t end)
{
	uint32_t bit = 1u << c;
	char name[80], help[200];
	size_t nlen = perf_metric_name(c, name, sizeof(name));

	if (!(pg->any & bit))
		return true;
	if (pg->at == 0) {
		snprintf(help, sizeof(help),
			 "%s, 64-bit total since ibsmd first read the port.",
			 perf_counter_help(c));
		prom_family(&pg->o, name, PROM_COUNTER, help);
		/* the family's size, about: one growth instead of many */
		prom_reserve(&pg->o, (size_t)pg->n * (nlen + 16) + pg->len);
	}
	for (; pg->at < pg->n; pg->at++) {
		const struct pm_row *r = &pg->rows[pg->at];
		const struct pm_port *pp = &pf->ports[r->port];

		if (pp->s.valid & bit)
			prom_sample_rawn(
			    &pg->o, name, nlen, pg->text + r->off, r->len,
			    pp->s.total[c] * (perf_in_bytes(c) ? 4 : 1));
		if ((pg->at + 1) % SLICE_STEP == 0 && txn_now_us() > end) {
			pg->at++;
			return false;
		}
	}
	return true;
}

static void reset(struct pm_page *pg)
{
	prom_out_free(&pg->o);
	pg->n = pg->any = 0;
	pg->len = 0;
	pg->phase = 0;
	pg->node = pg->at = 0;
	pg->spent_us = 0;
}

static void finish(struct perf *pf, struct pm_page *pg)
{
	struct prom_block *b = prom_block_make(&pg->o);

	if (!b) {
		log_err("perfmgr: out of memory making the port counters' "
			"page; the page keeps the last one");
	} else {
		prom_block_unref(pf->page);
		pf->page = b;
		if (!prom_block_len(b)) { /* no port of the model read */
			prom_block_unref(b);
			pf->page = NULL;
		}
	}
	pf->page_s = (double)pg->spent_us / 1e6;
	pf->page_builds++;
	pg->building = false;
	reset(pg);
}

/* One slice: false when the block is done (or failed). */
static bool slice(struct perf *pf, struct pm_page *pg)
{
	int64_t t0 = txn_now_us(), end = t0 + SLICE_US;
	int rc = 1;

	while (rc > 0 && txn_now_us() <= end) {
		if (pg->phase == 0) {
			rc = labels_step(pf, pg, end);
		} else if (pg->phase <= PERF_COUNTERS) {
			rc = family_step(pf, pg, pg->phase - 1, end);
		} else {
			break;
		}
		if (rc > 0) {
			pg->phase++;
			pg->at = 0;
		}
	}
	pg->spent_us += txn_now_us() - t0;
	if (rc < 0 || pg->o.oom) {
		log_err("perfmgr: out of memory making the port counters' "
			"page; it is made again after the next round");
		pg->building = false;
		reset(pg);
		return false;
	}
	if (pg->phase > PERF_COUNTERS) {
		finish(pf, pg);
		return false;
	}
	return true;
}

static int on_slice(sd_event_source *src, uint64_t usec, void *ud)
{
	struct perf *pf = ud;
	struct pm_page *pg = pf->page_build;

	if (slice(pf, pg)) {
		sd_event_source_set_time(src, 0);
		sd_event_source_set_enabled(src, SD_EVENT_ONESHOT);
	} else if (pg->again) {
		pg->again = false;
		perf_page_request(pf, PAGE_ROUND);
	}
	return 0;
}

void perf_page_request(struct perf *pf, enum perf_page_why why)
{
	struct pm_page *pg = pf->page_build;

	if (!pg)
		return;
	if (!*pf->sm->cfg.metrics_listen) {
		/* no endpoint any more (a reload): the block's hundreds of
		 * megabytes go with the last page sending it */
		prom_block_unref(pf->page);
		pf->page = NULL;
		return;
	}
	/* no port read yet (perfmgr off, or before its first round): no
	 * families to show */
	if (!pf->n_ports)
		return;
	if (pg->building && why == PAGE_MODEL && pg->phase == 0) {
		reset(pg); /* the label sets from the new model only */
		return;
	}
	if (pg->building) {
		/* the rows name the ports by their table index, which stays:
		 * this block is right for the old model and the readings so
		 * far; the next one is made when this one is done */
		pg->again |= why != PAGE_NONE_YET;
		return;
	}
	pg->building = true;
	sd_event_source_set_time(pg->ev, 0);
	sd_event_source_set_enabled(pg->ev, SD_EVENT_ONESHOT);
}

int perf_page_init(struct perf *pf)
{
	struct pm_page *pg = calloc(1, sizeof(*pg));
	int rc;

	if (!pg)
		return -ENOMEM;
	pf->page_build = pg;
	rc = sd_event_add_time(pf->sm->ev, &pg->ev, CLOCK_MONOTONIC, 0, 0,
			       on_slice, pf);
	if (rc >= 0)
		rc = sd_event_source_set_priority(pg->ev,
						  SD_EVENT_PRIORITY_IDLE);
	if (rc >= 0)
		rc = sd_event_source_set_enabled(pg->ev, SD_EVENT_OFF);
	return rc < 0 ? rc : 0;
}

void perf_page_fini(struct perf *pf)
{
	struct pm_page *pg = pf->page_build;

	if (!pg)
		return;
	sd_event_source_unref(pg->ev);
	reset(pg);
	free(pg->rows);
	free(pg->text);
	free(pg);
	pf->page_build = NULL;
	prom_block_unref(pf->page);
	pf->page = NULL;
}
