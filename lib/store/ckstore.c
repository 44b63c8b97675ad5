/* SPDX-License-Identifier: ISC */
/*
 * A store of checkpoint images on disk (ft-ckpt(5)): listing the images
 * of a directory with what their headers say, removing one, pruning
 * old ones safely while jobs write, and the leases by which a running
 * job keeps what it may restart from.  ftckpt works on a local
 * directory through these, and ftckpt serve on its own.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "store.h"

static int
fail(char *why, size_t whysize, const char *fmt, ...) FT_PRINTF(3, 4);

static int
fail(char *why, size_t whysize, const char *fmt, ...)
{
	va_list ap;
	int saved = errno;

	va_start(ap, fmt);
	vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	errno = saved;
	return -1;
}

static int
add_ent(struct ft_ckpt_ent **v, size_t *n, size_t *cap,
    const struct ft_ckpt_ent *e)
{
	struct ft_ckpt_ent *nv;

	if ((nv = ft_grow(*v, cap, *n, sizeof(**v))) == NULL)
		return -1;
	*v = nv;
	(*v)[(*n)++] = *e;
	return 0;
}

/* What the header of one image says, without decompressing it. */
static void
stat_image(const char *path, struct ft_ckpt_ent *e)
{
	struct ft_ckpt_reader r;
	int fd;

	e->state = FT_CKPT_BAD;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return;
	if (ft_ckpt_open(&r, fd, path) == 0 && r.h->job == e->job &&
	    r.h->rank == e->rank && r.h->epoch == e->epoch) {
		e->state = FT_CKPT_OK;
		e->nranks = r.h->nranks;
		e->raw = r.h->raw;
		e->stored = r.h->stored;
		e->created_ns = r.h->created_ns;
	}
	ft_ckpt_close(&r);
	close(fd);
}

int
ft_ckpt_scan(const char *dir, int alljobs, uint64_t job, int allranks,
    uint32_t rank, struct ft_ckpt_ent **ents, size_t *nents, char *why,
    size_t whysize)
{
	struct ft_ckpt_ent e;
	uint64_t *jobs = NULL, *ranks = NULL, *eps = NULL;
	size_t nj, nr, ne, j, k, i, cap = 0;
	char path[PATH_MAX];
	int rc = -1;

	*ents = NULL;
	*nents = 0;
	if (ft__store_list_ids(dir, "job-", "", 1, UINT64_MAX, &jobs,
	    &nj) != 0)
		return fail(why, whysize, "checkpoint directory '%s': %s",
		    dir, strerror(errno));
	for (j = 0; j < nj; j++) {
		if (!alljobs && jobs[j] != job)
			continue;
		snprintf(path, sizeof(path), "%s/job-%016" PRIx64, dir,
		    jobs[j]);
		free(ranks);
		ranks = NULL;
		if (ft__store_list_ids(path, "rank-", "", 0,
		    FT_WIRE_MAX_RANKS - 1, &ranks, &nr) != 0) {
			fail(why, whysize, "checkpoint directory '%s': %s",
			    path, strerror(errno));
			goto out;
		}
		for (k = 0; k < nr; k++) {
			if (!allranks && ranks[k] != rank)
				continue;
			snprintf(path, sizeof(path), "%s/job-%016" PRIx64
			    "/rank-%" PRIu64, dir, jobs[j], ranks[k]);
			free(eps);
			eps = NULL;
			if (ft__store_list_ids(path, "", ".ftc", 0,
			    UINT64_MAX, &eps, &ne) != 0) {
				fail(why, whysize, "checkpoint directory "
				    "'%s': %s", path, strerror(errno));
				goto out;
			}
			for (i = 0; i < ne; i++) {
				if (eps[i] == 0)
					continue;
				memset(&e, 0, sizeof(e));
				e.job = jobs[j];
				e.rank = (uint32_t)ranks[k];
				e.epoch = eps[i];
				snprintf(path, sizeof(path), "%s/", dir);
				(void)ft_ckpt_name(path + strlen(path),
				    sizeof(path) - strlen(path), e.job,
				    e.rank, e.epoch);
				stat_image(path, &e);
				if (add_ent(ents, nents, &cap, &e) != 0) {
					fail(why, whysize, "out of memory");
					goto out;
				}
				snprintf(path, sizeof(path), "%s/job-%016"
				    PRIx64 "/rank-%" PRIu64, dir, jobs[j],
				    ranks[k]);
			}
		}
	}
	rc = 0;
out:
	free(jobs);
	free(ranks);
	free(eps);
	if (rc != 0) {
		free(*ents);
		*ents = NULL;
		*nents = 0;
	}
	return rc;
}

uint64_t
ft_ckpt_restart_point(const struct ft_ckpt_ent *e, size_t n, uint64_t job)
{
	uint64_t best = 0, ep;
	uint32_t nranks = 0, have;
	size_t i, k;

	for (i = 0; i < n; i++)
		if (e[i].job == job && e[i].state != FT_CKPT_BAD &&
		    e[i].nranks > nranks)
			nranks = e[i].nranks;
	if (nranks == 0)
		return 0;
	/* Every epoch of rank 0 is a candidate: do all ranks have it? */
	for (i = 0; i < n; i++) {
		if (e[i].job != job || e[i].rank != 0 ||
		    e[i].state == FT_CKPT_BAD || e[i].epoch <= best)
			continue;
		ep = e[i].epoch;
		for (k = 0, have = 0; k < n; k++)
			if (e[k].job == job && e[k].epoch == ep &&
			    e[k].state != FT_CKPT_BAD && e[k].nranks == nranks)
				have++;
		if (have == nranks)
			best = ep;
	}
	return best;
}

int
ft_ckpt_rm(const char *dir, uint64_t job, uint32_t rank, uint64_t epoch,
    char *why, size_t whysize)
{
	char name[FT_CKPT_NAME_MAX], path[PATH_MAX];
	int dfd, saved;

	if (ft_ckpt_name(name, sizeof(name), job, rank, epoch) != 0)
		return fail(why, whysize, "bad image name");
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink(path) != 0)
		return fail(why, whysize, "image '%s': %s", path,
		    strerror(errno));
	*strrchr(path, '/') = '\0';
	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)ft_store_fsync_dir(dfd);
		saved = errno;
		close(dfd);
		errno = saved;
	}
	return 0;
}

/*
 * Leases.  A running job holds DIR/job-J/rank-R/lease under a shared
 * flock(2), from its first checkpoint call to its exit, and writes in
 * it "pin=E": the oldest epoch it may still restart from.  prune takes
 * the lock exclusively while it removes the images of the rank: it
 * waits for no one (LOCK_NB), and a rank that finds the lease taken
 * waits until prune is done with it.
 */
static void
lease_path(char *buf, size_t size, const char *dir, uint64_t job,
    uint32_t rank)
{
	snprintf(buf, size, "%s/job-%016" PRIx64 "/rank-%u/lease", dir, job,
	    rank);
}

int
ft_ckpt_lease(const char *dir, uint64_t job, uint32_t rank, uint64_t pin,
    int fd, char *why, size_t whysize)
{
	char path[PATH_MAX], line[48];
	int n, saved, dfd, own = fd < 0;

	if (own) {
		if ((dfd = ft__ckpt_rankdir(dir, job, rank, why,
		    whysize)) < 0)
			return -1;
		close(dfd);
		lease_path(path, sizeof(path), dir, job, rank);
		if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC,
		    0600)) < 0)
			return fail(why, whysize, "lease '%s': %s", path,
			    strerror(errno));
		while (flock(fd, LOCK_SH) != 0)
			if (errno != EINTR) {
				saved = errno;
				close(fd);
				errno = saved;
				return fail(why, whysize, "lease '%s': %s",
				    path, strerror(errno));
			}
	}
	n = snprintf(line, sizeof(line), "pin=%" PRIu64 "\n", pin);
	if (pwrite(fd, line, (size_t)n, 0) != n || ftruncate(fd, n) != 0) {
		saved = errno;
		if (own)
			close(fd);
		errno = saved;
		return fail(why, whysize, "lease of job %016" PRIx64 " rank "
		    "%u: %s", job, rank, strerror(errno));
	}
	return fd;
}

/*
 * Take rank's lease for prune: -1 (and *pin 0) if there is none; else
 * its fd, locked exclusively, with *live 0; or, when a job holds it,
 * -1 with *live 1 and *pin what it says (0: keep everything).
 */
static int
lease_take(const char *dir, uint64_t job, uint32_t rank, int *live,
    uint64_t *pin)
{
	char path[PATH_MAX], buf[48], *end;
	ssize_t n;
	int fd;

	*live = 0;
	*pin = 0;
	lease_path(path, sizeof(path), dir, job, rank);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == 0)
		return fd;
	*live = 1;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	close(fd);
	if (n > 4) {
		buf[n] = '\0';
		errno = 0;
		if (strncmp(buf, "pin=", 4) == 0 && buf[4] >= '0' &&
		    buf[4] <= '9') {
			*pin = strtoull(buf + 4, &end, 10);
			if (errno != 0 || *end != '\n')
				*pin = 0;
		}
	}
	return -1;
}

/*
 * Which images of the rank whose entries are e[0..n) (sorted by epoch)
 * to remove: none of epoch keep_ep (the job's restart point), nor the
 * newest complete one, nor one of epoch >= pin when the lease is live,
 * nor one of the keep newest, nor one younger than older_ns.
 */
static void
decide(struct ft_ckpt_ent *e, size_t n, const struct ft_ckpt_prune *p,
    uint64_t keep_ep, int live, uint64_t pin)
{
	size_t i, newest = n, rank_from_top;

	for (i = n; i > 0; i--)
		if (e[i - 1].state == FT_CKPT_OK) {
			newest = i - 1;
			break;
		}
	for (i = 0; i < n; i++) {
		rank_from_top = n - 1 - i;
		e[i].state = FT_CKPT_KEPT;
		if (i == newest || e[i].epoch == keep_ep ||
		    (live && (pin == 0 || e[i].epoch >= pin)))
			continue;
		if (p->keep > 0 && rank_from_top < p->keep)
			continue;
		if (p->older_ns > 0 && (e[i].created_ns > p->now_ns ||
		    p->now_ns - e[i].created_ns < p->older_ns))
			continue;
		e[i].state = p->dryrun ? FT_CKPT_WOULD : FT_CKPT_REMOVED;
	}
}

int
ft_ckpt_prune(const char *dir, const struct ft_ckpt_prune *p,
    struct ft_ckpt_ent **ents, size_t *nents, char *why, size_t whysize)
{
	struct ft_ckpt_ent *e;
	struct stat st;
	uint64_t keep_ep = 0, pin;
	size_t n, i, j, k;
	char path[PATH_MAX];
	int fd, live, rc = 0, saved;

	if (ft_ckpt_scan(dir, p->alljobs, p->job, 1, 0, ents, nents, why,
	    whysize) != 0)
		return -1;
	e = *ents;
	n = *nents;
	for (i = 0; i < n; i = j) {
		if (i == 0 || e[i].job != e[i - 1].job)
			keep_ep = ft_ckpt_restart_point(e, n, e[i].job);
		for (j = i; j < n && e[j].job == e[i].job &&
		    e[j].rank == e[i].rank; j++)
			;
		/* A corrupt image's age is its file's. */
		for (k = i; k < j; k++)
			if (e[k].state == FT_CKPT_BAD) {
				snprintf(path, sizeof(path), "%s/", dir);
				(void)ft_ckpt_name(path + strlen(path),
				    sizeof(path) - strlen(path), e[k].job,
				    e[k].rank, e[k].epoch);
				if (stat(path, &st) == 0)
					e[k].created_ns =
					    (uint64_t)st.st_mtim.tv_sec *
					    1000000000u +
					    (uint64_t)st.st_mtim.tv_nsec;
			}
		fd = lease_take(dir, e[i].job, e[i].rank, &live, &pin);
		decide(e + i, j - i, p, keep_ep, live, pin);
		for (k = i; k < j; k++) {
			if (e[k].state != FT_CKPT_REMOVED)
				continue;
			if (ft_ckpt_rm(dir, e[k].job, e[k].rank, e[k].epoch,
			    why, whysize) != 0 && errno != ENOENT) {
				e[k].state = FT_CKPT_KEPT;
				rc = -1;
			}
		}
		if (fd >= 0) {
			saved = errno;
			close(fd);
			errno = saved;
		}
	}
	return rc;
}

int
ft_ckpt_clean_tmp(const char *dir)
{
	uint64_t *jobs = NULL, *ranks = NULL;
	size_t nj, nr, j, k, len;
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;
	int dfd;

	if (ft__store_list_ids(dir, "job-", "", 1, UINT64_MAX, &jobs,
	    &nj) != 0)
		return -1;
	for (j = 0; j < nj; j++) {
		snprintf(path, sizeof(path), "%s/job-%016" PRIx64, dir,
		    jobs[j]);
		free(ranks);
		ranks = NULL;
		if (ft__store_list_ids(path, "rank-", "", 0, UINT32_MAX,
		    &ranks, &nr) != 0)
			continue;
		for (k = 0; k < nr; k++) {
			snprintf(path, sizeof(path), "%s/job-%016" PRIx64
			    "/rank-%" PRIu64, dir, jobs[j], ranks[k]);
			if ((d = opendir(path)) == NULL)
				continue;
			dfd = dirfd(d);
			while ((de = readdir(d)) != NULL) {
				len = strlen(de->d_name);
				if (len > 4 && strcmp(de->d_name + len - 4,
				    ".tmp") == 0)
					(void)unlinkat(dfd, de->d_name, 0);
			}
			(void)ft_store_fsync_dir(dfd);
			closedir(d);
		}
	}
	free(jobs);
	free(ranks);
	return 0;
}

int
ft_ckpt_copy(int sfd, const char *spath, int dirfd, const char *name,
    const struct ft_ckpt_hdr *expect, char *why, size_t whysize)
{
	struct ft_ckpt_hdr *h;
	char tmp[PATH_MAX];
	uint8_t *buf;
	ssize_t n;
	int fd, saved;

	if ((buf = malloc(sizeof(*h) > (1u << 20) ? sizeof(*h) :
	    (1u << 20))) == NULL)
		return fail(why, whysize, "out of memory");
	h = (struct ft_ckpt_hdr *)(void *)buf;
	if ((fd = ft_store_tmp(dirfd, name, tmp, sizeof(tmp))) < 0) {
		free(buf);
		return fail(why, whysize, "'%s': %s", name, strerror(errno));
	}
	while ((n = read(sfd, buf, 1u << 20)) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || ft_store_write(fd, buf, (size_t)n) != 0) {
			fail(why, whysize, "'%s': %s", n < 0 ? spath : tmp,
			    strerror(errno));
			goto fail;
		}
	}
	/* What is committed is what was checked: the copy, not the source. */
	if (ft_ckpt_verify(dirfd, tmp, h, why, whysize) != 0)
		goto fail;
	if (expect != NULL && (h->job != expect->job ||
	    h->rank != expect->rank || h->epoch != expect->epoch)) {
		errno = EPROTO;
		fail(why, whysize, "'%s' changed while it was copied", spath);
		goto fail;
	}
	if (ft_store_commit(dirfd, fd, tmp, name) != 0) {
		saved = errno;
		close(fd);
		free(buf);
		errno = saved;
		return fail(why, whysize, "'%s': %s", name, strerror(errno));
	}
	close(fd);
	free(buf);
	return 0;
fail:
	saved = errno;
	(void)unlinkat(dirfd, tmp, 0);
	close(fd);
	free(buf);
	errno = saved;
	return -1;
}
