/* SPDX-License-Identifier: ISC */
/*
 * ftlog: the reliable event logger of message logging, and its reader.
 * Options and wiring only; lib/store does the work.
 *
 *	ftlog serve --dir DIR [--listen ADDR] [--key-file F]
 *	    [--sync always|batch|memory] [--segment-size BYTES] [-v]
 *	ftlog dump [--job J] [--rank R] [--json] DIR
 *	ftlog stat [--job J] [--rank R] DIR
 *
 * serve prints the address it listens on, one line on stdout, once it
 * is ready, and runs in the foreground until SIGTERM or SIGINT.
 */
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/job/job.h"
#include "../../lib/peer/peer.h"
#include "../../lib/store/store.h"

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftlog serve --dir DIR [--listen ADDR] [--key-file F]\n"
	    "                   [--sync always|batch|memory] "
	    "[--segment-size BYTES] [-v]\n"
	    "       ftlog dump [--job J] [--rank R] [--json] DIR\n"
	    "       ftlog stat [--job J] [--rank R] DIR\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_DIR = 256,
	OPT_LISTEN,
	OPT_KEYFILE,
	OPT_SYNC,
	OPT_SEGSIZE,
	OPT_JOB,
	OPT_RANK,
	OPT_JSON,
};

static const struct option longopts[] = {
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "key-file", required_argument, NULL, OPT_KEYFILE },
	{ "sync", required_argument, NULL, OPT_SYNC },
	{ "segment-size", required_argument, NULL, OPT_SEGSIZE },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "json", no_argument, NULL, OPT_JSON },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char		*dir;
	const char		*listen;
	const char		*keyfile;
	enum ft_log_sync	 sync;
	uint64_t		 segsize;
	int			 has_job, has_rank, json, verbose;
	uint64_t		 job;
	uint32_t		 rank;
};

static volatile sig_atomic_t stop_flag;

static void
on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* The job key ftrun gives through FT_KEY_FD: 32 raw bytes. */
static void
read_keyfd(const char *s, uint8_t key[FT_WIRE_KEYLEN])
{
	const char *errstr;
	ssize_t n;
	size_t got = 0;
	int fd;

	fd = (int)strtonum(s, 0, 65535, &errstr);
	if (errstr != NULL)
		ft_diex(FT_EXIT_USAGE, "%s '%s' is %s", FT_ENV_KEYFD, s, errstr);
	while (got < FT_WIRE_KEYLEN) {
		n = read(fd, key + got, FT_WIRE_KEYLEN - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ft_die(FT_EXIT_USAGE, "reading the job key from fd %d",
			    fd);
		if (n == 0)
			ft_diex(FT_EXIT_USAGE, "the job key on fd %d is short "
			    "(%zu bytes)", fd, got);
		got += (size_t)n;
	}
	close(fd);
}

/* --key-file, else the job key of FT_KEY_FD, else the cluster key. */
static void
load_key(const struct opts *o, uint8_t key[FT_WIRE_KEYLEN])
{
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];
	const char *fd;

	if (o->keyfile == NULL && (fd = getenv(FT_ENV_KEYFD)) != NULL) {
		read_keyfd(fd, key);
		return;
	}
	if (o->keyfile != NULL)
		snprintf(path, sizeof(path), "%s", o->keyfile);
	else if (ft_cluster_key_path(path, sizeof(path)) != 0)
		ft_diex(FT_EXIT_USAGE, "no --key-file, no %s and no default "
		    "path (HOME is not set)", FT_ENV_KEYFD);
	if (ft_cluster_key_load(path, key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
}

/* Ready: the address on stdout, for whoever started us. */
static void
on_ready(void *arg)
{
	printf("%s\n", (const char *)arg);
	if (fflush(stdout) != 0)
		ft_warn("stdout");
	ft_info("listening on %s", (const char *)arg);
}

static int
cmd_serve(const struct opts *o)
{
	struct ft_logd_cfg cfg;
	struct sigaction sa;
	uint64_t limit;
	uint8_t key[FT_WIRE_KEYLEN];
	char bound[FT_WIRE_ADDR_MAX], why[FT_LOG_WHY];
	int lfd, rc;

	if (o->dir == NULL)
		ft_diex(FT_EXIT_USAGE, "--dir is missing");
	load_key(o, key);
	if (mkdir(o->dir, 0700) != 0 && errno != EEXIST)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "log directory '%s'", o->dir);
	/* A shared logger holds a segment open for every rank it serves. */
	(void)ft_launch_nofile(0, &limit);
	if ((lfd = ft_net_listen(o->listen, bound, sizeof(bound))) < 0)
		ft_die(errno == EINVAL ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "listening on %s", o->listen);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ft_diag_setrole("logger");
	memset(&cfg, 0, sizeof(cfg));
	cfg.lfd = lfd;
	cfg.key = key;
	cfg.dir = o->dir;
	cfg.sync = o->sync;
	cfg.segsize = o->segsize;
	cfg.max_conns = 4096;
	cfg.stop = &stop_flag;
	cfg.ready = on_ready;
	cfg.ready_arg = bound;
	rc = ft_logd_serve(&cfg, why, sizeof(why));
	close(lfd);
	explicit_bzero(key, sizeof(key));
	if (rc != 0)
		ft_diex(errno == EBUSY ? FT_EXIT_NO : FT_EXIT_TEMP, "%s", why);
	ft_info("stopped");
	return ft_exit(FT_EXIT_OK);
}

static int
print_det(void *arg, uint64_t job, uint32_t rank, const struct ft_det *d)
{
	const struct opts *o = arg;
	char line[FT_DET_TEXT_MAX];

	if (ft_det_format(line, sizeof(line), job, rank, d, o->json) < 0) {
		errno = EOVERFLOW;
		return -1;
	}
	if (fputs(line, stdout) == EOF)
		return -1;
	return 0;
}

static void
fmt_time(uint64_t ns, char *buf, size_t size)
{
	struct tm tm;
	time_t t = (time_t)(ns / 1000000000u);

	if (ns == 0 || gmtime_r(&t, &tm) == NULL)
		snprintf(buf, size, "-");
	else
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
print_sum(void *arg, const struct ft_rank_sum *s)
{
	char from[32], to[32], span[32];

	fmt_time(s->first_ns, from, sizeof(from));
	fmt_time(s->last_ns, to, sizeof(to));
	ft_fmt_duration(s->last_ns - s->first_ns, span, sizeof(span));
	printf("job=%016" PRIx64 " rank=%u count=%" PRIu64 " first=%" PRIu64
	    " last=%" PRIu64 " segments=%u bytes=%" PRIu64 " torn=%" PRIu64
	    " from=%s to=%s span=%s\n", s->job, s->rank, s->count,
	    s->first_seq, s->last_seq, s->segments, s->bytes, s->torn, from,
	    to, s->first_ns != 0 ? span : "-");
}

static void
warn_torn(void *arg, const struct ft_rank_sum *s)
{
	if (s->torn > 0)
		ft_warnx("job %016" PRIx64 " rank %u: a torn tail of %" PRIu64
		    " bytes is left out (ftlog serve cuts it)", s->job,
		    s->rank, s->torn);
}

static int
cmd_read(const struct opts *o, int dump)
{
	char why[FT_LOG_WHY];
	struct stat st;

	if (stat(o->dir, &st) != 0)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "log directory '%s'", o->dir);
	if (ft_logdir_walk(o->dir, !o->has_job, o->job, !o->has_rank, o->rank,
	    dump ? print_det : NULL, dump ? warn_torn : print_sum,
	    (void *)o, why, sizeof(why)) != 0) {
		switch (errno) {
		case EILSEQ:
		case EPROTO:
		case EBADMSG:
		case ENOTSUP:
		case EMSGSIZE:
			ft_diex(FT_EXIT_NO, "%s", why);
		default:
			ft_diex(FT_EXIT_TEMP, "%s", why);
		}
	}
	return ft_exit(FT_EXIT_OK);
}

static uint64_t
parse_size(const char *s)
{
	unsigned long long v;
	uint64_t mult = 1;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || s[0] == '-' || s[0] == '+' || errno != 0)
		goto bad;
	if (*end == 'k' || *end == 'K')
		mult = 1u << 10;
	else if (*end == 'M')
		mult = 1u << 20;
	else if (*end == 'G')
		mult = 1u << 30;
	if (mult > 1)
		end++;
	if (*end != '\0')
		goto bad;
	if (v > FT_SEG_SIZE_MAX / mult || v * mult < FT_SEG_SIZE_MIN)
		ft_diex(FT_EXIT_USAGE, "--segment-size '%s' is out of range "
		    "(%u to %u bytes)", s, FT_SEG_SIZE_MIN, FT_SEG_SIZE_MAX);
	return v * mult;
bad:
	ft_diex(FT_EXIT_USAGE, "--segment-size '%s': a number of bytes, "
	    "with k, M or G", s);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *cmd, *errstr;
	int ch;

	ft_diag_init(argv[0]);
	if (argc < 2)
		usage();
	cmd = argv[1];
	argc--;
	argv++;
	memset(&o, 0, sizeof(o));
	o.listen = "tcp:127.0.0.1:0";
	o.sync = FT_LOG_SYNC_MEMORY;
	o.segsize = FT_SEG_SIZE_DEFAULT;
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_DIR:
			o.dir = optarg;
			break;
		case OPT_LISTEN:
			o.listen = optarg;
			break;
		case OPT_KEYFILE:
			o.keyfile = optarg;
			break;
		case OPT_SYNC:
			if (ft_log_sync_parse(optarg, &o.sync) != 0)
				ft_diex(FT_EXIT_USAGE, "--sync '%s': always, "
				    "batch or memory", optarg);
			break;
		case OPT_SEGSIZE:
			o.segsize = parse_size(optarg);
			break;
		case OPT_JOB:
			if (ft_log_job_parse(optarg, &o.job) != 0)
				ft_diex(FT_EXIT_USAGE, "--job '%s': a job id, "
				    "up to 16 hex digits", optarg);
			o.has_job = 1;
			break;
		case OPT_RANK:
			o.rank = (uint32_t)strtonum(optarg, 0,
			    FT_WIRE_MAX_RANKS - 1, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--rank '%s' is %s",
				    optarg, errstr);
			o.has_rank = 1;
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case 'v':
			o.verbose++;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	ft_diag_setlevel(o.verbose);
	if (strcmp(cmd, "serve") == 0) {
		if (argc != 0)
			usage();
		return cmd_serve(&o);
	}
	if (strcmp(cmd, "dump") == 0 || strcmp(cmd, "stat") == 0) {
		if (argc != 1)
			usage();
		o.dir = argv[0];
		return cmd_read(&o, cmd[0] == 'd');
	}
	usage();
}
