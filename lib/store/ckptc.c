/* SPDX-License-Identifier: ISC */
/*
 * The checkpoint server's client (ftckpt --server, and a rank's
 * background push): blocking, one request at a time, each wait bounded
 * by the client's timeout.  An upload is streamed from the image file
 * in chunks with at most a few in the socket's queue; a download is
 * written to a temporary file, verified whole, then committed.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

#define UP_QUEUE	(4u << 20)	/* upload bytes queued at most */

static int
cfail(struct ft_ckptc *k, int err, const char *fmt, ...) FT_PRINTF(3, 4);

static int
cfail(struct ft_ckptc *k, int err, const char *fmt, ...)
{
	va_list ap;
	size_t off;

	off = (size_t)snprintf(k->why, sizeof(k->why), "checkpoint server "
	    "%s: ", k->addr);
	if (off >= sizeof(k->why))
		off = sizeof(k->why) - 1;
	va_start(ap, fmt);
	vsnprintf(k->why + off, sizeof(k->why) - off, fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

static int
lost(struct ft_ckptc *k)
{
	int err = errno;

	switch (err) {
	case EACCES:
		return cfail(k, err, "authentication failed (a different "
		    "key?)");
	case ETIMEDOUT:
		return cfail(k, err, "no answer in time");
	case ECONNRESET:
		return cfail(k, err, "the connection was closed");
	case EPROTO:
		return cfail(k, err, "a malformed or unexpected answer");
	default:
		return cfail(k, err, "%s", strerror(err));
	}
}

static uint64_t
deadline(const struct ft_ckptc *k)
{
	return ft_now_ns() + k->timeout_ns;
}

int
ft_ckptc_open(struct ft_ckptc *k, const char *addr, const uint8_t *key,
    uint64_t timeout_ns)
{
	struct ft_hdr h;
	const uint8_t *body;
	uint64_t end;
	int fd;

	memset(k, 0, sizeof(*k));
	k->c.fd = -1;
	k->timeout_ns = timeout_ns;
	snprintf(k->addr, sizeof(k->addr), "%s", addr);
	end = deadline(k);
	while ((fd = ft_net_connect(addr)) == -1) {
		if (errno != EAGAIN || ft_now_ns() >= end)
			return cfail(k, errno, "%s", strerror(errno));
		(void)poll(NULL, 0, 1);
	}
	if (ft_conn_connecting(&k->c, fd, key, (uint32_t)getpid(),
	    FT_ROLE_CKPT) != 0) {
		close(fd);
		k->c.fd = -1;
		return cfail(k, errno, "%s", strerror(errno));
	}
	k->open = 1;
	if (ft_conn_await(&k->c, 0, 0, &h, &body, end) < 0) {
		lost(k);
		ft_ckptc_close(k);
		return -1;
	}
	return 0;
}

void
ft_ckptc_close(struct ft_ckptc *k)
{
	if (k->open)
		ft_conn_release(&k->c);
	k->open = 0;
}

static int
send_buf(struct ft_ckptc *k, struct ft_wbuf *b)
{
	int rc;

	if (b->err != 0) {
		errno = b->err;
		return cfail(k, errno, "%s", strerror(errno));
	}
	rc = ft_conn_queue_copy(&k->c, b->p, b->len);
	ft_wbuf_reset(b);
	return rc != 0 ? lost(k) : 0;
}

static int
send_req(struct ft_ckptc *k, const struct ft_msg_ckpt_req *q)
{
	struct ft_wbuf b;
	int rc;

	ft_wbuf_init(&b);
	if (ft_msg_ckpt_req_encode(&b, (uint32_t)getpid(), q) != 0) {
		ft_wbuf_release(&b);
		return cfail(k, errno, "a bad request");
	}
	rc = send_buf(k, &b);
	ft_wbuf_release(&b);
	return rc;
}

static int
result_errno(uint32_t code)
{
	switch (code) {
	case FT_CKPT_ENOENT:
		return ENOENT;
	case FT_CKPT_ECORRUPT:
		return EBADMSG;
	case FT_CKPT_ENOSPC:
		return ENOSPC;
	case FT_CKPT_EINVAL:
		return EINVAL;
	case FT_CKPT_ENOMEM:
		return ENOMEM;
	default:
		return EIO;
	}
}

/* A RESULT frame's body: 0 if it says so, else -1 with its text. */
static int
on_result(struct ft_ckptc *k, const uint8_t *body, size_t len,
    uint32_t reqid)
{
	struct ft_msg_ckpt_result m;
	char vis[FT_WIRE_TEXT_MAX];

	if (ft_msg_ckpt_result_decode(body, len, &m) != 0 ||
	    m.reqid != reqid) {
		errno = EPROTO;
		return lost(k);
	}
	if (m.code == 0)
		return 0;
	ft_vis(vis, sizeof(vis), m.text);
	return cfail(k, result_errno(m.code), "%s", vis);
}

static int
await_result(struct ft_ckptc *k, uint32_t reqid)
{
	struct ft_hdr h;
	const uint8_t *body;

	if (ft_conn_await(&k->c, FT_MSG_CKPT_RESULT, 0, &h, &body,
	    deadline(k)) < 0)
		return lost(k);
	return on_result(k, body, h.len - FT_WIRE_HDRLEN, reqid);
}

int
ft_ckptc_put(struct ft_ckptc *k, int fd, uint64_t job, uint32_t rank,
    uint64_t epoch)
{
	struct ft_msg_ckpt_put m;
	struct ft_msg_ckpt_data dm;
	struct ft_wbuf b;
	struct stat st;
	uint8_t *chunk;
	uint64_t left;
	size_t want;
	ssize_t n;
	int rc = -1;

	if (fstat(fd, &st) != 0)
		return cfail(k, errno, "%s", strerror(errno));
	if ((chunk = malloc(FT_CKPT_CHUNK)) == NULL)
		return cfail(k, ENOMEM, "out of memory");
	ft_wbuf_init(&b);
	m.reqid = ++k->reqid;
	m.job = job;
	m.rank = rank;
	m.epoch = epoch;
	m.size = (uint64_t)st.st_size;
	if (ft_msg_ckpt_put_encode(&b, (uint32_t)getpid(), &m) != 0) {
		cfail(k, errno, "a bad image (%" PRIu64 " bytes)", m.size);
		goto out;
	}
	if (send_buf(k, &b) != 0)
		goto out;
	for (left = m.size; left > 0; left -= (uint64_t)n) {
		want = left > FT_CKPT_CHUNK ? FT_CKPT_CHUNK : (size_t)left;
		if (k->cut_after != 0 && m.size - left + want > k->cut_after)
			want = (size_t)(k->cut_after - (m.size - left));
		n = pread(fd, chunk, want, (off_t)(m.size - left));
		if (n <= 0) {
			/* The server sees the connection end and drops it. */
			cfail(k, n < 0 ? errno : EIO, "reading the image: %s",
			    n < 0 ? strerror(errno) : "it shrank");
			goto out;
		}
		dm.reqid = m.reqid;
		dm.data = chunk;
		dm.len = (size_t)n;
		if (ft_msg_ckpt_data_encode(&b, (uint32_t)getpid(), &dm) != 0 ||
		    send_buf(k, &b) != 0)
			goto out;
		while (k->c.oq_bytes > (k->cut_after != 0 &&
		    m.size - left + (uint64_t)n >= k->cut_after ? 0 :
		    UP_QUEUE))
			if (ft_conn_wait(&k->c, deadline(k)) != 0 ||
			    ft_conn_flush(&k->c) != 0 ||
			    ft_conn_fill(&k->c) < 0) {
				lost(k);
				goto out;
			}
		/* A test's upload cut short, what was sent on the wire. */
		if (k->cut_after != 0 && m.size - left + (uint64_t)n >=
		    k->cut_after) {
			cfail(k, ECANCELED, "upload cut after %" PRIu64 " of %"
			    PRIu64 " bytes (a test)", m.size - left +
			    (uint64_t)n, m.size);
			goto out;
		}
	}
	rc = await_result(k, m.reqid);
out:
	free(chunk);
	ft_wbuf_release(&b);
	return rc;
}

int
ft_ckptc_get(struct ft_ckptc *k, uint64_t job, uint32_t rank, uint64_t epoch,
    int dirfd, const char *name, uint64_t *got)
{
	struct ft_msg_ckpt_req q;
	struct ft_msg_ckpt_put m;
	struct ft_msg_ckpt_data dm;
	struct ft_ckpt_hdr *h = NULL;
	struct ft_hdr fh;
	const uint8_t *body;
	char tmp[PATH_MAX], why[FT_LOG_WHY];
	uint64_t left;
	int fd = -1, err;

	memset(&q, 0, sizeof(q));
	q.reqid = ++k->reqid;
	q.op = FT_CKPT_GET;
	q.job = job;
	q.rank = rank;
	q.epoch = epoch;
	if (send_req(k, &q) != 0)
		return -1;
	if (ft_conn_await(&k->c, FT_MSG_CKPT_PUT, FT_MSG_CKPT_RESULT, &fh,
	    &body, deadline(k)) < 0)
		return lost(k);
	if (fh.type == FT_MSG_CKPT_RESULT) {
		if (on_result(k, body, fh.len - FT_WIRE_HDRLEN, q.reqid) == 0)
			return cfail(k, EPROTO, "no image and no error");
		return -1;
	}
	if (ft_msg_ckpt_put_decode(body, fh.len - FT_WIRE_HDRLEN, &m) != 0 ||
	    m.reqid != q.reqid || m.job != job || m.rank != rank ||
	    (epoch != 0 && m.epoch != epoch)) {
		errno = EPROTO;
		return lost(k);
	}
	if ((fd = ft_store_tmp(dirfd, name, tmp, sizeof(tmp))) < 0)
		return cfail(k, errno, "'%s': %s", name, strerror(errno));
	for (left = m.size; left > 0; left -= dm.len) {
		if (ft_conn_await(&k->c, FT_MSG_CKPT_DATA, 0, &fh, &body,
		    deadline(k)) < 0) {
			lost(k);
			goto fail;
		}
		if (ft_msg_ckpt_data_decode(body, fh.len - FT_WIRE_HDRLEN,
		    &dm) != 0 || dm.reqid != q.reqid || dm.len > left) {
			errno = EPROTO;
			lost(k);
			goto fail;
		}
		if (ft_store_write(fd, dm.data, dm.len) != 0) {
			cfail(k, errno, "'%s': %s", tmp, strerror(errno));
			goto fail;
		}
	}
	/* Never give half an image, nor a wrong one: check it first. */
	if ((h = malloc(sizeof(*h))) == NULL) {
		cfail(k, ENOMEM, "out of memory");
		goto fail;
	}
	if (ft_ckpt_verify(dirfd, tmp, h, why, sizeof(why)) != 0) {
		cfail(k, errno, "the image it sent is refused: %s", why);
		goto fail;
	}
	if (h->job != job || h->rank != rank || h->epoch != m.epoch) {
		cfail(k, EPROTO, "it sent the image of another rank or epoch");
		goto fail;
	}
	free(h);
	if (ft_store_commit(dirfd, fd, tmp, name) != 0) {
		err = errno;
		close(fd);
		return cfail(k, err, "'%s': %s", name, strerror(err));
	}
	close(fd);
	if (got != NULL)
		*got = m.epoch;
	return 0;
fail:
	err = errno;
	free(h);
	(void)unlinkat(dirfd, tmp, 0);
	close(fd);
	errno = err;
	return -1;
}

int
ft_ckptc_request(struct ft_ckptc *k, const struct ft_msg_ckpt_req *req,
    struct ft_ckpt_ent **ents, size_t *n)
{
	struct ft_msg_ckpt_req q = *req;
	struct ft_msg_ckpt_entries m;
	struct ft_ckpt_ent *v = NULL, *nv;
	struct ft_hdr h;
	const uint8_t *body;
	size_t cap = 0, len;
	int last = 0, rc;

	if (ents != NULL) {
		*ents = NULL;
		*n = 0;
	}
	q.reqid = ++k->reqid;
	if (send_req(k, &q) != 0)
		return -1;
	if (q.op == FT_CKPT_RM || q.op == FT_CKPT_PIN || q.op == FT_CKPT_GC)
		return await_result(k, q.reqid);
	if ((m.e = calloc(FT_CKPT_ENTRIES_MAX, sizeof(*m.e))) == NULL)
		return cfail(k, ENOMEM, "out of memory");
	while (!last) {
		if (ft_conn_await(&k->c, FT_MSG_CKPT_ENTRIES,
		    FT_MSG_CKPT_RESULT, &h, &body, deadline(k)) < 0) {
			rc = lost(k);
			goto out;
		}
		len = h.len - FT_WIRE_HDRLEN;
		if (h.type == FT_MSG_CKPT_RESULT) {
			/* An error before any listing. */
			rc = on_result(k, body, len, q.reqid);
			if (rc == 0)
				rc = cfail(k, EPROTO, "no listing");
			goto out;
		}
		if (ft_msg_ckpt_entries_decode(body, len, &m,
		    FT_CKPT_ENTRIES_MAX) != 0 || m.reqid != q.reqid) {
			errno = EPROTO;
			rc = lost(k);
			goto out;
		}
		last = (m.flags & FT_CKPT_LAST) != 0;
		if (m.n > 0 && (nv = reallocarray(v, cap + m.n,
		    sizeof(*v))) == NULL) {
			rc = cfail(k, ENOMEM, "out of memory");
			goto out;
		} else if (m.n > 0)
			v = nv;
		memcpy(v + cap, m.e, m.n * sizeof(*v));
		cap += m.n;
	}
	rc = q.op == FT_CKPT_LIST ? 0 : await_result(k, q.reqid);
out:
	free(m.e);
	if (ents != NULL) {
		*ents = v;
		*n = cap;
	} else
		free(v);
	return rc;
}
