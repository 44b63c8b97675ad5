/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_boot_reserved_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_boot_reserved m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_boot_reserved_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_boot_reserved_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_BOOT_RESERVED, data, size);
	if (ft_msg_boot_reserved_decode(body, size, &m2) != 0)
		abort();
	if (m.status != m2.status || m.slots != m2.slots ||
	    m.ttl_ms != m2.ttl_ms ||
	    memcmp(m.token, m2.token, sizeof(m.token)) != 0 ||
	    strcmp(m.host, m2.host) != 0 || strcmp(m.reason, m2.reason) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
