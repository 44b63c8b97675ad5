/* SPDX-License-Identifier: ISC */
/*
 * A rank's log on disk: its directory of segments, checked whole when
 * it is opened (a torn tail cut from the last segment), appended to in
 * groups, and walked read-only by ftlog dump and stat.  Files are
 * created atomically (write, fsync, rename, fsync the directory).
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "store.h"

#define SEGNAME_LEN	24	/* 20 digits and ".ftl" */
#define STAMP_NS	1000000000ull

int
ft_store_fsync_dir(int dirfd)
{
	if (fsync(dirfd) != 0 && errno != EINVAL)
		return -1;
	return 0;
}

int
ft_store_mkdir(int dirfd, const char *name)
{
	if (mkdirat(dirfd, name, 0700) != 0)
		return errno == EEXIST ? 0 : -1;
	return ft_store_fsync_dir(dirfd);
}

int
ft_store_write(int fd, const void *p, size_t len)
{
	const uint8_t *q = p;
	ssize_t n;

	while (len > 0) {
		n = write(fd, q, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		q += n;
		len -= (size_t)n;
	}
	return 0;
}

int
ft__store_lock(int dirfd, const char *dir, const char *name,
    const char *what, const char *who, char *why, size_t size)
{
	int fd;

	fd = openat(dirfd, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, size, "%s '%s': %s: %s", what, dir, name,
		    strerror(errno));
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
		if (errno == EWOULDBLOCK)
			errno = EBUSY;
		snprintf(why, size, "%s '%s' is in use by another %s (it "
		    "holds '%s/%s')", what, dir, who, dir, name);
		close(fd);
		return -1;
	}
	return fd;
}

int
ft_store_tmp(int dirfd, const char *name, char *tmp, size_t tmpsize)
{
	if ((size_t)snprintf(tmp, tmpsize, "%s.tmp", name) >= tmpsize) {
		errno = ENAMETOOLONG;
		return -1;
	}
	(void)unlinkat(dirfd, tmp, 0);
	return openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600);
}

int
ft_store_commit(int dirfd, int fd, const char *tmp, const char *name)
{
	int saved;

	if (fsync(fd) != 0 || renameat(dirfd, tmp, dirfd, name) != 0) {
		saved = errno;
		(void)unlinkat(dirfd, tmp, 0);
		errno = saved;
		return -1;
	}
	if (ft_store_fsync_dir(dirfd) != 0) {
		saved = errno;
		(void)unlinkat(dirfd, name, 0);
		errno = saved;
		return -1;
	}
	return 0;
}

int
ft_store_create(int dirfd, const char *name, const void *p, size_t len)
{
	char tmp[NAME_MAX + 1];
	int fd, saved;

	if ((fd = ft_store_tmp(dirfd, name, tmp, sizeof(tmp))) < 0)
		return -1;
	if (ft_store_write(fd, p, len) != 0) {
		saved = errno;
		(void)unlinkat(dirfd, tmp, 0);
		close(fd);
		errno = saved;
		return -1;
	}
	if (ft_store_commit(dirfd, fd, tmp, name) != 0) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fd;
}

static uint64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* "00000000000000000001.ftl": 0 and *seq, or -1. */
static int
segname_seq(const char *name, uint64_t *seq)
{
	uint64_t v = 0;
	int i;

	if (strlen(name) != SEGNAME_LEN || strcmp(name + 20, ".ftl") != 0)
		return -1;
	for (i = 0; i < 20; i++) {
		if (name[i] < '0' || name[i] > '9')
			return -1;
		if (v > (UINT64_MAX - 9) / 10)
			return -1;
		v = v * 10 + (uint64_t)(name[i] - '0');
	}
	*seq = v;
	return v != 0 ? 0 : -1;
}

static void
segname(uint64_t seq, char *buf, size_t size)
{
	snprintf(buf, size, "%020" PRIu64 ".ftl", seq);
}

/*
 * The segments of a rank directory, sorted: their first seqs in a heap
 * array.  Leftover temporary files of an interrupted create are removed
 * when clean is set.  0, or -1 with errno.
 */
static int
list_segs(int rfd, int clean, uint64_t **segs, size_t *n, size_t *cap)
{
	DIR *d;
	struct dirent *e;
	uint64_t seq, *nv;
	size_t len;
	int fd;

	*n = 0;
	if ((fd = dup(rfd)) < 0)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	rewinddir(d);
	while ((e = readdir(d)) != NULL) {
		len = strlen(e->d_name);
		if (clean && len > 4 && strcmp(e->d_name + len - 4, ".tmp") ==
		    0) {
			(void)unlinkat(rfd, e->d_name, 0);
			continue;
		}
		if (segname_seq(e->d_name, &seq) != 0)
			continue;
		if ((nv = ft_grow(*segs, cap, *n, sizeof(**segs))) == NULL) {
			closedir(d);
			return -1;
		}
		*segs = nv;
		(*segs)[(*n)++] = seq;
	}
	closedir(d);
	if (*n > 0)
		qsort(*segs, *n, sizeof(**segs), cmp_u64);
	return 0;
}

/*
 * Check a rank's whole log: every segment of segs (n, sorted) under rfd,
 * named in messages as prefix/NAME.  Sums it in *sum; calls det for
 * each determinant unless det is NULL.  With cut set the torn tail of
 * the last segment is cut and the segment fsynced, and *lastfd keeps
 * it open (O_RDWR); otherwise it is only counted.
 */
struct scan {
	int		 rfd;
	const char	*prefix;
	uint64_t	 job;
	uint32_t	 rank;
	const uint64_t	*segs;
	size_t		 nsegs;
	int		 cut;
	int		 (*det)(void *, uint64_t, uint32_t, const struct ft_det *);
	void		 (*stamp)(void *, uint64_t, uint32_t, uint64_t, uint64_t);
	void		*arg;
	/* Out. */
	struct ft_rank_sum sum;
	uint64_t	 last_clock;
	uint64_t	 last_size;
	int		 lastfd;
	int		 last_old;	/* the last segment is of an older version */
	char		*why;
	size_t		 whysize;
};

static int
scan_fail(struct scan *s, int err, const char *fmt, ...) FT_PRINTF(3, 4);

static int
scan_fail(struct scan *s, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, s->whysize, fmt, ap);
	va_end(ap);
	errno = err;
	return -1;
}

static int
scan_rank(struct scan *s)
{
	struct ft_seg_reader r;
	struct ft_seg_rec rec;
	struct stat st;
	char name[SEGNAME_LEN + 1], path[FT_LOG_WHY / 2];
	uint64_t expect = 1;
	size_t i;
	int fd, rc, last;

	memset(&s->sum, 0, sizeof(s->sum));
	s->sum.job = s->job;
	s->sum.rank = s->rank;
	s->lastfd = -1;
	s->last_clock = 0;
	s->last_size = 0;
	for (i = 0; i < s->nsegs; i++) {
		last = i + 1 == s->nsegs;
		segname(s->segs[i], name, sizeof(name));
		snprintf(path, sizeof(path), "%s/%s", s->prefix, name);
		fd = openat(s->rfd, name, (last && s->cut ? O_RDWR :
		    O_RDONLY) | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0)
			return scan_fail(s, errno, "segment '%s': %s", path,
			    strerror(errno));
		if (ft_seg_reader_open(&r, fd, path, last, 0) != 0)
			goto bad;
		if (r.hdr.job != s->job || r.hdr.rank != s->rank) {
			snprintf(r.why, sizeof(r.why), "segment '%s' belongs "
			    "to job %016" PRIx64 " rank %u, not to its "
			    "directory", path, r.hdr.job, r.hdr.rank);
			errno = EPROTO;
			goto bad;
		}
		if (r.hdr.first_seq != s->segs[i] ||
		    (i > 0 && r.hdr.first_seq != expect)) {
			snprintf(r.why, sizeof(r.why), "segment '%s' starts "
			    "at seq %" PRIu64 " where %" PRIu64 " was "
			    "expected", path, r.hdr.first_seq, i > 0 ? expect :
			    s->segs[i]);
			errno = EILSEQ;
			goto bad;
		}
		if (i == 0)
			s->sum.first_seq = r.hdr.first_seq;
		while ((rc = ft_seg_reader_next(&r, &rec)) == 1) {
			if (rec.type == FT_SEG_TIME) {
				if (s->sum.first_ns == 0)
					s->sum.first_ns = rec.time_ns;
				s->sum.last_ns = rec.time_ns;
				if (s->stamp != NULL)
					s->stamp(s->arg, s->job, s->rank,
					    rec.time_ns, s->sum.count == 0 ?
					    r.hdr.first_seq : s->sum.last_seq +
					    1);
				continue;
			}
			s->sum.count++;
			s->sum.last_seq = rec.det.seq;
			s->last_clock = rec.det.clock;
			if (s->det != NULL &&
			    s->det(s->arg, s->job, s->rank, &rec.det) != 0) {
				snprintf(r.why, sizeof(r.why), "%s",
				    strerror(errno));
				goto bad;
			}
		}
		if (rc < 0)
			goto bad;
		expect = r.next_seq;
		s->sum.segments++;
		s->sum.torn += r.torn;
		s->sum.bytes += fstat(fd, &st) == 0 ? (uint64_t)st.st_size :
		    r.off + r.torn;
		if (last && s->cut && r.torn > 0 &&
		    (ftruncate(fd, (off_t)r.torn_off) != 0 ||
		    fdatasync(fd) != 0)) {
			snprintf(r.why, sizeof(r.why), "segment '%s': cutting "
			    "its torn tail: %s", path, strerror(errno));
			goto bad;
		}
		if (last && s->cut && r.torn == 0 && fdatasync(fd) != 0) {
			snprintf(r.why, sizeof(r.why), "segment '%s': fsync: "
			    "%s", path, strerror(errno));
			goto bad;
		}
		ft_seg_reader_release(&r);
		if (last && s->cut) {
			s->last_old = r.hdr.version < FT_SEG_VERSION;
			s->lastfd = fd;
			s->last_size = r.torn > 0 ? r.torn_off : r.off;
		} else
			close(fd);
	}
	if (s->sum.count == 0)
		s->sum.first_seq = 0;
	return 0;
bad:
	rc = errno;
	snprintf(s->why, s->whysize, "%s", r.why);
	ft_seg_reader_release(&r);
	close(fd);
	errno = rc;
	return -1;
}

struct ft_rlog *
ft_rlog_open(int dirfd, const char *dirname, uint64_t job, uint32_t rank,
    uint64_t segsize, char *why, size_t whysize)
{
	struct ft_rlog *rl;
	struct scan s;
	char rel[64], prefix[FT_LOG_WHY / 2];
	int saved;

	if ((rl = calloc(1, sizeof(*rl))) == NULL)
		return NULL;
	rl->job = job;
	rl->rank = rank;
	rl->dirfd = dirfd;
	rl->rfd = rl->fd = -1;
	rl->segsize = segsize;
	snprintf(rl->dirname, sizeof(rl->dirname), "%s", dirname);
	ft_wbuf_init(&rl->pend);
	snprintf(rel, sizeof(rel), "job-%016" PRIx64 "/rank-%u", job, rank);
	rl->rfd = openat(dirfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rl->rfd < 0) {
		if (errno == ENOENT)
			return rl;
		snprintf(why, whysize, "log directory '%s/%s': %s", dirname,
		    rel, strerror(errno));
		goto fail;
	}
	if (list_segs(rl->rfd, 1, &rl->segs, &rl->nsegs, &rl->capsegs) != 0) {
		snprintf(why, whysize, "log directory '%s/%s': %s", dirname,
		    rel, strerror(errno));
		goto fail;
	}
	memset(&s, 0, sizeof(s));
	snprintf(prefix, sizeof(prefix), "%s/%s", dirname, rel);
	s.rfd = rl->rfd;
	s.prefix = prefix;
	s.job = job;
	s.rank = rank;
	s.segs = rl->segs;
	s.nsegs = rl->nsegs;
	s.cut = 1;
	s.why = why;
	s.whysize = whysize;
	if (scan_rank(&s) != 0)
		goto fail;
	rl->fd = s.lastfd;
	rl->size = s.last_size;
	rl->old_seg = s.last_old;
	if (rl->nsegs > 0)
		segname(rl->segs[rl->nsegs - 1], rl->name, sizeof(rl->name));
	rl->count = s.sum.count;
	rl->last_seq = rl->written_seq = rl->durable_seq = s.sum.count > 0 ?
	    s.sum.last_seq : (rl->nsegs > 0 ? rl->segs[rl->nsegs - 1] - 1 : 0);
	rl->last_clock = rl->written_clock = rl->durable_clock = s.last_clock;
	rl->last_stamp = s.sum.last_ns;
	return rl;
fail:
	saved = errno;
	ft_rlog_free(rl);
	errno = saved;
	return NULL;
}

void
ft_rlog_free(struct ft_rlog *rl)
{
	if (rl == NULL)
		return;
	if (rl->fd >= 0)
		close(rl->fd);
	if (rl->rfd >= 0)
		close(rl->rfd);
	free(rl->segs);
	ft_wbuf_release(&rl->pend);
	free(rl);
}

void
ft_rlog_segpath(const struct ft_rlog *rl, size_t i, char *buf, size_t size)
{
	char name[SEGNAME_LEN + 1];

	segname(rl->segs[i], name, sizeof(name));
	snprintf(buf, size, "job-%016" PRIx64 "/rank-%u/%s", rl->job,
	    rl->rank, name);
}

int
ft_rlog_add(struct ft_rlog *rl, const struct ft_det *d, uint32_t n,
    uint64_t time_ns, uint64_t *expect)
{
	size_t mark = rl->pend.len;
	uint32_t i;

	for (i = 0; i < n; i++)
		if (d[i].seq != rl->last_seq + 1 + i) {
			*expect = rl->last_seq + 1;
			errno = EILSEQ;
			return -1;
		}
	if (n == 0)
		return 0;
	if (time_ns >= rl->last_stamp + STAMP_NS) {
		ft_seg_put_time(&rl->pend, time_ns);
		rl->last_stamp = time_ns;
	}
	for (i = 0; i < n; i++)
		ft_seg_put_det(&rl->pend, &d[i]);
	if (rl->pend.err != 0) {
		rl->pend.len = mark;
		rl->pend.err = 0;
		errno = ENOMEM;
		return -1;
	}
	rl->last_seq = d[n - 1].seq;
	rl->last_clock = d[n - 1].clock;
	return 0;
}

static int
rl_fail(struct ft_rlog *rl, char *why, size_t whysize, const char *what)
{
	int saved = errno;

	snprintf(why, whysize, "log of job %016" PRIx64 " rank %u in '%s': "
	    "%s: %s", rl->job, rl->rank, rl->dirname, what, strerror(saved));
	errno = saved;
	return -1;
}

/* Sync and close the current segment, start one at seq first. */
static int
roll(struct ft_rlog *rl, uint64_t first, char *why, size_t whysize)
{
	struct ft_seg_hdr h;
	uint8_t hdr[FT_SEG_HDRLEN];
	uint64_t *nv;
	char rel[64];
	int fd;

	if (rl->rfd < 0) {
		snprintf(rel, sizeof(rel), "job-%016" PRIx64, rl->job);
		if (ft_store_mkdir(rl->dirfd, rel) != 0)
			return rl_fail(rl, why, whysize, "making its directory");
		snprintf(rel, sizeof(rel), "job-%016" PRIx64 "/rank-%u",
		    rl->job, rl->rank);
		if (ft_store_mkdir(rl->dirfd, rel) != 0)
			return rl_fail(rl, why, whysize, "making its directory");
		rl->rfd = openat(rl->dirfd, rel, O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC);
		if (rl->rfd < 0)
			return rl_fail(rl, why, whysize, "opening its directory");
	}
	if (rl->fd >= 0) {
		if (rl->dirty && fdatasync(rl->fd) != 0)
			return rl_fail(rl, why, whysize, "fsync");
		close(rl->fd);
		rl->fd = -1;
		rl->dirty = 0;
		rl->durable_seq = rl->written_seq;
		rl->durable_clock = rl->written_clock;
	}
	if ((nv = ft_grow(rl->segs, &rl->capsegs, rl->nsegs,
	    sizeof(*rl->segs))) == NULL)
		return rl_fail(rl, why, whysize, "a new segment");
	rl->segs = nv;
	rl->old_seg = 0;
	memset(&h, 0, sizeof(h));
	h.version = FT_SEG_VERSION;
	h.job = rl->job;
	h.rank = rl->rank;
	h.first_seq = first;
	h.created_ns = realtime_ns();
	ft_seg_hdr_encode(hdr, &h);
	segname(first, rl->name, sizeof(rl->name));
	if ((fd = ft_store_create(rl->rfd, rl->name, hdr, sizeof(hdr))) < 0)
		return rl_fail(rl, why, whysize, "creating a segment");
	/* An older segment that held no record is replaced by the rename. */
	if (rl->nsegs == 0 || rl->segs[rl->nsegs - 1] != first)
		rl->nsegs++;
	rl->segs[rl->nsegs - 1] = first;
	rl->fd = fd;
	rl->size = FT_SEG_HDRLEN;
	return 0;
}

int
ft_rlog_write(struct ft_rlog *rl, char *why, size_t whysize)
{
	struct stat st;
	const uint8_t *p;
	size_t left;
	ssize_t n;
	int saved;

	if (rl->pend.len == 0)
		return 0;
	if (rl->broken) {
		errno = EIO;
		(void)rl_fail(rl, why, whysize, "a failed write could not be "
		    "cut back; restart the logger");
		goto drop;
	}
	/*
	 * Records go only into a segment of this version: an older build
	 * that reads the log refuses a newer segment by its header, rather
	 * than a record it does not know in the middle of an older one.
	 */
	if ((rl->fd < 0 || rl->size >= rl->segsize || rl->old_seg) &&
	    roll(rl, rl->written_seq + 1, why, whysize) != 0)
		goto drop;
	/* Writing to a file no directory holds would lose it all. */
	if (fstat(rl->fd, &st) != 0 || st.st_nlink == 0) {
		if (st.st_nlink == 0)
			errno = ENOENT;
		(void)rl_fail(rl, why, whysize, "its segment was removed "
		    "(the log directory vanished?)");
		goto drop;
	}
	p = rl->pend.p;
	left = rl->pend.len;
	while (left > 0) {
		n = pwrite(rl->fd, p, left, (off_t)(rl->size + (p -
		    rl->pend.p)));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0)
				errno = EIO;
			saved = errno;
			/* Cut back to the last whole record. */
			if (ftruncate(rl->fd, (off_t)rl->size) != 0) {
				close(rl->fd);
				rl->fd = -1;
				rl->broken = 1;
			}
			errno = saved;
			(void)rl_fail(rl, why, whysize, "write");
			goto drop;
		}
		left -= (size_t)n;
		p += n;
	}
	rl->size += rl->pend.len;
	rl->count += rl->last_seq - rl->written_seq;
	rl->written_seq = rl->last_seq;
	rl->written_clock = rl->last_clock;
	rl->dirty = 1;
	ft_wbuf_reset(&rl->pend);
	return 0;
drop:
	saved = errno;
	ft_wbuf_reset(&rl->pend);
	rl->last_seq = rl->written_seq;
	rl->last_clock = rl->written_clock;
	errno = saved;
	return -1;
}

int
ft_rlog_sync(struct ft_rlog *rl, char *why, size_t whysize)
{
	struct stat st;

	if (!rl->dirty)
		return 0;
	if (fdatasync(rl->fd) != 0)
		return rl_fail(rl, why, whysize, "fsync");
	if (fstat(rl->fd, &st) != 0)
		return rl_fail(rl, why, whysize, "fstat");
	if (st.st_nlink == 0) {
		errno = ENOENT;
		return rl_fail(rl, why, whysize, "its segment was removed "
		    "(the log directory vanished?)");
	}
	rl->dirty = 0;
	rl->durable_seq = rl->written_seq;
	rl->durable_clock = rl->written_clock;
	return 0;
}

int
ft__store_list_ids(const char *path, const char *prefix, const char *suffix,
    int hex, uint64_t max, uint64_t **ids, size_t *n)
{
	DIR *d;
	struct dirent *e;
	size_t cap = 0, plen = strlen(prefix);
	uint64_t v, *nv;
	char *end;

	*ids = NULL;
	*n = 0;
	if ((d = opendir(path)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		if (strncmp(e->d_name, prefix, plen) != 0 ||
		    e->d_name[plen] < '0' || (e->d_name[plen] > '9' &&
		    (!hex || e->d_name[plen] < 'a' || e->d_name[plen] > 'f')))
			continue;
		errno = 0;
		v = strtoull(e->d_name + plen, &end, hex ? 16 : 10);
		if (errno != 0 || strcmp(end, suffix) != 0 || v > max)
			continue;
		if ((nv = ft_grow(*ids, &cap, *n, sizeof(**ids))) == NULL) {
			closedir(d);
			free(*ids);
			*ids = NULL;
			return -1;
		}
		*ids = nv;
		(*ids)[(*n)++] = v;
	}
	closedir(d);
	if (*n > 0)
		qsort(*ids, *n, sizeof(**ids), cmp_u64);
	return 0;
}

int
ft_logdir_walk(const char *dir, int alljobs, uint64_t job, int allranks,
    uint32_t rank, int (*det)(void *, uint64_t, uint32_t,
    const struct ft_det *), void (*rank_done)(void *,
    const struct ft_rank_sum *), void *arg, char *why, size_t whysize)
{
	return ft_logdir_walk_stamps(dir, alljobs, job, allranks, rank, det,
	    NULL, rank_done, arg, why, whysize);
}

int
ft_logdir_walk_stamps(const char *dir, int alljobs, uint64_t job,
    int allranks, uint32_t rank, int (*det)(void *, uint64_t, uint32_t,
    const struct ft_det *), void (*stamp)(void *, uint64_t, uint32_t,
    uint64_t, uint64_t), void (*rank_done)(void *,
    const struct ft_rank_sum *), void *arg, char *why, size_t whysize)
{
	struct scan s;
	uint64_t *jobs = NULL, *ranks = NULL, *segs = NULL;
	size_t nj = 0, nr = 0, ns = 0, capsegs = 0, j, k;
	char path[PATH_MAX], prefix[FT_LOG_WHY / 2];
	int rfd = -1, rc = -1, saved;

	if (ft__store_list_ids(dir, "job-", "", 1, UINT64_MAX,
	    &jobs, &nj) != 0) {
		snprintf(why, whysize, "log directory '%s': %s", dir,
		    strerror(errno));
		return -1;
	}
	for (j = 0; j < nj; j++) {
		if (!alljobs && jobs[j] != job)
			continue;
		snprintf(path, sizeof(path), "%s/job-%016" PRIx64, dir,
		    jobs[j]);
		free(ranks);
		if (ft__store_list_ids(path, "rank-", "", 0, UINT32_MAX,
		    &ranks, &nr) != 0) {
			snprintf(why, whysize, "log directory '%s': %s", path,
			    strerror(errno));
			goto out;
		}
		for (k = 0; k < nr; k++) {
			if (!allranks && ranks[k] != rank)
				continue;
			snprintf(prefix, sizeof(prefix), "%s/job-%016" PRIx64
			    "/rank-%" PRIu64, dir, jobs[j], ranks[k]);
			if ((rfd = open(prefix, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC)) < 0 ||
			    list_segs(rfd, 0, &segs, &ns, &capsegs) != 0) {
				snprintf(why, whysize, "log directory '%s': %s",
				    prefix, strerror(errno));
				goto out;
			}
			memset(&s, 0, sizeof(s));
			s.rfd = rfd;
			s.prefix = prefix;
			s.job = jobs[j];
			s.rank = (uint32_t)ranks[k];
			s.segs = segs;
			s.nsegs = ns;
			s.why = why;
			s.whysize = whysize;
			/* Check it whole first: nothing of a bad log. */
			if (scan_rank(&s) != 0)
				goto out;
			if (det != NULL || stamp != NULL) {
				s.det = det;
				s.stamp = stamp;
				s.arg = arg;
				if (scan_rank(&s) != 0)
					goto out;
			}
			if (rank_done != NULL)
				rank_done(arg, &s.sum);
			close(rfd);
			rfd = -1;
		}
	}
	rc = 0;
out:
	saved = errno;
	if (rfd >= 0)
		close(rfd);
	free(jobs);
	free(ranks);
	free(segs);
	errno = saved;
	return rc;
}
