/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_register_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_register m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_register_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (strlen(m.addr.unix_addr) >= FT_WIRE_ADDR_MAX ||
	    strlen(m.addr.tcp_addr) >= FT_WIRE_ADDR_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_register_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_REGISTER, data, size);
	if (ft_msg_register_decode(body, size, &m2) != 0 ||
	    m.rank != m2.rank || !fuzz_addr_eq(&m.addr, &m2.addr))
		abort();
	ft_wbuf_release(&b);
	return 0;
}
