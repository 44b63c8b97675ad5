/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_boot_state_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_boot_state m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_boot_state_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_boot_state_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_BOOT_STATE, data, size);
	if (ft_msg_boot_state_decode(body, size, &m2) != 0)
		abort();
	if (strcmp(m.addr, m2.addr) != 0 || strcmp(m.host, m2.host) != 0 ||
	    m.slots != m2.slots || m.jobs != m2.jobs ||
	    m.reserved != m2.reserved || m.running != m2.running ||
	    m.peers != m2.peers || m.uptime_ms != m2.uptime_ms)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
