/* SPDX-License-Identifier: ISC */
/*
 * Staging: the files a job needs on a host (its program, --stage FILE
 * or URL), checked by SHA-256 and cached by hash under the agent's
 * state directory, then linked into the job's directory.  Internal to
 * lib/job: the submitter hashes (remote.c), the agent receives, fetches
 * and links (agent.c).  stage.c is the one file that includes curl.h.
 */
#ifndef FT_JOB_STAGE_H
#define FT_JOB_STAGE_H

#include <sodium.h>

#include <signal.h>

#include "job.h"

#define FT_STAGE_SIZE_MAX	(1ull << 30)	/* one staged file */
#define FT_STAGE_PATH_MAX	1024

/* SHA-256 and size of the file at path.  0, or -1 with errno. */
int	 ft__stage_hash(const char *path, uint8_t sha[32], uint64_t *size);

/*
 * The cache file of hash sha under dir (statedir/cache) in out.  Returns
 * 1 when it is there, 0 when not, -1 with ENAMETOOLONG.
 */
int	 ft__stage_cached(const char *dir, const uint8_t sha[32], char *out,
	    size_t outsize);

/* A file arriving in chunks, written to a temporary name in the cache. */
struct ft__stage_recv {
	int		 fd;
	char		 tmp[FT_STAGE_PATH_MAX];
	crypto_hash_sha256_state st;
	uint64_t	 got, size;
};

/*
 * Start receiving size bytes into dir.  0, or -1 with errno (EFBIG above
 * FT_STAGE_SIZE_MAX).  The data must come in order: ft__stage_recv_data
 * fails with EPROTO on a wrong offset or more than size bytes, or with
 * write(2)'s errno (ENOSPC).  ft__stage_recv_end checks the hash (EBADMSG
 * on a mismatch) and moves the file to its cache name, in out; abort
 * removes it.  After a failure, call abort.
 */
int	 ft__stage_recv_begin(struct ft__stage_recv *, const char *dir,
	    uint64_t size);
int	 ft__stage_recv_data(struct ft__stage_recv *, uint64_t offset,
	    const uint8_t *, size_t);
int	 ft__stage_recv_end(struct ft__stage_recv *, const char *dir,
	    const uint8_t sha[32], char *out, size_t outsize);
void	 ft__stage_recv_abort(struct ft__stage_recv *);

/*
 * Fetch url (http, https or file only) into the cache dir: at most
 * FT_STAGE_SIZE_MAX bytes, checked against pin when not NULL.  The hash
 * goes to sha and the cache path to out.  Returns 0, or -1 with a
 * reason in why (and errno: EBADMSG on a hash mismatch, EFBIG, ENOSPC,
 * EHOSTUNREACH for what libcurl could not get, ECANCELED once *cancel
 * is set, when cancel is not NULL).  Blocks.
 */
int	 ft__stage_fetch(const char *url, const char *dir, const uint8_t *pin,
	    uint8_t sha[32], char *out, size_t outsize, char *why,
	    size_t whysize, const volatile sig_atomic_t *cancel);

/*
 * Put the cache file src in dir under name: a hard link, or a copy when
 * they are on different file systems.  0, or -1 with errno.
 */
int	 ft__stage_link(const char *src, const char *dir, const char *name);

#endif
