/* SPDX-License-Identifier: ISC */
/*
 * The checkpoint API of ft.h (ft(3)) for a job without a protocol that
 * restarts ranks: the per-process state (protected regions, the epoch,
 * the lease), the scheduler that decides when a checkpoint is due, the
 * local write (lib/store) and the background push to the checkpoint
 * server, and the restart of a whole job from its newest complete
 * global checkpoint.
 *
 * ftrun passes the settings in the environment (FT_CKPT_*).  The
 * scheduler is collective: at a check, the ranks agree (MPI_MAX) on
 * whether one of them is due, so that every rank saves at the same
 * ft_checkpoint() call and epoch e of every rank belongs to the same
 * iteration; checks are spaced so that there are about ten per
 * interval (their stride, in calls, comes from the agreed time per
 * call, so it is the same on every rank).  The protocols will replace
 * this scheduler with ftrun's (--ckpt-policy).
 *
 * A rank decides epoch e + 1 only at a check all ranks reached after
 * writing e, so when e + 1 is being written, e is complete everywhere,
 * and ranks are at most one epoch apart when the job dies: a rank keeps
 * its last FT_CKPT_KEEP (>= 3) local images, so that if one rank's
 * image of the last complete epoch e is damaged, e - 1 is still held by
 * all (the one that got to e + 1 holds e + 1, e and e - 1), and pins
 * the one before its newest in its lease.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../include/ft.h"
#include "../peer/peer.h"
#include "../store/store.h"
#include "mpi_impl.h"

#define ENV_DIR		"FT_CKPT_DIR"
#define ENV_INTERVAL	"FT_CKPT_INTERVAL_NS"
#define ENV_SERVER	"FT_CKPT_SERVER"
#define ENV_KEYFILE	"FT_CKPT_KEY_FILE"
#define ENV_JOB		"FT_CKPT_JOB"
#define ENV_RESTART	"FT_CKPT_RESTART"
#define ENV_KEEP	"FT_CKPT_KEEP"
#define ENV_LEVEL	"FT_CKPT_LEVEL"
#define CHECKS		10		/* checks per interval */
#define STRIDE_MAX	100000u
#define PUSH_TIMEOUT	(60ull * 1000000000u)

struct region {
	int	 id;
	void	*p;
	size_t	 size;
};

struct pusher {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 started, stop, busy;
	uint64_t	 want;		/* epoch to push, 0: none */
	uint64_t	 want_t0;	/* when its ft_checkpoint began */
	struct ft_ckptc	 k;
	uint8_t		 key[FT_WIRE_KEYLEN];
	char		 addr[FT_WIRE_ADDR_MAX];
	uint64_t	 warned;	/* the last epoch warned about */
};

static struct {
	int		 init, enabled, failed;
	char		 dir[1024];
	uint64_t	 job;
	uint32_t	 rank, size;
	uint64_t	 interval_ns;
	int		 level;
	uint32_t	 keep;
	int		 restarted;
	uint64_t	 epoch;		/* the last one written or restored */
	uint64_t	 last_ns;	/* of the last checkpoint, or start */
	uint64_t	 calls, next_check, check_ns, check_calls;
	int		 have_comm;
	MPI_Comm	 comm;
	struct region	*reg;
	size_t		 nreg, capreg;
	int		 lease;
	struct ft_ckpt_stat st;
	struct pusher	 push;
} S = { .lease = -1 };

static int
find(int id)
{
	size_t i;

	for (i = 0; i < S.nreg; i++)
		if (S.reg[i].id == id)
			return (int)i;
	return -1;
}

FT_EXPORT int
ft_protect(int id, void *ptr, size_t size)
{
	struct region *nv;
	int i;

	if (id < 0 || (ptr == NULL && size > 0) || size > FT_CKPT_RAW_MAX) {
		errno = EINVAL;
		return -1;
	}
	if ((i = find(id)) >= 0) {
		S.reg[i].p = ptr;
		S.reg[i].size = size;
		return 0;
	}
	if (S.nreg == FT_CKPT_REGIONS_MAX) {
		errno = ENOSPC;
		return -1;
	}
	if ((nv = ft_grow(S.reg, &S.capreg, S.nreg, sizeof(*nv))) == NULL)
		return -1;
	S.reg = nv;
	S.reg[S.nreg++] = (struct region){ id, ptr, size };
	return 0;
}

FT_EXPORT int
ft_unprotect(int id)
{
	int i;

	if ((i = find(id)) < 0) {
		errno = ENOENT;
		return -1;
	}
	S.reg[i] = S.reg[--S.nreg];
	return 0;
}

static uint64_t
env_u64(const char *name, uint64_t dflt, int base)
{
	const char *s = getenv(name);
	char *end;
	uint64_t v;

	if (s == NULL || *s == '\0')
		return dflt;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno != 0 || *end != '\0' || s[0] == '-') {
		ft_warnx("%s='%s' is malformed; %" PRIu64 " is used", name, s,
		    dflt);
		return dflt;
	}
	return v;
}

static void
rank_path(char *buf, size_t size, uint64_t epoch)
{
	size_t off = strlen(S.dir);

	snprintf(buf, size, "%s/", S.dir);
	(void)ft_ckpt_name(buf + off + 1, size - off - 1, S.job, S.rank,
	    epoch);
}

/* The ranks agree: MPI_MAX (op 0) or MPI_MIN (op 1) of v. */
static uint64_t
agree(uint64_t v, int min)
{
	unsigned long long in = v, out = v;

	if (S.have_comm && PMPI_Allreduce(&in, &out, 1,
	    MPI_UNSIGNED_LONG_LONG, min ? MPI_MIN : MPI_MAX, S.comm) !=
	    MPI_SUCCESS)
		return v;
	return out;
}

/* Epochs of this rank's complete images, ascending (heap). */
static int
local_epochs(uint64_t **eps, size_t *n)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/job-%016" PRIx64 "/rank-%u", S.dir,
	    S.job, S.rank);
	if (ft__store_list_ids(path, "", ".ftc", 0, UINT64_MAX, eps,
	    n) != 0) {
		*eps = NULL;
		*n = 0;
		return errno == ENOENT ? 0 : -1;
	}
	return 0;
}

/* The newest epoch <= limit whose image verifies, or 0; says why not. */
static uint64_t
newest_good(const uint64_t *eps, size_t n, uint64_t limit)
{
	char path[PATH_MAX], why[FT_LOG_WHY];
	size_t i;

	for (i = n; i > 0; i--) {
		if (eps[i - 1] > limit || eps[i - 1] == 0)
			continue;
		rank_path(path, sizeof(path), eps[i - 1]);
		if (ft_ckpt_verify(AT_FDCWD, path, NULL, why,
		    sizeof(why)) == 0)
			return eps[i - 1];
		ft_warnx("%s; falling back to an older image", why);
	}
	return 0;
}

/*
 * The restart: the newest epoch of which every rank has a good image.
 * Images newer than it belong to no complete global checkpoint: they
 * are removed, so that they can never be mistaken for one.
 */
static void
restart_agree(void)
{
	char path[PATH_MAX];
	uint64_t *eps, c = UINT64_MAX, mine;
	size_t n, i;

	if (local_epochs(&eps, &n) != 0)
		ft_warn("checkpoint directory '%s'", S.dir);
	for (;;) {
		mine = newest_good(eps, n, c);
		c = agree(mine, 1);
		if (agree(mine == c, 1) == 1)
			break;
	}
	for (i = 0; i < n; i++)
		if (eps[i] > c) {
			rank_path(path, sizeof(path), eps[i]);
			if (unlink(path) == 0)
				ft_info("'%s' is not part of a complete "
				    "checkpoint: removed", path);
		}
	free(eps);
	S.epoch = c;
	S.restarted = c > 0;
	if (c == 0 && S.rank == 0)
		ft_warnx("no complete checkpoint of job %016" PRIx64 " in "
		    "'%s': starting from the beginning", S.job, S.dir);
	else if (S.rank == 0)
		ft_info("restarting job %016" PRIx64 " from epoch %" PRIu64,
		    S.job, c);
}

static void *push_main(void *);

static void
setup(void)
{
	const char *s, *keyfile;
	char why[FT_LOG_WHY];
	int flag = 0, r, sz;

	S.init = 1;
	S.last_ns = S.check_ns = ft_now_ns();
	S.calls = S.check_calls = 0;
	S.next_check = 1;
	if ((s = getenv(ENV_DIR)) == NULL || *s == '\0')
		return;
	if (strlen(s) >= sizeof(S.dir)) {
		ft_warnx("%s is longer than %zu bytes: no checkpoints",
		    ENV_DIR, sizeof(S.dir) - 1);
		return;
	}
	snprintf(S.dir, sizeof(S.dir), "%s", s);
	S.job = env_u64(ENV_JOB, 0, 16);
	S.interval_ns = env_u64(ENV_INTERVAL, 0, 10);
	S.keep = (uint32_t)env_u64(ENV_KEEP, 3, 10);
	if (S.keep < 3)
		S.keep = 3;
	S.level = (int)env_u64(ENV_LEVEL, FT_CKPT_LEVEL_DEFAULT, 10);
	if (S.level < 1 || S.level > FT_CKPT_LEVEL_MAX)
		S.level = FT_CKPT_LEVEL_DEFAULT;
	S.size = 1;
	if (PMPI_Initialized(&flag) == MPI_SUCCESS && flag &&
	    PMPI_Comm_dup(MPI_COMM_WORLD, &S.comm) == MPI_SUCCESS) {
		S.have_comm = 1;
		PMPI_Comm_rank(S.comm, &r);
		PMPI_Comm_size(S.comm, &sz);
		S.rank = (uint32_t)r;
		S.size = (uint32_t)sz;
	}
	S.enabled = 1;
	if ((s = getenv(ENV_RESTART)) != NULL && strcmp(s, "1") == 0)
		restart_agree();
	S.lease = ft_ckpt_lease(S.dir, S.job, S.rank, S.epoch, -1, why,
	    sizeof(why));
	if (S.lease < 0)
		ft_warnx("%s", why);
	if ((s = getenv(ENV_SERVER)) != NULL && *s != '\0') {
		keyfile = getenv(ENV_KEYFILE);
		if (keyfile == NULL || ft_cluster_key_load(keyfile,
		    S.push.key, why, sizeof(why)) != 0) {
			ft_warnx("checkpoint server %s: %s", s, keyfile ==
			    NULL ? "no key file" : why);
			return;
		}
		snprintf(S.push.addr, sizeof(S.push.addr), "%s", s);
		pthread_mutex_init(&S.push.mu, NULL);
		pthread_cond_init(&S.push.cv, NULL);
		if (pthread_create(&S.push.th, NULL, push_main, NULL) == 0)
			S.push.started = 1;
		else
			ft_warn("checkpoint server %s: no thread to push", s);
	}
}

static void
ensure(void)
{
	if (!S.init)
		setup();
}

FT_EXPORT int
ft_restarted(void)
{
	/* Or a new process in a failed one's place (--ft ftmpi
	 * --comm-mode rebuild): one meaning, "this process starts over".
	 * Such a job has no checkpoints (ftrun refuses the two). */
	if (ft__mpi.replacement != 0)
		return 1;
	ensure();
	return S.restarted;
}

FT_EXPORT int
ft_recover(void)
{
	struct ft_ckpt_reader r;
	char path[PATH_MAX], why[FT_LOG_WHY];
	uint32_t i;
	int fd, k, rc = -1;

	ensure();
	if (!S.restarted) {
		errno = ENOENT;
		return -1;
	}
	rank_path(path, sizeof(path), S.epoch);
	/* Never restore half an image: check it whole first. */
	if (ft_ckpt_verify(AT_FDCWD, path, NULL, why, sizeof(why)) != 0) {
		ft_errorx("%s", why);
		return -1;
	}
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ft_error("image '%s'", path);
		return -1;
	}
	if (ft_ckpt_open(&r, fd, path) != 0)
		goto out;
	for (i = 0; i < r.h->nregions; i++)
		if (find((int)r.h->reg[i].id) < 0 && r.h->reg[i].id <= INT_MAX)
			ft_warnx("image '%s': region %u is not protected now: "
			    "skipped", path, r.h->reg[i].id);
	for (k = 0; k < (int)S.nreg; k++) {
		for (i = 0; i < r.h->nregions; i++)
			if (r.h->reg[i].id == (uint32_t)S.reg[k].id)
				break;
		if (i == r.h->nregions || r.h->reg[i].size != S.reg[k].size) {
			snprintf(r.why, sizeof(r.why), "image '%.200s': region %d "
			    "%s", path, S.reg[k].id, i == r.h->nregions ?
			    "is not in it" : "has another size in it");
			errno = EINVAL;
			goto out;
		}
	}
	for (i = 0; i < r.h->nregions; i++) {
		k = r.h->reg[i].id <= INT_MAX ? find((int)r.h->reg[i].id) : -1;
		if (ft_ckpt_read(&r, k >= 0 ? S.reg[k].p : NULL,
		    r.h->reg[i].size) != 0)
			goto out;
	}
	rc = ft_ckpt_done(&r);
out:
	if (rc != 0)
		ft_errorx("%s", r.why);
	ft_ckpt_close(&r);
	close(fd);
	return rc;
}

/* Drop the images older than the keep newest. */
static void
retire(void)
{
	char path[PATH_MAX];
	uint64_t *eps;
	size_t n, i;

	if (local_epochs(&eps, &n) != 0)
		return;
	for (i = 0; i + S.keep < n; i++)
		if (eps[i] + S.keep <= S.epoch) {
			rank_path(path, sizeof(path), eps[i]);
			(void)unlink(path);
		}
	free(eps);
}

/*
 * Is a checkpoint due at this call?  Collective at checks only: one
 * MPI_MAX over (is a rank due, the slowest rank's time per call since
 * the last check), which sets the stride to the next check.
 */
static int
due(void)
{
	unsigned long long in[2], out[2];
	uint64_t now, stride;

	S.calls++;
	if (S.calls < S.next_check)
		return 0;
	now = ft_now_ns();
	in[0] = now - S.last_ns >= S.interval_ns;
	in[1] = (now - S.check_ns) / (S.calls - S.check_calls);
	out[0] = in[0];
	out[1] = in[1];
	if (S.have_comm)
		(void)PMPI_Allreduce(in, out, 2, MPI_UNSIGNED_LONG_LONG,
		    MPI_MAX, S.comm);
	stride = out[1] > 0 ? S.interval_ns / CHECKS / out[1] : 1;
	if (stride < 1)
		stride = 1;
	if (stride > STRIDE_MAX)
		stride = STRIDE_MAX;
	S.check_ns = now;
	S.check_calls = S.calls;
	S.next_check = S.calls + stride;
	return out[0] != 0;
}

FT_EXPORT int
ft_checkpoint(void)
{
	struct ft_ckpt_hdr *h;
	const void **src;
	char name[FT_CKPT_NAME_MAX], why[FT_LOG_WHY];
	uint64_t t0 = ft_now_ns();
	size_t i;
	int dfd, rc = -1;

	ensure();
	if (!S.enabled || !due())
		return 0;
	if ((h = calloc(1, sizeof(*h))) == NULL ||
	    (src = calloc(S.nreg + 1, sizeof(*src))) == NULL) {
		free(h);
		return -1;
	}
	h->job = S.job;
	h->rank = S.rank;
	h->nranks = S.size;
	h->epoch = S.epoch + 1;
	snprintf(h->proto, sizeof(h->proto), "%.15s", ft__mpi.env.proto[0] !=
	    '\0' ? ft__mpi.env.proto : "none");
	h->level = (uint8_t)S.level;
	h->nregions = (uint32_t)S.nreg;
	for (i = 0; i < S.nreg; i++) {
		h->reg[i].id = (uint32_t)S.reg[i].id;
		h->reg[i].size = S.reg[i].size;
		src[i] = S.reg[i].p;
	}
	(void)ft_ckpt_name(name, sizeof(name), S.job, S.rank, h->epoch);
	if ((dfd = open(S.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ft_error("checkpoint directory '%s'", S.dir);
		goto out;
	}
	rc = ft_ckpt_write(dfd, name, h, src, NULL, why, sizeof(why));
	close(dfd);
	if (rc != 0) {
		ft_errorx("checkpoint of epoch %" PRIu64 ": %s", h->epoch,
		    why);
		goto out;
	}
	S.epoch = h->epoch;
	S.last_ns = ft_now_ns();
	if (S.lease >= 0)
		(void)ft_ckpt_lease(S.dir, S.job, S.rank, S.epoch - 1, S.lease,
		    why, sizeof(why));
	retire();
	S.st.epoch = S.epoch;
	S.st.raw = h->raw;
	S.st.stored = h->hdrlen + h->stored;
	S.st.held_ns = ft_now_ns() - t0;
	if (S.push.started) {
		pthread_mutex_lock(&S.push.mu);
		S.push.want = S.epoch;
		S.push.want_t0 = t0;
		pthread_cond_signal(&S.push.cv);
		pthread_mutex_unlock(&S.push.mu);
	}
	rc = 1;
out:
	free(h);
	free(src);
	return rc;
}

FT_EXPORT int
ft_checkpoint_stat(struct ft_ckpt_stat *st)
{
	if (st == NULL) {
		errno = EINVAL;
		return -1;
	}
	if (S.push.started)
		pthread_mutex_lock(&S.push.mu);
	*st = S.st;
	if (S.push.started)
		pthread_mutex_unlock(&S.push.mu);
	return 0;
}

/* Push one epoch: 0 once the server holds it durably. */
static int
push_one(uint64_t epoch)
{
	struct ft_msg_ckpt_req q;
	char path[PATH_MAX];
	int fd, rc;

	rank_path(path, sizeof(path), epoch);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;	/* retired already: a newer one follows */
	if (!S.push.k.open && ft_ckptc_open(&S.push.k, S.push.addr,
	    S.push.key, PUSH_TIMEOUT) != 0) {
		close(fd);
		return -1;
	}
	rc = ft_ckptc_put(&S.push.k, fd, S.job, S.rank, epoch);
	close(fd);
	if (rc == 0) {
		/* The server keeps what we may restart from. */
		memset(&q, 0, sizeof(q));
		q.op = FT_CKPT_PIN;
		q.job = S.job;
		q.rank = S.rank;
		q.epoch = epoch - 1;
		rc = ft_ckptc_request(&S.push.k, &q, NULL, NULL);
	}
	if (rc != 0)
		ft_ckptc_close(&S.push.k);
	return rc;
}

static void *
push_main(void *arg)
{
	uint64_t epoch, t0;
	int rc;

	(void)arg;
	pthread_mutex_lock(&S.push.mu);
	for (;;) {
		while (S.push.want == 0 && !S.push.stop)
			pthread_cond_wait(&S.push.cv, &S.push.mu);
		if (S.push.want == 0)
			break;
		epoch = S.push.want;
		t0 = S.push.want_t0;
		S.push.want = 0;
		S.push.busy = 1;
		pthread_mutex_unlock(&S.push.mu);
		rc = push_one(epoch);
		pthread_mutex_lock(&S.push.mu);
		S.push.busy = 0;
		if (rc == 0) {
			S.st.durable_epoch = epoch;
			S.st.durable_ns = ft_now_ns() - t0;
		} else if (S.push.warned != epoch) {
			S.push.warned = epoch;
			ft_warnx("epoch %" PRIu64 " not pushed: %s", epoch,
			    S.push.k.why);
		}
		pthread_cond_broadcast(&S.push.cv);
	}
	pthread_mutex_unlock(&S.push.mu);
	return NULL;
}

void
ft__ckpt_finalize(void)
{
	if (S.push.started) {
		/* What was saved reaches the server before the job ends. */
		pthread_mutex_lock(&S.push.mu);
		S.push.stop = 1;
		pthread_cond_broadcast(&S.push.cv);
		pthread_mutex_unlock(&S.push.mu);
		pthread_join(S.push.th, NULL);
		ft_ckptc_close(&S.push.k);
		explicit_bzero(S.push.key, sizeof(S.push.key));
		S.push.started = 0;
	}
	if (S.have_comm) {
		PMPI_Comm_free(&S.comm);
		S.have_comm = 0;
	}
}
