/* port-groups.dump (docs/design.md §4.4), shared by ibsmroute and ibsmd:
 *   0x<switch guid> pg <id> ports <p>,<p>,...
 *   0x<switch guid> lid 0x<dlid> pg <id>
 * switches by GUID so that the daemon (discovery order) and ibsmroute
 * (file order) write the same file for the same fabric. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "routing/pgroup/pgroup.h"

static int cmp_guid(const void *a, const void *b, void *arg)
{
	const struct fabric *f = arg;
	uint64_t x = f->switches[*(const uint32_t *)a]->guid;
	uint64_t y = f->switches[*(const uint32_t *)b]->guid;

	return x < y ? -1 : x > y;
}

static void dump_switch(FILE *fp, uint64_t guid, const struct pgroup_sw *w)
{
	for (unsigned g = 0; g < w->n_groups; g++) {
		const char *sep = "";
		fprintf(fp, "0x%016" PRIx64 " pg %u ports ", guid, g + 1);
		for (unsigned p = 0; p < 256; p++)
			if (pg_has(&w->groups[g], p)) {
				fprintf(fp, "%s%u", sep, p);
				sep = ",";
			}
		fputc('\n', fp);
	}
	for (uint32_t l = 0; w->ft && l < w->ft_size; l++)
		if (w->ft[l])
			fprintf(fp, "0x%016" PRIx64 " lid 0x%04x pg %u\n", guid,
				l, w->ft[l]);
}

int pgroup_dump_write(const char *dir, const struct fabric *f,
		      const struct pgroup_table *t)
{
	char path[4096], tmp[4200];
	uint32_t *by = malloc(((size_t)t->n + 1) * sizeof(*by));
	FILE *fp;

	if (!by)
		return -ENOMEM;
	for (uint32_t s = 0; s < t->n; s++)
		by[s] = s;
	qsort_r(by, t->n, sizeof(*by), cmp_guid, (void *)f);
	snprintf(path, sizeof(path), "%s/port-groups.dump", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(fp = fopen(tmp, "w"))) {
		free(by);
		return -errno;
	}
	for (uint32_t i = 0; i < t->n && i < f->n_switches; i++)
		dump_switch(fp, f->switches[by[i]]->guid, &t->sw[by[i]]);
	free(by);
	if (ferror(fp) | (fclose(fp) != 0)) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}
