/* routing/mr4lms: MR4LMS, ibsmd's multicast engine (docs/design.md §5):
 * FBTC and FCTB tree building, early sharing under MFT pressure and merging
 * into the nearest tree, over the multicast core (routing/mcast).  Others
 * reach it only through its engine ops; mr4lms_priv.h holds what its step
 * files share. */
#ifndef IBSM_MR4LMS_H
#define IBSM_MR4LMS_H

#include "routing/mcast/mcast.h"

extern const struct mc_engine mcast_engine_mr4lms;

#endif
