/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_revive_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_revive m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_revive_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_revive_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_REVIVE, data, size);
	if (ft_msg_revive_decode(body, size, &m2) != 0 ||
	    m.proc != m2.proc || m.inc != m2.inc ||
	    !fuzz_addr_eq(&m.addr, &m2.addr))
		abort();
	ft_wbuf_release(&b);
	return 0;
}
