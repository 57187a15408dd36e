/* The answer being built: the record emitter (component-mask matching,
 * then append) that every record family calls, and the growing response
 * buffer.  Below the dispatcher (sa_server.c) and the families, so that
 * neither calls back into the other. */
#include "daemon/sa/sa_priv.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void sa_out_free(struct sa_out *o)
{
	free(o->buf);
	o->buf = NULL;
	o->len = o->cap = 0;
}

int sa_out_reserve(struct sa_out *o, size_t need)
{
	size_t cap = o->cap ? o->cap : 1024;
	uint8_t *nb;

	if (need <= o->cap)
		return 0;
	while (cap < need)
		cap *= 2;
	nb = realloc(o->buf, cap);
	if (!nb)
		return -ENOMEM;
	o->buf = nb;
	o->cap = cap;
	return 0;
}

int sa_append(struct sa_ctx *c, const void *rec)
{
	size_t stride = sa_rec_stride(c->desc);
	size_t at = SA_HDR_SIZE + (size_t)c->n * stride;
	int r;

	if (at + stride > c->sa->max_response)
		return -ENOSPC;
	r = sa_out_reserve(c->out, at + stride);
	if (r)
		return r;
	memset(c->out->buf + at, 0, stride);
	/* A value too wide for its field is a bug of ours: the field goes
	 * out as zero, the rest of the record as it is. */
	if (sa_rec_encode(c->desc, rec, c->out->buf + at) < 0 &&
	    log_ratelimit_ok(&c->sa->drop_rl))
		log_err("SA: a %s has a value too wide for its field; that "
			"field is sent as zero",
			c->desc->name);
	c->n++;
	return 1;
}

int sa_emit(struct sa_ctx *c, const void *rec)
{
	uint8_t wire[256] = {0};

	sa_rec_encode(c->desc, rec, wire);
	if (!sa_rec_match(c->desc, c->mask, c->req, wire))
		return 0;
	return sa_append(c, rec);
}

uint64_t sa_req_get(const struct sa_ctx *c, unsigned comp)
{
	const struct wire_field *f = sa_rec_comp_field(c->desc, comp);

	if (!f || f->width > 64)
		return 0;
	return sa_get_bits(c->req, c->desc->size, f->bitoff, f->width);
}
