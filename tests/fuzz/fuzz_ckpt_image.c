/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the checkpoint image reader (ft_ckpt_verify_mem) and the header
 * codec: any input is refused with one of the documented errors, or
 * accepted; a header that decodes encodes back to the same bytes.
 */
#include "fuzz.h"
#include "store/store.h"

static struct ft_ckpt_hdr h;

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_wbuf b;
	char why[FT_LOG_WHY];
	size_t need;

	if (ft_ckpt_verify_mem(data, size, why, sizeof(why)) != 0 &&
	    errno != EMSGSIZE && errno != EPROTO && errno != ENOTSUP &&
	    errno != EBADMSG && errno != ENOMEM)
		abort();
	if (ft_ckpt_hdr_decode(data, size, &h, &need) != 0)
		return 0;
	ft_wbuf_init(&b);
	ft_ckpt_hdr_encode(&b, &h);
	if (b.err != 0 || b.len != need || memcmp(b.p, data, need) != 0)
		abort();
	ft_wbuf_release(&b);
	return 0;
}
