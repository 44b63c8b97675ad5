/* SPDX-License-Identifier: ISC */
/* Fuzz ft_msg_challenge_decode, with the encode round trip. */
#include "fuzz.h"

static int
eq(const struct ft_msg_challenge *a, const struct ft_msg_challenge *b)
{
	return a->version == b->version && a->id == b->id &&
	    memcmp(a->nonce, b->nonce, sizeof(a->nonce)) == 0 &&
	    memcmp(a->mac, b->mac, sizeof(a->mac)) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_msg_challenge m, m2;
	struct ft_wbuf b;
	const uint8_t *body;

	if (ft_msg_challenge_decode(data, size, &m) != 0)
		return fuzz_refused();
	ft_wbuf_init(&b);
	if (ft_msg_challenge_encode(&b, FUZZ_SENDER, &m) != 0)
		abort();
	body = fuzz_check_frame(&b, FT_MSG_CHALLENGE, data, size);
	if (ft_msg_challenge_decode(body, size, &m2) != 0 || !eq(&m, &m2))
		abort();
	ft_wbuf_release(&b);
	return 0;
}
