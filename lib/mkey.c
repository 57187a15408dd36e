/* M_Key files and per-port key derivation: see mkey.h. */
#include "lib/mkey.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "lib/lines.h"

/* ---- the map ---- */

static uint32_t slot_of(const struct mkey_map *m, uint64_t guid, uint8_t port)
{
	uint64_t h = (guid ^ ((uint64_t)port << 56)) * 0x9E3779B97F4A7C15ull;

	return (uint32_t)(h >> 32) & (m->cap - 1);
}

static uint32_t find(const struct mkey_map *m, uint64_t guid, uint8_t port)
{
	uint32_t i = slot_of(m, guid, port);

	while (m->used[i] && (m->guid[i] != guid || m->port[i] != port))
		i = (i + 1) & (m->cap - 1);
	return i;
}

void mkey_map_free(struct mkey_map *m)
{
	free(m->guid);
	free(m->val);
	free(m->port);
	free(m->used);
	memset(m, 0, sizeof(*m));
}

uint64_t mkey_map_get(const struct mkey_map *m, uint64_t guid, uint8_t port)
{
	uint32_t i;

	if (!m->cap)
		return 0;
	i = find(m, guid, port);
	return m->used[i] ? m->val[i] : 0;
}

static int grow(struct mkey_map *m)
{
	struct mkey_map nm = {.cap = m->cap ? m->cap * 2 : 256};

	nm.guid = calloc(nm.cap, sizeof(*nm.guid));
	nm.val = calloc(nm.cap, sizeof(*nm.val));
	nm.port = calloc(nm.cap, sizeof(*nm.port));
	nm.used = calloc(nm.cap, sizeof(*nm.used));
	if (!nm.guid || !nm.val || !nm.port || !nm.used) {
		mkey_map_free(&nm);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->used[i] && m->val[i]) {
			uint32_t j = find(&nm, m->guid[i], m->port[i]);
			nm.guid[j] = m->guid[i];
			nm.port[j] = m->port[i];
			nm.val[j] = m->val[i];
			nm.used[j] = 1;
			nm.n++;
		}
	mkey_map_free(m);
	*m = nm;
	return 0;
}

/* A removed entry stays as a tombstone (used, value 0) so that probes
 * past it still work; grow() drops tombstones. */
int mkey_map_set(struct mkey_map *m, uint64_t guid, uint8_t port, uint64_t val)
{
	uint32_t i;

	if ((m->n + 1) * 2 > m->cap && grow(m) < 0)
		return -ENOMEM;
	i = find(m, guid, port);
	if (!m->used[i]) {
		if (!val)
			return 0;
		m->used[i] = 1;
		m->guid[i] = guid;
		m->port[i] = port;
		m->n++;
	}
	m->val[i] = val;
	return 0;
}

/* ---- files ---- */

/* One line of either file: "0x<guid> [port] 0x<value>". */
static int parse(const char *s, bool with_port, uint64_t *g, unsigned *port,
		 uint64_t *v)
{
	unsigned long long a, b;
	int n = 0;

	*port = 0;
	if (with_port ? sscanf(s, "0x%llx %u 0x%llx %n", &a, port, &b, &n) != 3
		      : sscanf(s, "0x%llx 0x%llx %n", &a, &b, &n) != 2)
		return -1;
	if (s[n] || !a || !b || *port > 255)
		return -1;
	*g = a;
	*v = b;
	return 0;
}

struct reading {
	struct mkey_map *m;
	bool with_port;
};

static int one_line(void *ctx, struct lines_reader *r, char *s, unsigned ln)
{
	struct reading *rd = ctx;
	uint64_t g, v;
	unsigned port;

	if (parse(s, rd->with_port, &g, &port, &v) < 0)
		lines_skip(r, ln,
			   rd->with_port ? "expected '0x<guid> <port> 0x<guid>'"
					 : "expected '0x<guid> 0x<m_key>'");
	else if (mkey_map_get(rd->m, g, (uint8_t)port))
		lines_skip(r, ln, "listed twice (the first line wins)");
	else
		return mkey_map_set(rd->m, g, (uint8_t)port, v);
	return 0;
}

static int read_file(const char *path, struct mkey_map *m, bool with_port,
		     char *err, size_t errlen)
{
	struct reading rd = {m, with_port};

	return lines_read(path, one_line, &rd, err, errlen);
}

int mkey_db_read(const char *path, struct mkey_map *m, char *err, size_t errlen)
{
	return read_file(path, m, false, err, errlen);
}

int mkey_nbrs_read(const char *path, struct mkey_map *m, char *err,
		   size_t errlen)
{
	return read_file(path, m, true, err, errlen);
}

static int by_key(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return x[1] < y[1] ? -1 : x[1] > y[1];
}

/* The entries sorted by (GUID, port), as triples; NULL on ENOMEM. */
static uint64_t *sorted(const struct mkey_map *m, uint32_t *n)
{
	uint64_t *v = malloc(((size_t)m->n + 1) * 3 * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < m->cap; i++)
		if (m->used[i] && m->val[i]) {
			v[3 * *n] = m->guid[i];
			v[3 * *n + 1] = m->port[i];
			v[3 * *n + 2] = m->val[i];
			(*n)++;
		}
	qsort(v, *n, 3 * sizeof(*v), by_key);
	return v;
}

/* Temporary file, fsync, rename: a reader never sees half a file and a
 * crash leaves the old one. */
static int write_file(const char *path, const struct mkey_map *m,
		      bool with_port)
{
	char tmp[PATH_MAX];
	uint32_t n;
	uint64_t *v;
	FILE *fp;
	int fd, rc = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if (!(v = sorted(m, &n)))
		return -ENOMEM;
	fd = mkstemp(tmp); /* 0600 */
	if (fd < 0 || !(fp = fdopen(fd, "w"))) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		free(v);
		return rc;
	}
	for (uint32_t i = 0; i < n; i++)
		if (with_port)
			fprintf(fp, "0x%016" PRIx64 " %u 0x%016" PRIx64 "\n",
				v[3 * i], (unsigned)v[3 * i + 1], v[3 * i + 2]);
		else
			fprintf(fp, "0x%016" PRIx64 " 0x%016" PRIx64 "\n",
				v[3 * i], v[3 * i + 2]);
	free(v);
	if (ferror(fp) || fflush(fp) != 0)
		rc = -EIO;
	if (rc == 0 && fsync(fileno(fp)) != 0)
		rc = -errno;
	if (fclose(fp) != 0 && rc == 0)
		rc = -EIO;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int mkey_db_write(const char *path, const struct mkey_map *m)
{
	return write_file(path, m, false);
}

int mkey_nbrs_write(const char *path, const struct mkey_map *m)
{
	return write_file(path, m, true);
}

/* ---- the secret ---- */

static int hexval(char c)
{
	return c >= '0' && c <= '9'   ? c - '0'
	       : c >= 'a' && c <= 'f' ? c - 'a' + 10
	       : c >= 'A' && c <= 'F' ? c - 'A' + 10
				      : -1;
}

static int secret_parse(const char *s, uint8_t secret[16])
{
	for (int i = 0; i < 16; i++) {
		int hi = hexval(s[2 * i]),
		    lo = hi < 0 ? -1 : hexval(s[2 * i + 1]);
		if (lo < 0)
			return -1;
		secret[i] = (uint8_t)(hi << 4 | lo);
	}
	s += 32;
	while (*s == '\n' || *s == '\r' || *s == ' ')
		s++;
	return *s ? -1 : 0;
}

static int secret_create(const char *path, uint8_t secret[16])
{
	char tmp[PATH_MAX], text[34];
	int fd, rc = 0;

	if (getrandom(secret, 16, 0) != 16)
		return -errno ? -errno : -EIO;
	for (int i = 0; i < 16; i++)
		snprintf(text + 2 * i, 3, "%02x", secret[i]);
	text[32] = '\n';
	if (snprintf(tmp, sizeof(tmp), "%s.tmpXXXXXX", path) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	if ((fd = mkstemp(tmp)) < 0)
		return -errno;
	if (write(fd, text, 33) != 33 || fsync(fd) != 0)
		rc = errno ? -errno : -EIO;
	close(fd);
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

int mkey_secret_load(const char *path, bool create, uint8_t secret[16],
		     char *err, size_t errlen)
{
	char text[128] = "";
	FILE *fp = fopen(path, "r");

	if (!fp) {
		int rc = -errno;
		if (rc == -ENOENT && create)
			rc = secret_create(path, secret);
		if (rc < 0)
			snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (!fgets(text, sizeof(text), fp))
		text[0] = '\0';
	fclose(fp);
	if (strlen(text) < 32 || secret_parse(text, secret) < 0) {
		snprintf(err, errlen, "%s:1: expected 32 hexadecimal digits",
			 path);
		return -EINVAL;
	}
	return 0;
}

/* ---- SipHash-2-4 ---- */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static void sipround(uint64_t v[4])
{
	v[0] += v[1];
	v[1] = ROTL(v[1], 13) ^ v[0];
	v[0] = ROTL(v[0], 32);
	v[2] += v[3];
	v[3] = ROTL(v[3], 16) ^ v[2];
	v[0] += v[3];
	v[3] = ROTL(v[3], 21) ^ v[0];
	v[2] += v[1];
	v[1] = ROTL(v[1], 17) ^ v[2];
	v[2] = ROTL(v[2], 32);
}

static void absorb(uint64_t v[4], uint64_t m)
{
	v[3] ^= m;
	sipround(v);
	sipround(v);
	v[0] ^= m;
}

uint64_t mkey_siphash(const uint8_t key[16], const uint8_t *in, size_t len)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8);
	uint64_t v[4] = {k0 ^ 0x736f6d6570736575ull, k1 ^ 0x646f72616e646f6dull,
			 k0 ^ 0x6c7967656e657261ull,
			 k1 ^ 0x7465646279746573ull};
	uint64_t last = (uint64_t)len << 56;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8)
		absorb(v, le64(in + i));
	for (size_t j = 0; i + j < len; j++)
		last |= (uint64_t)in[i + j] << (8 * j);
	absorb(v, last);
	v[2] ^= 0xff;
	for (int r = 0; r < 4; r++)
		sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t mkey_derive(const uint8_t secret[16], uint64_t guid)
{
	uint8_t b[8];
	uint64_t k;

	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(guid >> (56 - 8 * i));
	k = mkey_siphash(secret, b, sizeof(b));
	return k ? k : 1;
}
