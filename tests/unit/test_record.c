/* SPDX-License-Identifier: ISC */
/*
 * Records of ftrun --record (lib/store/record.c, ft-record(5)): the
 * writer and the reader round trip every kind of record (payloads raw,
 * compressed and incompressible); a file cut at every offset is either
 * refused (in its header) or read with its torn tail cut; every single
 * bit flipped is refused or cut, never read as other data; foreign,
 * future and malformed files are refused naming the offset; and the
 * comparison of sends names what differs first.  The streaming reader
 * (ft_rec_open) reads what the whole-file one does, cut or flipped
 * alike, leaving payloads in the file until ft_rec_payload reads one,
 * a payload larger than its window included.
 */
#include <sys/stat.h>

#include <bsd/string.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tap.h"
#include "store/store.h"

static char why[640];

static const char *
tmpdir(void)
{
	static char path[256];
	const char *t = getenv("TMPDIR");

	snprintf(path, sizeof(path), "%s/test_record.XXXXXX",
	    t != NULL ? t : "/tmp");
	if (mkdtemp(path) == NULL)
		abort();
	return path;
}

static uint8_t *
slurp(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *p;
	int fd;

	if ((fd = open(path, O_RDONLY)) == -1 || fstat(fd, &st) != 0)
		abort();
	if ((p = malloc((size_t)st.st_size + 1)) == NULL ||
	    read(fd, p, (size_t)st.st_size) != st.st_size)
		abort();
	close(fd);
	*len = (size_t)st.st_size;
	return p;
}

static uint8_t	 big[100000], noise[5000];

/* Write a small record of rank 1 of 3 into dir; return its path. */
static const char *
make(const char *dir, int ended)
{
	static char path[512];
	struct ft_rec_writer w;
	struct ft_rec_hdr h = { .rank = 1, .size = 3, .job = 0x2a };
	uint64_t v[3] = { 1, 2, 0xfffffffffffffffeULL };
	size_t i;

	strlcpy(h.proto, "vlog", sizeof(h.proto));
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i / 100);
	for (i = 0; i < sizeof(noise); i++)
		noise[i] = (uint8_t)(i * 2654435761u >> 13);
	if (ft_rec_writer_open(&w, dir, &h) != 0)
		abort();
	ft_rec_wmatch(&w, 5, 0, 0, 7, 0, 3);
	ft_rec_wdata(&w, 0, 0, "abc", 3);
	ft_rec_wmatch(&w, 5, 2, 2, -1, 0, sizeof(big));
	ft_rec_wmatch(&w, 5, 0, 0, 8, 1, sizeof(noise));
	ft_rec_wdata(&w, 0, 1, noise, sizeof(noise));
	ft_rec_wdata(&w, 2, 0, big, sizeof(big));
	ft_rec_wmatch(&w, 5, 1, 1, 9, 0, 0);
	ft_rec_wdata(&w, 1, 0, NULL, 0);
	ft_rec_wsend(&w, 5, 0, 7, "xyz", 3);
	ft_rec_wsend(&w, 5, 2, 8, big, sizeof(big));
	ft_rec_wnd(&w, 2, v);
	ft_rec_wfail(&w, 1);
	if (ft_rec_writer_close(&w, ended) != 0)
		abort();
	if (ft_rec_path(path, sizeof(path), dir, 1) != 0)
		abort();
	return path;
}

static void
test_roundtrip(const char *dir)
{
	struct ft_rec r;
	struct ft_rec_send s;
	const char *path = make(dir, 1);
	struct stat st;

	T_OK(ft_rec_load(&r, path, why, sizeof(why)) == 0, "a record loads");
	T_OK(r.h.rank == 1 && r.h.size == 3 && r.h.job == 0x2a &&
	    strcmp(r.h.proto, "vlog") == 0 && r.h.version == 1,
	    "its header");
	T_EQ_UINT(r.nm, 4, "four messages, in matching order");
	T_OK(r.m[0].tag == 7 && r.m[0].dlen == 3 &&
	    memcmp(r.m[0].data, "abc", 3) == 0, "a small payload, raw");
	T_OK(r.m[1].src == 2 && r.m[1].tag == -1 && r.m[1].len == sizeof(big)
	    && r.m[1].dlen == sizeof(big) &&
	    memcmp(r.m[1].data, big, sizeof(big)) == 0,
	    "a large payload, compressed, given to the match before it");
	T_OK(r.m[2].dlen == sizeof(noise) &&
	    memcmp(r.m[2].data, noise, sizeof(noise)) == 0,
	    "an incompressible payload");
	T_OK(r.m[3].has_data && r.m[3].dlen == 0, "an empty message");
	T_OK(r.ns == 2 && r.s[0].dst == 0 && r.s[0].len == 3 &&
	    r.s[1].n == 1 && r.s[1].nblk == 49 && r.s[1].bsize == 2048,
	    "two send digests, the blocks of the large one");
	T_OK(r.nnd == 1 && r.nd[0].kind == 2 && r.nd[0].v[0] == 1 &&
	    r.nd[0].v[2] == 0xfffffffffffffffeULL, "an outcome");
	T_OK(r.nfail == 1 && r.ended && r.torn == 0, "a failure, the end");
	T_OK(stat(path, &st) == 0 && st.st_size < (off_t)sizeof(big) / 4,
	    "payloads are compressed (%lld bytes on disk)",
	    (long long)st.st_size);
	ft_rec_digest(&s, 1, 5, 2, 8, big, sizeof(big));
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 0,
	    "the same send is alike");
	big[70000] ^= 1;
	ft_rec_digest(&s, 1, 5, 2, 8, big, sizeof(big));
	big[70000] ^= 1;
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 1 &&
	    strcmp(why, "the payload, first in bytes 69632-71679") == 0,
	    "a changed byte is found in its block: %s", why);
	ft_rec_digest(&s, 1, 5, 2, 8, big, sizeof(big) - 1);
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 1 &&
	    strstr(why, "the size") == why, "a changed size: %s", why);
	ft_rec_digest(&s, 1, 5, 2, 9, big, sizeof(big));
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 1 &&
	    strstr(why, "the tag") == why, "a changed tag: %s", why);
	ft_rec_digest(&s, 1, 5, 1, 8, big, sizeof(big));
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 1 &&
	    strstr(why, "the destination") == why, "a changed destination");
	ft_rec_digest(&s, 1, 6, 2, 8, big, sizeof(big));
	T_OK(ft_rec_diff(&r.s[1], &s, why, sizeof(why)) == 1 &&
	    strstr(why, "the communicator") == why, "a changed context");
	ft_rec_free(&r);
	path = make(dir, 0);
	T_OK(ft_rec_load(&r, path, why, sizeof(why)) == 0 && !r.ended &&
	    r.nm == 4, "a record without its end loads, saying so");
	ft_rec_free(&r);
}

static void
test_cut_and_flip(const char *dir)
{
	struct ft_rec r;
	const char *path = make(dir, 1);
	uint8_t *p;
	size_t len, off, bad = 0, badflip = 0, flips = 0;
	int bit, rc;

	p = slurp(path, &len);
	for (off = 0; off < len; off++) {
		rc = ft_rec_load_mem(&r, p, off, "t.ftr", why, sizeof(why));
		if (off < FT_REC_HDRLEN ? rc != -1 || (errno != EMSGSIZE &&
		    errno != EPROTO) : rc != 0 || r.ended || (off > FT_REC_HDRLEN
		    && r.torn == 0 && r.nm + r.ns == 0))
			bad++;
		if (rc == 0)
			ft_rec_free(&r);
	}
	T_EQ_UINT(bad, 0, "cut at every offset: the header refused, a torn "
	    "tail cut");
	/* Every bit of the header and of the first records. */
	for (off = 0; off < len && off < 400; off++)
		for (bit = 0; bit < 8; bit++) {
			p[off] ^= (uint8_t)(1 << bit);
			rc = ft_rec_load_mem(&r, p, len, "t.ftr", why,
			    sizeof(why));
			flips++;
			if (rc == 0 && r.torn == 0)
				badflip++;
			if (rc == 0)
				ft_rec_free(&r);
			else if (errno != EPROTO && errno != EBADMSG &&
			    errno != ENOTSUP && errno != EMSGSIZE)
				badflip++;
			p[off] ^= (uint8_t)(1 << bit);
		}
	T_EQ_UINT(badflip, 0, "each of the bit flips is refused, or cuts the "
	    "file short as torn");
	t_diag("%zu flips", flips);
	p[FT_REC_HDRLEN + 12] ^= 0x10;
	T_FAILS(ft_rec_load_mem(&r, p, len, "t.ftr", why, sizeof(why)),
	    EBADMSG, "a corrupt record is refused");
	T_OK(strcmp(why, "record 't.ftr': corrupt record (bad checksum) at "
	    "offset 52") == 0, "naming the file and offset: %s", why);
	p[FT_REC_HDRLEN + 12] ^= 0x10;
	p[5] = 2;
	T_FAILS(ft_rec_load_mem(&r, p, len, "t.ftr", why, sizeof(why)),
	    ENOTSUP, "a later version is refused");
	p[0] = 'X';
	T_FAILS(ft_rec_load_mem(&r, p, len, "t.ftr", why, sizeof(why)),
	    EPROTO, "a foreign file is refused");
	T_OK(strstr(why, "bad magic") != NULL, "saying why: %s", why);
	free(p);
}

/* A record after the end, a payload never matched: refused. */
static void
test_malformed(const char *dir)
{
	struct ft_rec_writer w;
	struct ft_rec_hdr h = { .rank = 0, .size = 1 };
	struct ft_rec r;
	char path[512];

	ft_rec_path(path, sizeof(path), dir, 0);
	if (ft_rec_writer_open(&w, dir, &h) != 0)
		abort();
	ft_rec_wdata(&w, 0, 9, "q", 1);
	ft_rec_writer_close(&w, 0);
	T_FAILS(ft_rec_load(&r, path, why, sizeof(why)), EPROTO,
	    "a payload of a message never matched is refused");
	T_OK(strstr(why, "never matched at offset 52") != NULL, "%s", why);
	T_FAILS(ft_rec_load(&r, "/nonexistent/rank-0.ftr", why, sizeof(why)),
	    ENOENT, "a missing record");
	T_OK(strstr(why, "unable to open '/nonexistent/rank-0.ftr'") == why,
	    "names it: %s", why);
	/* A directory that cannot be made: under a regular file. */
	h.rank = 3;
	snprintf(path, sizeof(path), "%s/rank-0.ftr/sub", dir);
	T_FAILS(ft_rec_writer_open(&w, path, &h), ENOTDIR,
	    "the writer says when it cannot make its directory");
}

/* Write p[0..len) to path. */
static void
spill(const char *path, const uint8_t *p, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 || (len > 0 && write(fd, p, len) != (ssize_t)len))
		abort();
	close(fd);
}

/* Whether the streaming reader reads what the whole one reads. */
static int
same(const struct ft_rec *a, const struct ft_rec *b)
{
	static uint8_t buf[sizeof(big)];
	size_t i;

	if (a->nm != b->nm || a->ns != b->ns || a->nnd != b->nnd ||
	    a->nfail != b->nfail || a->ended != b->ended ||
	    a->torn != b->torn || a->bytes != b->bytes ||
	    memcmp(&a->h, &b->h, sizeof(a->h)) != 0 ||
	    (a->ns > 0 && memcmp(a->s, b->s, a->ns * sizeof(*a->s)) != 0))
		return 0;
	for (i = 0; i < a->nnd; i++)
		if (a->nd[i].kind != b->nd[i].kind ||
		    memcmp(a->nd[i].v, b->nd[i].v, sizeof(a->nd[i].v)) != 0)
			return 0;
	for (i = 0; i < a->nm; i++) {
		if (a->m[i].has_data != b->m[i].has_data ||
		    a->m[i].dlen != b->m[i].dlen || a->m[i].tag != b->m[i].tag ||
		    a->m[i].ctx != b->m[i].ctx || a->m[i].len != b->m[i].len ||
		    b->m[i].data != NULL)
			return 0;
		if (a->m[i].has_data && a->m[i].dlen > 0 &&
		    a->m[i].dlen <= sizeof(buf) &&
		    (ft_rec_payload(b, i, buf) != 0 ||
		    memcmp(buf, a->m[i].data, a->m[i].dlen) != 0))
			return 0;
	}
	return 1;
}

static void
test_stream(const char *dir)
{
	struct ft_rec a, b;
	const char *path = make(dir, 1);
	char cut[600];
	uint8_t *p, *huge;
	size_t len, off, bad = 0, n = 0, i, hlen = 3 * FT_REC_WINDOW + 7;
	int ra, rb, ea, eb;
	char whyb[640];
	struct ft_rec_writer w;
	struct ft_rec_hdr h = { .rank = 2, .size = 3 };
	uint64_t x;

	T_OK(ft_rec_load(&a, path, why, sizeof(why)) == 0 &&
	    ft_rec_open(&b, path, why, sizeof(why)) == 0, "both readers");
	T_OK(b.lazy && same(&a, &b), "read alike, the payloads left in the "
	    "file and read back when asked");
	T_FAILS(ft_rec_payload(&b, 4, cut), EINVAL, "a message past the "
	    "index");
	ft_rec_free(&a);
	ft_rec_free(&b);
	/* Cut at offsets and flipped bits: the same verdict, same words. */
	p = slurp(path, &len);
	snprintf(cut, sizeof(cut), "%s/cut.ftr", dir);
	for (off = 0; off <= len; off += off < 400 ? 1 : 97) {
		for (i = 0; i < (off < 400 ? 9 : 1); i++) {
			if (i > 0)
				p[off] ^= (uint8_t)(1 << (i - 1));
			spill(cut, p, off < 400 ? len : off);
			ra = ft_rec_load_mem(&a, p, off < 400 ? len : off, cut,
			    why, sizeof(why));
			ea = errno;
			rb = ft_rec_open(&b, cut, whyb, sizeof(whyb));
			eb = errno;
			n++;
			if (ra != rb || (ra != 0 && (ea != eb ||
			    strcmp(why, whyb) != 0)) || (ra == 0 &&
			    !same(&a, &b))) {
				if (bad++ == 0)
					t_diag("at %zu bit %zu: %d %s / %d %s",
					    off, i, ra, why, rb, whyb);
			}
			if (ra == 0)
				ft_rec_free(&a);
			if (rb == 0)
				ft_rec_free(&b);
			if (i > 0)
				p[off] ^= (uint8_t)(1 << (i - 1));
		}
	}
	t_diag("%zu files cut or flipped", n);
	T_EQ_UINT(bad, 0, "cut or flipped: the streaming reader says what "
	    "the whole one says");
	free(p);
	/* A payload three windows long, compressed, and one raw. */
	if ((huge = malloc(hlen)) == NULL)
		abort();
	for (i = 0; i < hlen; i++)
		huge[i] = (uint8_t)(i / 1000);
	if (ft_rec_writer_open(&w, dir, &h) != 0)
		abort();
	ft_rec_wmatch(&w, 0, 0, 0, 1, 0, hlen);
	ft_rec_wdata(&w, 0, 0, huge, hlen);
	for (i = 0, x = 1; i < hlen; i++) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		huge[i] = (uint8_t)(x >> 56);
	}
	ft_rec_wmatch(&w, 0, 1, 1, 1, 0, hlen);
	ft_rec_wdata(&w, 1, 0, huge, hlen);
	if (ft_rec_writer_close(&w, 1) != 0)
		abort();
	ft_rec_path(cut, sizeof(cut), dir, 2);
	why[0] = '\0';
	T_OK(ft_rec_open(&b, cut, why, sizeof(why)) == 0 && b.nm == 2 &&
	    b.m[1].dlen == hlen && !b.m[1].z, "payloads past the window%s",
	    why);
	p = calloc(1, hlen);
	T_OK(p != NULL && ft_rec_payload(&b, 1, p) == 0 &&
	    memcmp(p, huge, hlen) == 0, "the raw one read back");
	for (i = 0; i < hlen; i++)
		huge[i] = (uint8_t)(i / 1000);
	T_OK(b.m[0].z && ft_rec_payload(&b, 0, p) == 0 &&
	    memcmp(p, huge, hlen) == 0, "the compressed one decompressed");
	ft_rec_free(&b);
	free(p);
	/* A byte of the raw payload flipped in its last window. */
	p = slurp(cut, &len);
	p[len - 40] ^= 0x40;
	spill(cut, p, len);
	T_FAILS(ft_rec_open(&b, cut, why, sizeof(why)), EBADMSG,
	    "a flip past the first window is found");
	T_OK(strstr(why, "corrupt record (bad checksum) at offset") != NULL,
	    "%s", why);
	free(p);
	free(huge);
}

int
main(void)
{
	const char *dir = tmpdir();
	char cmd[600];

	test_roundtrip(dir);
	test_cut_and_flip(dir);
	test_malformed(dir);
	test_stream(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		t_diag("unable to remove %s", dir);
	return t_done();
}
