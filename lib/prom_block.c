/* Blocks of prebuilt families put into pages by reference (prom.h): a
 * page of 100,000 ports' counters is hundreds of megabytes, made once per
 * perfmgr round; a scrape must not copy it, nor make it again. */
#include <stdlib.h>
#include <string.h>

#include "lib/prom.h"

struct prom_block {
	unsigned refs;
	size_t len;
	char *text;
};

struct prom_block *prom_block_make(struct prom_out *o)
{
	struct prom_block *b;

	prom_out_flatten(o);
	b = o->oom ? NULL : calloc(1, sizeof(*b));
	if (!b) {
		prom_out_free(o);
		return NULL;
	}
	b->refs = 1;
	b->len = o->len;
	b->text = o->buf;
	o->buf = NULL;
	prom_out_free(o);
	return b;
}

struct prom_block *prom_block_ref(struct prom_block *b)
{
	if (b)
		b->refs++;
	return b;
}

void prom_block_unref(struct prom_block *b)
{
	if (!b || --b->refs)
		return;
	free(b->text);
	free(b);
}

size_t prom_block_len(const struct prom_block *b)
{
	return b ? b->len : 0;
}

void prom_put_block(struct prom_out *o, struct prom_block *b)
{
	if (!b || o->oom)
		return;
	if (o->n_pieces == o->cap_pieces) {
		unsigned cap = o->cap_pieces ? o->cap_pieces * 2 : 4;
		struct prom_piece *p =
		    realloc(o->pieces, cap * sizeof(*o->pieces));

		if (!p) {
			o->oom = true;
			return;
		}
		o->pieces = p;
		o->cap_pieces = cap;
	}
	o->pieces[o->n_pieces++] =
	    (struct prom_piece){o->len, prom_block_ref(b)};
}

size_t prom_out_size(const struct prom_out *o)
{
	size_t n = o->len;

	for (unsigned i = 0; i < o->n_pieces; i++)
		n += o->pieces[i].b->len;
	return n;
}

/* Copies what of [src, src + n) lies in the page window [off, off + len)
 * when src starts at page offset *pos; advances *pos. */
static size_t copy_part(const char *src, size_t n, size_t *pos, size_t off,
			char *dst, size_t len)
{
	size_t start = *pos, k = 0;

	*pos += n;
	/* n == 0: an empty piece, whose text may be NULL */
	if (n == 0 || off + len <= start || off >= start + n)
		return 0;
	if (off > start) {
		src += off - start;
		n -= off - start;
		start = off;
	}
	k = n < off + len - start ? n : off + len - start;
	memcpy(dst + (start - off), src, k);
	return k;
}

size_t prom_out_read(const struct prom_out *o, size_t off, char *dst,
		     size_t len)
{
	size_t pos = 0, at = 0, got = 0;

	for (unsigned i = 0; i <= o->n_pieces && pos < off + len; i++) {
		size_t end = i < o->n_pieces ? o->pieces[i].at : o->len;

		got += copy_part(o->buf + at, end - at, &pos, off, dst, len);
		at = end;
		if (i < o->n_pieces)
			got +=
			    copy_part(o->pieces[i].b->text, o->pieces[i].b->len,
				      &pos, off, dst, len);
	}
	return got;
}

void prom_out_flatten(struct prom_out *o)
{
	size_t n = prom_out_size(o);
	char *buf;

	if (!o->n_pieces || o->oom)
		return;
	buf = malloc(n ? n : 1);
	if (!buf) {
		o->oom = true;
		return;
	}
	prom_out_read(o, 0, buf, n);
	for (unsigned i = 0; i < o->n_pieces; i++)
		prom_block_unref(o->pieces[i].b);
	free(o->pieces);
	free(o->buf);
	o->pieces = NULL;
	o->n_pieces = o->cap_pieces = 0;
	o->buf = buf;
	o->len = o->cap = n;
}
