/* Multicast dump formats (declared at the end of mcast.h). */
#include "routing/mcast/mcast.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "lib/dump.h"

struct mft_cursor {
	const struct mc_ctx *c;
	uint32_t sw, i, color; /* last entry given: i-th is color */
};

static int mft_entry(void *arg, const struct ib_node *sw, uint32_t i,
		     uint16_t *mlid, uint64_t mask[4])
{
	struct mft_cursor *k = arg;
	const struct mc_ctx *c = k->c;
	uint32_t s = (uint32_t)sw->sw_idx, col;

	if (i == 0 || k->sw != s || k->i + 1 != i)
		col = 0; /* restart the scan for this switch */
	else
		col = k->color + 1;
	for (; col < c->cwords * 64u; col++) {
		if (!mc_color_busy(c, s, col))
			continue;
		if (!mcast_mft_get(c, s, col, mask))
			continue;
		*mlid = (uint16_t)(IB_LID_MCAST_START + col);
		k->sw = s;
		k->i = i;
		k->color = col;
		return 1;
	}
	return 0;
}

int mcast_dump_mfts(const char *dir, const struct mc_ctx *c,
		    const struct fabric *f)
{
	struct mft_cursor k = {.c = c, .sw = UINT32_MAX};

	return dump_write_mfts(dir, f, mft_entry, &k);
}

void mcast_mgid_str(const uint8_t mgid[16], char *s, size_t len)
{
	if (!inet_ntop(AF_INET6, mgid, s, (socklen_t)len) && len)
		s[0] = '\0';
}

void mcast_dump_group_line(FILE *fp, const struct mc_ctx *c,
			   const struct fabric *f, uint32_t gid,
			   const char *state)
{
	const struct mc_group *gr = mcast_group_get(c, gid);
	const struct mc_tree *t = mcast_group_tree(c, gid);
	char s[INET6_ADDRSTRLEN];

	if (!gr || !t)
		return;
	mcast_mgid_str(gr->mgid, s, sizeof(s));
	fprintf(fp,
		"%s mlid=0x%04x state=%s tfi=%u height=%u root=0x%016" PRIx64
		" members=",
		s, mcast_group_mlid(c, gid), state ? state : "Ready",
		t->n_groups, t->height, f->switches[t->root]->guid);
	for (uint32_t m = 0; m < gr->n_members; m++)
		fprintf(fp, "%s0x%016" PRIx64, m ? "," : "",
			gr->members[m]->guid);
	fputc('\n', fp);
}

int mcast_dump_groups(const char *dir, const struct mc_ctx *c,
		      const struct fabric *f)
{
	char path[4096], tmp[4200];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/mcgroups.dump", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(fp = fopen(tmp, "w")))
		return -errno;
	for (uint32_t g = 0; g < c->n_groups; g++)
		mcast_dump_group_line(fp, c, f, g, NULL);
	if (ferror(fp) | (fclose(fp) != 0)) {
		unlink(tmp);
		return -EIO;
	}
	return rename(tmp, path) < 0 ? -errno : 0;
}
