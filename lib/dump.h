/* Dump files of the state directory (docs/design.md §4.4) in OpenSM's formats, so
 * that ibdmchk and OpenSM's own tools read them:
 *   subnet.lst      opensm-subnet.lst  (one line per link end)
 *   lfts.dump       opensm-lfts.dump   (dump_lfts.sh format)
 *   fdbs            opensm.fdbs        (ibdmchk -f)
 *   mfts.dump       opensm.mcfdbs      (ibdmchk -m)
 *   guid2lid        OpenSM's cache file
 *   updn-roots.dump one root GUID per line
 *   ftree-ca-order.dump  opensm-ftree-ca-order.dump (hosts in cabling order)
 * Every file is written to a temporary name in the same directory and
 * renamed over the old one, so readers never see half a file.  All
 * writers return 0 or a negative errno. */
#ifndef IBSM_DUMP_H
#define IBSM_DUMP_H

#include <stddef.h>
#include <stdint.h>

#include "lib/fabric.h"

/* Hop counts for the fdbs file: hops from sw to lid when leaving by port
 * (*best: the least over all ports).  lib/ does not know the hop tables,
 * so routing supplies this (routing/hops/hops.h: hops_fdbs_cb). */
typedef uint8_t (*dump_hops_fn)(void *ctx, const struct ib_node *sw,
				uint16_t lid, uint8_t port, uint8_t *best);

int dump_write_subnet_lst(const char *dir, const struct fabric *f);
int dump_write_lfts(const char *dir, const struct fabric *f);
/* hops may be NULL: then the Hops column is 0 and Optimal "yes". */
int dump_write_fdbs(const char *dir, const struct fabric *f, dump_hops_fn hops,
		    void *ctx);
/* dir/guid2lid from the fabric's current LIDs. */
int dump_write_guid2lid(const char *dir, const struct fabric *f);
int dump_write_roots(const char *dir, struct ib_node *const *roots, uint32_t n);
/* dir/ftree-ca-order.dump: "0x<LID>\t<NodeDescription>" per host port in
 * cabling order (lib/ca_order.h), as OpenSM's ftree writes it, for job
 * launchers placing ranks. */
int dump_write_ca_order(const char *dir, const struct fabric *f);

/* Multicast forwarding tables, generic over the engine's storage: for
 * switch sw, entry(ctx, sw, i, &mlid, mask) fills the i-th (mlid, port
 * mask) pair in increasing MLID order and returns 1, or returns 0 after
 * the last one.  mask is a 256-bit port mask, port p = bit p%64 of
 * mask[p/64].  Writes dir/mfts.dump as OpenSM's opensm.mcfdbs. */
typedef int (*dump_mft_entry_fn)(void *ctx, const struct ib_node *sw,
				 uint32_t i, uint16_t *mlid, uint64_t mask[4]);
int dump_write_mfts(const char *dir, const struct fabric *f,
		    dump_mft_entry_fn entry, void *ctx);

/* Reads an lfts.dump (ours or OpenSM's) into the switches' LFTs, matched
 * by node GUID; entries not listed become LFT_NO_PORT.  0, -errno, or
 * -EINVAL with "path:line: message" in err. */
int dump_read_lfts(const char *path, struct fabric *f, char *err,
		   size_t errlen);

#endif
