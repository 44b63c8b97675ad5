/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_iagree_decode (IAGREE, ULFM on intercommunicators), with
 * the encode round trip. */
#include "agree.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return fuzz_agree_one(data, size, 1);
}
