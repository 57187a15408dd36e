/* SLtoVLMappingTable and VLArbitrationTable codecs (IBA 14.2.5.8/9),
 * written out nibble by nibble: the tables are arrays, not the named
 * fields the wire_field tables describe. */
#include "mad/smp_qos.h"

#include <errno.h>
#include <string.h>

int smp_sl2vl_decode(uint8_t vl[SMP_NUM_SLS], const uint8_t *data, size_t len)
{
	if (len < SMP_SL2VL_SIZE)
		return -EOVERFLOW;
	for (unsigned sl = 0; sl < SMP_NUM_SLS; sl++)
		vl[sl] = sl & 1 ? data[sl / 2] & 0xF : data[sl / 2] >> 4;
	return 0;
}

int smp_sl2vl_encode(const uint8_t vl[SMP_NUM_SLS], uint8_t *data, size_t len)
{
	if (len < SMP_SL2VL_SIZE)
		return -EOVERFLOW;
	for (unsigned sl = 0; sl < SMP_NUM_SLS; sl++)
		if (vl[sl] > 15)
			return -ERANGE;
	for (unsigned i = 0; i < SMP_SL2VL_SIZE; i++)
		data[i] = (uint8_t)(vl[2 * i] << 4 | vl[2 * i + 1]);
	return 0;
}

int smp_vlarb_decode(struct smp_vlarb_entry e[SMP_VLARB_BLOCK],
		     const uint8_t *data, size_t len)
{
	if (len < 2 * SMP_VLARB_BLOCK)
		return -EOVERFLOW;
	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
		e[i].vl = data[2 * i] & 0xF; /* the high nibble is reserved */
		e[i].weight = data[2 * i + 1];
	}
	return 0;
}

int smp_vlarb_encode(const struct smp_vlarb_entry e[SMP_VLARB_BLOCK],
		     uint8_t *data, size_t len)
{
	if (len < 2 * SMP_VLARB_BLOCK)
		return -EOVERFLOW;
	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++)
		if (e[i].vl > 15)
			return -ERANGE;
	for (unsigned i = 0; i < SMP_VLARB_BLOCK; i++) {
		data[2 * i] = e[i].vl;
		data[2 * i + 1] = e[i].weight;
	}
	return 0;
}
