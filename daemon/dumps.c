/* The dump files (DESIGN §4.4) of the current model, written after each
 * heavy sweep to the state directory and on `ibsmctl dump DIR`. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon/mcg.h"
#include "daemon/sm.h"
#include "lib/dump.h"
#include "lib/log.h"

/* Until multicast routing programs MFTs, every switch's MFT is empty;
 * ibdmchk wants the file anyway. */
static int no_mft_entry(void *ctx, const struct ib_node *sw, uint32_t i,
			uint16_t *mlid, uint64_t mask[4])
{
	return 0;
}

int sm_write_dumps(struct sm *sm, const char *dir)
{
	struct hops_fdbs_ctx hc = { .f = sm->fab, .h = &sm->hops };
	int rc;

	if (!sm->fab)
		return -ENOENT;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -errno;
	rc = dump_write_subnet_lst(dir, sm->fab);
	if (rc == 0)
		rc = dump_write_lfts(dir, sm->fab);
	if (rc == 0)
		rc = dump_write_fdbs(dir, sm->fab,
				     sm->hops.d ? hops_fdbs_cb : NULL, &hc);
	if (rc == 0)
		rc = dump_write_guid2lid(dir, sm->fab);
	if (rc == 0)
		rc = dump_write_mfts(dir, sm->fab, no_mft_entry, NULL);
	if (rc == 0)
		rc = mcg_write_dumps_to(dir); /* the groups' MFTs, if any */
	return rc;
}
