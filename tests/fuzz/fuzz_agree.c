/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_agree_decode, with the encode round trip. */
#include "agree.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_agree_one(data, size, 0);
}
