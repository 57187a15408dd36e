/* Event-line output of ibsmpattern and its seeded random source.  MGIDs are
 * ff12:601b:ffff:0:<64-bit counter>, link-local scope, printed as
 * inet_ntop(3) prints them (the form saquery shows), e.g. ff12:601b:ffff::1. */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "tools/ibsmpattern/pattern.h"

uint64_t pat_rand(struct pat_rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

uint64_t pat_rand_below(struct pat_rng *r, uint64_t n)
{
	/* Rejection keeps it uniform; the loop ends fast for any n. */
	uint64_t lim = UINT64_MAX - UINT64_MAX % n, x;

	do
		x = pat_rand(r);
	while (x >= lim);
	return x % n;
}

void pat_shuffle(struct pat_rng *r, uint32_t *v, uint32_t n)
{
	for (uint32_t i = n; i > 1; i--) {
		uint32_t j = (uint32_t)pat_rand_below(r, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

void pat_mgid(uint64_t id, char *buf, size_t len)
{
	uint8_t raw[16] = {0xff, 0x12, 0x60, 0x1b, 0xff, 0xff};

	for (int i = 0; i < 8; i++)
		raw[8 + i] = (uint8_t)(id >> (56 - 8 * i));
	if (!inet_ntop(AF_INET6, raw, buf, (socklen_t)len))
		snprintf(buf, len, "ff12:601b:ffff::");
}

static int put_member(struct pat_out *o, uint32_t h)
{
	if (o->by_guid)
		return fprintf(o->fp, " 0x%016" PRIx64, o->hosts[h].guid);
	return fprintf(o->fp, " %s", o->hosts[h].desc);
}

int64_t pat_emit_create(struct pat_out *o, const uint32_t *hosts, uint32_t n)
{
	char mgid[64];
	uint64_t id = o->next_id++;

	pat_mgid(id, mgid, sizeof(mgid));
	if (fprintf(o->fp, "+ %s", mgid) < 0)
		return -EIO;
	for (uint32_t i = 0; i < n; i++)
		if (put_member(o, hosts[i]) < 0)
			return -EIO;
	if (fputc('\n', o->fp) == EOF)
		return -EIO;
	o->groups++;
	return (int64_t)id;
}

int pat_emit_delete(struct pat_out *o, uint64_t id)
{
	char mgid[64];

	pat_mgid(id, mgid, sizeof(mgid));
	if (fprintf(o->fp, "- %s\n", mgid) < 0)
		return -EIO;
	o->deletes++;
	return 0;
}
