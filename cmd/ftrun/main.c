/* SPDX-License-Identifier: ISC */
/*
 * ftrun: run an MPI job, the mpirun of ft.  Options and wiring only;
 * the launcher lives in lib/job.
 */
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

#include "../../lib/detect/detect.h"
#include "../../lib/job/job.h"
#include "../../lib/peer/peer.h"
#include "../../lib/job/plan.h"
#include "../../lib/job/vsched.h"
#include "../../lib/proto/proto.h"
#include "../../lib/store/store.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftrun [-n N] [-r R] [--tag-output] [--timeout SECONDS] "
	    "[-x VAR[=VALUE]]\n"
	    "             [--events FILE] [--ft PROTOCOL] [--tcp] [--grace D]\n"
	    "             [--initial-errhandler NAME]\n"
	    "             [--comm-mode shrink|blank|rebuild|abort] "
	    "[--msg-mode cont|nop]\n"
	    "             [--detector random|rr|brr|dbrr] [--gossip-period D]\n"
	    "             [--inject SPEC] [--check-divergence] "
	    "[--hang-timeout D]\n"
	    "             [--record DIR]\n"
	    "             [--universe-size N]\n"
	    "             [--log-server ADDR | --log-dir DIR] "
	    "[--log-sync always|batch|memory]\n"
	    "             [--log-wait all|nondet]\n"
	    "             [--host ADDR,... | --hostfile FILE | --boot ADDR] "
	    "[-a spread|concentrate]\n"
	    "             [--key-file F]"
	    "             [--stage FILE|URL]\n"
	    "             [--ckpt-dir DIR [--ckpt-interval D|auto] "
	    "[--ckpt-server ADDR] [--restart[=JOB]]\n"
	    "             [--ckpt-policy all|rr|adaptive]]\n"
	    "             [--] PROGRAM [ARGS ...]\n"
	    "       ftrun [-n N] --plan --mtbf D --runtime D "
	    "[--weibull-shape K]\n"
	    "             [--overhead-per-replica F]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_TAG = 256,
	OPT_TIMEOUT,
	OPT_EVENTS,
	OPT_FT,
	OPT_TCP,
	OPT_GRACE,
	OPT_DETECTOR,
	OPT_GOSSIP_PERIOD,
	OPT_INJECT,
	OPT_CHECK_DIV,
	OPT_RECORD,
	OPT_PLAN,
	OPT_MTBF,
	OPT_SHAPE,
	OPT_RUNTIME,
	OPT_OVERHEAD,
	OPT_HELP,
	OPT_HANG,
	OPT_UNIVERSE,
	OPT_HOST,
	OPT_HOSTFILE,
	OPT_BOOT,
	OPT_KEYFILE,
	OPT_STAGE,
	OPT_ERRH,
	OPT_LOG_SERVER,
	OPT_LOG_DIR,
	OPT_LOG_SYNC,
	OPT_LOG_WAIT,
	OPT_CKPT_DIR,
	OPT_CKPT_INTERVAL,
	OPT_CKPT_SERVER,
	OPT_CKPT_POLICY,
	OPT_RESTART,
	OPT_COMM_MODE,
	OPT_MSG_MODE,
};

static const struct option longopts[] = {
	{ "np", required_argument, NULL, 'n' },
	{ "tag-output", no_argument, NULL, OPT_TAG },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "ft", required_argument, NULL, OPT_FT },
	{ "with-ft", required_argument, NULL, OPT_FT },
	{ "initial-errhandler", required_argument, NULL, OPT_ERRH },
	{ "tcp", no_argument, NULL, OPT_TCP },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "detector", required_argument, NULL, OPT_DETECTOR },
	{ "gossip-period", required_argument, NULL, OPT_GOSSIP_PERIOD },
	{ "replicas", required_argument, NULL, 'r' },
	{ "inject", required_argument, NULL, OPT_INJECT },
	{ "check-divergence", no_argument, NULL, OPT_CHECK_DIV },
	{ "record", required_argument, NULL, OPT_RECORD },
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "mtbf", required_argument, NULL, OPT_MTBF },
	{ "weibull-shape", required_argument, NULL, OPT_SHAPE },
	{ "runtime", required_argument, NULL, OPT_RUNTIME },
	{ "overhead-per-replica", required_argument, NULL, OPT_OVERHEAD },
	{ "help", no_argument, NULL, OPT_HELP },
	{ "hang-timeout", required_argument, NULL, OPT_HANG },
	{ "universe-size", required_argument, NULL, OPT_UNIVERSE },
	{ "host", required_argument, NULL, OPT_HOST },
	{ "boot", required_argument, NULL, OPT_BOOT },
	{ "alloc", required_argument, NULL, 'a' },
	{ "hostfile", required_argument, NULL, OPT_HOSTFILE },
	{ "key-file", required_argument, NULL, OPT_KEYFILE },
	{ "stage", required_argument, NULL, OPT_STAGE },
	{ "log-server", required_argument, NULL, OPT_LOG_SERVER },
	{ "log-dir", required_argument, NULL, OPT_LOG_DIR },
	{ "log-sync", required_argument, NULL, OPT_LOG_SYNC },
	{ "log-wait", required_argument, NULL, OPT_LOG_WAIT },
	{ "ckpt-dir", required_argument, NULL, OPT_CKPT_DIR },
	{ "ckpt-interval", required_argument, NULL, OPT_CKPT_INTERVAL },
	{ "ckpt-server", required_argument, NULL, OPT_CKPT_SERVER },
	{ "ckpt-policy", required_argument, NULL, OPT_CKPT_POLICY },
	{ "restart", optional_argument, NULL, OPT_RESTART },
	{ "comm-mode", required_argument, NULL, OPT_COMM_MODE },
	{ "msg-mode", required_argument, NULL, OPT_MSG_MODE },
	{ NULL, 0, NULL, 0 },
};

/*
 * Raise the limit on open files for the job, as mpirun does; fail before
 * anything starts if the hard limit is too low for it.
 */
static void
nofile(const struct ft_launch *cf)
{
	struct ft_launch_fds need;
	uint64_t most, limit;

	ft_launch_fds(cf, &need);
	most = need.launcher > need.rank ? need.launcher : need.rank;
	if (ft_launch_nofile(most, &limit) == 0)
		return;
	if (errno != EMFILE)
		ft_die(FT_EXIT_TEMP, "unable to raise the limit on open files "
		    "(RLIMIT_NOFILE) to %" PRIu64, most);
	ft_diex(FT_EXIT_TEMP, "a job of %" PRIu64 " processes needs up to "
	    "%" PRIu64 " open files in ftrun and %" PRIu64 " in each rank, "
	    "more than the hard limit of %" PRIu64 ": raise RLIMIT_NOFILE "
	    "(ulimit -Hn) to %" PRIu64 " or more",
	    (uint64_t)cf->nranks * cf->nrep, need.launcher, need.rank, limit,
	    most);
}

/* One more "VAR=VALUE" for every rank. */
static void
add_env(struct ft_launch *cf, const char *fmt, ...) FT_PRINTF(2, 3);

static void
add_env(struct ft_launch *cf, const char *fmt, ...)
{
	va_list ap;
	char **nenv, *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		ft_die(FT_EXIT_TEMP, "vasprintf");
	va_end(ap);
	if ((nenv = reallocarray(cf->setenv, cf->nsetenv + 1,
	    sizeof(*nenv))) == NULL)
		ft_die(FT_EXIT_TEMP, "reallocarray");
	cf->setenv = nenv;
	cf->setenv[cf->nsetenv++] = s;
}

/*
 * --record DIR (issue 16): every rank records itself into DIR/rank-R.ftr
 * (ft-record(5)); made here, absolute, so the ranks find it whatever
 * their working directory.
 */
static void
record_dir(struct ft_launch *cf, const char *dir)
{
	char *abs;

	if (mkdir(dir, 0700) != 0 && errno != EEXIST)
		ft_die(FT_EXIT_TEMP, "unable to make the record directory '%s'",
		    dir);
	if ((abs = realpath(dir, NULL)) == NULL)
		ft_die(FT_EXIT_USAGE, "--record '%s'", dir);
	add_env(cf, "FT_RECORD_DIR=%s", abs);
	/* Rank 0's standard input is kept there too; abs lives as cf. */
	cf->record_dir = abs;
}

/* -x VAR takes VAR's value from our own environment, as mpirun does. */
static void
export_var(struct ft_launch *cf, const char *arg)
{
	const char *val;

	if (*arg == '=' || *arg == '\0')
		ft_diex(FT_EXIT_USAGE, "-x '%s' names no variable", arg);
	if (strchr(arg, '=') != NULL) {
		add_env(cf, "%s", arg);
		return;
	}
	if ((val = getenv(arg)) == NULL)
		ft_diex(FT_EXIT_USAGE, "-x '%s': no such variable in the "
		    "environment", arg);
	add_env(cf, "%s=%s", arg, val);
}

/*
 * A positive finite number, for the plan's shape and overhead: decimal,
 * with an exponent if need be, but not what else strtod takes (blanks,
 * hexadecimal, "inf", "nan").
 */
static double
parse_real(const char *opt, const char *arg, int allow_zero)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno != 0 || end == arg || *end != '\0' ||
	    arg[strspn(arg, "0123456789.eE+-")] != '\0' || !isfinite(v) ||
	    v < 0 || (v == 0 && !allow_zero))
		ft_diex(FT_EXIT_USAGE, "%s '%s' is not a %s number", opt, arg,
		    allow_zero ? "non-negative" : "positive");
	return v;
}

/*
 * The longest duration an option takes: the launcher adds one to the
 * monotonic clock, in 64-bit nanoseconds, which must not wrap.
 */
#define DURATION_MAX_NS	((uint64_t)INT64_MAX)

static void FT_NORETURN
too_long(const char *opt, const char *arg, const char *what)
{
	ft_diex(FT_EXIT_USAGE, "%s '%s'%s is too long: the longest is "
	    "%" PRIu64 "h, about %" PRIu64 " years", opt, arg, what,
	    DURATION_MAX_NS / 3600000000000u,
	    DURATION_MAX_NS / 31557600000000000u);
}

/*
 * A duration option, as ft_parse_duration reads it: decimal digits, an
 * optional fraction and unit.  Above 0 unless allow_zero.
 */
static uint64_t
parse_duration(const char *opt, const char *arg, int allow_zero)
{
	uint64_t ns;
	int err;

	if (ft_parse_duration(arg, &ns) != 0)
		err = errno;
	else if (ns > DURATION_MAX_NS)
		err = ERANGE;
	else if (ns == 0 && !allow_zero)
		err = EINVAL;
	else
		return ns;
	if (err == ERANGE)
		too_long(opt, arg, "");
	if (err == EDOM)
		ft_diex(FT_EXIT_USAGE, "%s '%s' is finer than a nanosecond",
		    opt, arg);
	ft_diex(FT_EXIT_USAGE, "%s '%s' is not a %sduration", opt, arg,
	    allow_zero ? "" : "positive ");
}

/* What --host, --hostfile, --boot, -a and --stage gathered. */
struct across {
	struct ft_hostspec	*specs;		/* --host, --hostfile */
	size_t			 nspecs;
	const char		*boot;		/* --boot */
	enum ft_alloc		 alloc;
	char			**stage;
	size_t			 nstage;
	const char		*keyfile;
	uint8_t			 key[FT_WIRE_KEYLEN];
	struct ft_grant		*grants;
	size_t			 ngrants;
	struct ft_launch_host	*hosts;
};

/* Append the hosts of a --host list or a --hostfile. */
static void
add_specs(struct across *x, const char *opt, const char *arg)
{
	struct ft_hostspec *more, *all;
	char why[FT_WIRE_TEXT_MAX];
	size_t n;
	int rc;

	rc = strcmp(opt, "--host") == 0 ?
	    ft_hostlist_parse(arg, &more, &n, why, sizeof(why)) :
	    ft_hostfile_parse(arg, &more, &n, why, sizeof(why));
	if (rc != 0)
		ft_diex(FT_EXIT_USAGE, "%s '%s': %s", opt, arg, why);
	if ((all = reallocarray(x->specs, x->nspecs + n, sizeof(*all))) ==
	    NULL)
		ft_die(FT_EXIT_TEMP, "reallocarray");
	memcpy(all + x->nspecs, more, n * sizeof(*more));
	x->specs = all;
	x->nspecs += n;
	free(more);
}

/*
 * Across hosts: the cluster key, the slots (reserved on the hosts given,
 * or allocated by a daemon from its peers), and the placement of every
 * process, replicas of a rank on different hosts when there are enough.
 * Returns 0 to run here alone: no host given, and no daemon of ours.
 */
static int
setup_hosts(struct ft_launch *cf, struct across *x)
{
	char why[FT_WIRE_TEXT_MAX], path[4096], local[FT_WIRE_ADDR_MAX];
	uint32_t *hop, np = cf->nranks * cf->nrep, k;
	size_t g;
	int rc;

	if (x->nspecs == 0 && x->boot == NULL) {
		if (ft_boot_local_addr(NULL, local, sizeof(local)) != 0)
			return 0;
		x->boot = local;
	} else if (x->boot != NULL) {
		/* host[:port], as --host takes it. */
		if (ft_host_addr(x->boot, local, sizeof(local)) != 0)
			ft_diex(FT_EXIT_USAGE, "--boot '%s' is not host[:port] "
			    "or tcp:host:port", x->boot);
		x->boot = local;
	}
	if (x->keyfile == NULL) {
		if (ft_cluster_key_path(path, sizeof(path)) != 0)
			ft_diex(FT_EXIT_USAGE, "no --key-file and no default "
			    "cluster key (HOME is not set)");
		x->keyfile = path;
	}
	if (ft_cluster_key_load(x->keyfile, x->key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
	rc = x->nspecs > 0 ?
	    ft_peer_reserve_hosts(x->specs, x->nspecs, x->key, cf->nranks,
	    cf->nrep, x->alloc, &x->grants, &x->ngrants, why, sizeof(why)) :
	    ft_peer_allocate(x->boot, x->key, cf->nranks, cf->nrep, x->alloc,
	    &x->grants, &x->ngrants, why, sizeof(why));
	if (rc != 0)
		ft_diex(FT_EXIT_TEMP, "%s", why);
	if ((hop = calloc(np, sizeof(*hop))) == NULL ||
	    (x->hosts = calloc(x->ngrants, sizeof(*x->hosts))) == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	rc = ft_alloc_place(x->grants, x->ngrants, cf->nranks, cf->nrep,
	    x->alloc, hop, why, sizeof(why));
	if (rc < 0) {
		ft_peer_release(x->key, x->grants, x->ngrants);
		ft_diex(FT_EXIT_TEMP, "%s", why);
	}
	if (rc == 1)
		ft_warnx("%s", why);
	for (g = 0; g < x->ngrants; g++) {
		snprintf(x->hosts[g].addr, sizeof(x->hosts[g].addr), "%s",
		    x->grants[g].addr);
		snprintf(x->hosts[g].name, sizeof(x->hosts[g].name), "%s",
		    x->grants[g].host);
		memcpy(x->hosts[g].token, x->grants[g].token,
		    sizeof(x->hosts[g].token));
	}
	for (k = 0; k < np; k++)
		x->hosts[hop[k]].nprocs++;
	/* What placement left unused goes back now. */
	for (g = 0; g < x->ngrants; g++)
		if (x->hosts[g].nprocs == 0)
			ft_peer_release(x->key, &x->grants[g], 1);
	cf->hosts = x->hosts;
	cf->nhosts = x->ngrants;
	cf->host_of_proc = hop;
	cf->cluster_key = x->key;
	cf->stage = x->stage;
	cf->nstage = x->nstage;
	return 1;
}

/* What --ckpt-* and --restart gathered. */
struct ckpt {
	const char	*dir, *server, *restart_job, *policy;
	uint64_t	 interval_ns;
	int		 restart;
	int		 autoi;		/* --ckpt-interval auto */
};


/*
 * The job a --restart goes on with: the one named, else the one that
 * wrote the newest image in the directory; 0 (a new job) if none.
 */
static uint64_t
restart_job(const struct ckpt *k, const char *dir)
{
	struct ft_ckpt_ent *e;
	char why[FT_LOG_WHY], *end;
	uint64_t job = 0, newest = 0;
	size_t n, i;

	if (k->restart_job != NULL) {
		errno = 0;
		job = strtoull(k->restart_job, &end, 16);
		if (errno != 0 || *end != '\0' || end == k->restart_job ||
		    strlen(k->restart_job) > 16 || job == 0)
			ft_diex(FT_EXIT_USAGE, "--restart='%s': a job id, up to "
			    "16 hex digits", k->restart_job);
		return job;
	}
	if (ft_ckpt_scan(dir, 1, 0, 1, 0, &e, &n, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_TEMP, "%s", why);
	for (i = 0; i < n; i++)
		if (e[i].state == FT_CKPT_OK && e[i].created_ns >= newest) {
			newest = e[i].created_ns;
			job = e[i].job;
		}
	free(e);
	if (job == 0)
		ft_warnx("--restart: no checkpoint in '%s': the job starts "
		    "from the beginning", dir);
	return job;
}

/*
 * --ckpt-policy: who checkpoints when one is due.  all: every rank at
 * the same call under --ft coord and --ft none (coordinated); under
 * --ft vlog every rank on its own timer.  rr and adaptive are
 * MPICH-V2's per-rank policies for message logging (round-robin; by
 * each rank's received/sent ratio): ftrun gives one rank at a time its
 * turn (vsched.h), so they are for --ft vlog only (checked in main).
 */
static int
ckpt_policy(const char *p)
{
	int v;

	if ((v = ft__vsched_policy(p)) < 0)
		ft_diex(FT_EXIT_USAGE, "--ckpt-policy '%s': all, rr or "
		    "adaptive", p);
	return v;
}

/* --ckpt-server auto: what ftrun made for its server, removed at exit. */
static char auto_dir[PATH_MAX], auto_key[PATH_MAX + 16];
static char auto_store[PATH_MAX + 16];

static void
ckpt_auto_clean(void)
{
	if (auto_key[0] != '\0')
		(void)unlink(auto_key);
	if (auto_dir[0] != '\0')
		(void)rmdir(auto_dir);
}

/*
 * --ckpt-server auto: ftrun starts `ftckpt serve` on loopback for the
 * job, storing in DIR/server, with a fresh key in a private directory
 * of its own.
 */
static void
ckpt_auto(struct ft_launch *cf, const char *dir)
{
	const char *tmp = getenv("TMPDIR");
	char why[256];

	snprintf(auto_dir, sizeof(auto_dir), "%s/ftckpt.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	if (mkdtemp(auto_dir) == NULL)
		ft_die(FT_EXIT_TEMP, "--ckpt-server auto: '%s'", auto_dir);
	atexit(ckpt_auto_clean);
	snprintf(auto_key, sizeof(auto_key), "%s/key", auto_dir);
	if (ft_cluster_key_write(auto_key, 0, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_TEMP, "--ckpt-server auto: %s", why);
	snprintf(auto_store, sizeof(auto_store), "%s/server", dir);
	cf->ckpt_serve_dir = auto_store;
	cf->ckpt_serve_key = auto_key;
}

/* The environment that tells the ranks where and when to checkpoint. */
static void
setup_ckpt(struct ft_launch *cf, const struct ckpt *k, const char *keyfile)
{
	char dir[PATH_MAX], key[PATH_MAX];
	uint64_t job = 0;

	if (k->dir == NULL) {
		if (k->server != NULL || k->restart || k->interval_ns != 0)
			ft_diex(FT_EXIT_USAGE, "--ckpt-interval, --ckpt-server "
			    "and --restart need --ckpt-dir");
		if (k->policy != NULL)
			ft_diex(FT_EXIT_USAGE, "--ckpt-policy needs --ckpt-dir");
		return;
	}
	if (mkdir(k->dir, 0700) != 0 && errno != EEXIST)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "--ckpt-dir '%s'", k->dir);
	if (realpath(k->dir, dir) == NULL)
		ft_die(FT_EXIT_USAGE, "--ckpt-dir '%s'", k->dir);
	if (k->restart)
		job = restart_job(k, dir);
	while (job == 0)
		arc4random_buf(&job, sizeof(job));
	add_env(cf, "FT_CKPT_DIR=%s", dir);
	add_env(cf, "FT_CKPT_JOB=%016" PRIx64, job);
	if ((cf->ckpt_dir = strdup(dir)) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	cf->ckpt_job = job;
	add_env(cf, "FT_CKPT_INTERVAL_NS=%" PRIu64, k->interval_ns);
	if (k->restart)
		add_env(cf, "FT_CKPT_RESTART=1");
	if (k->autoi && strcmp(cf->proto, "coord") != 0)
		ft_diex(FT_EXIT_USAGE, "--ckpt-interval auto needs --ft coord "
		    "(ftrun's scheduler)");
	/* --ft vlog, rr or adaptive: ftrun gives each rank its turn. */
	if (cf->ckpt_policy != FT__VSCHED_ALL) {
		if (strcmp(cf->proto, "vlog") != 0)
			ft_diex(FT_EXIT_USAGE, "--ckpt-policy %s: checkpoints "
			    "of one rank at a time are for message logging "
			    "(--ft vlog); use all", k->policy);
		if (k->interval_ns == 0)
			ft_diex(FT_EXIT_USAGE, "--ckpt-policy %s needs "
			    "--ckpt-interval", k->policy);
		add_env(cf, "FT_CKPT_SCHED=ftrun");
		cf->ckpt_interval_ns = k->interval_ns;
	}
	/* --ft coord: ftrun says when a checkpoint is due (DUE). */
	if (strcmp(cf->proto, "coord") == 0 && k->interval_ns > 0) {
		add_env(cf, "FT_CKPT_SCHED=ftrun");
		cf->ckpt_interval_ns = k->interval_ns;
		cf->ckpt_interval_auto = k->autoi;
	}
	if (k->server != NULL && strcmp(k->server, "auto") == 0) {
		ckpt_auto(cf, dir);
	} else if (k->server != NULL) {
		if (keyfile == NULL && ft_cluster_key_path(key,
		    sizeof(key)) != 0)
			ft_diex(FT_EXIT_USAGE, "--ckpt-server: no --key-file "
			    "and no default cluster key (HOME is not set)");
		if (keyfile != NULL && realpath(keyfile, key) == NULL)
			ft_die(FT_EXIT_USAGE, "--key-file '%s'", keyfile);
		add_env(cf, "FT_CKPT_SERVER=%s", k->server);
		add_env(cf, "FT_CKPT_KEY_FILE=%s", key);
	}
	/* --ft coord: every rank pushes the epochs ftrun names (PUSH). */
	if (strcmp(cf->proto, "coord") == 0 && k->server != NULL) {
		add_env(cf, "FT_CKPT_PUSH=ftrun");
		cf->ckpt_push = 1;
	}
	ft_info("checkpoints of job %016" PRIx64 " in '%s'", job, dir);
}

/*
 * --ft ftmpi: the job's modes, to every rank; --comm-mode or --msg-mode
 * alone choose the protocol.  SHRINK and CONT by default: the survivors
 * go on, as under ULFM.
 */
static void
ftmpi_modes(struct ft_launch *cf, int comm_mode, int msg_mode)
{
	if ((comm_mode != 0 || msg_mode != 0) &&
	    strcmp(cf->proto, "none") == 0)
		cf->proto = "ftmpi";
	if (strcmp(cf->proto, "ftmpi") != 0) {
		if (comm_mode != 0 || msg_mode != 0)
			ft_diex(FT_EXIT_USAGE, "--comm-mode and --msg-mode are "
			    "for --ft ftmpi, not --ft %s", cf->proto);
		return;
	}
	cf->ftmpi_comm = comm_mode != 0 ? comm_mode : FT_FTMPI_SHRINK;
	add_env(cf, "%s=%s", FT_ENV_FTMPI_COMM,
	    ft_ftmpi_comm_name(cf->ftmpi_comm));
	add_env(cf, "%s=%s", FT_ENV_FTMPI_MSG,
	    ft_ftmpi_msg_name(msg_mode != 0 ? msg_mode : FT_FTMPI_CONT));
}

int
main(int argc, char *argv[])
{
	struct ft_plan plan = { 0, 0, 0.7, 0, 0.05 };
	struct ft_inject *inj;
	char why[128], getopt_prog[80];
	int do_plan = 0, comm_mode = 0, msg_mode = 0;
	struct ft_launch cf;
	enum ft_gossip_proto detector;
	struct across x;
	struct ckpt ck;
	const char *errstr, *events = NULL, *log_wait = NULL;
	char **nenv;
	int ch, status, lost;

	ft_diag_init(argv[0]);
	/* getopt starts its messages with argv[0]: make them read as ours,
	 * "ftrun: fatal: unrecognized option '--bogus'", not with a path. */
	snprintf(getopt_prog, sizeof(getopt_prog), "%s: fatal",
	    ft_diag_prog());
	argv[0] = getopt_prog;
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) == -1)
			(void)open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
	memset(&cf, 0, sizeof(cf));
	memset(&x, 0, sizeof(x));
	memset(&ck, 0, sizeof(ck));
	cf.nranks = 1;
	cf.grace_ns = 3000000000u;
	cf.hang_ns = FT_HANG_TIMEOUT_DEFAULT;
	cf.proto = "none";
	cf.detector = "dbrr";
	cf.gossip_period_ns = 50000000u;
	cf.nrep = 1;
	/* Stop at the program name: its options are its own. */
	while ((ch = getopt_long(argc, argv, "+a:n:r:x:", longopts, NULL)) !=
	    -1) {
		switch (ch) {
		case 'n':
			cf.nranks = (uint32_t)strtonum(optarg, 1, 4096,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-n '%s' is %s", optarg,
				    errstr);
			break;
		case 'x':
			export_var(&cf, optarg);
			break;
		case 'r':
			cf.nrep = (uint32_t)strtonum(optarg, 1, FT_REPLICAS_MAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-r '%s' is %s (replicas "
				    "of each rank: 1 to %d)", optarg, errstr,
				    FT_REPLICAS_MAX);
			break;
		case OPT_INJECT:
			inj = reallocarray((void *)cf.inject, cf.ninject + 1,
			    sizeof(*inj));
			if (inj == NULL)
				ft_die(FT_EXIT_TEMP, "reallocarray");
			if (ft_inject_parse(optarg, &inj[cf.ninject], why,
			    sizeof(why)) != 0)
				ft_diex(FT_EXIT_USAGE, "--inject '%s': %s",
				    optarg, why);
			if (inj[cf.ninject].at_ns > DURATION_MAX_NS ||
			    inj[cf.ninject].every_ns > DURATION_MAX_NS)
				too_long("--inject", optarg, ": its time");
			cf.inject = inj;
			cf.ninject++;
			break;
		case OPT_CHECK_DIV:
			cf.check_divergence = 1;
			break;
		case OPT_RECORD:
			record_dir(&cf, optarg);
			break;
		case OPT_PLAN:
			do_plan = 1;
			break;
		case OPT_MTBF:
			plan.mtbf_s = (double)parse_duration("--mtbf",
			    optarg, 0) / 1e9;
			break;
		case OPT_RUNTIME:
			plan.runtime_s = (double)parse_duration("--runtime",
			    optarg, 0) / 1e9;
			break;
		case OPT_SHAPE:
			plan.shape = parse_real("--weibull-shape", optarg, 0);
			break;
		case OPT_OVERHEAD:
			plan.overhead = parse_real("--overhead-per-replica",
			    optarg, 1);
			break;
		case OPT_TAG:
			cf.tag_output = 1;
			break;
		case OPT_TIMEOUT:
			cf.timeout_ns = parse_duration("--timeout", optarg, 0);
			break;
		case OPT_HANG:
			/* 0 or "off": no hang detection (debuggers). */
			cf.hang_ns = strcmp(optarg, "off") == 0 ? 0 :
			    parse_duration("--hang-timeout", optarg, 1);
			if (cf.hang_ns != 0 && cf.hang_ns < FT_HANG_TIMEOUT_MIN)
				ft_diex(FT_EXIT_USAGE, "--hang-timeout '%s' is "
				    "shorter than 100ms (0 or 'off' turns hang "
				    "detection off)", optarg);
			break;
		case OPT_UNIVERSE:
			cf.universe = (uint32_t)strtonum(optarg, 1,
			    FT_WIRE_MAX_RANKS, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--universe-size '%s' is "
				    "%s", optarg, errstr);
			break;
		case OPT_GRACE:
			cf.grace_ns = parse_duration("--grace", optarg, 1);
			break;
		case OPT_EVENTS:
			events = optarg;
			break;
		case OPT_FT:
			if (ft_proto_find(optarg) == NULL)
				ft_diex(FT_EXIT_USAGE, "unknown protocol '%s' "
				    "(valid: %s)", optarg, ft_proto_names());
			cf.proto = optarg;
			break;
		case OPT_LOG_SERVER:
			if (strncmp(optarg, "tcp:", 4) != 0 &&
			    strncmp(optarg, "unix:", 5) != 0)
				ft_diex(FT_EXIT_USAGE, "--log-server '%s': an "
				    "address tcp:HOST:PORT or unix:PATH", optarg);
			cf.log_server = optarg;
			break;
		case OPT_LOG_DIR:
			cf.log_dir = optarg;
			break;
		case OPT_LOG_SYNC:
			if (strcmp(optarg, "always") != 0 &&
			    strcmp(optarg, "batch") != 0 &&
			    strcmp(optarg, "memory") != 0)
				ft_diex(FT_EXIT_USAGE, "--log-sync '%s': always, "
				    "batch or memory", optarg);
			cf.log_sync = optarg;
			break;
		case OPT_LOG_WAIT:
			/* The pessimistic rule (ft(7)): all, the issue's
			 * strict one; nondet, the default. */
			if (strcmp(optarg, "all") != 0 &&
			    strcmp(optarg, "nondet") != 0)
				ft_diex(FT_EXIT_USAGE, "--log-wait '%s': all or "
				    "nondet", optarg);
			log_wait = optarg;
			break;
		case OPT_TCP:
			cf.force_tcp = 1;
			break;
		case OPT_ERRH:
			if (strcasecmp(optarg, "mpi_errors_are_fatal") != 0 &&
			    strcasecmp(optarg, "mpi_errors_abort") != 0 &&
			    strcasecmp(optarg, "mpi_errors_return") != 0)
				ft_diex(FT_EXIT_USAGE, "unknown error handler "
				    "'%s' (valid: mpi_errors_are_fatal, "
				    "mpi_errors_abort, mpi_errors_return)",
				    optarg);
			add_env(&cf, "FT_INITIAL_ERRHANDLER=%s", optarg);
			break;
		case OPT_COMM_MODE:
			if ((comm_mode = ft_ftmpi_comm_parse(optarg)) < 0)
				ft_diex(FT_EXIT_USAGE, "unknown communicator "
				    "mode '%s' (valid: shrink, blank, rebuild, "
				    "abort)", optarg);
			break;
		case OPT_MSG_MODE:
			if ((msg_mode = ft_ftmpi_msg_parse(optarg)) < 0)
				ft_diex(FT_EXIT_USAGE, "unknown message mode "
				    "'%s' (valid: cont, nop)", optarg);
			break;
		case OPT_DETECTOR:
			if (ft_gossip_proto_parse(optarg, &detector) != 0)
				ft_diex(FT_EXIT_USAGE, "unknown detector '%s' "
				    "(valid: random, rr, brr, dbrr)", optarg);
			cf.detector = ft_gossip_proto_name(detector);
			break;
		case OPT_HOST:
			add_specs(&x, "--host", optarg);
			break;
		case OPT_HOSTFILE:
			add_specs(&x, "--hostfile", optarg);
			break;
		case OPT_BOOT:
			x.boot = optarg;
			break;
		case 'a':
			if (ft_alloc_parse(optarg, &x.alloc) != 0)
				ft_diex(FT_EXIT_USAGE, "-a '%s' is not spread "
				    "or concentrate", optarg);
			break;
		case OPT_KEYFILE:
			x.keyfile = optarg;
			break;
		case OPT_STAGE:
			nenv = reallocarray(x.stage, x.nstage + 1,
			    sizeof(*nenv));
			if (nenv == NULL)
				ft_die(FT_EXIT_TEMP, "reallocarray");
			x.stage = nenv;
			x.stage[x.nstage++] = optarg;
			break;
		case OPT_CKPT_DIR:
			ck.dir = optarg;
			break;
		case OPT_CKPT_INTERVAL:
			/* auto: ftrun's scheduler picks it (coord only),
			 * from 1 s until it knows a checkpoint's cost. */
			ck.autoi = strcmp(optarg, "auto") == 0;
			ck.interval_ns = ck.autoi ? 1000000000u :
			    parse_duration("--ckpt-interval", optarg, 1);
			break;
		case OPT_CKPT_SERVER:
			ck.server = optarg;
			break;
		case OPT_CKPT_POLICY:
			cf.ckpt_policy = ckpt_policy(optarg);
			ck.policy = optarg;
			break;
		case OPT_RESTART:
			ck.restart = 1;
			ck.restart_job = optarg;
			break;
		case OPT_GOSSIP_PERIOD:
			cf.gossip_period_ns = parse_duration("--gossip-period",
			    optarg, 0);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (do_plan) {
		if (plan.mtbf_s == 0 || plan.runtime_s == 0)
			ft_diex(FT_EXIT_USAGE, "--plan needs --mtbf and "
			    "--runtime");
		plan.nranks = cf.nranks;
		if (ft_plan_print(stdout, &plan) != 0 || fflush(stdout) != 0)
			ft_die(FT_EXIT_TEMP, "unable to write the plan");
		return 0;
	}
	if (argc == 0)
		usage();
	if (cf.nrep > 1) {
		if (strcmp(cf.proto, "none") != 0 &&
		    strcmp(cf.proto, "replicate") != 0)
			ft_diex(FT_EXIT_USAGE, "-r %u needs the replicate "
			    "protocol, not --ft %s", cf.nrep, cf.proto);
		cf.proto = "replicate";
	}
	ftmpi_modes(&cf, comm_mode, msg_mode);
	if ((cf.log_server != NULL || cf.log_dir != NULL ||
	    cf.log_sync != NULL || log_wait != NULL) &&
	    strcmp(cf.proto, "vlog") != 0)
		ft_diex(FT_EXIT_USAGE, "--log-server, --log-dir, --log-sync and "
		    "--log-wait are for --ft vlog");
	if (log_wait != NULL && strcmp(log_wait, "all") == 0)
		add_env(&cf, "FT_VLOG_STRICT=1");
	if (cf.log_server != NULL && (cf.log_dir != NULL ||
	    cf.log_sync != NULL))
		ft_diex(FT_EXIT_USAGE, "--log-server uses a running logger: "
		    "no --log-dir or --log-sync with it");
	if (cf.log_server != NULL && (x.nspecs > 0 || x.boot != NULL))
		ft_diex(FT_EXIT_USAGE, "--log-server is for jobs on this host "
		    "only for now: across hosts, ftrun starts the job's logger "
		    "where every host reaches it");
	if (ck.server != NULL && strcmp(ck.server, "auto") == 0 &&
	    (x.nspecs > 0 || x.boot != NULL))
		ft_diex(FT_EXIT_USAGE, "--ckpt-server auto listens on this "
		    "host's loopback only: across hosts, name a server every "
		    "host reaches");
	if (strcmp(cf.proto, "coord") == 0 && ck.restart)
		ft_diex(FT_EXIT_USAGE, "--ft coord rolls back within the run: "
		    "no --restart with it");
	if (cf.ftmpi_comm == FT_FTMPI_REBUILD && ck.dir != NULL)
		ft_diex(FT_EXIT_USAGE, "--comm-mode rebuild and --ckpt-dir "
		    "do not go together yet: a new process starts from the "
		    "beginning, not from an image");
	for (size_t k = 0; k < cf.ninject; k++) {
		if (cf.inject[k].target != FT_INJECT_RANDOM &&
		    cf.inject[k].rank >= cf.nranks)
			ft_diex(FT_EXIT_USAGE, "--inject: rank %u is not in a "
			    "job of %u ranks", cf.inject[k].rank, cf.nranks);
		if (cf.inject[k].target == FT_INJECT_REPLICA &&
		    cf.inject[k].replica >= cf.nrep)
			ft_diex(FT_EXIT_USAGE, "--inject: replica %u is not "
			    "in a job of %u replicas per rank",
			    cf.inject[k].replica, cf.nrep);
		if (cf.inject[k].target == FT_INJECT_NONMASTER && cf.nrep < 2)
			ft_diex(FT_EXIT_USAGE, "--inject: role=replica needs "
			    "-r 2 or more");
	}
	/* As mpirun: as many slots as the host has CPUs, or processes. */
	if (cf.universe == 0) {
		long cpus = sysconf(_SC_NPROCESSORS_ONLN);

		cf.universe = cpus > 0 && (uint64_t)cpus > cf.nranks *
		    cf.nrep ? (uint32_t)cpus : cf.nranks * cf.nrep;
	} else if (cf.universe < cf.nranks * cf.nrep)
		ft_diex(FT_EXIT_USAGE, "--universe-size %u is smaller than "
		    "the job's %u processes", cf.universe, cf.nranks * cf.nrep);
	if (x.nstage > FT_JOB_STAGE_MAX - 1)
		ft_diex(FT_EXIT_USAGE, "at most %d --stage", FT_JOB_STAGE_MAX - 1);
	if (x.nstage > 0 && x.nspecs == 0 && x.boot == NULL)
		ft_diex(FT_EXIT_USAGE, "--stage needs --host, --hostfile or "
		    "--boot");
	setup_ckpt(&cf, &ck, x.keyfile);
	(void)setup_hosts(&cf, &x);
	/* A logger the user runs knows the cluster key, not the job's. */
	if (cf.log_server != NULL) {
		char kpath[PATH_MAX], kwhy[FT_WIRE_TEXT_MAX];
		const char *kf = x.keyfile;

		if (kf == NULL) {
			if (ft_cluster_key_path(kpath, sizeof(kpath)) != 0)
				ft_diex(FT_EXIT_USAGE, "--log-server: no "
				    "--key-file and no default cluster key "
				    "(HOME is not set)");
			kf = kpath;
		}
		if (ft_cluster_key_load(kf, x.key, kwhy, sizeof(kwhy)) != 0)
			ft_diex(FT_EXIT_USAGE, "%s", kwhy);
		cf.log_key = x.key;
	}
	cf.argv = argv;
	cf.tmpdir = getenv("TMPDIR");
	cf.path = getenv("PATH");
	cf.events_name = events;
	nofile(&cf);
	if (events != NULL) {
		if (strcmp(events, "-") == 0)
			cf.events = stdout;
		else if ((cf.events = fopen(events, "w")) == NULL)
			ft_die(FT_EXIT_USAGE, "unable to open '%s'", events);
	}
	status = ft_launch_run(&cf);
	free((void *)cf.inject);
	free((void *)cf.host_of_proc);
	free(x.hosts);
	free(x.grants);
	free(x.specs);
	free(x.stage);
	/*
	 * Events lost make a job that succeeded fail.  A write error while
	 * the job ran was reported then; the last buffered events are
	 * written by fclose.
	 */
	if (cf.events != NULL && cf.events != stdout) {
		lost = ferror(cf.events);
		if (fclose(cf.events) != 0 && !lost) {
			ft_error("events file '%s'", events);
			lost = 1;
		}
		if (lost && status == 0)
			status = FT_EXIT_TEMP;
	}
	return ft_exit(status);
}
