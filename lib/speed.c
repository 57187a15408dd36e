/* Link speed decoding and SA rate codes: see speed.h.  The PortInfo
 * encodings are IBA 1.7 14.2.5.6 (libibmad's mad_dump_linkspeedext and
 * mad_dump_linkspeedext2 print the same); the rate codes are IBA
 * 15.2.5.16.1 as OpenSM's ib_types.h lists them. */
#include "lib/speed.h"

uint8_t ib_speed_caps(uint32_t capmask, uint16_t capmask2)
{
	uint8_t c = 0;

	if (capmask & IB_CAP_IS_EXT_SPEEDS)
		c |= IB_SPEED_CAP_EXT;
	if ((capmask & IB_CAP_IS_CAP_MASK2) &&
	    (capmask2 & IB_CAP2_IS_EXT_SPEEDS2))
		c |= IB_SPEED_CAP_EXT2;
	return c;
}

enum ib_speed ib_speed_decode(uint8_t speed_active, uint8_t ext_active,
			      uint8_t ext2_active, uint8_t caps)
{
	if ((caps & IB_SPEED_CAP_EXT2) && ext2_active == 1)
		return IB_SPEED_XDR;
	if (caps & IB_SPEED_CAP_EXT) {
		switch (ext_active) {
		case 1:
			return IB_SPEED_FDR;
		case 2:
			return IB_SPEED_EDR;
		case 4:
			return IB_SPEED_HDR;
		case 8:
			return IB_SPEED_NDR;
		}
	}
	switch (speed_active) {
	case 1:
		return IB_SPEED_SDR;
	case 2:
		return IB_SPEED_DDR;
	case 4:
		return IB_SPEED_QDR;
	}
	return IB_SPEED_NONE;
}

static const struct {
	const char *name, *spd;
	unsigned lane10; /* tenths of Gb/s a lane */
} speeds[] = {
    [IB_SPEED_NONE] = {"?", "??", 0},
    [IB_SPEED_SDR] = {"SDR", "2.5", 25},
    [IB_SPEED_DDR] = {"DDR", "5", 50},
    [IB_SPEED_QDR] = {"QDR", "10", 100},
    [IB_SPEED_FDR10] = {"FDR10", "FDR10", 100},
    [IB_SPEED_FDR] = {"FDR", "14", 140},
    [IB_SPEED_EDR] = {"EDR", "25", 250},
    [IB_SPEED_HDR] = {"HDR", "50", 500},
    [IB_SPEED_NDR] = {"NDR", "100", 1000},
    [IB_SPEED_XDR] = {"XDR", "200", 2000},
};
#define N_SPEEDS (sizeof(speeds) / sizeof(speeds[0]))

const char *ib_speed_name(enum ib_speed s)
{
	return (unsigned)s < N_SPEEDS ? speeds[s].name : "?";
}

const char *ib_speed_spd(enum ib_speed s)
{
	return (unsigned)s < N_SPEEDS ? speeds[s].spd : "??";
}

unsigned ib_width_lanes(uint8_t w)
{
	switch (w) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	}
	return 0;
}

unsigned ib_link_gbps10(uint8_t width_active, enum ib_speed s)
{
	unsigned lane = (unsigned)s < N_SPEEDS ? speeds[s].lane10 : 0;

	return ib_width_lanes(width_active) * lane;
}

/* Every rate code in bandwidth order. */
static const struct {
	uint8_t code;
	uint16_t gbps10;
} rates[] = {
    {2, 25},	{5, 50},    {3, 100},	{11, 140},  {6, 200},	 {15, 250},
    {19, 280},	{4, 300},   {7, 400},	{20, 500},  {12, 560},	 {8, 600},
    {9, 800},	{16, 1000}, {13, 1120}, {10, 1200}, {14, 1680},	 {17, 2000},
    {18, 3000}, {21, 4000}, {22, 6000}, {23, 8000}, {24, 12000},
};
#define N_RATES (sizeof(rates) / sizeof(rates[0]))

uint8_t ib_rate_code(uint8_t width_active, enum ib_speed s)
{
	unsigned bw = ib_link_gbps10(width_active, s);
	uint8_t best = rates[0].code;

	for (unsigned i = 0; i < N_RATES; i++)
		if (rates[i].gbps10 <= bw)
			best = rates[i].code;
	return best;
}

int ib_rate_rank(uint8_t code)
{
	for (unsigned i = 0; i < N_RATES; i++)
		if (rates[i].code == code)
			return (int)i;
	return -1;
}

unsigned ib_rate_gbps10(uint8_t code)
{
	int r = ib_rate_rank(code);

	return r < 0 ? 0 : rates[r].gbps10;
}

uint8_t ib_rate_at(int rank)
{
	return rank >= 0 && (unsigned)rank < N_RATES ? rates[rank].code
						     : rates[0].code;
}

uint8_t ib_rate_max(void)
{
	return rates[N_RATES - 1].code;
}
