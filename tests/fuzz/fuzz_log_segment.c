/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the segment reader (lib/store): the input is a mode byte and a
 * segment file, read as the last segment of its rank (where a torn tail
 * is cut) or as one that is not (bit 0 of the mode).  The reader must refuse or read without a crash,
 * and what it reads must hold: determinants in seq order from the
 * header's first seq, a torn tail only in the last segment, never
 * beyond the file.
 */
#include <sys/mman.h>

#include <unistd.h>

#include "fuzz.h"
#include "store/store.h"

static void
read_all(int fd, size_t size, int last)
{
	struct ft_seg_reader r;
	struct ft_seg_rec rec;
	uint64_t seq;
	int rc;

	if (ft_seg_reader_open(&r, fd, "fuzz.ftl", last, 0) != 0) {
		ft_seg_reader_release(&r);
		return;
	}
	seq = r.hdr.first_seq;
	while ((rc = ft_seg_reader_next(&r, &rec)) == 1) {
		if (rec.type == FT_DET_TYPE && rec.det.seq != seq++)
			abort();
		if (r.off > size)
			abort();
	}
	if (rc == 0 && ((r.torn > 0 && !last) || r.off != size ||
	    r.torn_off + r.torn > size))
		abort();
	ft_seg_reader_release(&r);
}

/*
 * Checksums the fuzzer cannot guess: with bit 1 of the first byte set,
 * they are made right in the rest of the input (the header's, then each
 * record's while the lengths chain), so that records are read at all.
 */
static void
fix_crcs(uint8_t *p, size_t len)
{
	size_t off = FT_SEG_HDRLEN;
	uint32_t n;

	if (len < FT_SEG_HDRLEN)
		return;
	ft_be32(p + FT_SEG_HDRLEN - 4, ft_crc32c(0, p, FT_SEG_HDRLEN - 4));
	while (off + FT_SEG_RECHDR <= len) {
		n = ft_rd32(p + off);
		if (n < FT_SEG_REC_MIN || n > FT_SEG_REC_MAX ||
		    off + FT_SEG_RECHDR + n > len)
			break;
		ft_be32(p + off + 4, ft_crc32c(ft_crc32c(0, p + off, 4),
		    p + off + FT_SEG_RECHDR, n));
		off += FT_SEG_RECHDR + n;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *p;
	size_t len;
	int fd;

	if (size == 0)
		return 0;
	len = size - 1;
	if ((p = malloc(len + 1)) == NULL)
		abort();
	memcpy(p, data + 1, len);
	if (data[0] & 2)
		fix_crcs(p, len);
	if ((fd = memfd_create("fuzz", MFD_CLOEXEC)) < 0)
		abort();
	if (len > 0 && write(fd, p, len) != (ssize_t)len)
		abort();
	read_all(fd, len, data[0] & 1);
	close(fd);
	free(p);
	return 0;
}
