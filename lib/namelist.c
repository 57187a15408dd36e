/* Count plus the first few names: see namelist.h. */
#include "lib/namelist.h"

#include <stdio.h>
#include <string.h>

void namelist_add(struct namelist *l, const char *name)
{
	size_t used = strlen(l->first);

	if (l->n++ >= NAMELIST_FIRST)
		return;
	snprintf(l->first + used, sizeof(l->first) - used, "%s%s",
		 used ? ", " : "", name);
}

const char *namelist_str(const struct namelist *l, char *buf, size_t len)
{
	if (!l->n)
		snprintf(buf, len, "none");
	else if (l->n <= NAMELIST_FIRST)
		snprintf(buf, len, "%s", l->first);
	else
		snprintf(buf, len, "%s and %u more", l->first,
			 l->n - NAMELIST_FIRST);
	return buf;
}
