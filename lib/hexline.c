/* Hex digits of state-file records: see hexline.h. */
#include "lib/hexline.h"

size_t hex_put(char *out, const uint8_t *b, size_t n)
{
	static const char hex[] = "0123456789abcdef";

	for (size_t i = 0; i < n; i++) {
		out[2 * i] = hex[b[i] >> 4];
		out[2 * i + 1] = hex[b[i] & 15];
	}
	return 2 * n;
}

static int nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

long hex_get(const char *s, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int hi = nibble(s[2 * i]), lo;

		if (hi < 0 || (lo = nibble(s[2 * i + 1])) < 0)
			return -1;
		b[i] = (uint8_t)(hi << 4 | lo);
	}
	return (long)(2 * n);
}
