/* The Prometheus text format writer: see prom.h.  Every write goes
 * through put(), which grows the buffer and, when memory runs out,
 * remembers it (o->oom) instead of failing each caller: the caller
 * checks once at the end, as bgpd's ibuf users do. */
#include "lib/prom.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool grow(struct prom_out *o, size_t need)
{
	size_t cap = o->cap ? o->cap : 4096;
	char *b;

	if (o->oom)
		return false;
	if (o->len + need <= o->cap)
		return true;
	while (cap < o->len + need)
		cap *= 2;
	b = realloc(o->buf, cap);
	if (!b) {
		o->oom = true;
		return false;
	}
	o->buf = b;
	o->cap = cap;
	return true;
}

static void put(struct prom_out *o, const char *s, size_t n)
{
	if (!grow(o, n))
		return;
	memcpy(o->buf + o->len, s, n);
	o->len += n;
}

static void puts_(struct prom_out *o, const char *s)
{
	put(o, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void putf(struct prom_out *o,
						       const char *fmt, ...)
{
	char tmp[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n >= 0)
		put(o, tmp,
		    (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

void prom_out_free(struct prom_out *o)
{
	for (unsigned i = 0; i < o->n_pieces; i++)
		prom_block_unref(o->pieces[i].b);
	free(o->pieces);
	free(o->buf);
	*o = (struct prom_out){0};
}

/* Help text: backslash and newline escaped; label values also '"'. */
static size_t escape(char *dst, size_t len, const char *s, bool quote)
{
	size_t n = 0;

	for (; *s; s++) {
		const char *e = NULL;
		char c[2] = {*s, 0};

		if (*s == '\\')
			e = "\\\\";
		else if (*s == '\n')
			e = "\\n";
		else if (*s == '"' && quote)
			e = "\\\"";
		else
			e = c;
		for (; *e; e++, n++)
			if (n + 1 < len)
				dst[n] = *e;
	}
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}

static const char *const type_names[] = {"counter", "gauge", "histogram"};

void prom_family(struct prom_out *o, const char *name, enum prom_type type,
		 const char *help)
{
	size_t n = escape(NULL, 0, help, false);
	char *h = malloc(n + 1);

	if (!h) {
		o->oom = true;
		return;
	}
	escape(h, n + 1, help, false);
	puts_(o, "# HELP ");
	puts_(o, name);
	put(o, " ", 1);
	put(o, h, n);
	puts_(o, "\n# TYPE ");
	puts_(o, name);
	put(o, " ", 1);
	puts_(o, type_names[type]);
	put(o, "\n", 1);
	free(h);
}

size_t prom_labels_fmt(char *dst, size_t len, const struct prom_label *l,
		       unsigned nl)
{
	size_t n = 0;

#define ADD(s)                                                                 \
	do {                                                                   \
		for (const char *p_ = (s); *p_; p_++, n++)                     \
			if (n + 1 < len)                                       \
				dst[n] = *p_;                                  \
	} while (0)
	if (!nl) {
		if (len)
			dst[0] = '\0';
		return 0;
	}
	ADD("{");
	for (unsigned i = 0; i < nl; i++) {
		if (i)
			ADD(",");
		ADD(l[i].name);
		ADD("=\"");
		n += escape(n < len ? dst + n : NULL, n < len ? len - n : 0,
			    l[i].value ? l[i].value : "", true);
		ADD("\"");
	}
	ADD("}");
#undef ADD
	if (len)
		dst[n < len ? n : len - 1] = '\0';
	return n;
}

/* name{labels} as one piece into o. */
static void put_name(struct prom_out *o, const char *name,
		     const struct prom_label *l, unsigned nl)
{
	char small[512];
	size_t n = prom_labels_fmt(small, sizeof(small), l, nl);

	puts_(o, name);
	if (n < sizeof(small)) {
		put(o, small, n);
		return;
	}
	if (!grow(o, n + 1))
		return;
	prom_labels_fmt(o->buf + o->len, n + 1, l, nl);
	o->len += n;
}

static void put_value(struct prom_out *o, double v)
{
	if (isnan(v))
		puts_(o, " NaN\n");
	else if (isinf(v))
		puts_(o, v > 0 ? " +Inf\n" : " -Inf\n");
	else if (v == (double)(int64_t)v && fabs(v) < 9e15)
		putf(o, " %" PRId64 "\n", (int64_t)v);
	else
		putf(o, " %.9g\n", v);
}

void prom_sample(struct prom_out *o, const char *name,
		 const struct prom_label *l, unsigned nl, double v)
{
	put_name(o, name, l, nl);
	put_value(o, v);
}

void prom_sample_u64(struct prom_out *o, const char *name,
		     const struct prom_label *l, unsigned nl, uint64_t v)
{
	put_name(o, name, l, nl);
	putf(o, " %" PRIu64 "\n", v);
}

/* " v\n" without printf: a per-port family set is millions of these. */
static void put_u64_line(struct prom_out *o, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	tmp[--i] = '\n';
	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	tmp[--i] = ' ';
	put(o, tmp + i, sizeof(tmp) - (size_t)i);
}

void prom_sample_raw(struct prom_out *o, const char *name, const char *labels,
		     uint64_t v)
{
	prom_sample_rawn(o, name, strlen(name), labels, strlen(labels), v);
}

void prom_sample_rawn(struct prom_out *o, const char *name, size_t nlen,
		      const char *labels, size_t llen, uint64_t v)
{
	put(o, name, nlen);
	put(o, labels, llen);
	put_u64_line(o, v);
}

void prom_reserve(struct prom_out *o, size_t n)
{
	grow(o, n);
}

void prom_hist_init(struct prom_hist *h, const uint32_t *bounds_us, unsigned n)
{
	*h = (struct prom_hist){.bounds_us = bounds_us,
				.n = n < PROM_HIST_MAX ? n : PROM_HIST_MAX};
}

void prom_hist_observe(struct prom_hist *h, uint64_t us)
{
	unsigned i = 0;

	while (i < h->n && us > h->bounds_us[i])
		i++;
	__atomic_fetch_add(&h->counts[i], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&h->sum_us, us, __ATOMIC_RELAXED);
}

void prom_hist_write(struct prom_out *o, const char *name,
		     const struct prom_label *l, unsigned nl,
		     const struct prom_hist *h)
{
	struct prom_label ll[9];
	char bname[128], le[32];
	uint64_t cum = 0;

	if (nl > 8)
		nl = 8;
	memcpy(ll, l, nl * sizeof(*l));
	snprintf(bname, sizeof(bname), "%s_bucket", name);
	for (unsigned i = 0; i <= h->n; i++) {
		cum += __atomic_load_n(&h->counts[i], __ATOMIC_RELAXED);
		if (i < h->n)
			snprintf(le, sizeof(le), "%.9g", h->bounds_us[i] / 1e6);
		ll[nl] = (struct prom_label){"le", i < h->n ? le : "+Inf"};
		prom_sample_u64(o, bname, ll, nl + 1, cum);
	}
	snprintf(bname, sizeof(bname), "%s_sum", name);
	prom_sample(o, bname, l, nl,
		    __atomic_load_n(&h->sum_us, __ATOMIC_RELAXED) / 1e6);
	snprintf(bname, sizeof(bname), "%s_count", name);
	prom_sample_u64(o, bname, l, nl, cum);
}

bool prom_name_ok(const char *s, bool label)
{
	if (!s || !*s)
		return false;
	for (const char *p = s; *p; p++) {
		char c = *p;
		bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			     c == '_' || (c == ':' && !label);

		if (!alpha && !(p > s && c >= '0' && c <= '9'))
			return false;
	}
	return true;
}
