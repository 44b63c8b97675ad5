/* SPDX-License-Identifier: ISC */
/*
 * Checkpoint images (ft-ckpt(5)): the header codec, the writer that
 * streams a rank's regions through zstd into a temporary file and
 * commits it atomically, and the reader that gives the decompressed
 * bytes back in bounded memory and refuses a truncated, corrupt,
 * foreign or future image with a message naming the file.  The one
 * file of ft that includes zstd.h.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <zstd.h>
#include <zstd_errors.h>

#include "store.h"

#define IOBUF	(1u << 20)

_Static_assert(FT_CKPT_FIXED == 4 + 2 + 2 + 4 + 8 + 4 + 4 + 8 + 8 +
    FT_CKPT_PROTO_MAX + 4 + 8 + 8 + 8 + 1 + 3 + 4,
    "the fixed header is 96 bytes");
_Static_assert(FT_CKPT_REGLEN == 4 + 8, "a region is 12 bytes");

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A protocol name: 1 to 15 of [a-z0-9_-]. */
static int
proto_ok(const char *p)
{
	size_t i, n = strnlen(p, FT_CKPT_PROTO_MAX);

	if (n == 0 || n >= FT_CKPT_PROTO_MAX)
		return 0;
	for (i = 0; i < n; i++)
		if (!((p[i] >= 'a' && p[i] <= 'z') ||
		    (p[i] >= '0' && p[i] <= '9') || p[i] == '_' ||
		    p[i] == '-'))
			return 0;
	return 1;
}

static uint32_t
hdr_len(uint32_t nregions)
{
	return FT_CKPT_FIXED + nregions * FT_CKPT_REGLEN + 4;
}

void
ft_ckpt_hdr_encode(struct ft_wbuf *b, struct ft_ckpt_hdr *h)
{
	uint8_t name[FT_CKPT_PROTO_MAX];
	size_t start = b->len;
	uint32_t i;

	h->hdrlen = hdr_len(h->nregions);
	memset(name, 0, sizeof(name));
	memcpy(name, h->proto, strnlen(h->proto, sizeof(name) - 1));
	ft_put32(b, FT_CKPT_MAGIC);
	ft_put16(b, FT_CKPT_VERSION);
	ft_put16(b, 0);
	ft_put32(b, h->hdrlen);
	ft_put64(b, h->job);
	ft_put32(b, h->rank);
	ft_put32(b, h->nranks);
	ft_put64(b, h->epoch);
	ft_put64(b, h->created_ns);
	ft_putbytes(b, name, sizeof(name));
	ft_put32(b, h->nregions);
	ft_put64(b, h->raw);
	ft_put64(b, h->stored);
	ft_put64(b, h->pstate);
	ft_put8(b, h->level);
	ft_putbytes(b, "\0\0\0", 3);
	ft_put32(b, h->stored_crc);
	for (i = 0; i < h->nregions; i++) {
		ft_put32(b, h->reg[i].id);
		ft_put64(b, h->reg[i].size);
	}
	if (b->err == 0)
		ft_put32(b, ft_crc32c(0, b->p + start, b->len - start));
}

/* Region ids are unique: sorted copy, then neighbours. */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int
ids_unique(const struct ft_ckpt_hdr *h)
{
	uint32_t *ids;
	uint32_t i;
	int ok = 1;

	if (h->nregions < 2)
		return 1;
	if ((ids = calloc(h->nregions, sizeof(*ids))) == NULL)
		return -1;
	for (i = 0; i < h->nregions; i++)
		ids[i] = h->reg[i].id;
	qsort(ids, h->nregions, sizeof(*ids), cmp_u32);
	for (i = 1; i < h->nregions && ok; i++)
		ok = ids[i] != ids[i - 1];
	free(ids);
	return ok;
}

int
ft_ckpt_hdr_decode(const uint8_t *p, size_t len, struct ft_ckpt_hdr *h,
    size_t *need)
{
	struct ft_rbuf r;
	uint64_t sum;
	uint32_t magic, hdrlen, crc, i;
	uint16_t flags;
	uint8_t zero[3];
	int u;

	*need = FT_CKPT_FIXED;
	if (len < 12) {
		/* Too short to tell, unless the magic is already wrong. */
		errno = len >= 4 && ((uint32_t)p[0] << 24 |
		    (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]) !=
		    FT_CKPT_MAGIC ? EPROTO : EMSGSIZE;
		return -1;
	}
	ft_rbuf_init(&r, p, len);
	magic = ft_get32(&r);
	h->version = ft_get16(&r);
	flags = ft_get16(&r);
	hdrlen = ft_get32(&r);
	if (magic != FT_CKPT_MAGIC) {
		errno = EPROTO;
		return -1;
	}
	if (h->version != FT_CKPT_VERSION) {
		errno = ENOTSUP;
		return -1;
	}
	if (flags != 0 || hdrlen < hdr_len(0) || hdrlen > FT_CKPT_HDR_MAX ||
	    (hdrlen - hdr_len(0)) % FT_CKPT_REGLEN != 0) {
		errno = EPROTO;
		return -1;
	}
	*need = hdrlen;
	if (len < hdrlen) {
		errno = EMSGSIZE;
		return -1;
	}
	r.len = hdrlen;
	h->hdrlen = hdrlen;
	h->job = ft_get64(&r);
	h->rank = ft_get32(&r);
	h->nranks = ft_get32(&r);
	h->epoch = ft_get64(&r);
	h->created_ns = ft_get64(&r);
	ft_getbytes(&r, h->proto, FT_CKPT_PROTO_MAX);
	h->nregions = ft_get32(&r);
	h->raw = ft_get64(&r);
	h->stored = ft_get64(&r);
	h->pstate = ft_get64(&r);
	h->level = ft_get8(&r);
	ft_getbytes(&r, zero, sizeof(zero));
	h->stored_crc = ft_get32(&r);
	if (r.err != 0 || h->nregions > FT_CKPT_REGIONS_MAX ||
	    hdr_len(h->nregions) != hdrlen) {
		errno = EPROTO;
		return -1;
	}
	for (i = 0; i < h->nregions; i++) {
		h->reg[i].id = ft_get32(&r);
		h->reg[i].size = ft_get64(&r);
	}
	crc = ft_crc32c(0, p, r.off);
	if (ft_get32(&r) != crc || r.err != 0) {
		errno = EBADMSG;
		return -1;
	}
	/* Past the checksum: a writer's bug or a forgery, not damage. */
	sum = h->pstate;
	for (i = 0; i < h->nregions && sum <= FT_CKPT_RAW_MAX; i++)
		sum += h->reg[i].size > FT_CKPT_RAW_MAX ? FT_CKPT_RAW_MAX + 1 :
		    h->reg[i].size;
	if (h->proto[FT_CKPT_PROTO_MAX - 1] != '\0' || !proto_ok(h->proto) ||
	    memcmp(zero, "\0\0\0", 3) != 0 || h->nranks == 0 ||
	    h->rank >= h->nranks || h->nranks > FT_WIRE_MAX_RANKS ||
	    h->epoch == 0 || h->level > FT_CKPT_LEVEL_MAX ||
	    sum > FT_CKPT_RAW_MAX || sum != h->raw || h->stored == 0 ||
	    h->stored > ZSTD_compressBound(FT_CKPT_RAW_MAX)) {
		errno = EPROTO;
		return -1;
	}
	if ((u = ids_unique(h)) != 1) {
		errno = u < 0 ? ENOMEM : EPROTO;
		return -1;
	}
	return 0;
}

int
ft_ckpt_name(char *buf, size_t size, uint64_t job, uint32_t rank,
    uint64_t epoch)
{
	if ((size_t)snprintf(buf, size, "job-%016" PRIx64 "/rank-%u/%020"
	    PRIu64 ".ftc", job, rank, epoch) >= size) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/* Make the directories of the relative path name under dirfd. */
static int
make_parents(int dirfd, const char *name)
{
	char dir[FT_CKPT_NAME_MAX];
	char *slash;
	int fd, rc;

	if (snprintf(dir, sizeof(dir), "%s", name) >= (int)sizeof(dir)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	for (slash = strchr(dir, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		/* The new entry goes into its parent: fsync that one. */
		if (mkdirat(dirfd, dir, 0700) == 0) {
			char *up = strrchr(dir, '/');

			if (up == NULL)
				fd = dup(dirfd);
			else {
				*up = '\0';
				fd = openat(dirfd, dir, O_RDONLY |
				    O_DIRECTORY | O_CLOEXEC);
				*up = '/';
			}
			if (fd < 0)
				return -1;
			rc = ft_store_fsync_dir(fd);
			close(fd);
			if (rc != 0)
				return -1;
		} else if (errno != EEXIST)
			return -1;
		*slash = '/';
	}
	return 0;
}

int
ft__ckpt_rankdir(const char *dir, uint64_t job, uint32_t rank, char *why,
    size_t whysize)
{
	char name[FT_CKPT_NAME_MAX];
	int dfd, rfd, saved;

	(void)ft_ckpt_name(name, sizeof(name), job, rank, 1);
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		saved = errno;
		snprintf(why, whysize, "checkpoint directory '%s': %s", dir,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	rfd = -1;
	if (make_parents(dfd, name) == 0) {
		*strrchr(name, '/') = '\0';
		rfd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	saved = errno;
	if (rfd < 0)
		snprintf(why, whysize, "checkpoint directory '%s/%s': %s",
		    dir, name, strerror(saved));
	close(dfd);
	errno = saved;
	return rfd;
}

struct zw {
	ZSTD_CCtx	*cc;
	int		 fd;
	uint8_t		*out;
	uint64_t	 stored;
	uint32_t	 crc;		/* of the stored bytes */
};

/* Compress len bytes at p (end: finish the frame), writing full buffers. */
static int
zw_push(struct zw *w, const void *p, size_t len, int end)
{
	ZSTD_inBuffer in = { p, len, 0 };
	ZSTD_outBuffer out;
	size_t left;

	do {
		out = (ZSTD_outBuffer){ w->out, IOBUF, 0 };
		left = ZSTD_compressStream2(w->cc, &out, &in,
		    end ? ZSTD_e_end : ZSTD_e_continue);
		if (ZSTD_isError(left)) {
			errno = ZSTD_getErrorCode(left) ==
			    ZSTD_error_memory_allocation ? ENOMEM : EIO;
			return -1;
		}
		if (out.pos > 0 && ft_store_write(w->fd, w->out, out.pos) != 0)
			return -1;
		w->stored += out.pos;
		w->crc = ft_crc32c(w->crc, w->out, out.pos);
	} while (end ? left != 0 : in.pos < in.size);
	return 0;
}

int
ft_ckpt_write(int dirfd, const char *name, struct ft_ckpt_hdr *h,
    const void *const *src, const void *pstate, char *why, size_t whysize)
{
	char tmp[FT_CKPT_NAME_MAX + 8];
	struct ft_wbuf hb;
	struct zw w;
	uint64_t raw;
	uint32_t i;
	size_t chunk;
	const uint8_t *p;
	uint64_t off;
	int saved, fd = -1;

	memset(&w, 0, sizeof(w));
	ft_wbuf_init(&hb);
	raw = h->pstate;
	for (i = 0; i < h->nregions; i++)
		raw += h->reg[i].size;
	if (h->nregions > FT_CKPT_REGIONS_MAX || !proto_ok(h->proto) ||
	    h->epoch == 0 || h->rank >= h->nranks ||
	    h->level > FT_CKPT_LEVEL_MAX || raw > FT_CKPT_RAW_MAX ||
	    ids_unique(h) != 1) {
		snprintf(why, whysize, "image '%s': bad arguments", name);
		errno = EINVAL;
		return -1;
	}
	h->raw = raw;
	h->created_ns = realtime_ns();
	h->hdrlen = hdr_len(h->nregions);
	if (make_parents(dirfd, name) != 0 ||
	    (fd = ft_store_tmp(dirfd, name, tmp, sizeof(tmp))) < 0) {
		saved = errno;
		snprintf(why, whysize, "image '%s': %s", name,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	w.fd = fd;
	if ((w.cc = ZSTD_createCCtx()) == NULL ||
	    (w.out = malloc(IOBUF)) == NULL) {
		errno = ENOMEM;
		goto fail;
	}
	if (ZSTD_isError(ZSTD_CCtx_setParameter(w.cc,
	    ZSTD_c_compressionLevel, h->level)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w.cc, ZSTD_c_checksumFlag,
	    1)) ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(w.cc,
	    ZSTD_c_contentSizeFlag, 1)) ||
	    ZSTD_isError(ZSTD_CCtx_setPledgedSrcSize(w.cc, raw))) {
		errno = EINVAL;
		goto fail;
	}
	/* Room for the header, written once the sizes are known. */
	if (lseek(fd, h->hdrlen, SEEK_SET) < 0)
		goto fail;
	for (i = 0; i <= h->nregions; i++) {
		p = i < h->nregions ? src[i] : pstate;
		raw = i < h->nregions ? h->reg[i].size : h->pstate;
		for (off = 0; off < raw; off += chunk) {
			chunk = raw - off > IOBUF ? IOBUF : (size_t)(raw - off);
			if (zw_push(&w, p + off, chunk, 0) != 0)
				goto fail;
		}
	}
	if (zw_push(&w, NULL, 0, 1) != 0)
		goto fail;
	h->stored = w.stored;
	h->stored_crc = w.crc;
	ft_ckpt_hdr_encode(&hb, h);
	if (hb.err != 0) {
		errno = hb.err;
		goto fail;
	}
	if (pwrite(fd, hb.p, hb.len, 0) != (ssize_t)hb.len) {
		if (errno == 0)
			errno = EIO;
		goto fail;
	}
	if (ft_store_commit(dirfd, fd, tmp, name) != 0) {
		saved = errno;
		snprintf(why, whysize, "image '%s': %s", name,
		    strerror(saved));
		close(fd);
		fd = -1;
		errno = saved;
		goto out;
	}
	close(fd);
	ZSTD_freeCCtx(w.cc);
	free(w.out);
	ft_wbuf_release(&hb);
	return 0;
fail:
	saved = errno;
	snprintf(why, whysize, "image '%s': %s", tmp, strerror(saved));
	(void)unlinkat(dirfd, tmp, 0);
	close(fd);
	errno = saved;
out:
	saved = errno;
	ZSTD_freeCCtx(w.cc);
	free(w.out);
	ft_wbuf_release(&hb);
	errno = saved;
	return -1;
}

/* The reader.  Over a file (fd >= 0) or over bytes in memory. */

static const char *
err_text(int err)
{
	switch (err) {
	case EMSGSIZE:
		return "truncated";
	case EPROTO:
		return "not a checkpoint image";
	case ENOTSUP:
		return "a version this build does not read";
	case EBADMSG:
		return "corrupt (bad checksum)";
	default:
		return strerror(err);
	}
}

static int
rfail(struct ft_ckpt_reader *r, int err, const char *fmt, ...)
	FT_PRINTF(3, 4);

static int
rfail(struct ft_ckpt_reader *r, int err, const char *fmt, ...)
{
	va_list ap;
	size_t off = 0;
	char what[128];

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	ft_appendf(r->why, sizeof(r->why), &off, "image '%s': %s", r->path,
	    what);
	errno = err;
	return -1;
}

/* Memory source of ft_ckpt_verify_mem: r->fd is -1. */
struct memsrc {
	const uint8_t	*p;
	size_t		 len, off;
};

static ssize_t
src_read(struct ft_ckpt_reader *r, struct memsrc *m, void *buf, size_t len)
{
	ssize_t n;

	if (m != NULL) {
		if (len > m->len - m->off)
			len = m->len - m->off;
		memcpy(buf, m->p + m->off, len);
		m->off += len;
		return (ssize_t)len;
	}
	do
		n = read(r->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Read exactly len bytes: 0, or -1 (EMSGSIZE at the end of the file). */
static int
src_full(struct ft_ckpt_reader *r, struct memsrc *m, void *buf, size_t len)
{
	uint8_t *q = buf;
	ssize_t n;

	while (len > 0) {
		if ((n = src_read(r, m, q, len)) < 0)
			return -1;
		if (n == 0) {
			errno = EMSGSIZE;
			return -1;
		}
		q += n;
		len -= (size_t)n;
	}
	return 0;
}

static int
reader_open(struct ft_ckpt_reader *r, int fd, struct memsrc *m,
    const char *path)
{
	uint8_t *hb;
	size_t got, need;
	uint64_t size;
	struct stat st;
	int rc, err;

	memset(r, 0, sizeof(*r));
	r->fd = fd;
	snprintf(r->path, sizeof(r->path), "%s", path);
	if (m != NULL)
		size = m->len;
	else if (fstat(fd, &st) != 0)
		return rfail(r, errno, "%s", strerror(errno));
	else
		size = (uint64_t)st.st_size;
	if ((r->h = calloc(1, sizeof(*r->h))) == NULL ||
	    (hb = malloc(FT_CKPT_HDR_MAX)) == NULL)
		return rfail(r, ENOMEM, "out of memory");
	got = size < FT_CKPT_FIXED ? (size_t)size : FT_CKPT_FIXED;
	if ((rc = src_full(r, m, hb, got)) == 0) {
		rc = ft_ckpt_hdr_decode(hb, got, r->h, &need);
		if (rc != 0 && errno == EMSGSIZE && got == FT_CKPT_FIXED &&
		    need <= size && need > got) {
			if ((rc = src_full(r, m, hb + got, need - got)) == 0)
				rc = ft_ckpt_hdr_decode(hb, need, r->h, &need);
		}
	}
	err = errno;
	free(hb);
	if (rc != 0)
		return rfail(r, err, "%s", err_text(err));
	if (size < r->h->hdrlen + r->h->stored)
		return rfail(r, EMSGSIZE, "truncated: %" PRIu64 " bytes of %"
		    PRIu64, size, r->h->hdrlen + r->h->stored);
	if (size > r->h->hdrlen + r->h->stored)
		return rfail(r, EPROTO, "%" PRIu64 " bytes after the image",
		    size - r->h->hdrlen - r->h->stored);
	r->inleft = r->h->stored;
	if ((r->zd = ZSTD_createDCtx()) == NULL ||
	    (r->in = malloc(IOBUF)) == NULL)
		return rfail(r, ENOMEM, "out of memory");
	/* A frame larger than the window this build accepts is refused. */
	(void)ZSTD_DCtx_setParameter(r->zd, ZSTD_d_windowLogMax, 27);
	return 0;
}

int
ft_ckpt_open(struct ft_ckpt_reader *r, int fd, const char *path)
{
	return reader_open(r, fd, NULL, path);
}

static int
reader_read(struct ft_ckpt_reader *r, struct memsrc *m, void *buf,
    uint64_t len)
{
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	uint8_t scratch[4096], *dst = buf;
	size_t rc, want;
	ssize_t n;

	if (len > r->h->raw - r->out)
		return rfail(r, EINVAL, "a read past the image's %" PRIu64
		    " bytes", r->h->raw);
	while (len > 0) {
		if (r->ended)
			return rfail(r, EBADMSG, "corrupt: the data ends at "
			    "%" PRIu64 " bytes of %" PRIu64, r->out,
			    r->h->raw);
		if (r->inpos == r->inlen && r->inleft > 0) {
			want = r->inleft > IOBUF ? IOBUF : (size_t)r->inleft;
			if ((n = src_read(r, m, r->in, want)) < 0)
				return rfail(r, errno, "%s", strerror(errno));
			if (n == 0)
				return rfail(r, EMSGSIZE, "truncated");
			r->inlen = (size_t)n;
			r->inpos = 0;
			r->inleft -= (uint64_t)n;
			r->crc = ft_crc32c(r->crc, r->in, r->inlen);
			if (r->inleft == 0 && r->crc != r->h->stored_crc)
				return rfail(r, EBADMSG, "corrupt (bad "
				    "checksum of the stored bytes)");
		}
		want = len > sizeof(scratch) && dst == NULL ? sizeof(scratch) :
		    len > SIZE_MAX ? SIZE_MAX : (size_t)len;
		in = (ZSTD_inBuffer){ r->in, r->inlen, r->inpos };
		out = (ZSTD_outBuffer){ dst != NULL ? dst : scratch, want, 0 };
		rc = ZSTD_decompressStream(r->zd, &out, &in);
		r->inpos = in.pos;
		if (ZSTD_isError(rc))
			return rfail(r, ZSTD_getErrorCode(rc) ==
			    ZSTD_error_memory_allocation ? ENOMEM : EBADMSG,
			    "corrupt at %" PRIu64 " bytes: %s", r->out,
			    ZSTD_getErrorName(rc));
		if (rc == 0)
			r->ended = 1;
		if (out.pos == 0 && r->inpos == r->inlen && r->inleft == 0 &&
		    !r->ended)
			return rfail(r, EBADMSG, "corrupt: the data stops at "
			    "%" PRIu64 " bytes of %" PRIu64, r->out,
			    r->h->raw);
		r->out += out.pos;
		len -= out.pos;
		if (dst != NULL)
			dst += out.pos;
	}
	return 0;
}

int
ft_ckpt_read(struct ft_ckpt_reader *r, void *buf, uint64_t len)
{
	return reader_read(r, NULL, buf, len);
}

static int
reader_done(struct ft_ckpt_reader *r, struct memsrc *m)
{
	ZSTD_inBuffer in;
	ZSTD_outBuffer out;
	uint8_t extra;
	size_t rc;

	if (reader_read(r, m, NULL, r->h->raw - r->out) != 0)
		return -1;
	/* The frame must end here: its checksum is read and checked. */
	while (!r->ended) {
		if (r->inpos == r->inlen && r->inleft > 0) {
			ssize_t n = src_read(r, m, r->in, r->inleft > IOBUF ?
			    IOBUF : (size_t)r->inleft);

			if (n <= 0)
				return rfail(r, n < 0 ? errno : EMSGSIZE, "%s",
				    n < 0 ? strerror(errno) : "truncated");
			r->inlen = (size_t)n;
			r->inpos = 0;
			r->inleft -= (uint64_t)n;
			r->crc = ft_crc32c(r->crc, r->in, r->inlen);
			if (r->inleft == 0 && r->crc != r->h->stored_crc)
				return rfail(r, EBADMSG, "corrupt (bad "
				    "checksum of the stored bytes)");
		}
		in = (ZSTD_inBuffer){ r->in, r->inlen, r->inpos };
		out = (ZSTD_outBuffer){ &extra, 1, 0 };
		rc = ZSTD_decompressStream(r->zd, &out, &in);
		r->inpos = in.pos;
		if (ZSTD_isError(rc))
			return rfail(r, EBADMSG, "corrupt at the end: %s",
			    ZSTD_getErrorName(rc));
		if (out.pos > 0)
			return rfail(r, EBADMSG, "corrupt: more data than "
			    "the %" PRIu64 " bytes announced", r->h->raw);
		if (rc == 0)
			r->ended = 1;
		else if (r->inpos == r->inlen && r->inleft == 0)
			return rfail(r, EBADMSG, "corrupt: the data stops "
			    "before its checksum");
	}
	if (r->inpos != r->inlen || r->inleft != 0)
		return rfail(r, EBADMSG, "corrupt: bytes after the data");
	return 0;
}

int
ft_ckpt_done(struct ft_ckpt_reader *r)
{
	return reader_done(r, NULL);
}

void
ft_ckpt_close(struct ft_ckpt_reader *r)
{
	ZSTD_freeDCtx(r->zd);
	free(r->in);
	free(r->h);
	r->zd = NULL;
	r->in = NULL;
	r->h = NULL;
}

int
ft_ckpt_verify(int dirfd, const char *path, struct ft_ckpt_hdr *h,
    char *why, size_t whysize)
{
	struct ft_ckpt_reader r;
	int fd, rc, saved;

	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) < 0) {
		saved = errno;
		snprintf(why, whysize, "image '%s': %s", path,
		    strerror(saved));
		errno = saved;
		return -1;
	}
	rc = ft_ckpt_open(&r, fd, path);
	if (rc == 0)
		rc = ft_ckpt_done(&r);
	saved = errno;
	if (rc != 0)
		snprintf(why, whysize, "%s", r.why);
	else if (h != NULL)
		memcpy(h, r.h, sizeof(*h));
	ft_ckpt_close(&r);
	close(fd);
	errno = saved;
	return rc;
}

int
ft_ckpt_verify_mem(const uint8_t *p, size_t len, char *why, size_t whysize)
{
	struct ft_ckpt_reader r;
	struct memsrc m = { p, len, 0 };
	int rc, saved;

	rc = reader_open(&r, -1, &m, "(memory)");
	if (rc == 0)
		rc = reader_done(&r, &m);
	saved = errno;
	if (rc != 0)
		snprintf(why, whysize, "%s", r.why);
	ft_ckpt_close(&r);
	errno = saved;
	return rc;
}

/*
 * One-shot zstd for the records of ftrun --record (record.c): this file
 * stays the only one that includes zstd.h.
 */
int
ft__zstd_pack(struct ft_wbuf *out, void **ctx, const void *p, size_t len,
    int level)
{
	size_t bound = ZSTD_compressBound(len), n;
	ZSTD_CCtx *cc = *ctx;

	if (ft_wbuf_reserve(out, bound) != 0)
		return -1;
	/* One context for all: making one costs more than a small frame. */
	if (cc == NULL) {
		if ((cc = ZSTD_createCCtx()) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		(void)ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel,
		    level);
		(void)ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
		*ctx = cc;
	}
	n = ZSTD_compress2(cc, out->p + out->len, bound, p, len);
	if (ZSTD_isError(n)) {
		errno = EIO;
		return -1;
	}
	out->len += n;
	return 0;
}

void
ft__zstd_free(void *ctx)
{
	ZSTD_freeCCtx(ctx);
}

int
ft__zstd_unpack(const void *p, size_t len, void *dst, size_t dstlen)
{
	unsigned long long want = ZSTD_getFrameContentSize(p, len);
	size_t n;

	if (want == ZSTD_CONTENTSIZE_ERROR ||
	    want == ZSTD_CONTENTSIZE_UNKNOWN || want != dstlen) {
		errno = EBADMSG;
		return -1;
	}
	n = ZSTD_decompress(dst, dstlen, p, len);
	if (ZSTD_isError(n) || n != dstlen) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/* See store.h: rank 0's standard input of ftrun --record. */
int64_t
ft__zstd_cat(int in, int out, int *cut)
{
	ZSTD_DCtx *dc;
	ZSTD_inBuffer ib;
	ZSTD_outBuffer ob;
	uint8_t *ibuf, *obuf;
	size_t hint = 0, k;
	int64_t total = 0;
	ssize_t n, w;
	int saved = 0;

	*cut = 0;
	dc = ZSTD_createDCtx();
	ibuf = malloc(ZSTD_DStreamInSize());
	obuf = malloc(ZSTD_DStreamOutSize());
	if (dc == NULL || ibuf == NULL || obuf == NULL) {
		saved = ENOMEM;
		goto out;
	}
	for (;;) {
		n = read(in, ibuf, ZSTD_DStreamInSize());
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			goto out;
		}
		if (n == 0)
			break;
		ib = (ZSTD_inBuffer){ ibuf, (size_t)n, 0 };
		while (ib.pos < ib.size) {
			ob = (ZSTD_outBuffer){ obuf, ZSTD_DStreamOutSize(), 0 };
			hint = ZSTD_decompressStream(dc, &ob, &ib);
			if (ZSTD_isError(hint)) {
				saved = EBADMSG;
				goto out;
			}
			for (k = 0; k < ob.pos; k += (size_t)w) {
				w = write(out, obuf + k, ob.pos - k);
				if (w < 0 && errno == EINTR) {
					w = 0;
					continue;
				}
				if (w < 0) {
					saved = errno;
					goto out;
				}
			}
			total += (int64_t)ob.pos;
		}
	}
	/* Input ended inside a frame: what it gave is out, the rest lost. */
	*cut = hint != 0;
out:
	ZSTD_freeDCtx(dc);
	free(ibuf);
	free(obuf);
	if (saved != 0) {
		errno = saved;
		return -1;
	}
	return total;
}
