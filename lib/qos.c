/* The QoS policy: parsing and checking the qos.* keys, the per-port SL2VL
 * and VLArb tables, OperationalVLs, and the SL of a path.  Why the
 * defaults are what they are is in docs/design.md §5.2; in short they are
 * OpenSM's QoS defaults (qos_sl2vl, qos_vlarb_high/low, qos_max_vls,
 * qos_high_limit), reduced per port to the VLs it runs, which is what
 * OpenSM writes with QoS on. */
#include "lib/qos.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole-string unsigned number (decimal, or 0x hexadecimal). */
static bool num(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	char buf[32], *e;

	if (!n || n >= sizeof(buf) || !isdigit((unsigned char)s[0]))
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	errno = 0;
	*v = strtoull(buf, &e, 0);
	return !*e && !errno && *v <= max;
}

/* "A" or "A-B" with A <= B. */
static bool range(const char *s, uint64_t max, uint64_t *lo, uint64_t *hi)
{
	const char *d = strchr(s, '-');

	if (!d)
		return num(s, strlen(s), max, lo) && (*hi = *lo, true);
	return num(s, (size_t)(d - s), max, lo) &&
	       num(d + 1, strlen(d + 1), max, hi) && *lo <= *hi;
}

static int why_err(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int why_err(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int parse_vl(const char *s, uint8_t *vl, char *why, size_t len)
{
	uint64_t v;

	if (!num(s, strlen(s), QOS_MAX_VLS - 1, &v))
		return why_err(why, len,
			       "\"%s\" is not a data VL (0 to 14; VL15 is "
			       "for management only)",
			       s);
	*vl = (uint8_t)v;
	return 0;
}

static int parse_arb(const char *s, struct qos_arb *a, char *why, size_t len)
{
	const char *c = strchr(s, ':');
	uint64_t vl, w;

	if (!c || !num(s, (size_t)(c - s), QOS_MAX_VLS - 1, &vl) ||
	    !num(c + 1, strlen(c + 1), 255, &w))
		return why_err(why, len,
			       "\"%s\" is not VL:WEIGHT (VL 0 to 14, weight 0 "
			       "to 255 in units of 64 bytes)",
			       s);
	a->vl = (uint8_t)vl;
	a->weight = (uint8_t)w;
	return 0;
}

/* One matcher of a class ("service-id", value); 0 or -EINVAL. */
static int class_matcher(struct qos_class *q, const char *name, const char *val,
			 char *why, size_t len)
{
	uint64_t lo, hi;

	if ((!strcmp(name, "service-id") && q->has_sid) ||
	    (!strcmp(name, "pkey") && q->has_pkey) ||
	    (!strcmp(name, "qos-class") && q->has_qc) ||
	    (!strcmp(name, "sl") && q->sl != QOS_SL_NONE))
		return why_err(why, len, "\"%s\" given twice in one class",
			       name);
	if (!strcmp(name, "service-id") && !q->has_sid &&
	    range(val, UINT64_MAX, &lo, &hi)) {
		q->has_sid = true;
		q->sid_lo = lo;
		q->sid_hi = hi;
	} else if (!strcmp(name, "pkey") && !q->has_pkey &&
		   range(val, 0xFFFF, &lo, &hi)) {
		q->has_pkey = true;
		q->pkey_lo = (uint16_t)(lo & 0x7FFF);
		q->pkey_hi = (uint16_t)(hi & 0x7FFF);
		if (q->pkey_lo > q->pkey_hi)
			return why_err(why, len,
				       "pkey range \"%s\" is empty "
				       "once the membership bit is dropped",
				       val);
	} else if (!strcmp(name, "qos-class") && !q->has_qc &&
		   range(val, 0xFFF, &lo, &hi)) {
		q->has_qc = true;
		q->qc_lo = (uint16_t)lo;
		q->qc_hi = (uint16_t)hi;
	} else if (!strcmp(name, "sl") && q->sl == QOS_SL_NONE &&
		   num(val, strlen(val), 15, &lo)) {
		q->sl = (uint8_t)lo;
	} else {
		snprintf(why, len,
			 "\"%s %s\": expected service-id ID[-ID], pkey "
			 "P[-P] or qos-class N[-N], and sl 0..15",
			 name, val);
		return -EINVAL;
	}
	return 0;
}

/* "service-id 0x10000-0x1ffff pkey 0x8001 sl 2" */
static int parse_class(const char *s, struct qos_class *q, char *why,
		       size_t len)
{
	char buf[256], *save = NULL, *name, *val;
	int r = 0;

	*q = (struct qos_class){.sl = QOS_SL_NONE};
	if (strlen(s) >= sizeof(buf))
		return why_err(why, len, "class \"%.40s...\" is too long", s);
	strcpy(buf, s);
	for (name = strtok_r(buf, " \t", &save); name && !r;
	     name = strtok_r(NULL, " \t", &save)) {
		if (!(val = strtok_r(NULL, " \t", &save)))
			return why_err(why, len, "\"%s\" has no value", name);
		r = class_matcher(q, name, val, why, len);
	}
	if (r)
		return r;
	if (q->sl == QOS_SL_NONE)
		return why_err(why, len, "class \"%s\" gives no sl", s);
	if (!q->has_sid && !q->has_pkey && !q->has_qc)
		return why_err(why, len,
			       "class \"%s\" matches nothing: give service-id, "
			       "pkey or qos-class (qos.default_sl is the SL "
			       "of everything else)",
			       s);
	return 0;
}

/* Item checks with one signature, for check_each. */
static int ok_vl(const char *s, char *why, size_t len)
{
	uint8_t vl;

	return parse_vl(s, &vl, why, len);
}

static int ok_arb(const char *s, char *why, size_t len)
{
	struct qos_arb a;

	return parse_arb(s, &a, why, len);
}

static int ok_class(const char *s, char *why, size_t len)
{
	struct qos_class q;

	return parse_class(s, &q, why, len);
}

/* The first item ok() refuses, in *bad; then the count, at most max. */
static int check_each(const struct cfg_strlist *l, uint32_t *bad, char *why,
		      size_t len, int (*ok)(const char *, char *, size_t),
		      uint32_t max)
{
	for (uint32_t i = 0; i < l->n; i++)
		if (ok(l->v[i], why, len) < 0) {
			*bad = i;
			return -EINVAL;
		}
	if (l->n > max) {
		*bad = max;
		return why_err(why, len, "%u entries given; at most %u",
			       l->n, max);
	}
	return 0;
}

int qos_check_sl2vl(const struct cfg_strlist *l, uint32_t *bad, char *why,
		    size_t len)
{
	int r = check_each(l, bad, why, len, ok_vl, UINT32_MAX);

	if (r == 0 && l->n != QOS_NUM_SLS) {
		*bad = l->n;
		r = why_err(why, len,
			    "%u VLs given; one for each of the 16 SLs is "
			    "needed (SL0 first)",
			    l->n);
	}
	return r;
}

int qos_check_vlarb(const struct cfg_strlist *l, uint32_t *bad, char *why,
		    size_t len)
{
	return check_each(l, bad, why, len, ok_arb, QOS_ARB_MAX);
}

int qos_check_classes(const struct cfg_strlist *l, uint32_t *bad, char *why,
		      size_t len)
{
	return check_each(l, bad, why, len, ok_class, UINT32_MAX);
}

/* Bit v set: some entry gives VL v a nonzero weight. */
static unsigned weighted(const struct qos_arb *t, unsigned n)
{
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++)
		if (t[i].weight)
			m |= 1u << t[i].vl;
	return m;
}

int qos_config_check(const struct config *c, char *err, size_t errlen)
{
	struct qos_policy p;
	unsigned served;
	int r = qos_policy_from_config(&p, c, err, errlen);

	if (r < 0)
		return r;
	served = weighted(p.high, p.n_high) | weighted(p.low, p.n_low);
	for (unsigned sl = 0; sl < QOS_NUM_SLS && !r; sl++)
		if (!(served >> p.sl2vl[sl] & 1))
			r = -EINVAL;
	if (r)
		for (unsigned sl = 0; sl < QOS_NUM_SLS; sl++)
			if (!(served >> p.sl2vl[sl] & 1)) {
				snprintf(err, errlen,
					 "configuration: qos.sl2vl maps SL %u "
					 "to VL %u, which has no weight in "
					 "qos.vlarb_high or qos.vlarb_low: its "
					 "packets would never be sent",
					 sl, p.sl2vl[sl]);
				break;
			}
	qos_policy_free(&p);
	return r;
}

static int arb_table(const struct cfg_strlist *l, struct qos_arb *t, uint8_t *n,
		     char *err, size_t errlen)
{
	char why[160];

	if (l->n > QOS_ARB_MAX)
		return -EINVAL;
	for (uint32_t i = 0; i < l->n; i++)
		if (parse_arb(l->v[i], &t[i], why, sizeof(why)) < 0) {
			snprintf(err, errlen, "configuration: %s", why);
			return -EINVAL;
		}
	*n = (uint8_t)l->n;
	return 0;
}

int qos_policy_from_config(struct qos_policy *p, const struct config *c,
			   char *err, size_t errlen)
{
	char why[160];
	int r;

	memset(p, 0, sizeof(*p));
	p->enable = c->qos_enable;
	p->max_vls = (uint8_t)c->qos_max_vls;
	p->high_limit = (uint8_t)c->qos_high_limit;
	p->default_sl = (uint8_t)c->qos_default_sl;
	if (c->qos_sl2vl.n != QOS_NUM_SLS) {
		snprintf(err, errlen, "configuration: qos.sl2vl needs 16 VLs");
		return -EINVAL;
	}
	for (unsigned sl = 0; sl < QOS_NUM_SLS; sl++)
		if (parse_vl(c->qos_sl2vl.v[sl], &p->sl2vl[sl], why,
			     sizeof(why)) < 0) {
			snprintf(err, errlen, "configuration: %s", why);
			return -EINVAL;
		}
	if ((r = arb_table(&c->qos_vlarb_high, p->high, &p->n_high, err,
			   errlen)) < 0 ||
	    (r = arb_table(&c->qos_vlarb_low, p->low, &p->n_low, err, errlen)) <
		0)
		return r;
	if (c->qos_classes.n &&
	    !(p->classes = calloc(c->qos_classes.n, sizeof(*p->classes))))
		return -ENOMEM;
	for (uint32_t i = 0; i < c->qos_classes.n; i++)
		if (parse_class(c->qos_classes.v[i], &p->classes[i], why,
				sizeof(why)) < 0) {
			snprintf(err, errlen, "configuration: %s", why);
			qos_policy_free(p);
			return -EINVAL;
		}
	p->n_classes = c->qos_classes.n;
	return 0;
}

void qos_policy_free(struct qos_policy *p)
{
	free(p->classes);
	p->classes = NULL;
	p->n_classes = 0;
}

unsigned qos_vls_of(uint8_t code)
{
	static const unsigned vls[] = {0, 1, 2, 4, 8, 15};

	return code < sizeof(vls) / sizeof(vls[0]) ? vls[code] : 0;
}

uint8_t qos_op_vls(const struct qos_policy *p, uint8_t vl_cap,
		   uint8_t peer_vl_cap)
{
	uint8_t code = vl_cap > 5 ? 5 : vl_cap;

	if (peer_vl_cap && peer_vl_cap < code)
		code = peer_vl_cap;
	while (code > 1 && qos_vls_of(code) > p->max_vls)
		code--;
	return code ? code : 1; /* 0 is not a valid VLCap: run VL0 */
}

/* A table cut to the port's cap (at most 64) with VLs folded onto the n
 * the port runs (v mod n: OpenSM's mask for n = 1, 2, 4, 8, and nothing
 * for 15). */
static uint8_t cut_table(const struct qos_arb *src, unsigned n_src,
			 unsigned cap, unsigned n, struct qos_arb *dst)
{
	if (cap > QOS_ARB_MAX)
		cap = QOS_ARB_MAX;
	memset(dst, 0, QOS_ARB_MAX * sizeof(*dst));
	for (unsigned i = 0; i < cap && i < n_src; i++) {
		dst[i].vl = (uint8_t)(src[i].vl % n);
		dst[i].weight = src[i].weight;
	}
	return (uint8_t)cap;
}

void qos_port_tables(const struct qos_policy *p, uint8_t op_vls,
		     uint8_t high_cap, uint8_t low_cap,
		     struct qos_port_tables *t)
{
	unsigned n = qos_vls_of(op_vls) ? qos_vls_of(op_vls) : 1;
	unsigned served, fallback;

	memset(t, 0, sizeof(*t));
	t->n_low = cut_table(p->low, p->n_low, low_cap, n, t->low);
	t->n_high = cut_table(p->high, p->n_high, high_cap, n, t->high);
	served = weighted(t->low, t->n_low) | weighted(t->high, t->n_high);
	/* The caps cut off every weighted entry: VL0 gets one, so that the
	 * fallback below has a VL that is sent. */
	if (!served && (t->n_low || t->n_high)) {
		struct qos_arb *e = t->n_low ? &t->low[0] : &t->high[0];
		*e = (struct qos_arb){0, 1};
		served = 1;
	}
	fallback = served ? (unsigned)__builtin_ctz(served) : 0;
	for (unsigned sl = 0; sl < QOS_NUM_SLS; sl++) {
		unsigned vl = p->sl2vl[sl] % n;
		/* A port without VLArb tables arbitrates as it does; one with
		 * them never sends a VL they give no weight. */
		if (served && !(served >> vl & 1)) {
			vl = fallback;
			t->remapped++;
		}
		t->sl2vl[sl] = (uint8_t)vl;
	}
}

static bool class_matches(const struct qos_class *q,
			  const struct qos_path_req *r)
{
	if (q->has_sid &&
	    (!r->has_sid || r->sid < q->sid_lo || r->sid > q->sid_hi))
		return false;
	if (q->has_pkey && (!r->has_pkey || (r->pkey & 0x7FFF) < q->pkey_lo ||
			    (r->pkey & 0x7FFF) > q->pkey_hi))
		return false;
	if (q->has_qc && (!r->has_qc || r->qc < q->qc_lo || r->qc > q->qc_hi))
		return false;
	return true;
}

uint8_t qos_path_sl(const struct qos_policy *p, const struct qos_path_req *r,
		    uint8_t part_sl, bool *pinned)
{
	if (pinned)
		*pinned = false;
	for (uint32_t i = 0; i < p->n_classes; i++)
		if (class_matches(&p->classes[i], r)) {
			if (pinned)
				*pinned = true;
			return p->classes[i].sl;
		}
	return part_sl != QOS_SL_NONE ? part_sl : p->default_sl;
}
