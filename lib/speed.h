/* Link speeds beyond QDR (IBA 14.2.5.6, PortInfo): the lane speed of a
 * port decoded from LinkSpeedActive, LinkSpeedExtActive (FDR, EDR, HDR,
 * NDR; valid when the port's CapabilityMask has IsExtendedSpeedsSupported)
 * and LinkSpeedExtActive2 (XDR; valid when CapabilityMask2 has
 * IsExtendedSpeeds2Supported), the link's bandwidth, its SA rate code
 * (PathRecord/MCMemberRecord Rate) and the names the dumps print.  FDR10
 * is a vendor speed (Mellanox ExtendedPortInfo, read by discovery): the
 * model marks the port (struct ib_port.fdr10). */
#ifndef IBSM_SPEED_H
#define IBSM_SPEED_H

#include <stdbool.h>
#include <stdint.h>

enum ib_speed {
	IB_SPEED_NONE,
	IB_SPEED_SDR,	/* 2.5 Gb/s a lane */
	IB_SPEED_DDR,	/* 5 */
	IB_SPEED_QDR,	/* 10 */
	IB_SPEED_FDR10, /* 10 (64b/66b) */
	IB_SPEED_FDR,	/* 14 */
	IB_SPEED_EDR,	/* 25 */
	IB_SPEED_HDR,	/* 50 */
	IB_SPEED_NDR,	/* 100 */
	IB_SPEED_XDR,	/* 200 */
};

/* CapabilityMask / CapabilityMask2 bits that make the extended fields
 * valid (for a switch external port: those of its port 0). */
#define IB_CAP_IS_EXT_SPEEDS   (1u << 14)
#define IB_CAP_IS_CAP_MASK2    (1u << 15)
#define IB_CAP2_IS_EXT_SPEEDS2 (1u << 11)

/* Which extended fields the port's capabilities make valid. */
enum { IB_SPEED_CAP_EXT = 1, IB_SPEED_CAP_EXT2 = 2 };
uint8_t ib_speed_caps(uint32_t capmask, uint16_t capmask2);

/* The lane speed of an active link: LinkSpeedExtActive2 1 = XDR;
 * LinkSpeedExtActive 1/2/4/8 = FDR/EDR/HDR/NDR; else LinkSpeedActive
 * 1/2/4 = SDR/DDR/QDR.  An extended field the caps do not make valid is
 * ignored. */
enum ib_speed ib_speed_decode(uint8_t speed_active, uint8_t ext_active,
			      uint8_t ext2_active, uint8_t caps);

/* "SDR" ... "XDR", "?" for none. */
const char *ib_speed_name(enum ib_speed s);
/* subnet.lst's SPD= value as OpenSM writes it ("2.5", "10", "FDR10",
 * "14", "25", "50", then "100" and "200"). */
const char *ib_speed_spd(enum ib_speed s);
/* Lanes of a PortInfo LinkWidthActive value (1, 4, 8, 12, 2; 0 unknown). */
unsigned ib_width_lanes(uint8_t width_active);
/* Nominal bandwidth of a link in tenths of Gb/s (4xHDR = 2000). */
unsigned ib_link_gbps10(uint8_t width_active, enum ib_speed s);

/* SA rate code (IBA 15.2.5.16.1) of a link: the code of its nominal
 * bandwidth, else of the fastest below it (8x/12x XDR have none: 1200
 * Gb/s); 2 (2.5 Gb/s) for an unknown link. */
uint8_t ib_rate_code(uint8_t width_active, enum ib_speed s);
/* A rate code's position in bandwidth order, -1 if not a rate; and its
 * bandwidth in tenths of Gb/s (0 if not a rate). */
int ib_rate_rank(uint8_t code);
unsigned ib_rate_gbps10(uint8_t code);
/* The rate code at a position in bandwidth order (0 <= rank <
 * ib_rate_rank(ib_rate_max()) + 1). */
uint8_t ib_rate_at(int rank);
/* The fastest rate code. */
uint8_t ib_rate_max(void);

#endif
