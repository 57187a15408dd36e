/* M_Keys kept across restarts (docs/design.md §3.10): the keys ports hold
 * as far as the SM knows, by port GUID (a switch: its node GUID), in
 * OpenSM's guid2mkey format; which port is behind which switch port
 * (neighbors), so that a port protected against Gets can be asked with
 * its key before discovery has seen it; and per-port keys derived from a
 * secret kept in the state directory.  No I/O but these files; the
 * daemon decides what to send (daemon/program/mkey.c). */
#ifndef IBSM_MKEY_H
#define IBSM_MKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A map (GUID, port) -> 64-bit value, open addressing.  The M_Key table
 * uses port 0; the neighbour table the switch port. */
struct mkey_map {
	uint64_t *guid, *val;
	uint8_t *port, *used;
	uint32_t cap, n;
};

void mkey_map_free(struct mkey_map *m);
/* The value, or 0 when absent. */
uint64_t mkey_map_get(const struct mkey_map *m, uint64_t guid, uint8_t port);
/* val 0 removes.  0 or -ENOMEM. */
int mkey_map_set(struct mkey_map *m, uint64_t guid, uint8_t port, uint64_t val);

/* guid2mkey: "0x<16 hex GUID> 0x<16 hex M_Key>" per line, as OpenSM
 * writes it.  A damaged line is logged with its number and skipped (the
 * first one also in err); returns the lines skipped, or -errno when the
 * file cannot be read (-ENOENT: none yet). */
int mkey_db_read(const char *path, struct mkey_map *m, char *err,
		 size_t errlen);
/* Written whole, mode 0600 (the keys are secrets), under a temporary
 * name, fsynced and renamed over path.  0 or -errno. */
int mkey_db_write(const char *path, const struct mkey_map *m);

/* neighbors: "0x<switch GUID> <port> 0x<peer port GUID>" per line: the
 * port (a switch: its node GUID) linked to each switch port. */
int mkey_nbrs_read(const char *path, struct mkey_map *m, char *err,
		   size_t errlen);
int mkey_nbrs_write(const char *path, const struct mkey_map *m);

/* The 128-bit secret of per-port keys, 32 hex digits in path (mode
 * 0600).  With create, a missing file is made from getrandom() and
 * synced before it is used.  0, -ENOENT (missing, !create), -EINVAL
 * (damaged: "path: why" in err), other -errno. */
int mkey_secret_load(const char *path, bool create, uint8_t secret[16],
		     char *err, size_t errlen);

/* SipHash-2-4 (Aumasson and Bernstein) of len bytes with a 128-bit key,
 * the PRF per-port keys come from. */
uint64_t mkey_siphash(const uint8_t key[16], const uint8_t *in, size_t len);
/* The per-port key of a port: SipHash of its GUID (8 bytes, big-endian);
 * never 0, which would turn M_Key checking off. */
uint64_t mkey_derive(const uint8_t secret[16], uint64_t guid);

#endif
