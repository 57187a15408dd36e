/* Multicast state a standby holds from its master (see docs/design.md). */
#include "daemon/sm_elect.h"

bool sm_repl_have(const struct sm *sm)
{
	(void)sm;
	return false;
}
