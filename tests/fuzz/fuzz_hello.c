/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_hello_decode, with the encode round trip. */
#include "fuzz.h"

static int
eq(const struct ft_msg_hello *a, const struct ft_msg_hello *b)
{
	return a->minver == b->minver && a->maxver == b->maxver &&
	    a->role == b->role && a->id == b->id &&
	    memcmp(a->nonce, b->nonce, sizeof(a->nonce)) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_hello m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_hello_decode(data, size, &m) != 0)
		return fuzz_refused();
	if (m.minver > m.maxver)
		abort();
	ft_wbuf_init(&b);
	if (ft_msg_hello_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_HELLO, data, size);
	if (ft_msg_hello_decode(body, size, &m2) != 0 || !eq(&m, &m2))
		abort();
	ft_wbuf_release(&b);
	return 0;
}
