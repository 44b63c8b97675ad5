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
#include <signal.h>
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
#define ENV_ROLLBACK	"FT_CKPT_ROLLBACK"	/* --ft coord: epoch limit */
#define PSTATE_MAX	(UINT64_C(1) << 32)
#define ENV_SCHED	"FT_CKPT_SCHED"	/* "ftrun": DUE frames decide */
#define ENV_TEST_DIE	"FT_CKPT_TEST_DIE"	/* tests: WHERE:EPOCH */
#define ENV_EVERY	"FT_CKPT_EVERY"	/* --ft vlog: every N calls */
/* --ft vlog's sender-log file (vlogbw): payloads from this size (bytes)
 * go there; "off": none, images hold the payloads (before vlogbw). */
#define ENV_LOGFILE	"FT_CKPT_VLOG_LOGFILE"
#define VLOG_LOGNAME	"sendlog"	/* DIR/job-J/rank-R/sendlog */
#define HOLD_NS		(10ull * 1000000000u)	/* ft__ckpt_hold */
#define CHECKS		10		/* checks per interval */
#define STRIDE_MAX	100000u
#define PUSH_TIMEOUT	(60ull * 1000000000u)
#define POLL_NS		(10ull * 1000000u)	/* sched_due */
#define ENV_PUSH	"FT_CKPT_PUSH"	/* "ftrun": PUSH frames decide */
#define PUSH_RETRY_NS	(1000000000ull)

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
	/* --ft coord (coordsrv): ftrun names the epoch to push (PUSH),
	 * the same on every rank; a failed push is tried again every
	 * PUSH_RETRY_NS.  When each recent image's ft_checkpoint() began,
	 * by epoch. */
	int		 ftrun;
	uint64_t	 t0e[8], t0[8];
	/* ckptsrv2: the server could not be reached at the last push
	 * (down; its epoch), and what ftrun was last told of it (told,
	 * main thread): it reports a server that died once, and one that
	 * is back.  --ft vlog too retries the newest image every second,
	 * so that a restarted server gets it. */
	int		 down, told;
	uint64_t	 down_epoch;
};

/*
 * --ft coord: the image of a cut is written by a thread from the cut's
 * copy, so that ft_checkpoint() returns once the copy is taken.  One
 * image at a time: has, it holds one to write; done, one written whose
 * outcome the main thread has not taken yet (it tells ftrun, retires,
 * pushes: image_done).  The next image waits for the last (writer_give).
 */
struct writer {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	int		 started, stop, has, done, waiting, rc;
	struct ft_ckpt_hdr *h;
	void		**copy;		/* the regions' bytes at the cut */
	size_t		 n;
	struct ft_wbuf	 ps;		/* the protocol's state */
	uint64_t	 t0;		/* when its ft_checkpoint() began */
	char		 why[FT_LOG_WHY];
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
	uint64_t	 poll_ns, poll_waits;	/* sched_due's last poll */
	int		 have_comm;
	MPI_Comm	 comm;
	struct region	*reg;
	size_t		 nreg, capreg;
	int		 lease;
	struct ft_ckpt_stat st;
	struct pusher	 push;
	struct writer	 w;
	/* --ft coord: the last cut, the cut whose channel state is still
	 * being recorded (its regions copied), the last epoch ftrun was
	 * told is durable. */
	int		 coord;
	uint64_t	 cut;
	struct {
		uint64_t	 epoch, t0;
		void		**copy;
		size_t		 n;	/* regions copied */
		struct region	*was;	/* and what they were */
	}		 pend;
	uint64_t	 told_durable;
	uint64_t	 complete;	/* ftrun's newest complete epoch */
	/* ftrun's scheduler (--ft coord --ckpt-interval): the epoch it
	 * asked for, and the call to take it at (0: not known yet). */
	int		 sched;
	int		 asked, replied;
	uint64_t	 due_epoch, due_call;
	/* Tests (FT_CKPT_TEST_DIE=cut|writing|written|lost|push:E[:R],
	 * first run only, rank R only): die there at epoch E; complete:E,
	 * at the first call once epoch E is complete (coordsrv); hold:E, the writer holds E's
	 * image until the main thread waits for it; error:E, an error
	 * (MPI_ERR_OTHER) at the cut of E, as a transport error. */
	char		 die_at[16];
	uint64_t	 die_epoch;
	/* lost:E when ftrun names the pushes: E is written, and the rank
	 * dies at its first call once an epoch is complete (flakes). */
	uint64_t	 lost_at;
	/* --ft vlog (issue 15): each rank saves alone; the epoch its
	 * process was restored from at MPI_Init (0: none); a checkpoint
	 * every `every` calls (FT_CKPT_EVERY) or every interval; the
	 * last epoch the protocol heard durable. */
	int		 vlog;
	uint64_t	 vlog_from, every, vlog_durable;
	struct ft_wbuf	 vbuf;		/* the last state's room, reused */
	/* --ft vlog (vlogbw): the sender-log file images name, made
	 * durable before each image; -1: none. */
	int		 vlog_logfd;
	uint64_t	 nimages, img_bytes;	/* written (FT_VLOG_STATS) */
	/* coordsrv: the image a restart checked, decompressed once and
	 * kept for ft_recover (image_stage): its epoch (0: none), header,
	 * regions in header order, protocol state. */
	struct {
		uint64_t	 epoch;
		struct ft_ckpt_hdr *h;
		void		**reg;
		uint8_t		*ps;
	}		 stg;
} S = { .lease = -1, .vlog_logfd = -1 };

static void	rank_path(char *, size_t, uint64_t);
static void	vlog_logpath(char *, size_t);
static void	copies_free(void **, size_t);
static void	server_news(void);

/* Tests: flip a byte in the middle of the file at path. */
static void
corrupt_byte(const char *path)
{
	struct stat sb;
	uint8_t b;
	int fd;

	if ((fd = open(path, O_RDWR | O_CLOEXEC)) < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0 &&
	    pread(fd, &b, 1, sb.st_size / 2) == 1) {
		b ^= 0x40;
		(void)!pwrite(fd, &b, 1, sb.st_size / 2);
	}
	close(fd);
}

/* A test's fault at a point of the checkpoint of epoch: SIGKILL. */
static void
test_die(const char *where, uint64_t epoch)
{
	char cmd[PATH_MAX + 64];

	if (strcmp(where, "cut") == 0 && strcmp(S.die_at, "error") == 0 &&
	    epoch == S.die_epoch) {
		/* Not a death: an error, as a transport error would be. */
		S.die_epoch = 0;
		(void)ft__mpi_err(MPI_COMM_WORLD, MPI_ERR_OTHER,
		    "ft_checkpoint", "a test's transport error at the cut of "
		    "epoch %" PRIu64, epoch);
		return;
	}
	/* A push may skip epochs (only the newest is wanted): the first
	 * push at or after it. */
	if (strcmp(S.die_at, where) != 0 || S.die_epoch == 0 ||
	    (strcmp(where, "push") == 0 ? epoch < S.die_epoch :
	    epoch != S.die_epoch))
		return;
	if (strcmp(where, "corrupt") == 0) {
		/* One byte of its newest image flips, then it dies. */
		rank_path(cmd, sizeof(cmd), epoch);
		corrupt_byte(cmd);
	}
	if (strcmp(where, "logcorrupt") == 0 && S.vlog_logfd >= 0) {
		/* The newest payload its newest image names flips. */
		struct ft_ext x = { .op = FT_EXT_VLOG_STATS };
		uint8_t b;

		if (ft_pt_ext(ft__mpi.pt, &x) == 0 && x.vlog_cutlen > 0 &&
		    pread(S.vlog_logfd, &b, 1, (off_t)(x.vlog_cutoff +
		    x.vlog_cutlen / 2)) == 1) {
			b ^= 0x5a;
			(void)!pwrite(S.vlog_logfd, &b, 1, (off_t)(
			    x.vlog_cutoff + x.vlog_cutlen / 2));
		}
	}
	if (strcmp(where, "nolog") == 0) {
		/* Its sender-log file is lost (its images are not). */
		vlog_logpath(cmd, sizeof(cmd));
		(void)unlink(cmd);
	}
	if (strcmp(where, "lost") == 0 && S.push.started && S.push.ftrun &&
	    S.complete == 0) {
		/*
		 * When ftrun names the pushes, its PUSH comes with this
		 * thread's calls and it names the next once every rank
		 * told it of the last: a wait here held every push up
		 * (for the whole bound, under load), and the job rolled
		 * back with nothing on the server to fetch.  Go on instead,
		 * and die at the first call once an epoch is complete
		 * (ft_checkpoint), before telling ftrun of a newer one:
		 * the rollback goes to one below E, from the server.
		 */
		S.lost_at = epoch;
		return;
	}
	if (strcmp(where, "lost") == 0 && S.push.started && !S.push.ftrun) {
		/* With a server, once the image before is there (a test
		 * that the restart fetches it; bounded all the same).
		 * Not under --ft coord with pushes ftrun names: the epoch
		 * it rolls back to is on the server by definition, and
		 * ftrun's PUSH needs this thread, which waits here (it
		 * waited out its 60 s in 1100's "lost:60", ckptsrv2). */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 60;
		pthread_mutex_lock(&S.push.mu);
		while (S.st.durable_epoch + 1 < epoch &&
		    pthread_cond_timedwait(&S.push.cv, &S.push.mu, &ts) == 0)
			;
		pthread_mutex_unlock(&S.push.mu);
	}
	if (strcmp(where, "lost") == 0) {
		/* Its disk is lost with it: its local images go. */
		snprintf(cmd, sizeof(cmd), "rm -rf '%s/job-%016" PRIx64
		    "/rank-%u'", S.dir, S.job, S.rank);
		(void)!system(cmd);
	}
	(void)raise(SIGKILL);
}

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

/*
 * An image read whole, decompressed once (coordsrv): the bytes of each
 * region the header lists, in header order (dst[i], or dropped when
 * NULL), then the protocol's state (into ps, or dropped when NULL),
 * then the content checksum at its end.  0, or -1 with r->why.
 * Nothing read may be used before it returns 0.
 */
static int
image_read(struct ft_ckpt_reader *r, void *const *dst, uint8_t *ps)
{
	uint32_t i;

	for (i = 0; i < r->h->nregions; i++)
		if (ft_ckpt_read(r, dst[i], r->h->reg[i].size) != 0)
			return -1;
	if (r->h->pstate > 0 && ft_ckpt_read(r, ps, r->h->pstate) != 0)
		return -1;
	return ft_ckpt_done(r);
}

static void
stage_free(void)
{
	if (S.stg.h != NULL)
		copies_free(S.stg.reg, S.stg.h->nregions);
	free(S.stg.h);
	free(S.stg.ps);
	memset(&S.stg, 0, sizeof(S.stg));
}

/*
 * Check our image of epoch whole (a restart, a rollback): decompressed
 * once, into room of its own that ft_recover then copies from, so that
 * an image is decompressed once per restart, and never half restored.
 * Without that room it is only checked (ft_recover reads it again).
 * 0, or -1 with why.
 */
static int
image_stage(uint64_t epoch, char *why, size_t whysize)
{
	struct ft_ckpt_reader r;
	char path[PATH_MAX];
	uint32_t i;
	int fd, rc = -1;

	if (S.stg.epoch == epoch && epoch != 0)
		return 0;
	stage_free();
	rank_path(path, sizeof(path), epoch);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		snprintf(why, whysize, "image '%.200s': %s", path,
		    strerror(errno));
		return -1;
	}
	memset(&r, 0, sizeof(r));
	if (ft_ckpt_open(&r, fd, path) != 0)
		goto out;
	if ((S.stg.h = malloc(sizeof(*S.stg.h))) == NULL ||
	    (S.stg.reg = calloc(r.h->nregions + 1, sizeof(void *))) == NULL ||
	    r.h->pstate > PSTATE_MAX || (r.h->pstate > 0 && !S.vlog &&
	    (S.stg.ps = malloc(r.h->pstate)) == NULL))
		goto noroom;
	memcpy(S.stg.h, r.h, sizeof(*r.h));
	for (i = 0; i < r.h->nregions; i++)
		if (r.h->reg[i].size > 0 && (S.stg.reg[i] =
		    malloc(r.h->reg[i].size)) == NULL)
			goto noroom;
	if ((rc = image_read(&r, S.stg.reg, S.stg.ps)) == 0)
		S.stg.epoch = epoch;
out:
	if (rc != 0) {
		snprintf(why, whysize, "%s", r.why);
		stage_free();
	}
	ft_ckpt_close(&r);
	close(fd);
	return rc;
noroom:
	stage_free();
	ft_ckpt_close(&r);
	close(fd);
	return ft_ckpt_verify(AT_FDCWD, path, NULL, why, whysize);
}

/* The newest epoch <= limit whose image verifies, or 0; says why not. */
static uint64_t
newest_good(const uint64_t *eps, size_t n, uint64_t limit)
{
	char why[FT_LOG_WHY];
	size_t i;

	for (i = n; i > 0; i--) {
		if (eps[i - 1] > limit || eps[i - 1] == 0)
			continue;
		if (image_stage(eps[i - 1], why, sizeof(why)) == 0)
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
restart_agree(uint64_t limit)
{
	char path[PATH_MAX];
	uint64_t *eps, c = limit, mine;
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
	if (c == 0 && S.rank == 0 && limit == UINT64_MAX)
		ft_warnx("no complete checkpoint of job %016" PRIx64 " in "
		    "'%s': starting from the beginning", S.job, S.dir);
	else if (S.rank == 0 && c > 0)
		ft_info("restarting job %016" PRIx64 " from epoch %" PRIu64,
		    S.job, c);
}

static void *push_main(void *);
static void *writer_main(void *);
static void vlog_setup(void);

/*
 * --ft coord: our image of epoch is missing or damaged here: get it
 * from the checkpoint server, if there is one.  0, or -1 (said why).
 */
static int
fetch(uint64_t epoch)
{
	const char *addr = getenv(ENV_SERVER), *keyfile = getenv(ENV_KEYFILE);
	char name[FT_CKPT_NAME_MAX], why[FT_LOG_WHY];
	uint8_t key[FT_WIRE_KEYLEN];
	struct ft_ckptc k;
	uint64_t got;
	int dfd, rc = -1;

	if (addr == NULL || *addr == '\0' || keyfile == NULL)
		return -1;
	if (ft_cluster_key_load(keyfile, key, why, sizeof(why)) != 0) {
		ft_warnx("checkpoint server %s: %s", addr, why);
		return -1;
	}
	if ((dfd = ft__ckpt_rankdir(S.dir, S.job, S.rank, why,
	    sizeof(why))) < 0) {
		ft_warnx("%s", why);
		explicit_bzero(key, sizeof(key));
		return -1;
	}
	close(dfd);
	if ((dfd = open(S.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ft_warn("checkpoint directory '%s'", S.dir);
		explicit_bzero(key, sizeof(key));
		return -1;
	}
	memset(&k, 0, sizeof(k));
	(void)ft_ckpt_name(name, sizeof(name), S.job, S.rank, epoch);
	if (ft_ckptc_open(&k, addr, key, PUSH_TIMEOUT) == 0 &&
	    ft_ckptc_get(&k, S.job, S.rank, epoch, dfd, name, &got) == 0) {
		ft_warnx("rank %u: epoch %" PRIu64 " was not here: fetched "
		    "from the checkpoint server %s", S.rank, epoch, addr);
		rc = 0;
	} else
		ft_warnx("rank %u: epoch %" PRIu64 " is not here, nor on the "
		    "checkpoint server: %s", S.rank, epoch, k.why);
	ft_ckptc_close(&k);
	close(dfd);
	explicit_bzero(key, sizeof(key));
	return rc;
}

/*
 * --ft coord: ftrun rolls every rank back to the newest epoch all of
 * them made durable (ft(7)).  An image missing here comes from the
 * server.  Restoring another epoch would print the wrong output and
 * mix epochs: the job ends instead.
 */
static void
rollback(uint64_t target)
{
	char why[FT_LOG_WHY];

	S.complete = target;
	if (target > 0 && image_stage(target, why, sizeof(why)) != 0)
		(void)fetch(target);
	restart_agree(target);
	if (S.epoch != target) {
		ft_errorx("rank %u: the job rolls back to epoch %" PRIu64 ", "
		    "which not every rank could restore; it cannot go on",
		    S.rank, target);
		exit(FT_EXIT_TEMP);
	}
}

/*
 * --ft coord: ftrun's scheduler (DUE).  ASK: a checkpoint of epoch is
 * due; OFF: it is called off; else: take it at that call.
 */
void
ft__ckpt_due(uint64_t epoch, uint64_t call)
{
	/* Kept even before the first ft_checkpoint() call sets S up. */
	if (call == FT_DUE_ASK) {
		S.asked = 1;
		S.replied = 0;
		S.due_epoch = epoch;
		S.due_call = 0;
	} else if (S.asked && epoch == S.due_epoch)
		S.due_call = call;
}

/*
 * ftrun's scheduler: at the first call after its ASK, tell it this
 * call's number and go on; it picks a call a little beyond the highest
 * any rank was at, and the checkpoint is taken there.  A rank already
 * past it says so, and ftrun calls the epoch off.  Nothing here waits
 * for another rank.  1 with *epoch when due.
 */
static int
sched_due(uint64_t *epoch)
{
	char text[80];
	uint64_t now;

	S.calls++;
	/* ftrun's ASK is read by any progress pass: a poll of our own only
	 * when the application made none since the last call, or none for
	 * POLL_NS, or while a round is under way (its DUE must be seen at
	 * once).  It saves a poll(2) at nearly every call. */
	now = ft_now_ns();
	if (S.asked || ft__mpi.waits == S.poll_waits ||
	    now - S.poll_ns >= POLL_NS) {
		ft__mpi_poll();
		S.poll_ns = now;
	}
	S.poll_waits = ft__mpi.waits;
	if (!S.asked)
		return 0;
	if (!S.replied) {
		S.replied = 1;
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " call=%" PRIu64,
		    S.due_epoch, S.calls);
		ft__mpi_note(FT_NOTE_CKPT, text);
	}
	if (S.due_call == 0)
		return 0;
	if (S.due_call == FT_DUE_OFF) {
		S.asked = 0;
		return 0;
	}
	if (S.calls > S.due_call) {
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " missed=1",
		    S.due_epoch);
		ft__mpi_note(FT_NOTE_CKPT, text);
		S.asked = 0;
		return 0;
	}
	if (S.calls < S.due_call)
		return 0;
	S.asked = 0;
	*epoch = S.due_epoch;
	return 1;
}

/*
 * --ft coord with a server (coordsrv): ftrun names the epoch every rank
 * pushes, the newest all of them wrote locally; the push thread takes
 * it (a newer name replaces one not yet under way).
 */
void
ft__ckpt_push(uint64_t epoch)
{
	if (!S.push.started || !S.push.ftrun)
		return;
	pthread_mutex_lock(&S.push.mu);
	if (epoch > S.st.durable_epoch && epoch > S.push.want) {
		S.push.want = epoch;
		S.push.want_t0 = S.push.t0e[epoch % 8] == epoch ?
		    S.push.t0[epoch % 8] : ft_now_ns();
		pthread_cond_signal(&S.push.cv);
	}
	pthread_mutex_unlock(&S.push.mu);
}

/* --ft coord: ftrun's news of the newest complete epoch (COMPLETE). */
void
ft__ckpt_complete(uint64_t epoch)
{
	char why[FT_LOG_WHY];

	if (!S.enabled || epoch <= S.complete)
		return;
	S.complete = epoch;
	/* It is what this rank may restart from: prune leaves it. */
	if (S.lease >= 0)
		(void)ft_ckpt_lease(S.dir, S.job, S.rank, epoch, S.lease, why,
		    sizeof(why));
}

static void
setup(void)
{
	const char *s, *keyfile;
	char why[FT_LOG_WHY];
	int flag = 0, r, sz, n;
	unsigned int dr;

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
	S.vlog = strcmp(ft__mpi.env.proto, "vlog") == 0;
	if (S.vlog) {
		vlog_setup();
		goto lease;
	}
	if (PMPI_Initialized(&flag) == MPI_SUCCESS && flag &&
	    PMPI_Comm_dup(MPI_COMM_WORLD, &S.comm) == MPI_SUCCESS) {
		S.have_comm = 1;
		PMPI_Comm_rank(S.comm, &r);
		PMPI_Comm_size(S.comm, &sz);
		S.rank = (uint32_t)r;
		S.size = (uint32_t)sz;
	}
	S.enabled = 1;
	S.coord = strcmp(ft__mpi.env.proto, "coord") == 0;
	S.sched = S.coord && (s = getenv(ENV_SCHED)) != NULL &&
	    strcmp(s, "ftrun") == 0;
	if ((s = getenv(ENV_ROLLBACK)) != NULL && *s != '\0')
		rollback(env_u64(ENV_ROLLBACK, 0, 10));
	else if ((s = getenv(ENV_RESTART)) != NULL && strcmp(s, "1") == 0)
		restart_agree(UINT64_MAX);
	S.cut = S.epoch;
	/* A test's fault happens once: never in a rolled-back process;
	 * WHERE:EPOCH:RANK, in that rank only. */
	if ((s = getenv(ENV_TEST_DIE)) != NULL && getenv(ENV_ROLLBACK) ==
	    NULL && ((n = sscanf(s, "%15[a-z]:%" SCNu64 ":%u", S.die_at,
	    &S.die_epoch, &dr)) < 2 || (n == 3 && dr != S.rank)))
		S.die_epoch = 0;
lease:
	S.lease = ft_ckpt_lease(S.dir, S.job, S.rank, S.epoch, -1, why,
	    sizeof(why));
	if (S.lease < 0)
		ft_warnx("%s", why);
	if (S.coord) {
		pthread_mutex_init(&S.w.mu, NULL);
		pthread_cond_init(&S.w.cv, NULL);
		ft_wbuf_init(&S.w.ps);
		/* Without it, images are written in ft_checkpoint(). */
		if (pthread_create(&S.w.th, NULL, writer_main, NULL) == 0)
			S.w.started = 1;
	}
	if ((s = getenv(ENV_SERVER)) != NULL && *s != '\0') {
		keyfile = getenv(ENV_KEYFILE);
		if (keyfile == NULL || ft_cluster_key_load(keyfile,
		    S.push.key, why, sizeof(why)) != 0) {
			ft_warnx("checkpoint server %s: %s", s, keyfile ==
			    NULL ? "no key file" : why);
			return;
		}
		snprintf(S.push.addr, sizeof(S.push.addr), "%s", s);
		S.push.ftrun = S.coord && (s = getenv(ENV_PUSH)) != NULL &&
		    strcmp(s, "ftrun") == 0;
		pthread_mutex_init(&S.push.mu, NULL);
		pthread_cond_init(&S.push.cv, NULL);
		if (pthread_create(&S.push.th, NULL, push_main, NULL) == 0)
			S.push.started = 1;
		else
			ft_warn("checkpoint server %s: no thread to push",
			    S.push.addr);
	}
}

/* --ft vlog: DIR/job-J/rank-R/sendlog, the sender-log file. */
static void
vlog_logpath(char *buf, size_t size)
{
	snprintf(buf, size, "%s/job-%016" PRIx64 "/rank-%u/" VLOG_LOGNAME,
	    S.dir, S.job, S.rank);
}

/*
 * --ft vlog (vlogbw, ft-ckpt(5) VLG2): the sender log's large payloads
 * go to the rank's sender-log file, written once, and images name
 * their extents instead of holding them.  fresh: a new file (empty);
 * else the file an image to be restored names (kept as it is; none:
 * that image is refused, naming it).  Without it (an error, a
 * checkpoint server, or FT_CKPT_VLOG_LOGFILE=off), images hold the
 * payloads.
 */
static void
vlog_logfile(int fresh)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_LOGFILE };
	char path[PATH_MAX], why[FT_LOG_WHY];
	const char *e = getenv(ENV_LOGFILE), *s;
	int dfd, fd;

	/* With a checkpoint server, images hold the payloads: a rank
	 * restarted elsewhere reads its image from the server, which does
	 * not hold the file (yet). */
	if (S.vlog_logfd >= 0 || (e != NULL && strcmp(e, "off") == 0) ||
	    ((s = getenv(ENV_SERVER)) != NULL && *s != '\0'))
		return;
	vlog_logpath(path, sizeof(path));
	if (!fresh)
		fd = open(path, O_RDWR | O_CLOEXEC);
	else if ((dfd = ft__ckpt_rankdir(S.dir, S.job, S.rank, why,
	    sizeof(why))) < 0) {
		ft_warnx("%s: images hold the sender log", why);
		return;
	} else {
		fd = openat(dfd, VLOG_LOGNAME, O_RDWR | O_CREAT | O_CLOEXEC,
		    0600);
		/* Its name is durable before an image names it. */
		if (fd >= 0 && ft_store_fsync_dir(dfd) != 0) {
			close(fd);
			fd = -1;
		}
		close(dfd);
	}
	if (fd < 0) {
		if (fresh || errno != ENOENT)
			ft_warn("sender log '%s'", path);
		return;
	}
	x.vlog_logfd = fd;
	x.vlog_logfresh = fresh;
	x.vlog_logmin = e != NULL ? strtoull(e, NULL, 10) : 0;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0) {
		ft_warn("sender log '%s'", path);
		close(fd);
		return;
	}
	S.vlog_logfd = fd;
}

/*
 * --ft vlog: no communicator of our own, no agreement: a rank's images
 * are its own (message logging needs no coordination), and a process
 * restarted from an image must not communicate before it is restored.
 */
static void
vlog_setup(void)
{
	const char *s, *inc;
	unsigned int r;
	int n;

	S.rank = ft__mpi.env.rank;
	S.size = ft__mpi.env.size;
	S.enabled = 1;
	S.every = env_u64(ENV_EVERY, 0, 10);
	S.sched = (s = getenv(ENV_SCHED)) != NULL && strcmp(s, "ftrun") == 0;
	S.epoch = S.cut = S.vlog_from;
	S.restarted = S.vlog_from > 0;
	S.vlog_durable = S.vlog_from;
	/* Restored from an image: its file is open already, kept. */
	vlog_logfile(1);
	/* Its images are written in the background, as coord's: the
	 * sender log they carry makes them large. */
	pthread_mutex_init(&S.w.mu, NULL);
	pthread_cond_init(&S.w.cv, NULL);
	ft_wbuf_init(&S.w.ps);
	if (pthread_create(&S.w.th, NULL, writer_main, NULL) == 0)
		S.w.started = 1;
	/* A test's fault happens in the first process only, of one rank
	 * (WHERE:EPOCH:RANK) or of every rank. */
	if ((s = getenv(ENV_TEST_DIE)) != NULL && ((inc = getenv(
	    FT_ENV_INCARNATION)) == NULL || strcmp(inc, "0") == 0) &&
	    (n = sscanf(s, "%15[a-z]:%" SCNu64 ":%u", S.die_at, &S.die_epoch,
	    &r)) >= 2 && n == 3 && r != S.rank)
		S.die_epoch = 0;
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

/*
 * The protocol's state in the image (coord: the messages in flight at
 * the cut) goes back to the protocol, which delivers them again.
 * --ft vlog (ps NULL): it went to the protocol at MPI_Init.
 */
static int
restore_pstate(const struct ft_ckpt_hdr *h, const uint8_t *ps,
    const char *path, char *why, size_t whysize)
{
	struct ft_rbuf rb;

	if (h->pstate == 0)
		return 0;
	ft_rbuf_init(&rb, ps, h->pstate);
	if (ft__mpi.pt == NULL || ft_pt_restore(ft__mpi.pt, &rb) != 0) {
		snprintf(why, whysize, "image '%.200s': its %s state is not "
		    "this protocol's, or is damaged", path, h->proto);
		return -1;
	}
	return 0;
}

FT_EXPORT int
ft_recover(void)
{
	struct ft_ckpt_reader r;
	struct ft_ckpt_hdr *h;
	char path[PATH_MAX], note[64];
	void **dst = NULL;
	uint8_t *ps = NULL;
	uint64_t t0;
	uint32_t i;
	int fd = -1, k, rc = -1;

	ensure();
	if (!S.restarted) {
		errno = ENOENT;
		return -1;
	}
	t0 = ft_now_ns();
	memset(&r, 0, sizeof(r));
	rank_path(path, sizeof(path), S.epoch);
	/* Never restore half an image: the restart checked it whole,
	 * decompressed into room of its own (image_stage), which is
	 * copied; without that room, it was checked and is read again
	 * into the regions. */
	if (image_stage(S.epoch, r.why, sizeof(r.why)) != 0)
		goto out;
	if ((h = S.stg.h) == NULL) {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
			ft_error("image '%s'", path);
			return -1;
		}
		if (ft_ckpt_open(&r, fd, path) != 0)
			goto out;
		h = r.h;
	}
	for (i = 0; i < h->nregions; i++)
		if (find((int)h->reg[i].id) < 0 && h->reg[i].id <= INT_MAX)
			ft_warnx("image '%s': region %u is not protected now: "
			    "skipped", path, h->reg[i].id);
	for (k = 0; k < (int)S.nreg; k++) {
		for (i = 0; i < h->nregions; i++)
			if (h->reg[i].id == (uint32_t)S.reg[k].id)
				break;
		if (i == h->nregions || h->reg[i].size != S.reg[k].size) {
			snprintf(r.why, sizeof(r.why), "image '%.200s': region %d "
			    "%s", path, S.reg[k].id, i == h->nregions ?
			    "is not in it" : "has another size in it");
			errno = EINVAL;
			goto out;
		}
	}
	if (S.stg.h != NULL) {
		for (i = 0; i < h->nregions; i++)
			if (h->reg[i].id <= INT_MAX && (k =
			    find((int)h->reg[i].id)) >= 0 && h->reg[i].size > 0)
				memcpy(S.reg[k].p, S.stg.reg[i],
				    h->reg[i].size);
		ps = S.stg.ps;
	} else {
		if ((dst = calloc(h->nregions + 1, sizeof(*dst))) == NULL ||
		    h->pstate > PSTATE_MAX || (h->pstate > 0 && !S.vlog &&
		    (ps = malloc(h->pstate)) == NULL)) {
			snprintf(r.why, sizeof(r.why), "image '%.200s': out of "
			    "memory", path);
			goto out;
		}
		for (i = 0; i < h->nregions; i++)
			if (h->reg[i].id <= INT_MAX &&
			    (k = find((int)h->reg[i].id)) >= 0)
				dst[i] = S.reg[k].p;
		if (image_read(&r, dst, ps) != 0)
			goto out;
	}
	/* --ft vlog: the state went to the protocol at MPI_Init. */
	rc = S.vlog ? 0 : restore_pstate(h, ps, path, r.why, sizeof(r.why));
out:
	if (rc != 0)
		ft_errorx("%s", r.why);
	if (ps != S.stg.ps)
		free(ps);
	free(dst);
	stage_free();
	ft_ckpt_close(&r);
	if (fd >= 0)
		close(fd);
	if (rc == 0 && S.coord) {
		/* ftrun times the rollback's phases (--events). */
		snprintf(note, sizeof(note), "epoch=%" PRIu64 " restored=%"
		    PRIu64, S.epoch, (ft_now_ns() - t0) / 1000 + 1);
		ft__mpi_note(FT_NOTE_CKPT, note);
	}
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
		/* --ft coord: what a rollback goes back to stays. */
		if (eps[i] + S.keep <= S.epoch && !(S.coord &&
		    eps[i] >= S.complete)) {
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

/* Epoch's image header (calloc'd), for pstate bytes of the protocol. */
static struct ft_ckpt_hdr *
image_hdr(uint64_t epoch, size_t pstate)
{
	struct ft_ckpt_hdr *h;
	size_t i;

	if ((h = calloc(1, sizeof(*h))) == NULL)
		return NULL;
	h->job = S.job;
	h->rank = S.rank;
	h->nranks = S.size;
	h->epoch = epoch;
	snprintf(h->proto, sizeof(h->proto), "%.15s", ft__mpi.env.proto[0] !=
	    '\0' ? ft__mpi.env.proto : "none");
	h->level = (uint8_t)S.level;
	h->nregions = (uint32_t)S.nreg;
	h->pstate = pstate;
	for (i = 0; i < S.nreg; i++) {
		h->reg[i].id = (uint32_t)S.reg[i].id;
		h->reg[i].size = S.reg[i].size;
	}
	return h;
}

/*
 * Write h's image (temporary name, fsync, rename, directory fsync):
 * 0, or -1 with why.  Touches nothing of S but what setup() set, so
 * that the writer thread may call it.
 */
static int
image_write(struct ft_ckpt_hdr *h, const void *const *src,
    const void *pstate, char *why, size_t whysize)
{
	char name[FT_CKPT_NAME_MAX];
	int dfd, rc;

	/* The payloads its VLG2 state names are durable first. */
	if (S.vlog_logfd >= 0 && fdatasync(S.vlog_logfd) != 0) {
		snprintf(why, whysize, "sender log '%.200s/job-%016" PRIx64
		    "/rank-%u/" VLOG_LOGNAME "': %s", S.dir, S.job, S.rank,
		    strerror(errno));
		return -1;
	}
	(void)ft_ckpt_name(name, sizeof(name), S.job, S.rank, h->epoch);
	if ((dfd = open(S.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		snprintf(why, whysize, "checkpoint directory '%.200s': %s", S.dir,
		    strerror(errno));
		return -1;
	}
	rc = ft_ckpt_write(dfd, name, h, src, pstate, why, whysize);
	close(dfd);
	return rc;
}

/* The application was held ns by a checkpoint (add: by more of it). */
static void
held(uint64_t ns, int add)
{
	if (S.push.started)
		pthread_mutex_lock(&S.push.mu);
	S.st.held_ns = add ? S.st.held_ns + ns : ns;
	if (S.push.started)
		pthread_mutex_unlock(&S.push.mu);
}

/*
 * h's image is written: it is the newest; retire, pin, push, and tell
 * ftrun (durable now without a server).  t0: when its ft_checkpoint()
 * began.
 */
static void
image_done(const struct ft_ckpt_hdr *h, uint64_t t0)
{
	char why[FT_LOG_WHY], text[64];

	S.epoch = h->epoch;
	S.last_ns = ft_now_ns();
	if (S.lease >= 0)
		(void)ft_ckpt_lease(S.dir, S.job, S.rank, S.coord ? S.complete :
		    S.epoch - 1, S.lease, why, sizeof(why));
	retire();
	if (S.push.started)
		pthread_mutex_lock(&S.push.mu);
	S.st.epoch = S.epoch;
	S.st.raw = h->raw;
	S.st.stored = h->hdrlen + h->stored;
	S.nimages++;
	S.img_bytes += h->hdrlen + h->stored;
	if (!S.w.started)
		S.st.held_ns = ft_now_ns() - t0;
	if (S.push.started && S.push.ftrun) {
		/* Pushed when ftrun names it (PUSH). */
		S.push.t0e[S.epoch % 8] = S.epoch;
		S.push.t0[S.epoch % 8] = t0;
		pthread_mutex_unlock(&S.push.mu);
	} else if (S.push.started) {
		/* (--ft vlog's writer handed it over already.) */
		if (!(S.vlog && S.w.started)) {
			S.push.want = S.epoch;
			S.push.want_t0 = t0;
			pthread_cond_signal(&S.push.cv);
		}
		pthread_mutex_unlock(&S.push.mu);
	}
	test_die("written", S.epoch);
	test_die("lost", S.epoch);
	test_die("corrupt", S.epoch);
	test_die("logcorrupt", S.epoch);
	test_die("nolog", S.epoch);
	if (S.coord) {
		/* Without a server, the directory is the store. */
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " durable=%d",
		    S.epoch, !S.push.started);
		ft__mpi_note(FT_NOTE_CKPT, text);
		if (!S.push.started)
			S.told_durable = S.epoch;
	}
}

/*
 * Write epoch's image from src[] (the regions' bytes) and pstate (the
 * protocol's state, may be NULL), then retire, pin and push.  t0: when
 * its ft_checkpoint() began.  0, or -1 (said why).
 */
static int
write_image(uint64_t epoch, const void **src, const struct ft_wbuf *pstate,
    uint64_t t0)
{
	struct ft_ckpt_hdr *h;
	char why[FT_LOG_WHY];
	int rc;

	if ((h = image_hdr(epoch, pstate != NULL ? pstate->len : 0)) == NULL)
		return -1;
	rc = image_write(h, src, pstate != NULL ? pstate->p : NULL, why,
	    sizeof(why));
	if (rc != 0)
		ft_errorx("checkpoint of epoch %" PRIu64 ": %s", epoch, why);
	else
		image_done(h, t0);
	free(h);
	return rc;
}

static void
copies_free(void **copy, size_t n)
{
	size_t i;

	if (copy != NULL)
		for (i = 0; i < n; i++)
			free(copy[i]);
	free(copy);
}

/*
 * The writer is done with a protocol state: --ft vlog keeps the buffer
 * for the next (its state carries the sender log: large, and memory
 * written again costs a tenth of fresh memory).
 */
static void
ps_done(struct ft_wbuf *ps)
{
	if (S.vlog && S.vbuf.p == NULL) {
		S.vbuf = *ps;
		ft_wbuf_reset(&S.vbuf);
	} else
		ft_wbuf_release(ps);
}

/*
 * Take the writer's outcome, if it has one; wait: first wait until it
 * holds no image (waiting is the gate of the hold:E test point).
 */
static void
writer_finish(int wait)
{
	struct ft_ckpt_hdr *h;
	struct ft_wbuf ps;
	char why[FT_LOG_WHY];
	void **copy;
	size_t n;
	uint64_t t0;
	int rc;

	if (!S.w.started)
		return;
	pthread_mutex_lock(&S.w.mu);
	if (wait) {
		S.w.waiting = 1;
		pthread_cond_broadcast(&S.w.cv);
		while (S.w.has)
			pthread_cond_wait(&S.w.cv, &S.w.mu);
		S.w.waiting = 0;
	}
	if (!S.w.done) {
		pthread_mutex_unlock(&S.w.mu);
		return;
	}
	h = S.w.h;
	copy = S.w.copy;
	n = S.w.n;
	ps = S.w.ps;
	t0 = S.w.t0;
	rc = S.w.rc;
	memcpy(why, S.w.why, sizeof(why));
	S.w.h = NULL;
	S.w.copy = NULL;
	ft_wbuf_init(&S.w.ps);
	S.w.done = 0;
	pthread_mutex_unlock(&S.w.mu);
	if (rc != 0)
		ft_errorx("checkpoint of epoch %" PRIu64 ": %s", h->epoch, why);
	else
		image_done(h, t0);
	copies_free(copy, n);
	ps_done(&ps);
	free(h);
}

/*
 * Hand epoch's image to the writer: copy[n] (the regions at the cut)
 * and *ps (the protocol's state) become its own.  The last image is
 * written first: one at a time.  0, or -1 (nothing handed over).
 */
static int
writer_give(uint64_t epoch, void **copy, size_t n, struct ft_wbuf *ps,
    uint64_t t0)
{
	struct ft_ckpt_hdr *h;

	writer_finish(1);
	if ((h = image_hdr(epoch, ps->len)) == NULL)
		return -1;
	pthread_mutex_lock(&S.w.mu);
	S.w.h = h;
	S.w.copy = copy;
	S.w.n = n;
	S.w.ps = *ps;
	ft_wbuf_init(ps);
	S.w.t0 = t0;
	S.w.has = 1;
	pthread_cond_broadcast(&S.w.cv);
	pthread_mutex_unlock(&S.w.mu);
	return 0;
}

/*
 * --ft vlog: the writer hands an image it wrote to the pusher at once
 * (not at the next ft_checkpoint() call, which a rank waiting for its
 * peers may not make for long): its time to durability, and the GC of
 * what it delivered, do not wait for the application.
 */
static void
vlog_push_now(uint64_t epoch, uint64_t t0)
{
	if (!S.push.started)
		return;
	pthread_mutex_lock(&S.push.mu);
	if (epoch > S.push.want) {
		S.push.want = epoch;
		S.push.want_t0 = t0;
		pthread_cond_signal(&S.push.cv);
	}
	pthread_mutex_unlock(&S.push.mu);
}

static void *
writer_main(void *arg)
{
	struct ft_ckpt_hdr *h;
	char why[FT_LOG_WHY];
	int rc;

	(void)arg;
	pthread_mutex_lock(&S.w.mu);
	for (;;) {
		while (!S.w.has && !S.w.stop)
			pthread_cond_wait(&S.w.cv, &S.w.mu);
		if (!S.w.has)
			break;
		h = S.w.h;
		if (strcmp(S.die_at, "hold") == 0 && h->epoch == S.die_epoch)
			while (!S.w.waiting)
				pthread_cond_wait(&S.w.cv, &S.w.mu);
		pthread_mutex_unlock(&S.w.mu);
		/* The application goes on meanwhile. */
		test_die("writing", h->epoch);
		rc = image_write(h, (const void *const *)S.w.copy,
		    S.w.ps.p, why, sizeof(why));
		if (rc == 0 && S.vlog)
			vlog_push_now(h->epoch, S.w.t0);
		pthread_mutex_lock(&S.w.mu);
		S.w.rc = rc;
		memcpy(S.w.why, why, sizeof(why));
		S.w.has = 0;
		S.w.done = 1;
		pthread_cond_broadcast(&S.w.cv);
	}
	pthread_mutex_unlock(&S.w.mu);
	return NULL;
}

/* Regions' current bytes, for write_image (calloc'd array). */
static const void **
regions_now(void)
{
	const void **src;
	size_t i;

	if ((src = calloc(S.nreg + 1, sizeof(*src))) == NULL)
		return NULL;
	for (i = 0; i < S.nreg; i++)
		src[i] = S.reg[i].p;
	return src;
}

/* Are the protected regions (ids and sizes) still those of was[n]? */
static int
regions_same(const struct region *was, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (S.reg[i].id != was[i].id || S.reg[i].size != was[i].size)
			return 0;
	return 1;
}

static void
pend_free(void)
{
	copies_free(S.pend.copy, S.pend.n);
	free(S.pend.was);
	S.pend.copy = NULL;
	S.pend.was = NULL;
	S.pend.n = 0;
	S.pend.epoch = 0;
}

static int
markers_in(void *arg)
{
	struct ft_ext x = { .op = FT_EXT_CKPT_MARKERS };

	x.epoch = *(uint64_t *)arg;
	return ft_pt_ext(ft__mpi.pt, &x) != 0 || x.result;
}

/*
 * --ft coord: the cut's channel state is whole (1), not yet (0), or
 * the cut is inconsistent (-1, said why).
 */
static int
coord_ready(uint64_t epoch)
{
	struct ft_ext x = { .op = FT_EXT_CKPT_READY };

	x.epoch = epoch;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0) {
		ft_error("epoch %" PRIu64, epoch);
		return -1;
	}
	if (x.err) {
		ft_warnx("epoch %" PRIu64 " is not saved: a message sent after "
		    "its sender's checkpoint was received before this rank's "
		    "(ft_checkpoint() must be called where no such message "
		    "is under way)", epoch);
		return -1;
	}
	return x.result;
}

/* The protected regions' bytes now (malloc'd copies), or NULL. */
static void **
regions_copy(void)
{
	void **copy;
	size_t i;

	if ((copy = calloc(S.nreg + 1, sizeof(*copy))) == NULL)
		return NULL;
	for (i = 0; i < S.nreg; i++) {
		if (S.reg[i].size == 0)
			continue;
		if ((copy[i] = malloc(S.reg[i].size)) == NULL) {
			copies_free(copy, i);
			return NULL;
		}
		memcpy(copy[i], S.reg[i].p, S.reg[i].size);
	}
	return copy;
}

/*
 * Write the cut's image: the regions (copy[], which it frees; NULL:
 * now), the protocol's state.  With the writer, a copy is handed to it
 * and written in the background.
 */
static int
coord_write(uint64_t epoch, void **copy, uint64_t t0)
{
	const void **src;
	struct ft_wbuf wb;
	int rc = -1;

	ft_wbuf_init(&wb);
	if (ft_pt_save(ft__mpi.pt, &wb) != 0) {
		ft_error("epoch %" PRIu64 ": the protocol's state", epoch);
		goto out;
	}
	if (S.w.started && copy != NULL) {
		if ((rc = writer_give(epoch, copy, S.nreg, &wb, t0)) == 0)
			copy = NULL;
	} else if ((src = copy != NULL ? (const void **)copy :
	    regions_now()) != NULL) {
		rc = write_image(epoch, src, &wb, t0);
		if (copy == NULL)
			free(src);
	}
out:
	copies_free(copy, S.nreg);
	ft_wbuf_release(&wb);
	return rc;
}

static void
coord_abandon(void)
{
	struct ft_ext x = { .op = FT_EXT_CKPT_ABANDON };

	(void)ft_pt_ext(ft__mpi.pt, &x);
	pend_free();
}

/*
 * --ft coord, at every call: a cut whose channel state is now whole is
 * written; an epoch the server acknowledged is told to ftrun.
 */
static void
coord_poll(void)
{
	char text[64];
	uint64_t d, t;
	int r;

	writer_finish(0);
	/* ftrun called the epoch off: a rank missed its call. */
	if (S.pend.epoch != 0 && S.pend.epoch == S.due_epoch &&
	    S.due_call == FT_DUE_OFF)
		coord_abandon();
	if (S.pend.epoch != 0 && (S.pend.n != S.nreg ||
	    !regions_same(S.pend.was, S.pend.n))) {
		ft_warnx("epoch %" PRIu64 " is not saved: regions were "
		    "protected or unprotected since its checkpoint",
		    S.pend.epoch);
		coord_abandon();
	}
	if (S.pend.epoch != 0 && (r = coord_ready(S.pend.epoch)) != 0) {
		if (r == 1) {
			/* The copy is the writer's now: held no longer. */
			t = ft_now_ns();
			(void)coord_write(S.pend.epoch, S.pend.copy,
			    S.pend.t0);
			S.pend.copy = NULL;
			if (S.w.started)
				held(ft_now_ns() - t, 1);
		}
		if (r != 1)
			coord_abandon();
		pend_free();
	}
	if (!S.push.started)
		return;
	pthread_mutex_lock(&S.push.mu);
	d = S.st.durable_epoch;
	pthread_mutex_unlock(&S.push.mu);
	if (d > S.told_durable) {
		S.told_durable = d;
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " durable=1", d);
		ft__mpi_note(FT_NOTE_CKPT, text);
	}
	server_news();
}

/*
 * --ft coord: the cut of the next epoch.  Output so far is flushed and
 * ftrun told (what a rollback to it must not print again), markers go
 * out, and once every rank's marker is here the image is written, or,
 * while messages in flight across the cut are still to be received,
 * the regions are copied and written when they are.
 */
static int
coord_checkpoint(uint64_t t0, uint64_t epoch)
{
	struct ft_ext x = { .op = FT_EXT_CKPT_CUT };
	void **copy = NULL;
	char text[64];
	uint64_t e;
	int r;

	if (S.pend.epoch != 0) {
		ft_warnx("epoch %" PRIu64 " is not saved: messages in flight "
		    "at its checkpoint were not received before the next",
		    S.pend.epoch);
		coord_abandon();
	}
	/* ftrun numbers the epochs it schedules; else they follow. */
	e = x.epoch = epoch != 0 ? epoch : S.cut + 1;
	if (e <= S.cut) {
		ft_warnx("epoch %" PRIu64 " is not after %" PRIu64 ": not "
		    "taken", e, S.cut);
		return 0;
	}
	S.cut = e;
	fflush(stdout);
	fflush(stderr);
	snprintf(text, sizeof(text), "epoch=%" PRIu64 " cut=1", e);
	ft__mpi_note(FT_NOTE_CKPT, text);
	if (ft_pt_ext(ft__mpi.pt, &x) != 0) {
		ft_error("checkpoint of epoch %" PRIu64, e);
		return -1;
	}
	/* The collective scheduler has every rank here: the markers come
	 * at once, and no message sent after a cut can be received before
	 * another.  Under ftrun's, nothing waits: the image is written
	 * once they are in. */
	if (!S.sched)
		ft__mpi_wait(markers_in, &e);
	test_die("cut", e);
	if ((r = coord_ready(e)) < 0) {
		coord_abandon();
		return 0;
	}
	if (r == 1) {
		/* With the writer, the copy is written in the background:
		 * the application waits for the copy only. */
		if (S.w.started && (copy = regions_copy()) == NULL)
			return -1;
		r = coord_write(e, copy, t0);
		if (S.w.started)
			held(ft_now_ns() - t0, 0);
		return r == 0 ? 1 : -1;
	}
	if ((S.pend.was = calloc(S.nreg + 1, sizeof(*S.pend.was))) == NULL ||
	    (S.pend.copy = regions_copy()) == NULL) {
		pend_free();
		return -1;
	}
	S.pend.n = S.nreg;
	memcpy(S.pend.was, S.reg, S.nreg * sizeof(*S.reg));
	S.pend.epoch = e;
	S.pend.t0 = t0;
	if (S.w.started)
		held(ft_now_ns() - t0, 0);
	return 1;
}

/*
 * ckptsrv2: tell ftrun when pushes start failing (the server died or
 * cannot be reached) and when one succeeds again ("epoch=E server=0",
 * "server=1"); ftrun says it once for the job.  Main thread.
 */
static void
server_news(void)
{
	char text[64];
	uint64_t e;
	int down;

	if (!S.push.started)
		return;
	pthread_mutex_lock(&S.push.mu);
	down = S.push.down;
	e = S.push.down_epoch;
	pthread_mutex_unlock(&S.push.mu);
	if (down == S.push.told || e == 0)
		return;
	S.push.told = down;
	snprintf(text, sizeof(text), "epoch=%" PRIu64 " server=%d", e, !down);
	ft__mpi_note(FT_NOTE_CKPT, text);
}

/* --ft vlog: the protocol hears of images that became durable. */
static void
vlog_poll(void)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_DURABLE };
	uint64_t d;

	writer_finish(0);
	server_news();
	d = S.epoch;
	if (S.push.started) {
		pthread_mutex_lock(&S.push.mu);
		d = S.st.durable_epoch;
		pthread_mutex_unlock(&S.push.mu);
	}
	if (d <= S.vlog_durable)
		return;
	S.vlog_durable = d;
	x.epoch = d;
	(void)ft_pt_ext(ft__mpi.pt, &x);
}

/* --ft vlog: does the writer hold an image still? */
static int
vlog_writing(void)
{
	int has;

	if (!S.w.started)
		return 0;
	pthread_mutex_lock(&S.w.mu);
	has = S.w.has;
	pthread_mutex_unlock(&S.w.mu);
	return has;
}

/* --ft vlog: is a checkpoint due at this call?  Local: no agreement. */
static int
vlog_due(void)
{
	S.calls++;
	/* --ckpt-policy rr|adaptive: ftrun's turn for this rank (DUE). */
	if (S.sched) {
		ft__mpi_poll();
		if (!S.asked)
			return 0;
		S.asked = 0;
		return 1;
	}
	if (S.every > 0)
		return S.calls % S.every == 0;
	return S.interval_ns > 0 && ft_now_ns() - S.last_ns >= S.interval_ns;
}

static int
vlog_ready(void *arg)
{
	struct ft_ext *x = arg;

	x->op = FT_EXT_VLOG_PREPARE;
	return ft_pt_ext(ft__mpi.pt, x) != 0 || x->result || x->err;
}

/*
 * --ft vlog: this rank saves alone (ft(7)): once its determinants are
 * durable, its regions and the protocol's state (VLG1: clocks, channel
 * positions, the sender log peers may still ask for) are written; once
 * the image is durable, peers drop what the image before it received.
 * While replaying, or with a message to itself under way, not now.
 */
static int
vlog_checkpoint(uint64_t t0)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_PREPARE };
	const void **src;
	struct ft_wbuf wb;
	void **copy;
	char text[64];
	uint64_t e = S.cut + 1;
	int rc;

	vlog_poll();
	if (!vlog_due())
		return 0;
	/*
	 * The last image is still being written: not now (a rank's images
	 * are its own: nothing waits for this one), at the next call.
	 * Under FT_CKPT_EVERY (tests tied to progress) it waits instead,
	 * so that epoch E is always the same call.
	 */
	if (S.every == 0 && vlog_writing()) {
		if (S.sched)
			S.asked = 1;
		return 0;
	}
	writer_finish(1);
	x.epoch = e;
	if (ft_pt_ext(ft__mpi.pt, &x) != 0) {
		ft_error("checkpoint of epoch %" PRIu64, e);
		return -1;
	}
	if (x.err)
		return 0;
	if (!x.result)
		ft__mpi_wait(vlog_ready, &x);
	if (x.err || !x.result)
		return 0;
	/* Where its output stands: a restart from this image prints from
	 * there (ftrun). */
	fflush(stdout);
	fflush(stderr);
	snprintf(text, sizeof(text), "epoch=%" PRIu64 " cut=1", e);
	ft__mpi_note(FT_NOTE_CKPT, text);
	/* The last image is written (above): its buffer is used again. */
	writer_finish(0);
	wb = S.vbuf;
	ft_wbuf_init(&S.vbuf);
	rc = -1;
	S.cut = e;
	if (ft_pt_save(ft__mpi.pt, &wb) != 0)
		ft_error("epoch %" PRIu64 ": the protocol's state", e);
	else if (S.w.started) {
		/* The writer takes a copy of the regions and the state. */
		if ((copy = regions_copy()) != NULL &&
		    (rc = writer_give(e, copy, S.nreg, &wb, t0)) != 0)
			copies_free(copy, S.nreg);
		held(ft_now_ns() - t0, 0);
	} else if ((src = regions_now()) != NULL) {
		rc = write_image(e, src, &wb, t0);
		free(src);
	}
	ft_wbuf_release(&wb);
	if (rc == 0)
		vlog_poll();
	/* Its traffic, for --ckpt-policy adaptive. */
	x.op = FT_EXT_VLOG_STATS;
	if (rc == 0 && ft_pt_ext(ft__mpi.pt, &x) == 0) {
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " recv=%" PRIu64,
		    e, x.vlog_recv);
		ft__mpi_note(FT_NOTE_CKPT, text);
		snprintf(text, sizeof(text), "epoch=%" PRIu64 " sent=%" PRIu64,
		    e, x.vlog_sent);
		ft__mpi_note(FT_NOTE_CKPT, text);
	}
	return rc == 0 ? 1 : -1;
}

FT_EXPORT int
ft_checkpoint(void)
{
	const void **src;
	uint64_t t0 = ft_now_ns();
	int rc;

	uint64_t epoch = 0;

	ensure();
	if (!S.enabled)
		return 0;
	if (S.vlog)
		return vlog_checkpoint(t0);
	if (S.coord) {
		/* Tests: lost:E, written, once an epoch is complete. */
		if (S.lost_at != 0 && S.complete > 0)
			test_die("lost", S.lost_at);
		coord_poll();
		/* Tests: die once epoch E is complete (progress, not time). */
		if (S.die_epoch != 0 && S.complete >= S.die_epoch)
			test_die("complete", S.die_epoch);
	}
	if (S.sched ? !sched_due(&epoch) : !due())
		return 0;
	if (S.coord)
		return coord_checkpoint(t0, epoch);
	if ((src = regions_now()) == NULL)
		return -1;
	rc = write_image(S.epoch + 1, src, NULL, t0);
	free(src);
	return rc == 0 ? 1 : -1;
}

FT_EXPORT int
ft_checkpoint_stat(struct ft_ckpt_stat *st)
{
	if (st == NULL) {
		errno = EINVAL;
		return -1;
	}
	/* An image the writer has written since counts.  With pushes
	 * ftrun names (coordsrv), a program waiting here for its image to
	 * be durable must hear ftrun's PUSH and tell it what the server
	 * holds: a progress pass. */
	if (S.coord && S.push.started && S.push.ftrun) {
		ft__mpi_poll();
		coord_poll();
	} else
		writer_finish(0);
	if (S.push.started)
		pthread_mutex_lock(&S.push.mu);
	*st = S.st;
	if (S.push.started)
		pthread_mutex_unlock(&S.push.mu);
	return 0;
}

/*
 * --ft vlog (ckptsrv2): epoch is on the server: what this rank's
 * retention no longer keeps goes from there too (GC: the images below
 * its keep newest at or below epoch; ft_ckpt_gc_decide).  A GC lost or
 * late is harmless: the next push sends another.
 */
static int
gc_one(uint64_t epoch)
{
	struct ft_msg_ckpt_req q;

	memset(&q, 0, sizeof(q));
	q.op = FT_CKPT_GC;
	q.job = S.job;
	q.rank = S.rank;
	q.epoch = epoch;
	q.keep = S.keep;
	return ft_ckptc_request(&S.push.k, &q, NULL, NULL);
}

/*
 * Push one epoch: 0 once the server holds it durably; 1, it is gone
 * here (retired: not durable, a newer one follows); -1.
 */
static int
push_one(uint64_t epoch)
{
	struct ft_msg_ckpt_req q;
	char path[PATH_MAX];
	int fd, rc;

	rank_path(path, sizeof(path), epoch);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1;	/* retired already: a newer one follows */
	if (!S.push.k.open && ft_ckptc_open(&S.push.k, S.push.addr,
	    S.push.key, PUSH_TIMEOUT) != 0) {
		close(fd);
		return -1;
	}
	test_die("push", epoch);
	/* Tests: killed halfway through the upload of epoch (or later). */
	if (strcmp(S.die_at, "midpush") == 0 && S.die_epoch != 0 &&
	    epoch >= S.die_epoch) {
		struct stat sb;

		S.push.k.cut_after = fstat(fd, &sb) == 0 && sb.st_size > 1 ?
		    (uint64_t)sb.st_size / 2 : 1;
		(void)ft_ckptc_put(&S.push.k, fd, S.job, S.rank, epoch);
		ft_warnx("rank %u: epoch %" PRIu64 ": %s: killed", S.rank,
		    epoch, S.push.k.why);
		test_die("midpush", S.die_epoch);
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
	if (rc == 0 && S.vlog && gc_one(epoch) != 0) {
		/* The image is durable; only the GC failed (a server
		 * without it): the next push opens again. */
		ft_debug("rank %u: gc on the checkpoint server: %s", S.rank,
		    S.push.k.why);
		ft_ckptc_close(&S.push.k);
		return 0;
	}
	if (rc != 0)
		ft_ckptc_close(&S.push.k);
	return rc;
}

/* A failed push's pause (S.push.mu held); the job's end cuts it short. */
static void
push_pause(void)
{
	struct timespec ts;
	uint64_t t;

	clock_gettime(CLOCK_REALTIME, &ts);
	t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	    PUSH_RETRY_NS;
	ts.tv_sec = (time_t)(t / 1000000000u);
	ts.tv_nsec = (long)(t % 1000000000u);
	while (!S.push.stop && pthread_cond_timedwait(&S.push.cv,
	    &S.push.mu, &ts) == 0)
		;
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
			S.push.down = 0;
			S.push.down_epoch = epoch;
		} else if (rc < 0 && !S.push.down) {
			/* Said once until the server is reached again. */
			S.push.down = 1;
			S.push.down_epoch = epoch;
			S.push.warned = epoch;
			ft_warnx("epoch %" PRIu64 " not pushed: %s; tried again "
			    "every second", epoch, S.push.k.why);
		}
		/* ftrun waits for this epoch from every rank (--ft coord),
		 * a restarted server lacks it (--ft vlog): it is tried
		 * again, unless a newer one is named or the job ends. */
		if (rc < 0 && (S.push.ftrun || S.vlog) && S.push.want == 0 &&
		    !S.push.stop) {
			S.push.want = epoch;
			S.push.want_t0 = t0;
			push_pause();
		}
		pthread_cond_broadcast(&S.push.cv);
	}
	pthread_mutex_unlock(&S.push.mu);
	return NULL;
}

void
ft__ckpt_finalize(void)
{
	struct ft_ext x = { .op = FT_EXT_VLOG_STATS };

	/* --ft vlog: what the sender log held (bench/, ft(7)), and the
	 * receiver's per-message arrays (they never shrink: their peak). */
	if (getenv("FT_VLOG_STATS") != NULL && ft__mpi.pt != NULL &&
	    strcmp(ft__mpi.env.proto, "vlog") == 0 &&
	    ft_pt_ext(ft__mpi.pt, &x) == 0) {
		fprintf(stderr, "vlog-stats rank %u: sender log peak %" PRIu64
		    " bytes, %" PRIu64 " at the end, %" PRIu64 " messages "
		    "dropped by GC\n", ft__mpi.env.rank, x.vlog_peak,
		    x.vlog_bytes, x.vlog_dropped);
		fprintf(stderr, "vlog-rarr rank %u: %" PRIu64 " bytes of "
		    "per-message arrays\n", ft__mpi.env.rank, x.vlog_rarr);
	}
	if (S.w.started) {
		/* The image being written is written, and ftrun told. */
		writer_finish(1);
		pthread_mutex_lock(&S.w.mu);
		S.w.stop = 1;
		pthread_cond_broadcast(&S.w.cv);
		pthread_mutex_unlock(&S.w.mu);
		pthread_join(S.w.th, NULL);
		S.w.started = 0;
	}
	/* The rank ends well: its sender-log file goes (only its own
	 * restarts read its images; the protocol keeps its descriptor
	 * for what it may still send). */
	if (S.vlog_logfd >= 0) {
		char path[PATH_MAX];

		vlog_logpath(path, sizeof(path));
		(void)unlink(path);
		close(S.vlog_logfd);
		S.vlog_logfd = -1;
	}
	/* What went to its checkpoint directory (bench/vlogimg.sh). */
	if (getenv("FT_VLOG_STATS") != NULL && S.vlog && ft__mpi.pt != NULL &&
	    ft_pt_ext(ft__mpi.pt, &x) == 0)
		fprintf(stderr, "vlog-ckpt rank %u: %" PRIu64 " images, %"
		    PRIu64 " bytes of images, %" PRIu64 " bytes to its "
		    "sender-log file\n", ft__mpi.env.rank, S.nimages,
		    S.img_bytes, x.vlog_logbytes);
	if (S.push.started) {
		/* What was saved reaches the server before the job ends. */
		pthread_mutex_lock(&S.push.mu);
		S.push.stop = 1;
		pthread_cond_broadcast(&S.push.cv);
		pthread_mutex_unlock(&S.push.mu);
		pthread_join(S.push.th, NULL);
		/* Its last push may be the first to reach it again. */
		server_news();
		ft_ckptc_close(&S.push.k);
		explicit_bzero(S.push.key, sizeof(S.push.key));
		S.push.started = 0;
	}
	if (S.have_comm) {
		PMPI_Comm_free(&S.comm);
		S.have_comm = 0;
	}
	ft_wbuf_release(&S.vbuf);
	stage_free();
}

void
ft__ckpt_hold(int code, const char *why)
{
	struct timespec ts = { 0, 10000000 };
	uint64_t end;

	if (ft__mpi.pt == NULL || strcmp(ft__mpi.env.proto, "coord") != 0)
		return;
	if (ft__mpi_abort_tell(code, why) != 0)
		return;
	end = ft_now_ns() + HOLD_NS;
	while (ft_now_ns() < end)
		if (ft_pt_progress(ft__mpi.pt, 100) != 0)
			(void)nanosleep(&ts, NULL);
	fflush(NULL);
	_exit((code & 0xff) != 0 ? code & 0xff : 1);
}

/*
 * --ft vlog: take the protocol's state from the image at path.  1, or
 * 0 (refused: said why).  A state the protocol took half of ends the
 * process: no other image may follow.
 */
static int
vlog_take(const char *path)
{
	struct ft_ckpt_reader r;
	struct ft_rbuf rb;
	char lpath[PATH_MAX];
	uint8_t *buf = NULL;
	uint32_t k;
	int fd, ok = 0;

	/* One pass: the state is taken only once the whole image
	 * checked (ft_ckpt_done), as ft_ckpt_verify would. */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0) {
		ft_warn("rank %u: image '%s'", S.rank, path);
		return 0;
	}
	if (ft_ckpt_open(&r, fd, path) == 0) {
		snprintf(r.why, sizeof(r.why), "image '%.200s': not an image "
		    "of --ft vlog", path);
		if (strcmp(r.h->proto, "vlog") != 0 || r.h->pstate == 0 ||
		    r.h->pstate > PSTATE_MAX)
			goto next;
		for (k = 0; k < r.h->nregions; k++)
			if (ft_ckpt_read(&r, NULL, r.h->reg[k].size) != 0)
				goto next;
		if ((buf = malloc(r.h->pstate)) == NULL ||
		    ft_ckpt_read(&r, buf, r.h->pstate) != 0 ||
		    ft_ckpt_done(&r) != 0)
			goto next;
		ft_rbuf_init(&rb, buf, r.h->pstate);
		snprintf(r.why, sizeof(r.why), "image '%.200s': its vlog "
		    "state is damaged or not this rank's", path);
		if (ft_pt_restore(ft__mpi.pt, &rb) == 0)
			ok = 1;
		else if (errno == EBADMSG) {
			vlog_logpath(lpath, sizeof(lpath));
			snprintf(r.why, sizeof(r.why), "image '%.200s': the "
			    "sender log '%.200s' it names is %s", path, lpath,
			    S.vlog_logfd < 0 ? "missing" : "damaged or short");
		} else if (errno != EPROTO) {
			ft_errorx("rank %u: image '%s': %s: cannot go on",
			    S.rank, path, strerror(errno));
			_exit(FT_EXIT_TEMP);
		}
	}
next:
	if (!ok)
		ft_warnx("rank %u: %s; falling back to an older image",
		    S.rank, r.why);
	ft_ckpt_close(&r);
	close(fd);
	free(buf);
	return ok;
}

static int
u64_desc(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;
}

/* --ft vlog: the epochs of this rank's complete images on the server,
 * newest first (heap), or 0 of them (said why). */
static size_t
vlog_server_epochs(struct ft_ckptc *k, uint64_t **eps)
{
	struct ft_msg_ckpt_req q;
	struct ft_ckpt_ent *e;
	size_t n, i, m = 0;

	*eps = NULL;
	memset(&q, 0, sizeof(q));
	q.op = FT_CKPT_LIST;
	q.job = S.job;
	q.rank = S.rank;
	if (ft_ckptc_request(k, &q, &e, &n) != 0) {
		ft_warnx("rank %u: %s", S.rank, k->why);
		return 0;
	}
	if (n > 0 && (*eps = calloc(n, sizeof(**eps))) != NULL)
		for (i = 0; i < n; i++)
			if (e[i].job == S.job && e[i].rank == S.rank &&
			    e[i].epoch > 0 && e[i].state == FT_CKPT_OK)
				(*eps)[m++] = e[i].epoch;
	free(e);
	qsort(*eps, m, sizeof(**eps), u64_desc);
	return m;
}

/*
 * --ft vlog: no image here was usable (none, or the newest refused):
 * the newest image that verifies, of those here and those on the
 * checkpoint server, each epoch from here first, else fetched (a rank
 * moved off a dead host finds its images there only).  skip: the
 * epoch already refused here.  The epoch taken, or 0.
 */
static uint64_t
vlog_fetch(const uint64_t *loc, size_t nloc, uint64_t skip)
{
	const char *addr = getenv(ENV_SERVER), *keyfile = getenv(ENV_KEYFILE);
	char name[FT_CKPT_NAME_MAX], path[PATH_MAX], why[FT_LOG_WHY];
	uint8_t key[FT_WIRE_KEYLEN];
	struct ft_ckptc k;
	uint64_t *sv = NULL, e, got, from = 0;
	size_t nsv = 0, i = nloc, j = 0;
	int dfd = -1, on;

	memset(&k, 0, sizeof(k));
	if (addr != NULL && *addr != '\0' && keyfile != NULL) {
		if (ft_cluster_key_load(keyfile, key, why, sizeof(why)) != 0)
			ft_warnx("checkpoint server %s: %s", addr, why);
		else if (ft_ckptc_open(&k, addr, key, PUSH_TIMEOUT) != 0)
			ft_warnx("rank %u: %s", S.rank, k.why);
		else if ((nsv = vlog_server_epochs(&k, &sv)) > 0 &&
		    ((dfd = ft__ckpt_rankdir(S.dir, S.job, S.rank, why,
		    sizeof(why))) < 0 || (close(dfd), dfd = open(S.dir,
		    O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)) {
			ft_warnx("rank %u: checkpoint directory '%s': %s",
			    S.rank, S.dir, dfd < 0 ? why : strerror(errno));
			nsv = 0;
		}
	}
	/* Both lists newest first: loc ascending from its end. */
	while (from == 0 && (i > 0 || j < nsv)) {
		e = i > 0 && (j == nsv || loc[i - 1] >= sv[j]) ? loc[i - 1] :
		    sv[j];
		on = j < nsv && sv[j] == e;
		if (i > 0 && loc[i - 1] == e) {
			i--;
			rank_path(path, sizeof(path), e);
			if (e != skip && e > 0 && vlog_take(path)) {
				from = e;
				break;
			}
		}
		if (!on)
			continue;
		j++;
		(void)ft_ckpt_name(name, sizeof(name), S.job, S.rank, e);
		if (ft_ckptc_get(&k, S.job, S.rank, e, dfd, name, &got) != 0) {
			ft_warnx("rank %u: epoch %" PRIu64 " from the "
			    "checkpoint server: %s; falling back to an older "
			    "image", S.rank, e, k.why);
			continue;
		}
		ft_warnx("rank %u: its image of epoch %" PRIu64 " was fetched "
		    "from the checkpoint server %s", S.rank, e, addr);
		rank_path(path, sizeof(path), e);
		if (vlog_take(path))
			from = e;
	}
	if (dfd >= 0)
		close(dfd);
	ft_ckptc_close(&k);
	explicit_bzero(key, sizeof(key));
	free(sv);
	return from;
}

/*
 * --ft vlog: a restarted process takes the protocol's state from its
 * newest image that verifies: here, else on the checkpoint server,
 * else the one before (saying why), else it starts from its beginning.
 * Runs at MPI_Init, before the first progress pass; S is set up later
 * (vlog_setup).
 */
void
ft__ckpt_vlog_restore(uint32_t incarnation)
{
	char path[PATH_MAX], text[64];
	const char *dir = getenv(ENV_DIR);
	uint64_t *eps = NULL;
	size_t n = 0;

	if (dir == NULL || *dir == '\0' || strlen(dir) >= sizeof(S.dir))
		return;
	snprintf(S.dir, sizeof(S.dir), "%s", dir);
	S.job = env_u64(ENV_JOB, 0, 16);
	S.rank = ft__mpi.env.rank;
	if (local_epochs(&eps, &n) != 0)
		ft_warn("checkpoint directory '%s'", S.dir);
	/* The sender-log file its images name (vlogbw), as it is. */
	if (n > 0)
		vlog_logfile(0);
	if (n > 0) {
		rank_path(path, sizeof(path), eps[n - 1]);
		if (vlog_take(path))
			S.vlog_from = eps[n - 1];
	}
	if (S.vlog_from == 0)
		S.vlog_from = vlog_fetch(eps, n, n > 0 ? eps[n - 1] : 0);
	free(eps);
	if (S.vlog_from == 0) {
		if (n > 0 || getenv(ENV_SERVER) != NULL)
			ft_warnx("rank %u: no usable image: restarting from "
			    "its beginning", S.rank);
		return;
	}
	ft_warnx("rank %u (incarnation %u) restarts from its image of "
	    "epoch %" PRIu64, S.rank, incarnation, S.vlog_from);
	snprintf(text, sizeof(text), "epoch=%" PRIu64 " from=1", S.vlog_from);
	ft__mpi_note(FT_NOTE_CKPT, text);
}
