/* SPDX-License-Identifier: ISC */
/*
 * Records of ftrun --record (lib/store/record.c, ft-record(5)): the
 * writer and the reader round trip every kind of record (payloads raw,
 * compressed and incompressible); a file cut at every offset is either
 * refused (in its header) or read with its torn tail cut; every single
 * bit flipped is refused or cut, never read as other data; foreign,
 * future and malformed files are refused naming the offset; and the
 * comparison of sends names what differs first.
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

int
main(void)
{
	const char *dir = tmpdir();
	char cmd[600];

	test_roundtrip(dir);
	test_cut_and_flip(dir);
	test_malformed(dir);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		t_diag("unable to remove %s", dir);
	return t_done();
}
