/* SPDX-License-Identifier: ISC */
/*
 * Checkpoint images (lib/store/image.c): the round trip of regions and
 * protocol state through a file, the header codec, and the reader's
 * refusals: every truncation, every flipped bit, a foreign file and a
 * future version, each with a message naming the file.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>

#include "tap.h"
#include "store/store.h"

static char *
tmpdir(void)
{
	static char path[PATH_MAX];
	const char *t = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_ckpt.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL) {
		perror("mkdtemp");
		exit(1);
	}
	return path;
}

static uint8_t *
slurp(int dirfd, const char *name, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd;

	if ((fd = openat(dirfd, name, O_RDONLY)) < 0 || fstat(fd, &st) != 0)
		return NULL;
	p = malloc((size_t)st.st_size + 1);
	if (p != NULL && read(fd, p, (size_t)st.st_size) != st.st_size) {
		free(p);
		p = NULL;
	}
	*len = (size_t)st.st_size;
	close(fd);
	return p;
}

static void
put_file(int dirfd, const char *name, const uint8_t *p, size_t len)
{
	int fd;

	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, p, len) != (ssize_t)len)
		perror(name);
	close(fd);
}

/* A header, for the codec tests. */
static struct ft_ckpt_hdr *
new_hdr(uint32_t nregions, uint64_t size)
{
	struct ft_ckpt_hdr *h = calloc(1, sizeof(*h));
	uint32_t i;

	h->job = 0x1234;
	h->rank = 2;
	h->nranks = 4;
	h->epoch = 7;
	snprintf(h->proto, sizeof(h->proto), "none");
	h->level = 3;
	h->nregions = nregions;
	for (i = 0; i < nregions; i++) {
		h->reg[i].id = i * 10;
		h->reg[i].size = size;
	}
	return h;
}

static void
test_roundtrip(int dfd)
{
	struct ft_ckpt_hdr *h = new_hdr(3, 0), *g;
	struct ft_ckpt_reader r;
	static double grid[64 * 1024];
	static double back[64 * 1024];
	int counter = 41, counter2 = 0;
	char big[100], big2[100], state[] = "clocks and logs", state2[32];
	const void *src[3];
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX];
	int fd;
	size_t i;

	for (i = 0; i < FT_NELEM(grid); i++)
		grid[i] = (double)(i % 97) / 7.0;
	memset(big, 'x', sizeof(big));
	h->reg[0].size = sizeof(grid);
	h->reg[1].size = sizeof(counter);
	h->reg[2].size = sizeof(big);
	h->reg[2].id = 0xffffffffu;
	h->pstate = sizeof(state);
	src[0] = grid;
	src[1] = &counter;
	src[2] = big;
	T_EQ_INT(ft_ckpt_name(name, sizeof(name), h->job, h->rank, h->epoch),
	    0, "name of an image");
	T_EQ_STR(name, "job-0000000000001234/rank-2/00000000000000000007.ftc",
	    "the layout: job, rank, epoch");
	T_EQ_INT(ft_ckpt_write(dfd, name, h, src, state, why, sizeof(why)), 0,
	    "write an image with 3 regions and protocol state");
	T_EQ_UINT(h->raw, sizeof(grid) + sizeof(counter) + sizeof(big) +
	    sizeof(state), "raw size adds up");
	T_OK(h->stored < h->raw / 4, "a Jacobi-like grid compresses "
	    "(%ju of %ju)", (uintmax_t)h->stored, (uintmax_t)h->raw);
	T_OK(faccessat(dfd, "job-0000000000001234/rank-2/"
	    "00000000000000000007.ftc.tmp", F_OK, 0) != 0,
	    "no temporary file left");
	g = calloc(1, sizeof(*g));
	T_EQ_INT(ft_ckpt_verify(dfd, name, g, why, sizeof(why)), 0,
	    "the image verifies");
	T_OK(g->job == 0x1234 && g->rank == 2 && g->nranks == 4 &&
	    g->epoch == 7 && strcmp(g->proto, "none") == 0 &&
	    g->nregions == 3 && g->reg[2].id == 0xffffffffu &&
	    g->reg[0].size == sizeof(grid) && g->pstate == sizeof(state),
	    "its header reads back");
	fd = openat(dfd, name, O_RDONLY);
	T_EQ_INT(ft_ckpt_open(&r, fd, name), 0, "open for reading");
	T_OK(ft_ckpt_read(&r, back, sizeof(grid)) == 0 &&
	    ft_ckpt_read(&r, &counter2, sizeof(counter2)) == 0 &&
	    ft_ckpt_read(&r, big2, sizeof(big2)) == 0 &&
	    ft_ckpt_read(&r, state2, sizeof(state)) == 0 &&
	    ft_ckpt_done(&r) == 0, "read every region back");
	T_OK(memcmp(back, grid, sizeof(grid)) == 0 && counter2 == 41 &&
	    memcmp(big, big2, sizeof(big)) == 0 &&
	    strcmp(state, state2) == 0, "the same bytes");
	T_FAILS(ft_ckpt_read(&r, state2, 1), EINVAL, "no read past the end");
	ft_ckpt_close(&r);
	close(fd);
	free(g);
	free(h);
}

/* A small image in memory: most of its bytes are header. */
static uint8_t *
small_image(int dfd, size_t *len)
{
	struct ft_ckpt_hdr *h = new_hdr(2, 0);
	const void *src[2];
	uint8_t a[200];
	uint32_t b = 0xdeadbeef;
	char why[FT_LOG_WHY];
	uint8_t *p;
	size_t i;

	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 31);
	h->reg[0].size = sizeof(a);
	h->reg[1].size = sizeof(b);
	src[0] = a;
	src[1] = &b;
	if (ft_ckpt_write(dfd, "small.ftc", h, src, "", why, sizeof(why)) != 0)
		t_diag("%s", why);
	p = slurp(dfd, "small.ftc", len);
	free(h);
	return p;
}

static void
test_truncations(int dfd)
{
	char why[FT_LOG_WHY];
	uint8_t *p;
	size_t len, n, bad = 0, named = 0;

	p = small_image(dfd, &len);
	T_OK(p != NULL && ft_ckpt_verify_mem(p, len, why, sizeof(why)) == 0,
	    "the small image verifies in memory");
	for (n = 0; n < len; n++) {
		put_file(dfd, "cut.ftc", p, n);
		if (ft_ckpt_verify(dfd, "cut.ftc", NULL, why,
		    sizeof(why)) != -1 || (n > 0 && errno != EMSGSIZE)) {
			if (bad++ < 3)
				t_diag("cut at %zu: errno %d: %s", n, errno,
				    why);
		}
		if (strstr(why, "'cut.ftc'") != NULL)
			named++;
		if (ft_ckpt_verify_mem(p, n, why, sizeof(why)) != -1)
			bad++;
	}
	T_EQ_UINT(bad, 0, "every truncation is refused as truncated");
	T_EQ_UINT(named, len, "and the message names the file");
	p = realloc(p, len + 1);
	p[len] = 0;
	put_file(dfd, "long.ftc", p, len + 1);
	T_FAILS(ft_ckpt_verify(dfd, "long.ftc", NULL, why, sizeof(why)),
	    EPROTO, "a byte after the image is refused");
	free(p);
}

static void
test_bitflips(int dfd)
{
	char why[FT_LOG_WHY];
	uint8_t *p;
	size_t len, i, bad = 0;
	int b;

	p = small_image(dfd, &len);
	for (i = 0; i < len; i++)
		for (b = 0; b < 8; b++) {
			p[i] ^= (uint8_t)(1u << b);
			if (ft_ckpt_verify_mem(p, len, why, sizeof(why)) !=
			    -1 || (errno != EBADMSG && errno != EPROTO &&
			    errno != ENOTSUP && errno != EMSGSIZE)) {
				if (bad++ < 3)
					t_diag("flip of bit %d of byte %zu "
					    "accepted", b, i);
			}
			p[i] ^= (uint8_t)(1u << b);
		}
	T_OK(bad == 0, "every one of the %zu bit flips is refused (%zu "
	    "accepted)", len * 8, bad);
	T_EQ_INT(ft_ckpt_verify_mem(p, len, why, sizeof(why)), 0,
	    "and the image is good again");
	free(p);
}

static void
test_foreign(int dfd)
{
	struct ft_ckpt_hdr *h;
	struct ft_wbuf b;
	char why[FT_LOG_WHY];
	uint8_t *p, seg[FT_SEG_HDRLEN];
	struct ft_seg_hdr sh = { FT_SEG_VERSION, 1, 2, 1, 3 };
	size_t len, need;
	uint32_t crc;

	put_file(dfd, "text.ftc", (const uint8_t *)"hello world, not an image "
	    "at all, but long enough to have a header's worth of bytes in it "
	    "......................................\n", 130);
	T_FAILS(ft_ckpt_verify(dfd, "text.ftc", NULL, why, sizeof(why)),
	    EPROTO, "a text file is refused as foreign");
	T_OK(strstr(why, "'text.ftc': not a checkpoint image") != NULL,
	    "with a message naming it: %s", why);
	ft_seg_hdr_encode(seg, &sh);
	put_file(dfd, "seg.ftc", seg, sizeof(seg));
	T_FAILS(ft_ckpt_verify(dfd, "seg.ftc", NULL, why, sizeof(why)),
	    EPROTO, "an event log segment is refused as foreign");
	put_file(dfd, "empty.ftc", seg, 0);
	T_FAILS(ft_ckpt_verify(dfd, "empty.ftc", NULL, why, sizeof(why)),
	    EMSGSIZE, "an empty file is refused as truncated");
	T_FAILS(ft_ckpt_verify(dfd, "none.ftc", NULL, why, sizeof(why)),
	    ENOENT, "a missing file: ENOENT");

	/* Version 2, its CRC made good: a future image. */
	p = small_image(dfd, &len);
	h = calloc(1, sizeof(*h));
	T_EQ_INT(ft_ckpt_hdr_decode(p, len, h, &need), 0, "decode the header");
	p[5] = 2;
	crc = ft_crc32c(0, p, h->hdrlen - 4);
	p[h->hdrlen - 4] = (uint8_t)(crc >> 24);
	p[h->hdrlen - 3] = (uint8_t)(crc >> 16);
	p[h->hdrlen - 2] = (uint8_t)(crc >> 8);
	p[h->hdrlen - 1] = (uint8_t)crc;
	put_file(dfd, "future.ftc", p, len);
	T_FAILS(ft_ckpt_verify(dfd, "future.ftc", NULL, why, sizeof(why)),
	    ENOTSUP, "a future version is refused");
	T_OK(strstr(why, "'future.ftc': a version this build does not "
	    "read") != NULL, "with a message naming it: %s", why);

	/* Header codec: canonical round trip, and refusals past the CRC. */
	ft_wbuf_init(&b);
	ft_ckpt_hdr_encode(&b, h);
	T_OK(b.len == h->hdrlen && memcmp(b.p, p, 4) == 0 &&
	    memcmp(b.p + 6, p + 6, b.len - 10) == 0,
	    "the header encodes back to the same bytes (but the version)");
	T_FAILS(ft_ckpt_hdr_decode(b.p, b.len - 1, h, &need), EMSGSIZE,
	    "a short header: EMSGSIZE");
	T_EQ_UINT(need, b.len, "need says how long the header is");
	h->reg[1].id = h->reg[0].id;
	ft_wbuf_reset(&b);
	ft_ckpt_hdr_encode(&b, h);
	T_FAILS(ft_ckpt_hdr_decode(b.p, b.len, h, &need), EPROTO,
	    "two regions with one id are refused");
	ft_wbuf_release(&b);
	free(h);
	free(p);
}

static void
test_bad_args(int dfd)
{
	struct ft_ckpt_hdr *h = new_hdr(2, 8);
	char why[FT_LOG_WHY];
	uint64_t x = 0;
	const void *src[2] = { &x, &x };

	h->reg[1].id = h->reg[0].id;
	T_FAILS(ft_ckpt_write(dfd, "dup.ftc", h, src, "", why, sizeof(why)),
	    EINVAL, "write refuses two regions with one id");
	T_OK(faccessat(dfd, "dup.ftc.tmp", F_OK, 0) != 0 &&
	    faccessat(dfd, "dup.ftc", F_OK, 0) != 0, "and leaves no file");
	h->reg[1].id = 1;
	snprintf(h->proto, sizeof(h->proto), "No Such");
	T_FAILS(ft_ckpt_write(dfd, "p.ftc", h, src, "", why, sizeof(why)),
	    EINVAL, "write refuses a malformed protocol name");
	free(h);
}

int
main(void)
{
	char *dir = tmpdir();
	int dfd = open(dir, O_RDONLY | O_DIRECTORY);

	test_roundtrip(dfd);
	test_truncations(dfd);
	test_bitflips(dfd);
	test_foreign(dfd);
	test_bad_args(dfd);
	close(dfd);
	return t_done();
}
