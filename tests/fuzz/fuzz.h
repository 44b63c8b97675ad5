/* SPDX-License-Identifier: ISC */
/*
 * Shared by the libFuzzer targets: each feeds arbitrary bytes to one
 * decoder and, when the decoder accepts them, checks the round trip:
 * encoding the decoded struct gives back exactly the input bytes (the
 * encodings are canonical, so this is the strongest form of the
 * property), and decoding that again gives an equal struct.  A
 * mismatch calls abort(), which libFuzzer reports as a crash.
 */
#ifndef FT_FUZZ_H
#define FT_FUZZ_H

#include <stdint.h>
#include <stdlib.h>

#include "wire/wire.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

#define FUZZ_SENDER	0x01020304u

/* A decoder refused the input: it must say why with EPROTO. */
static inline int
fuzz_refused(void)
{
	if (errno != EPROTO)
		abort();
	return 0;
}

/*
 * b holds one frame just encoded: check its header (type, length,
 * sender) and that its body is exactly data.  Returns the body, which
 * stays valid until b changes.
 */
static inline const uint8_t *
fuzz_check_frame(const struct ft_wbuf *b, unsigned int type,
    const uint8_t *data, size_t size)
{
	struct ft_hdr h;

	if (b->err != 0 || b->len != FT_WIRE_HDRLEN + size ||
	    ft_hdr_decode(b->p, &h) != 0 || h.type != type ||
	    h.len != b->len || h.sender != FUZZ_SENDER ||
	    h.version != FT_WIRE_VERSION)
		abort();
	if (size > 0 && memcmp(b->p + FT_WIRE_HDRLEN, data, size) != 0)
		abort();
	return b->p + FT_WIRE_HDRLEN;
}

static inline int
fuzz_addr_eq(const struct ft_rank_addr *a, const struct ft_rank_addr *b)
{
	return a->node == b->node && a->pid == b->pid &&
	    strcmp(a->unix_addr, b->unix_addr) == 0 &&
	    strcmp(a->tcp_addr, b->tcp_addr) == 0;
}

#endif
