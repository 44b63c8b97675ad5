/* SPDX-License-Identifier: ISC */
/*
 * A log read for checking: determinants from ftlog dump text or from a
 * log directory go to a scratch file of this process (unlinked at once),
 * one run of records a job and rank (a chunk); cursors read a rank's
 * records back, in bounded buffers, as often as a pass needs them.
 *
 * A scratch record (big-endian, private to this process): u8 kind,
 * u32 sender, u32 probes, u64 seq, clock, sclock, input line, then for
 * a kind other than a delivery u64 a, b, c.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "replay.h"

#define SREC_FIXED	41
#define SREC_MAX	(SREC_FIXED + 24)
#define WBUF_SIZE	(256u << 10)

struct ft_replay {
	int			 fd;
	uint8_t			*wbuf;
	size_t			 wlen;
	uint64_t		 size;		/* bytes written or buffered */
	struct ft__rchunk	*chunks;
	size_t			 nchunks, capchunks;
	int			 sorted;
	uint64_t		*jobs;
	size_t			 njobs, capjobs;
};

int
ft__replay_say(char *why, size_t whysize, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

struct ft_replay *
ft_replay_new(const char *tmpdir, char *why, size_t whysize)
{
	struct ft_replay *l;
	char path[PATH_MAX];
	int e;

	if ((l = calloc(1, sizeof(*l))) == NULL ||
	    (l->wbuf = malloc(WBUF_SIZE)) == NULL) {
		free(l);
		ft__replay_say(why, whysize, ENOMEM, "out of memory");
		return NULL;
	}
	if (snprintf(path, sizeof(path), "%s/ftreplay.XXXXXX", tmpdir) >=
	    (int)sizeof(path)) {
		free(l->wbuf);
		free(l);
		ft__replay_say(why, whysize, ENAMETOOLONG, "scratch directory '%s' has a "
		    "name too long", tmpdir);
		return NULL;
	}
	if ((l->fd = mkostemp(path, O_CLOEXEC)) < 0) {
		e = errno;
		free(l->wbuf);
		free(l);
		ft__replay_say(why, whysize, e, "scratch file in '%s': %s", tmpdir,
		    strerror(e));
		return NULL;
	}
	(void)unlink(path);
	l->sorted = 1;
	return l;
}

void
ft_replay_free(struct ft_replay *l)
{
	if (l == NULL)
		return;
	close(l->fd);
	free(l->wbuf);
	free(l->chunks);
	free(l->jobs);
	free(l);
}

static int
wflush(struct ft_replay *l, char *why, size_t whysize)
{
	uint64_t off = l->size - l->wlen;

	if (l->wlen == 0)
		return 0;
	if (pwrite(l->fd, l->wbuf, l->wlen, (off_t)off) != (ssize_t)l->wlen)
		return ft__replay_say(why, whysize, errno == 0 ? EIO : errno,
		    "writing the scratch file: %s", strerror(errno));
	l->wlen = 0;
	return 0;
}

int
ft_replay_add(struct ft_replay *l, const struct ft_rrec *r, char *why,
    size_t whysize)
{
	struct ft__rchunk *c, *nc;
	uint8_t *p;
	size_t n;
	int i;

	c = l->nchunks > 0 ? &l->chunks[l->nchunks - 1] : NULL;
	if (c == NULL || c->job != r->job || c->rank != r->rank) {
		if ((nc = ft_grow(l->chunks, &l->capchunks, l->nchunks,
		    sizeof(*nc))) == NULL)
			return ft__replay_say(why, whysize, ENOMEM, "out of memory");
		l->chunks = nc;
		if (c != NULL && (c->job > r->job || (c->job == r->job &&
		    c->rank > r->rank)))
			l->sorted = 0;
		c = &l->chunks[l->nchunks++];
		memset(c, 0, sizeof(*c));
		c->job = r->job;
		c->rank = r->rank;
		c->off = c->end = l->size;
		c->first_line = r->line;
	}
	n = r->d.kind == FT_DET_DELIVERY ? SREC_FIXED : SREC_MAX;
	if (l->wlen + n > WBUF_SIZE && wflush(l, why, whysize) != 0)
		return -1;
	p = l->wbuf + l->wlen;
	p[0] = (uint8_t)r->d.kind;
	ft_be32(p + 1, r->d.sender);
	ft_be32(p + 5, r->d.probes);
	ft_be64(p + 9, r->d.seq);
	ft_be64(p + 17, r->d.clock);
	ft_be64(p + 25, r->d.sclock);
	ft_be64(p + 33, r->line);
	if (n == SREC_MAX)
		for (i = 0; i < 3; i++)
			ft_be64(p + SREC_FIXED + 8 * i, r->d.v[i]);
	l->wlen += n;
	l->size += n;
	c->end = l->size;
	c->count++;
	return 0;
}

static int
cmp_chunk(const void *a, const void *b)
{
	const struct ft__rchunk *x = a, *y = b;

	if (x->job != y->job)
		return x->job < y->job ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* After a read: chunks in order, one a rank, the list of jobs. */
static int
finish(struct ft_replay *l, const char *name, char *why, size_t whysize)
{
	struct ft__rchunk *a, *b;
	uint64_t *nj;
	size_t i;

	if (wflush(l, why, whysize) != 0)
		return -1;
	if (!l->sorted)
		qsort(l->chunks, l->nchunks, sizeof(*l->chunks), cmp_chunk);
	l->sorted = 1;
	l->njobs = 0;
	for (i = 0; i < l->nchunks; i++) {
		a = &l->chunks[i];
		if (i > 0) {
			b = &l->chunks[i - 1];
			if (a->job == b->job && a->rank == b->rank)
				return ft__replay_say(why, whysize, EINVAL, "%s line %"
				    PRIu64 ": job %016" PRIx64 " rank %u "
				    "comes again after other records (give "
				    "each rank's records together, in seq "
				    "order, as ftlog dump prints them)", name,
				    a->first_line, a->job, a->rank);
			if (a->job == b->job)
				continue;
		}
		if ((nj = ft_grow(l->jobs, &l->capjobs, l->njobs,
		    sizeof(*nj))) == NULL)
			return ft__replay_say(why, whysize, ENOMEM, "out of memory");
		l->jobs = nj;
		l->jobs[l->njobs++] = a->job;
	}
	return 0;
}

int
ft_replay_read_stream(struct ft_replay *l, FILE *f, const char *name,
    char *why, size_t whysize)
{
	struct ft_rrec r;
	char line[FT_REPLAY_LINE_MAX + 1], msg[FT_REPLAY_WHY];
	uint64_t lineno = 0;
	size_t n;
	int c, longline;

	for (;;) {
		n = 0;
		longline = 0;
		while ((c = getc_unlocked(f)) != EOF && c != '\n') {
			if (n < FT_REPLAY_LINE_MAX)
				line[n++] = (char)c;
			else
				longline = 1;
		}
		if (c == EOF && ferror(f))
			return ft__replay_say(why, whysize, errno == 0 ? EIO : errno,
			    "reading %s: %s", name, strerror(errno));
		if (c == EOF && n == 0 && !longline)
			break;
		lineno++;
		if (longline)
			return ft__replay_say(why, whysize, EPROTO, "%s line %" PRIu64
			    ": longer than %u bytes", name, lineno,
			    FT_REPLAY_LINE_MAX);
		if (n > 0 && line[n - 1] == '\r')
			n--;
		if (n == 0)
			continue;
		if (ft_replay_parse(line, n, &r, msg, sizeof(msg)) != 0)
			return ft__replay_say(why, whysize, EPROTO, "%s line %" PRIu64
			    ": %s", name, lineno, msg);
		r.line = lineno;
		if (ft_replay_add(l, &r, why, whysize) != 0)
			return -1;
	}
	return finish(l, name, why, whysize);
}

struct dirwalk {
	struct ft_replay	*l;
	char			*why;
	size_t			 whysize;
	void			(*warn)(void *, const struct ft_rank_sum *);
	void			*arg;
	int			 failed;
};

static int
dir_det(void *arg, uint64_t job, uint32_t rank, const struct ft_det *d)
{
	struct dirwalk *w = arg;
	struct ft_rrec r;

	r.job = job;
	r.rank = rank;
	r.line = 0;
	r.d = *d;
	if (ft_replay_add(w->l, &r, w->why, w->whysize) != 0) {
		w->failed = errno;
		return -1;
	}
	return 0;
}

static void
dir_done(void *arg, const struct ft_rank_sum *s)
{
	struct dirwalk *w = arg;

	if (w->warn != NULL)
		w->warn(w->arg, s);
}

int
ft_replay_read_dir(struct ft_replay *l, const char *dir,
    void (*warn)(void *, const struct ft_rank_sum *), void *arg, char *why,
    size_t whysize)
{
	struct dirwalk w;
	char msg[FT_LOG_WHY];

	w.l = l;
	w.why = why;
	w.whysize = whysize;
	w.warn = warn;
	w.arg = arg;
	w.failed = 0;
	if (ft_logdir_walk(dir, 1, 0, 1, 0, dir_det, dir_done, &w, msg,
	    sizeof(msg)) != 0) {
		if (w.failed != 0) {
			errno = w.failed;
			return -1;
		}
		return ft__replay_say(why, whysize, errno, "%s", msg);
	}
	return finish(l, dir, why, whysize);
}

size_t
ft_replay_njobs(const struct ft_replay *l)
{
	return l->njobs;
}

uint64_t
ft_replay_job(const struct ft_replay *l, size_t i)
{
	return i < l->njobs ? l->jobs[i] : 0;
}

int
ft__replay_ranks(struct ft_replay *l, uint64_t job,
    const struct ft__rchunk **ch, size_t *n, char *why, size_t whysize)
{
	size_t lo = 0, hi = l->nchunks, i;

	if (wflush(l, why, whysize) != 0)
		return -1;
	/* The first chunk of job: chunks are sorted (finish). */
	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (l->chunks[i].job < job)
			lo = i + 1;
		else
			hi = i;
	}
	for (i = lo; i < l->nchunks && l->chunks[i].job == job; i++)
		;
	*ch = l->chunks + lo;
	*n = i - lo;
	return 0;
}

int
ft__rcur_open(struct ft__rcur *c, struct ft_replay *l,
    const struct ft__rchunk *ch, size_t bufsize)
{
	memset(c, 0, sizeof(*c));
	c->fd = l->fd;
	c->job = ch->job;
	c->rank = ch->rank;
	c->off = ch->off;
	c->end = ch->end;
	c->bcap = bufsize < 4 * SREC_MAX ? 4 * SREC_MAX : bufsize;
	if ((c->buf = malloc(c->bcap)) == NULL)
		return -1;
	return 0;
}

void
ft__rcur_release(struct ft__rcur *c)
{
	free(c->buf);
	c->buf = NULL;
}

int
ft__rcur_next(struct ft__rcur *c, struct ft_rrec *r)
{
	const uint8_t *p;
	size_t n, left;
	ssize_t got;
	int i;

	if (c->blen - c->bpos < SREC_MAX && c->off < c->end) {
		left = c->blen - c->bpos;
		memmove(c->buf, c->buf + c->bpos, left);
		c->bpos = 0;
		c->blen = left;
		n = c->bcap - left;
		if (n > c->end - c->off)
			n = (size_t)(c->end - c->off);
		got = pread(c->fd, c->buf + left, n, (off_t)c->off);
		if (got < 0)
			return -1;
		if ((size_t)got != n) {
			errno = EIO;
			return -1;
		}
		c->off += n;
		c->blen += n;
	}
	if (c->bpos == c->blen)
		return 0;
	p = c->buf + c->bpos;
	n = p[0] == FT_DET_DELIVERY ? SREC_FIXED : SREC_MAX;
	if (c->blen - c->bpos < n) {
		errno = EIO;	/* the scratch file is short: not ours */
		return -1;
	}
	memset(r, 0, sizeof(*r));
	r->job = c->job;
	r->rank = c->rank;
	r->d.kind = p[0];
	r->d.sender = ft_rd32(p + 1);
	r->d.probes = ft_rd32(p + 5);
	r->d.seq = ft_rd64(p + 9);
	r->d.clock = ft_rd64(p + 17);
	r->d.sclock = ft_rd64(p + 25);
	r->line = ft_rd64(p + 33);
	if (n == SREC_MAX)
		for (i = 0; i < 3; i++)
			r->d.v[i] = ft_rd64(p + SREC_FIXED + 8 * i);
	c->bpos += n;
	return 1;
}
