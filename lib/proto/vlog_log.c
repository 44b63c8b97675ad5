/* SPDX-License-Identifier: ISC */
/*
 * The "vlog" protocol's sender log, its storage (vlog.c is the
 * protocol): where the payloads of the messages we sent are kept (a
 * chunk of memory, the memfd, the spill file or the sender-log file),
 * read back from, freed when GC drops them, and their room used again.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vlog_impl.h"

#define CHUNK_BYTES	(64ull << 20)	/* the sender log's memory, a chunk */
#define MEMFD_MIN	(16u << 10)	/* from here on, in the memfd */
/*
 * With images, from here on in the sender-log file: a Jacobi's 4 KiB
 * rows copied into every image cost it 1.7x its time without images,
 * written once to the file 1.0x (512^2, 8 ranks, an image every 3 s);
 * smaller payloads stay in memory (a write each would cost latency).
 */
#define LOGFILE_MIN	(4u << 10)

/* Bytes of a spilled entry, read back into buf (len bytes). */
int
ft__vlog_spill_read(struct vlog *s, const struct lent *e, uint8_t *buf)
{
	size_t got = 0;
	ssize_t n;

	while (got < e->len) {
		n = pread(e->file == 1 ? s->mem_fd : e->file == 3 ?
		    s->log_fd : s->spill_fd, buf + got, e->len - got,
		    (off_t)(e->off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n == 0 ? EIO : errno;
			return -1;
		}
		got += (size_t)n;
	}
	return 0;
}

/*
 * len bytes of a file's room: the first free extent that holds them
 * (GC gave it back), else at the end (*end grows).
 */
static uint64_t
ext_take(struct extents *x, uint64_t *end, uint64_t len)
{
	uint64_t off;
	size_t i;

	for (i = 0; i < x->n; i++)
		if (x->v[i].len >= len) {
			off = x->v[i].off;
			x->v[i].off += len;
			if ((x->v[i].len -= len) == 0) {
				memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) *
				    sizeof(*x->v));
				x->n--;
			}
			return off;
		}
	off = *end;
	*end += len;
	return off;
}

/* Give [off, off + len) back; what touches the end shrinks it. */
static void
ext_give(struct extents *x, uint64_t *end, uint64_t off, uint64_t len)
{
	struct ext *nv;
	size_t i;

	if (len == 0)
		return;
	for (i = 0; i < x->n && x->v[i].off < off; i++)
		;
	if (i > 0 && x->v[i - 1].off + x->v[i - 1].len == off) {
		x->v[i - 1].len += len;
		if (i < x->n && off + len == x->v[i].off) {
			x->v[i - 1].len += x->v[i].len;
			memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) *
			    sizeof(*x->v));
			x->n--;
		}
		i--;
	} else if (i < x->n && off + len == x->v[i].off) {
		x->v[i].off = off;
		x->v[i].len += len;
	} else {
		if ((nv = ft_grow(x->v, &x->cap, x->n, sizeof(*nv))) == NULL)
			return;	/* the room is lost, not the data */
		x->v = nv;
		memmove(&x->v[i + 1], &x->v[i], (x->n - i) * sizeof(*x->v));
		x->v[i] = (struct ext){ off, len };
		x->n++;
	}
	if (x->v[i].off + x->v[i].len == *end) {
		*end = x->v[i].off;
		memmove(&x->v[i], &x->v[i + 1], (x->n - i - 1) * sizeof(*x->v));
		x->n--;
	}
}

static int
spill_write(struct vlog *s, const void *buf, size_t len, uint64_t *off,
    int file)
{
	char path[FT_WIRE_ADDR_MAX + 32];
	uint64_t at;
	int fd;

	if (file == 1) {
		/*
		 * Large messages in memory go to a memory file: one copy by
		 * write(2) into pages the kernel does not zero first, where
		 * a copy into fresh anonymous memory faults and zeroes every
		 * page before the copy (measured: twice the cost).
		 */
		if (s->mem_fd == -1 &&
		    (s->mem_fd = memfd_create("vlog-log", MFD_CLOEXEC)) == -1)
			return -1;
		/* Memory GC gave back is written again: no fresh pages. */
		at = ext_take(&s->memx, &s->mem_off, len);
		if (pwrite(s->mem_fd, buf, len, (off_t)at) != (ssize_t)len) {
			ext_give(&s->memx, &s->mem_off, at, len);
			return -1;
		}
		*off = at;
		return 0;
	}
	if (s->spill_fd == -1) {
		/* Unlinked at once: nothing is left behind, whatever ends
		 * the process. */
		snprintf(path, sizeof(path), "%s/vlog-spill-XXXXXX",
		    s->spill_dir != NULL ? s->spill_dir : "/tmp");
		if ((s->spill_fd = mkstemp(path)) == -1)
			return -1;
		(void)unlink(path);
	}
	fd = s->spill_fd;
	at = ext_take(&s->spillx, &s->spill_off, len);
	if (pwrite(fd, buf, len, (off_t)at) != (ssize_t)len) {
		ext_give(&s->spillx, &s->spill_off, at, len);
		return -1;
	}
	*off = at;
	return 0;
}

/*
 * A payload into the sender-log file (vlogbw): room GC gave back
 * first (its pages are in the page cache already), else at the end.
 */
static int
log_write(struct vlog *s, const uint8_t *buf, size_t len, uint64_t *off)
{
	uint64_t at = ext_take(&s->logx, &s->log_off, len);
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		n = pwrite(s->log_fd, buf + got, len - got, (off_t)(at + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			errno = n == 0 ? EIO : errno;
			ext_give(&s->logx, &s->log_off, at, len);
			return -1;
		}
		got += (size_t)n;
	}
	s->log_bytes += len;
	s->wr_off = at;
	s->wr_len = len;
	*off = at;
	return 0;
}

/* GC gave [off, off + len) of the sender-log file back: later free. */
static void
quar_add(struct vlog *s, uint64_t off, uint64_t len)
{
	struct qext *nq;

	if ((nq = ft_grow(s->quar, &s->capquar, s->nquar, sizeof(*nq))) ==
	    NULL)
		return;	/* the room is lost, not the data */
	s->quar = nq;
	s->quar[s->nquar++] = (struct qext){ off, len, s->img_epoch };
}

/* The image of epoch is durable: free what no kept image names. */
void
ft__vlog_quar_release(struct vlog *s, uint64_t epoch)
{
	size_t i, j;

	for (i = j = 0; i < s->nquar; i++)
		if (s->quar[i].epoch + 2 <= epoch)
			ext_give(&s->logx, &s->log_off, s->quar[i].off,
			    s->quar[i].len);
		else
			s->quar[j++] = s->quar[i];
	s->nquar = j;
}

/*
 * len bytes of the sender log's memory, or NULL (ENOMEM); *chp gets
 * their chunk.  A chunk GC emptied is filled again (its pages are
 * not fresh: no faults, no zeroing).
 */
static uint8_t *
log_mem(struct vlog *s, size_t len, struct chunk **chp)
{
	struct chunk *c = s->chunks, **pp;
	size_t size;
	void *p;

	if (c != NULL && c->live == 0)
		c->used = 0;
	if (c == NULL || c->size - c->used < len) {
		for (pp = &s->spare; (c = *pp) != NULL && c->size < len;
		    pp = &c->next)
			;
		if (c != NULL) {
			*pp = c->next;
			c->used = c->live = 0;
			c->next = s->chunks;
			s->chunks = c;
			goto take;
		}
		size = len > CHUNK_BYTES ? len : CHUNK_BYTES;
		if ((c = calloc(1, sizeof(*c))) == NULL)
			return NULL;
		p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		    MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED) {
			free(c);
			return NULL;
		}
		c->base = p;
		c->size = size;
		c->next = s->chunks;
		s->chunks = c;
	}
take:
	c->used += len;
	c->live += len;
	*chp = c;
	return c->base + c->used - len;
}

/* The payload of e goes: its room is free for the log again. */
void
ft__vlog_payload_free(struct vlog *s, struct lent *e)
{
	struct chunk **pp, *c;

	if (e->len == 0)
		return;
	s->bytes -= e->len;
	if (e->file == 0 || e->file == 1)
		s->mem -= e->len;
	if (e->file == 3) {
		s->log_live -= e->len;
		quar_add(s, e->off, e->len);
	} else if (e->file == 1)
		ext_give(&s->memx, &s->mem_off, e->off, e->len);
	else if (e->file == 2)
		ext_give(&s->spillx, &s->spill_off, e->off, e->len);
	else if ((c = e->ch) != NULL && (c->live -= e->len) == 0 &&
	    c != s->chunks) {
		/* Empty, and not the one being filled: spare. */
		for (pp = &s->chunks; *pp != NULL && *pp != c;
		    pp = &(*pp)->next)
			;
		if (*pp == c) {
			*pp = c->next;
			c->next = s->spare;
			s->spare = c;
		}
	}
	e->data = NULL;
	e->len = 0;
}

/*
 * Keep a copy of m, message m->seq to m->dst; with at, its payload is
 * in the sender-log file already, as at says (an image's extent).
 */
struct lent *
ft__vlog_log_add(struct vlog *s, const struct ft_msg *m, const struct lent *at)
{
	struct vpeer *vp = &s->peers[m->dst];
	struct lent *e, *ne;

	if (m->seq != vp->nlog) {
		errno = EPROTO;
		return NULL;
	}
	if ((ne = ft_grow(vp->log, &vp->caplog, vp->nlog - vp->lbase,
	    sizeof(*ne))) == NULL)
		return NULL;
	vp->log = ne;
	e = &vp->log[vp->nlog - vp->lbase];
	memset(e, 0, sizeof(*e));
	e->ctx = m->ctx;
	e->csrc = m->csrc;
	e->tag = m->tag;
	e->mode = m->mode;
	e->len = m->len;
	e->need = s->need;
	e->clock = m->clock;
	if (m->len > 0) {
		if (at != NULL) {
			e->file = 3;
			e->off = at->off;
			e->crc = at->crc;
		} else if (s->log_fd != -1 && m->len >= s->log_min &&
		    log_write(s, m->buf, m->len, &e->off) == 0) {
			/* Written once: images name it (vlogbw).  (A full
			 * disk: kept as without the file, images hold it.) */
			e->file = 3;
			e->crc = ft_crc32c(0, m->buf, m->len);
		} else if (s->mem + m->len > s->mem_max)
			e->file = 2;
		else if (m->len >= MEMFD_MIN)
			e->file = 1;
		if (e->file == 3)
			s->log_live += m->len;
		else if (e->file == 0) {
			if ((e->data = log_mem(s, m->len, &e->ch)) == NULL)
				return NULL;
			memcpy(e->data, m->buf, m->len);
		} else if (spill_write(s, m->buf, m->len, &e->off, e->file) !=
		    0)
			return NULL;
		if (e->file == 0 || e->file == 1)
			s->mem += m->len;
		if ((s->bytes += m->len) > s->peak)
			s->peak = s->bytes;
	}
	vp->nlog++;
	return e;
}

/*
 * Is the extent [off, off + len) of the sender-log file whole (CRC32C
 * crc)?  0, or -1 with EBADMSG (missing, short or damaged file).
 */
int
ft__vlog_extent_check(struct vlog *s, uint64_t off, uint64_t len, uint32_t crc,
    uint64_t fsize)
{
	uint8_t *buf;
	uint32_t c = 0;
	uint64_t got = 0;
	size_t want;
	ssize_t n;

	if (s->log_fd == -1 || off > fsize || len > fsize - off) {
		errno = EBADMSG;
		return -1;
	}
	if ((buf = malloc(len < (1u << 20) ? len : (1u << 20))) == NULL)
		return -1;
	while (got < len) {
		want = len - got < (1u << 20) ? (size_t)(len - got) :
		    (1u << 20);
		n = pread(s->log_fd, buf, want, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c = ft_crc32c(c, buf, (size_t)n);
		got += (uint64_t)n;
	}
	free(buf);
	if (got != len || c != crc) {
		errno = EBADMSG;
		return -1;
	}
	return 0;
}

/*
 * FT_EXT_VLOG_LOGFILE: payloads from here on go to a dup of the fd.
 * A file kept (not fresh) holds what an image to be restored names:
 * nothing of it is written over (new payloads go after its end).
 */
int
ft__vlog_logfile_set(struct vlog *s, struct ft_ext *x)
{
	struct stat st;
	int fd;

	if (s->log_fd != -1 || x->vlog_logfd < 0) {
		errno = s->log_fd != -1 ? EBUSY : EBADF;
		return -1;
	}
	if ((fd = fcntl(x->vlog_logfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	if ((x->vlog_logfresh ? ftruncate(fd, 0) : fstat(fd, &st)) != 0) {
		close(fd);
		return -1;
	}
	s->log_fd = fd;
	s->log_off = x->vlog_logfresh ? 0 : (uint64_t)st.st_size;
	s->log_min = x->vlog_logmin > 0 ? x->vlog_logmin : LOGFILE_MIN;
	return 0;
}
