/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_hb_decode, the launcher's reader of the heartbeat pipe: over
 * any bytes it consumes within the buffer, makes progress or asks for
 * more, and every record it returns encodes back to the bytes it came
 * from.
 */
#include <string.h>

#include "fuzz.h"
#include "job/job.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_hb_rec r;
	uint8_t back[FT_HB_RECLEN];
	size_t off = 0, used;
	int rc;

	while (off < size) {
		rc = ft_hb_decode(data + off, size - off, &used, &r);
		if (used > size - off)
			abort();
		if (rc == 0) {
			/* What is left cannot hold a record. */
			if (size - off - used >= FT_HB_RECLEN)
				abort();
			break;
		}
		if (rc != 1 || used < FT_HB_RECLEN ||
		    (r.flags & ~FT_HB_FLAGS) != 0 ||
		    r.id >= FT_WIRE_MAX_RANKS)
			abort();
		ft_hb_encode(back, &r);
		if (memcmp(back, data + off + used - FT_HB_RECLEN,
		    FT_HB_RECLEN) != 0)
			abort();
		off += used;
	}
	return 0;
}
