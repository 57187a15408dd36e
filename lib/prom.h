/* The Prometheus text exposition format (version 0.0.4): a growing buffer
 * that families and their samples are written into, label values and help
 * texts escaped as the format says, and a histogram whose buckets any
 * thread may fill.  No I/O: daemon/metrics serves what is written here. */
#ifndef IBSM_PROM_H
#define IBSM_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prom_out {
	char *buf;
	size_t len, cap;
	bool oom; /* a write failed: the text is incomplete */
};

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM };

struct prom_label {
	const char *name;
	const char *value;
};

void prom_out_free(struct prom_out *o);

/* "# HELP name help" and "# TYPE name type"; every sample of the family
 * follows before the next family starts. */
void prom_family(struct prom_out *o, const char *name, enum prom_type type,
		 const char *help);
/* One sample: name{l0="v0",...} value.  Values print as integers when
 * they are, else with 9 significant digits. */
void prom_sample(struct prom_out *o, const char *name,
		 const struct prom_label *l, unsigned nl, double v);
void prom_sample_u64(struct prom_out *o, const char *name,
		     const struct prom_label *l, unsigned nl, uint64_t v);

/* Label sets written once and used for many samples (a per-port family
 * of 100,000 ports builds each port's labels once per model):
 * prom_labels_fmt writes {l0="v0",...} (escaped) into dst, returns its
 * length, or the length it needs when that is >= len (as snprintf).
 * prom_sample_raw writes name, labels as given, value. */
size_t prom_labels_fmt(char *dst, size_t len, const struct prom_label *l,
		       unsigned nl);
void prom_sample_raw(struct prom_out *o, const char *name, const char *labels,
		     uint64_t v);

/* A histogram of durations kept in microseconds and shown in seconds.
 * bounds_us are the buckets' upper bounds, ascending, at most
 * PROM_HIST_MAX; +Inf is implicit.  prom_hist_observe is lock-free (relaxed
 * atomics), so a receiver thread may observe while the loop renders;
 * _count is the sum of the buckets read, so a rendering never shows a
 * count its buckets do not add up to. */
#define PROM_HIST_MAX 16
struct prom_hist {
	const uint32_t *bounds_us;
	unsigned n;
	uint64_t counts[PROM_HIST_MAX + 1]; /* not cumulative; [n]: +Inf */
	uint64_t sum_us;
};
void prom_hist_init(struct prom_hist *h, const uint32_t *bounds_us, unsigned n);
void prom_hist_observe(struct prom_hist *h, uint64_t us);
/* The _bucket, _sum and _count samples of h under the family name, with
 * labels l (le is added). */
void prom_hist_write(struct prom_out *o, const char *name,
		     const struct prom_label *l, unsigned nl,
		     const struct prom_hist *h);

/* A metric or label name as the format allows ([a-zA-Z_:][a-zA-Z0-9_:]*;
 * label names without ':'). */
bool prom_name_ok(const char *s, bool label);

#endif
