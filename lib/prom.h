/* The Prometheus text exposition format (version 0.0.4): a growing buffer
 * that families and their samples are written into, label values and help
 * texts escaped as the format says, and a histogram whose buckets any
 * thread may fill.  No I/O: daemon/metrics serves what is written here. */
#ifndef IBSM_PROM_H
#define IBSM_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct prom_block;
struct prom_piece {
	size_t at; /* the block's place: before buf[at] */
	struct prom_block *b;
};

/* The text written, and the blocks put into it by reference
 * (prom_put_block): the page is buf with each block at its place. */
struct prom_out {
	char *buf;
	size_t len, cap;
	bool oom; /* a write failed: the text is incomplete */
	struct prom_piece *pieces;
	unsigned n_pieces, cap_pieces;
};

enum prom_type { PROM_COUNTER, PROM_GAUGE, PROM_HISTOGRAM };

struct prom_label {
	const char *name;
	const char *value;
};

/* Frees the text and drops the blocks' references. */
void prom_out_free(struct prom_out *o);

/* A part of a page made once and put into many (the per-port families of
 * 100,000 ports, made once per perfmgr round and shown by every scrape
 * until the next): immutable text of whole families, counted references.
 * Not thread-safe: one thread (the loop) makes, puts and frees them.
 * prom_block_make takes o's text (o is empty after it; its own blocks
 * are copied in); NULL when o->oom or without memory (o freed). */
struct prom_block *prom_block_make(struct prom_out *o);
struct prom_block *prom_block_ref(struct prom_block *b);
void prom_block_unref(struct prom_block *b);
size_t prom_block_len(const struct prom_block *b);
/* b at this place of o, by reference (o->oom without memory). */
void prom_put_block(struct prom_out *o, struct prom_block *b);
/* The page's size, and len bytes of it from off (returns the bytes
 * copied, 0 at the end); prom_out_flatten copies the blocks into buf
 * (o->oom without memory). */
size_t prom_out_size(const struct prom_out *o);
size_t prom_out_read(const struct prom_out *o, size_t off, char *dst,
		     size_t len);
void prom_out_flatten(struct prom_out *o);

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
/* The same with the lengths known (no strlen: a family set of millions
 * of samples), and room for n more bytes made at once. */
void prom_sample_rawn(struct prom_out *o, const char *name, size_t nlen,
		      const char *labels, size_t llen, uint64_t v);
void prom_reserve(struct prom_out *o, size_t n);

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
