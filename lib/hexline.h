/* Bytes as hex digits in the state files' lines (services.state,
 * informs.state): records are kept as they are on the wire. */
#ifndef IBSM_HEXLINE_H
#define IBSM_HEXLINE_H

#include <stddef.h>
#include <stdint.h>

/* Writes 2 * n lower-case hex digits of b to out (no NUL); returns 2 * n. */
size_t hex_put(char *out, const uint8_t *b, size_t n);
/* Reads 2 * n hex digits of s into b: 2 * n, or -1 at the first character
 * that is not one (s may be shorter: its NUL is not a digit). */
long hex_get(const char *s, uint8_t *b, size_t n);

#endif
