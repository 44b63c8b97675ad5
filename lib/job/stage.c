/* SPDX-License-Identifier: ISC */
/*
 * Staging: hashing, the agent's cache by SHA-256, transfers in chunks,
 * URL fetches with libcurl (the one file that includes curl.h), and
 * linking cached files into a job's directory.
 */
#include <sys/stat.h>

#include <curl/curl.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "stage.h"

int
ft__stage_hash(const char *path, uint8_t sha[32], uint64_t *size)
{
	crypto_hash_sha256_state st;
	uint8_t buf[65536];
	struct stat sb;
	ssize_t n;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &sb) != 0)
		goto fail;
	if (!S_ISREG(sb.st_mode)) {
		errno = S_ISDIR(sb.st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	if ((uint64_t)sb.st_size > FT_STAGE_SIZE_MAX) {
		errno = EFBIG;
		goto fail;
	}
	crypto_hash_sha256_init(&st);
	*size = 0;
	while ((n = read(fd, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			goto fail;
		crypto_hash_sha256_update(&st, buf, (size_t)n);
		*size += (uint64_t)n;
	}
	crypto_hash_sha256_final(&st, sha);
	close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
ft__stage_cached(const char *dir, const uint8_t sha[32], char *out,
    size_t outsize)
{
	char hex[65];
	struct stat sb;

	ft_hex_encode(sha, 32, hex);
	if ((size_t)snprintf(out, outsize, "%s/%s", dir, hex) >= outsize) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return stat(out, &sb) == 0 && S_ISREG(sb.st_mode);
}

int
ft__stage_recv_begin(struct ft__stage_recv *r, const char *dir,
    uint64_t size)
{
	memset(r, 0, sizeof(*r));
	r->fd = -1;
	if (size > FT_STAGE_SIZE_MAX) {
		errno = EFBIG;
		return -1;
	}
	if ((size_t)snprintf(r->tmp, sizeof(r->tmp), "%s/tmp.XXXXXX", dir) >=
	    sizeof(r->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if ((r->fd = mkostemp(r->tmp, O_CLOEXEC)) == -1) {
		r->tmp[0] = '\0';
		return -1;
	}
	r->size = size;
	crypto_hash_sha256_init(&r->st);
	return 0;
}

static int
write_all(int fd, const uint8_t *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ft__stage_recv_data(struct ft__stage_recv *r, uint64_t offset,
    const uint8_t *p, size_t len)
{
	if (offset != r->got || len > r->size - r->got) {
		errno = EPROTO;
		return -1;
	}
	if (write_all(r->fd, p, len) != 0)
		return -1;
	crypto_hash_sha256_update(&r->st, p, len);
	r->got += len;
	return 0;
}

/* Make the finished temporary file the cache file of its hash. */
static int
commit_tmp(struct ft__stage_recv *r, const char *dir, const uint8_t sha[32],
    char *out, size_t outsize)
{
	if (fchmod(r->fd, 0500) != 0 || fsync(r->fd) != 0)
		return -1;
	if (ft__stage_cached(dir, sha, out, outsize) < 0)
		return -1;
	if (rename(r->tmp, out) != 0)
		return -1;
	r->tmp[0] = '\0';
	close(r->fd);
	r->fd = -1;
	return 0;
}

int
ft__stage_recv_end(struct ft__stage_recv *r, const char *dir,
    const uint8_t sha[32], char *out, size_t outsize)
{
	uint8_t got[32];

	if (r->got != r->size) {
		errno = EPROTO;
		return -1;
	}
	crypto_hash_sha256_final(&r->st, got);
	if (sodium_memcmp(got, sha, sizeof(got)) != 0) {
		errno = EBADMSG;
		return -1;
	}
	return commit_tmp(r, dir, sha, out, outsize);
}

void
ft__stage_recv_abort(struct ft__stage_recv *r)
{
	if (r->fd != -1)
		close(r->fd);
	r->fd = -1;
	if (r->tmp[0] != '\0')
		(void)unlink(r->tmp);
	r->tmp[0] = '\0';
}

struct fetch {
	struct ft__stage_recv	 r;
	int			 err;	/* errno of a failed write */
};

static size_t
on_data(char *p, size_t size, size_t n, void *arg)
{
	struct fetch *f = arg;
	size_t len = size * n;

	if (len > FT_STAGE_SIZE_MAX - f->r.got) {
		f->err = EFBIG;
		return 0;
	}
	/* The size is not known before the end: grow the bound. */
	f->r.size = f->r.got + len;
	if (ft__stage_recv_data(&f->r, f->r.got, (const uint8_t *)p,
	    len) != 0) {
		f->err = errno;
		return 0;
	}
	return len;
}

/* libcurl's progress callback: non-zero aborts the transfer. */
static int
on_progress(void *arg, curl_off_t dltotal, curl_off_t dlnow,
    curl_off_t ultotal, curl_off_t ulnow)
{
	const volatile sig_atomic_t *cancel = arg;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	return *cancel != 0;
}

int
ft__stage_fetch(const char *url, const char *dir, const uint8_t *pin,
    uint8_t sha[32], char *out, size_t outsize, char *why, size_t whysize,
    const volatile sig_atomic_t *cancel)
{
	static int inited;
	char cerr[CURL_ERROR_SIZE];
	struct fetch f;
	CURLcode rc;
	CURL *cu;
	long code = 0;

	if (!inited) {
		if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
			snprintf(why, whysize, "unable to start libcurl");
			errno = ENOMEM;
			return -1;
		}
		inited = 1;
	}
	memset(&f, 0, sizeof(f));
	if (ft__stage_recv_begin(&f.r, dir, 0) != 0) {
		snprintf(why, whysize, "unable to create a file in '%s': %s",
		    dir, strerror(errno));
		return -1;
	}
	if ((cu = curl_easy_init()) == NULL) {
		ft__stage_recv_abort(&f.r);
		snprintf(why, whysize, "unable to start libcurl");
		errno = ENOMEM;
		return -1;
	}
	cerr[0] = '\0';
	(void)curl_easy_setopt(cu, CURLOPT_URL, url);
	(void)curl_easy_setopt(cu, CURLOPT_PROTOCOLS_STR, "http,https,file");
	(void)curl_easy_setopt(cu, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
	(void)curl_easy_setopt(cu, CURLOPT_FOLLOWLOCATION, 1L);
	(void)curl_easy_setopt(cu, CURLOPT_MAXREDIRS, 5L);
	(void)curl_easy_setopt(cu, CURLOPT_FAILONERROR, 1L);
	(void)curl_easy_setopt(cu, CURLOPT_NOSIGNAL, 1L);
	(void)curl_easy_setopt(cu, CURLOPT_CONNECTTIMEOUT, 10L);
	/* A transfer that stalls is given up, however long it is. */
	(void)curl_easy_setopt(cu, CURLOPT_LOW_SPEED_LIMIT, 1L);
	(void)curl_easy_setopt(cu, CURLOPT_LOW_SPEED_TIME, 30L);
	(void)curl_easy_setopt(cu, CURLOPT_MAXFILESIZE_LARGE,
	    (curl_off_t)FT_STAGE_SIZE_MAX);
	(void)curl_easy_setopt(cu, CURLOPT_WRITEFUNCTION, on_data);
	(void)curl_easy_setopt(cu, CURLOPT_WRITEDATA, &f);
	(void)curl_easy_setopt(cu, CURLOPT_ERRORBUFFER, cerr);
	if (cancel != NULL) {
		(void)curl_easy_setopt(cu, CURLOPT_XFERINFOFUNCTION,
		    on_progress);
		(void)curl_easy_setopt(cu, CURLOPT_XFERINFODATA,
		    (void *)(uintptr_t)cancel);
		(void)curl_easy_setopt(cu, CURLOPT_NOPROGRESS, 0L);
	}
	rc = curl_easy_perform(cu);
	(void)curl_easy_getinfo(cu, CURLINFO_RESPONSE_CODE, &code);
	curl_easy_cleanup(cu);
	if (rc != CURLE_OK) {
		if (rc == CURLE_ABORTED_BY_CALLBACK) {
			errno = ECANCELED;
			snprintf(why, whysize, "cancelled");
		} else if (f.err != 0) {
			errno = f.err;
			snprintf(why, whysize, "%s", f.err == EFBIG ?
			    "larger than the limit of 1 GiB" : strerror(f.err));
		} else {
			errno = rc == CURLE_FILESIZE_EXCEEDED ? EFBIG :
			    EHOSTUNREACH;
			snprintf(why, whysize, "%s", cerr[0] != '\0' ? cerr :
			    curl_easy_strerror(rc));
		}
		ft__stage_recv_abort(&f.r);
		return -1;
	}
	crypto_hash_sha256_final(&f.r.st, sha);
	if (pin != NULL && sodium_memcmp(sha, pin, 32) != 0) {
		ft__stage_recv_abort(&f.r);
		snprintf(why, whysize, "its SHA-256 is not the one given");
		errno = EBADMSG;
		return -1;
	}
	if (commit_tmp(&f.r, dir, sha, out, outsize) != 0) {
		snprintf(why, whysize, "unable to keep it in '%s': %s", dir,
		    strerror(errno));
		ft__stage_recv_abort(&f.r);
		return -1;
	}
	return 0;
}

int
ft__stage_link(const char *src, const char *dir, const char *name)
{
	char dst[FT_STAGE_PATH_MAX];
	uint8_t buf[65536];
	int in, out, e;
	ssize_t n;

	if ((size_t)snprintf(dst, sizeof(dst), "%s/%s", dir, name) >=
	    sizeof(dst)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (link(src, dst) == 0)
		return 0;
	if (errno != EXDEV && errno != EPERM && errno != EMLINK)
		return -1;
	if ((in = open(src, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0500)) == -1) {
		e = errno;
		close(in);
		errno = e;
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(out, buf, (size_t)n) != 0)
			goto fail;
	}
	close(in);
	if (close(out) != 0) {
		(void)unlink(dst);
		return -1;
	}
	return 0;
fail:
	e = errno;
	close(in);
	close(out);
	(void)unlink(dst);
	errno = e;
	return -1;
}
