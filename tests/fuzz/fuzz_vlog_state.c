/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the reader of vlog's protocol state in an image ("VLG1", and
 * "VLG2" with its extents of the sender-log file, ft-ckpt(5)): the
 * first two bytes choose the rank and the job's size, the rest is the
 * state.  Refused with EPROTO, or accepted; never a read out of bounds
 * (an extent is checked against the file only at a restore, which has
 * one: here its bounds are).  An accepted state is accepted again.
 */
#include <errno.h>

#include "fuzz.h"
#include "proto/proto.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint32_t nranks, rank;

	if (size < 2)
		return 0;
	nranks = (uint32_t)(data[0] % 8) + 1;
	rank = data[1] % nranks;
	if (ft__vlog_state_check(data + 2, size - 2, rank, nranks) != 0) {
		if (errno != EPROTO && errno != ENOMEM)
			abort();
		return 0;
	}
	if (ft__vlog_state_check(data + 2, size - 2, rank, nranks) != 0)
		abort();
	return 0;
}
