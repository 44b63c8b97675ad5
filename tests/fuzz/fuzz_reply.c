/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_reply_decode (allocates its lists), with the round trip. */
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_reply m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_reply_decode(data, size, &m) != 0) {
		if (m.ids != NULL || m.codes != NULL)
			abort();
		return errno == ENOMEM ? 0 : fuzz_refused();
	}
	if (m.err > FT_REPLY_ERR_MAX)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_reply_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_REPLY, data, size);
	if (ft_msg_reply_decode(body, size, &m2) != 0 ||
	    m.reqid != m2.reqid || m.err != m2.err || m.ctx != m2.ctx ||
	    strcmp(m.text, m2.text) != 0 || m.nids != m2.nids ||
	    m.ncodes != m2.ncodes ||
	    (m.nids > 0 && memcmp(m.ids, m2.ids, m.nids * 4) != 0) ||
	    (m.ncodes > 0 && memcmp(m.codes, m2.codes, m.ncodes * 4) != 0))
		abort();
	ft_msg_reply_free(&m);
	ft_msg_reply_free(&m2);
	ft_wbuf_release(&b);
	return 0;
}
