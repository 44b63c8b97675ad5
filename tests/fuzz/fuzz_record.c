/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the reader of ftrun --record's files (ft_rec_load_mem,
 * ft-record(5)): any input is refused with one of the documented
 * errors, or read; what is read is consistent (every payload belongs
 * to a message matched before it, send digests are numbered in order
 * and their blocks fit).
 */
#include "fuzz.h"
#include "store/store.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_rec r;
	char why[640];
	size_t i;

	if (ft_rec_load_mem(&r, data, size, "fuzz.ftr", why,
	    sizeof(why)) != 0) {
		if (errno != EMSGSIZE && errno != EPROTO && errno != ENOTSUP &&
		    errno != EBADMSG && errno != ENOMEM)
			abort();
		return 0;
	}
	if (r.h.rank >= r.h.size || r.torn > size)
		abort();
	for (i = 0; i < r.nm; i++)
		if (r.m[i].has_data != (r.m[i].data != NULL ||
		    (r.m[i].has_data && r.m[i].dlen == 0)))
			abort();
	for (i = 0; i < r.ns; i++)
		if (r.s[i].n != i || r.s[i].nblk > FT_REC_BLOCKS)
			abort();
	ft_rec_free(&r);
	return 0;
}
