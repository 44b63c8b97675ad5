/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_boot_register_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_boot_register m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_boot_register_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_boot_register_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_BOOT_REGISTER, data, size);
	if (ft_msg_boot_register_decode(body, size, &m2) != 0)
		abort();
	if (strcmp(m.addr, m2.addr) != 0 || strcmp(m.host, m2.host) != 0 ||
	    m.slots != m2.slots || m.jobs != m2.jobs ||
	    m.refresh_ms != m2.refresh_ms)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
