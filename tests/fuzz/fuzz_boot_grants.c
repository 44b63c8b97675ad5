/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_boot_grants_decode, with the encode round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_boot_grants m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_boot_grants_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_boot_grants_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_BOOT_GRANTS, data, size);
	if (ft_msg_boot_grants_decode(body, size, &m2) != 0)
		abort();
	if (m.status != m2.status || strcmp(m.why, m2.why) != 0 ||
	    m.n != m2.n ||
	    (m.n > 0 && memcmp(m.g, m2.g, m.n * sizeof(*m.g)) != 0))
		abort();
	ft_msg_boot_grants_free(&m);
	ft_msg_boot_grants_free(&m2);
	ft_wbuf_release(&b);
	return 0;
}
