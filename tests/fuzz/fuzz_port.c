/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_port_decode (allocates its ids), with the round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_port m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_port_decode(data, size, &m) != 0) {
		if (m.ids != NULL)
			abort();
		return errno == ENOMEM ? 0 : fuzz_refused();
	}
	if (m.op == 0 || m.op > FT_PORT_OP_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_port_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_PORT, data, size);
	if (ft_msg_port_decode(body, size, &m2) != 0 || m.op != m2.op ||
	    m.reqid != m2.reqid || m.ctx != m2.ctx ||
	    strcmp(m.name, m2.name) != 0 || strcmp(m.value, m2.value) != 0 ||
	    m.nids != m2.nids ||
	    (m.nids > 0 && memcmp(m.ids, m2.ids, m.nids * 4) != 0))
		abort();
	ft_msg_port_free(&m);
	ft_msg_port_free(&m2);
	ft_wbuf_release(&b);
	return 0;
}
