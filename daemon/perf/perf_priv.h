/* Inside daemon/perf: the port table and the counter round (pm_*.c), the
 * unhealthy links and the policy (health*.c), and what they share. */
#ifndef IBSMD_PERF_PRIV_H
#define IBSMD_PERF_PRIV_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "daemon/perf/perf.h"
#include "lib/fabric.h"
#include "lib/guidtab.h"
#include "mad/perf.h"

struct sd_event_source;
struct prom_block;
struct prom_label;
struct pm_page;
struct perf;

/* The port table's key: two GUIDs equal but for their top byte (the
 * vendor's OUI) would share one, which no fabric has. */
static inline uint64_t pm_key(uint64_t guid, uint8_t port)
{
	return guid << 8 | port | (guid ? 0 : 1ull << 63);
}

/* What is kept of one port across readings and restarts. */
struct pm_saved {
	uint64_t guid;
	uint8_t port;
	uint8_t have_last; /* last[] holds a reading */
	uint8_t pad[6];
	int64_t read_time; /* wall clock of the last reading (seconds) */
	uint32_t valid;	   /* counters ever read (1 << enum perf_counter) */
	uint32_t pad2;
	uint64_t total[PERF_COUNTERS];
	uint64_t last[PERF_COUNTERS]; /* the raw values of the last reading */
	uint8_t width[PERF_COUNTERS]; /* and their widths in bits */
	uint8_t pad3[3];
};

struct pm_port {
	struct pm_saved s;
	uint64_t prev[PERF_COUNTERS]; /* totals at the reading before */
	int64_t read_us;	      /* CLOCK_MONOTONIC of the last reading */
	double interval_s;	      /* between the last two, 0: one only */
};

/* pm_count.c: a reading added to the port's totals (pure, unit-tested).
 * Counters narrower than 64 bits saturate on the IBA; a value lower than
 * the last one means the counter was cleared (by another tool, a reset,
 * or ibsmd before a restart): its growth is the new value.  Returns the
 * counters to clear now (1 << c): narrow ones past half their range, so
 * they never saturate between two readings. */
uint32_t pm_count(struct pm_port *p, const struct perf_sample *s,
		  int64_t now_us, int64_t now_wall);
/* The clear's answer: the cleared counters' raw values restart from it. */
void pm_cleared(struct pm_port *p, const struct perf_sample *s,
		uint32_t cleared);

/* One port to read in a round. */
struct pm_job {
	uint64_t guid;
	uint16_t lid;
	uint8_t port;
	uint8_t state; /* 0 waiting, 1 in flight, 2 done */
	bool full;     /* PortCounters too, not PortCountersExtended only */
};

/* A switch whose error counters are read as one AllPortSelect sum first:
 * its ports are jobs [first, first + n). */
struct pm_sumjob {
	uint64_t guid;
	uint16_t lid;
	uint32_t first, n;
	bool full; /* read its ports one by one whatever the sum */
};

/* pm_sum.c: the switch's sum (an AllPortSelect PortCounters answer)
 * against the one of its last round: may a port's error counter have
 * moved?  Keeps s for the next round. */
bool pm_sum_moved(struct perf *pf, uint64_t guid, const struct perf_sample *s);
void pm_sums_free(struct perf *pf);
/* Every PM_FULL_EVERY-th round a switch's ports are read one by one
 * whatever its sum (pm_sum.c says why). */
#define PM_FULL_EVERY 4

struct perf {
	struct sm *sm;
	int agent; /* the PerfMgt client agent, < 0: none */
	struct pm_port *ports;
	uint32_t n_ports, cap_ports;
	struct guidtab by_port; /* pm_key(guid, port) -> index in ports + 1 */
	struct guidtab caps;	/* node GUID -> ClassPortInfo cap | 1 << 31 */

	/* the round in progress */
	struct sd_event_source *round_timer, *tick, *health_timer;
	struct pm_job *jobs;
	uint32_t n_jobs, next_job, jobs_done;
	struct pm_job *cpi; /* nodes whose ClassPortInfo is asked first */
	uint32_t n_cpi, next_cpi, cpi_done;
	struct pm_sumjob *sum; /* then the switches' AllPortSelect sums */
	uint32_t n_sum, next_sum, sum_done;
	struct guidtab sums; /* node GUID -> its last sum (pm_sum.c) */
	bool running;
	unsigned outstanding;
	int64_t round_start_us;
	uint64_t round_mads;
	double rate; /* MADs per second the round may send */
	struct perf_stats st;
	bool warned_slow;

	struct health *health;

	/* the port families on the metrics page (perf_page.c) */
	struct prom_block *page; /* the last one made, NULL: none yet */
	struct pm_page *page_build;
	double page_s; /* the loop time it took */
	uint64_t page_builds;
};

/* pm_table.c: the port's record, made when missing (NULL: no memory). */
struct pm_port *pm_port_get(struct perf *pf, uint64_t guid, uint8_t port);
struct pm_port *pm_port_find(const struct perf *pf, uint64_t guid,
			     uint8_t port);
void pm_table_free(struct perf *pf);

/* pm_round.c */
int pm_round_init(struct perf *pf);
void pm_round_fini(struct perf *pf);
void pm_round_config(struct perf *pf); /* perfmgr.* changed */

/* pm_store.c: state_dir/port_counters.state (binary, written after
 * every round) and the dump (text, dumps: counters). */
int pm_store_load(struct perf *pf);
int pm_store_save(const struct perf *pf);
int pm_dump_write(const struct perf *pf, const char *path);

/* An unhealthy link; end 0 is the lower (GUID, port). */
struct hlink {
	uint64_t guid[2];
	uint8_t port[2];
	char desc[2][IB_DESC_LEN + 1];
	char tripped[40];
	uint64_t value;
	int64_t since, last_bad; /* wall clock, seconds */
	uint8_t action;		 /* enum health_action */
	bool held;		 /* sm->hold_links cuts it */
};

/* The downs of one link within health.flap_window_s. */
struct flaps {
	uint64_t guid[2];
	uint8_t port[2];
	int64_t *downs; /* ring of the last health.flap_limit + 1 */
	uint32_t cap, n, head;
};

struct health {
	struct hlink *links;
	uint32_t n, cap;
	struct flaps *flaps;
	uint32_t n_flaps, cap_flaps;
};

/* health.c: the unhealthy links. */
int health_init(struct perf *pf);
void health_fini(struct perf *pf);
/* A port's reading: its deltas judged against health.thresholds.* */
void health_on_reading(struct perf *pf, uint64_t guid, uint8_t port,
		       const struct pm_port *p);
/* The model was replaced: links gone down are flaps. */
void health_on_model(struct perf *pf, const struct fabric *old,
		     const struct fabric *now);
/* Quiet links recovered (health.recover_s); called periodically. */
void health_tick(struct perf *pf);
/* ibsmctl health clear [GUID PORT]: 0, -ENOENT. */
int health_clear(struct perf *pf, uint64_t guid, uint8_t port, bool all);
/* The peer a held port had, for the iteration: false when none. */
bool health_held_peer(const struct perf *pf, uint64_t guid, uint8_t port,
		      uint64_t *rguid, uint8_t *rport, const char **rdesc);
uint32_t health_count(const struct perf *pf);

/* health_hold.c: sm->hold_links, the reachability rule, and the port
 * Disabled/Polling Sets. */
uint32_t health_hold_links(struct sm *sm, struct fabric *f);
/* Would f without the link at (guid, port) still reach every node?  The
 * links already held count as absent. */
bool health_link_spare(const struct fabric *f, uint64_t guid, uint8_t port);
int health_set_phys(struct perf *pf, uint64_t guid, uint8_t port, bool disable);

/* health_store.c: state_dir/health.state */
int health_store_save(struct perf *pf);
int health_store_load(struct perf *pf);
int health_reload(struct sm *sm);

/* perf_metrics.c: the families on the metrics page. */
int perf_metrics_init(struct perf *pf);
void perf_metrics_fini(struct perf *pf);
/* perf_page.c: the port families' block, made in slices on the loop
 * after each round and each new model while metrics.listen is set. */
int perf_page_init(struct perf *pf);
void perf_page_fini(struct perf *pf);
enum perf_page_why {
	PAGE_ROUND,    /* a round ended: new totals */
	PAGE_MODEL,    /* a new model: new peers in the labels */
	PAGE_NONE_YET, /* a scrape found none (metrics.listen newly set) */
};
void perf_page_request(struct perf *pf, enum perf_page_why why);
/* perf_labels.c: a port's or a link's six labels (node_guid ...
 * remote_desc, then extra), as prom_labels_fmt; a counter's family: its
 * help, its name (the length written), whether it shows bytes (the IBA
 * counts the data in 4-byte words). */
size_t perf_end_labels(char *dst, size_t len, uint64_t guid, uint8_t port,
		       const char *desc, uint64_t rguid, uint8_t rport,
		       const char *rdesc, const struct prom_label *extra,
		       unsigned nextra);
const char *perf_counter_help(unsigned c);
size_t perf_metric_name(unsigned c, char *buf, size_t len);
bool perf_in_bytes(unsigned c);
/* perf_view.c: the far end of a port's link, for the views */
void perf_fill_peer(const struct perf *pf, const struct ib_port *pt,
		    struct perf_port_view *v);

/* perf_ctl.c (the front door's iterations and status: perf_view.c) */
int perf_ctl_register(struct perf *pf);

#endif
