/* SPDX-License-Identifier: ISC */
/*
 * ftckpt: the checkpoint store, on a local directory or through a
 * checkpoint server, and the server itself.  Options and wiring only;
 * lib/store does the work.
 *
 *	ftckpt serve --dir DIR [--listen ADDR] [--key-file F] [-v]
 *	ftckpt ls [--job J] [--rank R] DIR | --server ADDR
 *	ftckpt put (--dir DIR | --server ADDR) FILE ...
 *	ftckpt get --job J --rank R [--epoch E] -o FILE DIR | --server ADDR
 *	ftckpt verify [--job J] [--rank R] [--epoch E] DIR | FILE ... |
 *	    --server ADDR
 *	ftckpt rm --job J --rank R --epoch E DIR | --server ADDR
 *	ftckpt prune [--keep N] [--older-than AGE] [--dry-run] [--job J]
 *	    DIR | --server ADDR
 */
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/peer/peer.h"
#include "../../lib/store/store.h"

#define TIMEOUT_NS	(60ull * 1000000000u)

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftckpt serve --dir DIR [--listen ADDR] [--key-file F] "
	    "[-v]\n"
	    "       ftckpt ls [--job J] [--rank R] DIR | --server ADDR\n"
	    "       ftckpt put (--dir DIR | --server ADDR) FILE ...\n"
	    "       ftckpt get --job J --rank R [--epoch E] -o FILE "
	    "DIR | --server ADDR\n"
	    "       ftckpt verify [--job J] [--rank R] [--epoch E] "
	    "DIR | FILE ... | --server ADDR\n"
	    "       ftckpt rm --job J --rank R --epoch E DIR | "
	    "--server ADDR\n"
	    "       ftckpt prune [--keep N] [--older-than AGE] [--dry-run] "
	    "[--job J] DIR | --server ADDR\n"
	    "       (with --server: [--key-file F])\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_DIR = 256,
	OPT_LISTEN,
	OPT_KEYFILE,
	OPT_SERVER,
	OPT_JOB,
	OPT_RANK,
	OPT_EPOCH,
	OPT_KEEP,
	OPT_OLDER,
	OPT_DRYRUN,
};

static const struct option longopts[] = {
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "key-file", required_argument, NULL, OPT_KEYFILE },
	{ "server", required_argument, NULL, OPT_SERVER },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "rank", required_argument, NULL, OPT_RANK },
	{ "epoch", required_argument, NULL, OPT_EPOCH },
	{ "keep", required_argument, NULL, OPT_KEEP },
	{ "older-than", required_argument, NULL, OPT_OLDER },
	{ "dry-run", no_argument, NULL, OPT_DRYRUN },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	const char	*dir, *listen, *keyfile, *server, *out;
	int		 has_job, has_rank, dryrun, verbose;
	uint64_t	 job, epoch, older_ns;
	uint32_t	 rank, keep;
	struct ft_ckptc	 k;
	uint8_t		 key[FT_WIRE_KEYLEN];
};

static volatile sig_atomic_t stop_flag;

static void
on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static void
load_key(struct opts *o)
{
	char path[PATH_MAX], why[FT_WIRE_TEXT_MAX];

	if (o->keyfile != NULL)
		snprintf(path, sizeof(path), "%s", o->keyfile);
	else if (ft_cluster_key_path(path, sizeof(path)) != 0)
		ft_diex(FT_EXIT_USAGE, "no --key-file and no default cluster "
		    "key (HOME is not set)");
	if (ft_cluster_key_load(path, o->key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
}

static void
on_ready(void *arg)
{
	printf("%s\n", (const char *)arg);
	if (fflush(stdout) != 0)
		ft_warn("stdout");
	ft_info("listening on %s", (const char *)arg);
}

static int
cmd_serve(struct opts *o)
{
	struct ft_ckptd_cfg cfg;
	struct sigaction sa;
	char bound[FT_WIRE_ADDR_MAX], why[FT_LOG_WHY];
	int lfd, rc;

	if (o->dir == NULL)
		ft_diex(FT_EXIT_USAGE, "--dir is missing");
	load_key(o);
	if (mkdir(o->dir, 0700) != 0 && errno != EEXIST)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "checkpoint directory '%s'", o->dir);
	if ((lfd = ft_net_listen(o->listen, bound, sizeof(bound))) < 0)
		ft_die(errno == EINVAL ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "listening on %s", o->listen);
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	ft_diag_setrole("server");
	memset(&cfg, 0, sizeof(cfg));
	cfg.lfd = lfd;
	cfg.key = o->key;
	cfg.dir = o->dir;
	cfg.max_conns = 4096;
	cfg.stop = &stop_flag;
	cfg.ready = on_ready;
	cfg.ready_arg = bound;
	rc = ft_ckptd_serve(&cfg, why, sizeof(why));
	close(lfd);
	explicit_bzero(o->key, sizeof(o->key));
	if (rc != 0)
		ft_diex(errno == EBUSY ? FT_EXIT_NO : FT_EXIT_TEMP, "%s", why);
	ft_info("stopped");
	return ft_exit(FT_EXIT_OK);
}

/* Exit status for a failure with errno err. */
static int
status_of(int err)
{
	switch (err) {
	case ENOENT:
	case EBADMSG:
	case EPROTO:
	case ENOTSUP:
	case EMSGSIZE:
		return FT_EXIT_NO;
	case EINVAL:
	case EACCES:
		return FT_EXIT_USAGE;
	case ETIMEDOUT:
		return FT_EXIT_TIMEOUT;
	default:
		return FT_EXIT_TEMP;
	}
}

static void
connect_server(struct opts *o)
{
	signal(SIGPIPE, SIG_IGN);
	load_key(o);
	if (ft_ckptc_open(&o->k, o->server, o->key, TIMEOUT_NS) != 0)
		ft_diex(status_of(errno), "%s", o->k.why);
}

static const char *
state_name(uint32_t s)
{
	static const char *const names[] = {
		"ok", "bad", "removed", "would-remove", "kept",
	};

	return s <= FT_CKPT_STATE_MAX ? names[s] : "unknown";
}

static void
print_ent(const struct ft_ckpt_ent *e)
{
	char when[32];
	struct tm tm;
	time_t t = (time_t)(e->created_ns / 1000000000u);

	if (e->created_ns == 0 || gmtime_r(&t, &tm) == NULL)
		snprintf(when, sizeof(when), "-");
	else
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	printf("job=%016" PRIx64 " rank=%u epoch=%" PRIu64 " state=%s "
	    "nranks=%u raw=%" PRIu64 " stored=%" PRIu64 " created=%s\n",
	    e->job, e->rank, e->epoch, state_name(e->state), e->nranks,
	    e->raw, e->stored, when);
}

/* The entries of a local scan or of a server's answer. */
static void
request(struct opts *o, uint8_t op, uint16_t flags, struct ft_ckpt_ent **e,
    size_t *n, int *rc)
{
	struct ft_msg_ckpt_req q;

	memset(&q, 0, sizeof(q));
	q.op = op;
	q.flags = flags | (o->has_job ? 0 : FT_CKPT_ALLJOBS) |
	    (o->has_rank ? 0 : FT_CKPT_ALLRANKS);
	q.job = o->job;
	q.rank = o->rank;
	q.epoch = o->epoch;
	q.keep = o->keep;
	q.older_ns = o->older_ns;
	*rc = ft_ckptc_request(&o->k, &q, e, n);
}

static int
cmd_ls(struct opts *o)
{
	struct ft_ckpt_ent *e;
	char why[FT_LOG_WHY];
	size_t n, i;
	int rc;

	if (o->server != NULL) {
		connect_server(o);
		request(o, FT_CKPT_LIST, 0, &e, &n, &rc);
		if (rc != 0)
			ft_diex(status_of(errno), "%s", o->k.why);
	} else if (ft_ckpt_scan(o->dir, !o->has_job, o->job, !o->has_rank,
	    o->rank, &e, &n, why, sizeof(why)) != 0)
		ft_diex(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP, "%s",
		    why);
	for (i = 0; i < n; i++)
		print_ent(&e[i]);
	free(e);
	return ft_exit(FT_EXIT_OK);
}

static int
cmd_put(struct opts *o, int argc, char **argv)
{
	struct ft_ckpt_hdr *h;
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX];
	int i, fd, rfd, status = FT_EXIT_OK;

	if ((h = malloc(sizeof(*h))) == NULL)
		ft_die(FT_EXIT_TEMP, "malloc");
	if (o->server != NULL)
		connect_server(o);
	else if (mkdir(o->dir, 0700) != 0 && errno != EEXIST)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "checkpoint directory '%s'", o->dir);
	for (i = 0; i < argc; i++) {
		if (ft_ckpt_verify(AT_FDCWD, argv[i], h, why,
		    sizeof(why)) != 0) {
			ft_errorx("%s", why);
			status = status_of(errno);
			continue;
		}
		if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) < 0)
			ft_die(FT_EXIT_TEMP, "'%s'", argv[i]);
		if (o->server != NULL) {
			if (ft_ckptc_put(&o->k, fd, h->job, h->rank,
			    h->epoch) != 0)
				ft_diex(status_of(errno), "%s", o->k.why);
		} else {
			(void)ft_ckpt_name(name, sizeof(name), h->job, h->rank,
			    h->epoch);
			if ((rfd = ft__ckpt_rankdir(o->dir, h->job, h->rank,
			    why, sizeof(why))) < 0)
				ft_diex(status_of(errno), "%s", why);
			if (ft_ckpt_copy(fd, argv[i], rfd, strrchr(name, '/') +
			    1, h, why, sizeof(why)) != 0)
				ft_diex(status_of(errno), "%s", why);
			close(rfd);
		}
		close(fd);
		printf("job=%016" PRIx64 " rank=%u epoch=%" PRIu64 " stored\n",
		    h->job, h->rank, h->epoch);
	}
	free(h);
	return ft_exit(status);
}

static int
cmd_get(struct opts *o)
{
	struct ft_ckpt_ent *e;
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX], path[PATH_MAX];
	char odir[PATH_MAX];
	const char *base;
	uint64_t epoch = o->epoch;
	size_t n, i;
	int sfd, ofd;

	if (!o->has_job || !o->has_rank || o->out == NULL)
		ft_diex(FT_EXIT_USAGE, "get needs --job, --rank and -o");
	/* The output is committed in its directory: fsynced there. */
	snprintf(odir, sizeof(odir), "%s", o->out);
	if ((base = strrchr(odir, '/')) != NULL) {
		odir[base - odir] = '\0';
		base = o->out + (base - odir) + 1;
	} else {
		snprintf(odir, sizeof(odir), ".");
		base = o->out;
	}
	if ((ofd = open(odir[0] != '\0' ? odir : "/", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) < 0)
		ft_die(FT_EXIT_USAGE, "directory '%s'", odir);
	if (o->server != NULL) {
		connect_server(o);
		if (ft_ckptc_get(&o->k, o->job, o->rank, o->epoch, ofd, base,
		    &epoch) != 0)
			ft_diex(status_of(errno), "%s", o->k.why);
	} else {
		if (epoch == 0) {
			if (ft_ckpt_scan(o->dir, 0, o->job, 0, o->rank, &e, &n,
			    why, sizeof(why)) != 0)
				ft_diex(FT_EXIT_TEMP, "%s", why);
			for (i = n; i > 0 && epoch == 0; i--)
				if (e[i - 1].state == FT_CKPT_OK)
					epoch = e[i - 1].epoch;
			free(e);
			if (epoch == 0)
				ft_diex(FT_EXIT_NO, "no complete image of job "
				    "%016" PRIx64 " rank %u in '%s'", o->job,
				    o->rank, o->dir);
		}
		(void)ft_ckpt_name(name, sizeof(name), o->job, o->rank, epoch);
		snprintf(path, sizeof(path), "%s/%s", o->dir, name);
		if ((sfd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			ft_die(errno == ENOENT ? FT_EXIT_NO : FT_EXIT_TEMP,
			    "image '%s'", path);
		if (ft_ckpt_copy(sfd, path, ofd, base, NULL, why,
		    sizeof(why)) != 0)
			ft_diex(status_of(errno), "%s", why);
		close(sfd);
	}
	close(ofd);
	printf("job=%016" PRIx64 " rank=%u epoch=%" PRIu64 " -> %s\n",
	    o->job, o->rank, epoch, o->out);
	return ft_exit(FT_EXIT_OK);
}

static int
cmd_verify(struct opts *o, int argc, char **argv)
{
	struct ft_ckpt_ent *e = NULL;
	struct stat st;
	char why[FT_LOG_WHY], name[FT_CKPT_NAME_MAX], path[PATH_MAX];
	size_t n = 0, i, nok = 0;
	int rc, status = FT_EXIT_OK, a;

	if (o->server != NULL) {
		connect_server(o);
		request(o, FT_CKPT_VERIFY, 0, &e, &n, &rc);
		for (i = 0; i < n; i++)
			print_ent(&e[i]);
		free(e);
		if (rc != 0)
			ft_diex(status_of(errno), "%s", o->k.why);
		return ft_exit(FT_EXIT_OK);
	}
	for (a = 0; a < argc; a++) {
		if (stat(argv[a], &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (ft_ckpt_verify(AT_FDCWD, argv[a], NULL, why,
			    sizeof(why)) != 0) {
				ft_errorx("%s", why);
				status = status_of(errno);
			} else
				printf("%s: ok\n", argv[a]);
			continue;
		}
		if (ft_ckpt_scan(argv[a], !o->has_job, o->job, !o->has_rank,
		    o->rank, &e, &n, why, sizeof(why)) != 0)
			ft_diex(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
			    "%s", why);
		for (i = 0; i < n; i++) {
			if (o->epoch != 0 && e[i].epoch != o->epoch)
				continue;
			(void)ft_ckpt_name(name, sizeof(name), e[i].job,
			    e[i].rank, e[i].epoch);
			snprintf(path, sizeof(path), "%s/%s", argv[a], name);
			if (ft_ckpt_verify(AT_FDCWD, path, NULL, why,
			    sizeof(why)) != 0) {
				ft_errorx("%s", why);
				e[i].state = FT_CKPT_BAD;
				status = FT_EXIT_NO;
			}
			nok++;
			print_ent(&e[i]);
		}
		free(e);
		if (nok == 0 && (o->has_job || o->epoch != 0))
			ft_diex(FT_EXIT_NO, "no such image in '%s'", argv[a]);
	}
	return ft_exit(status);
}

static int
cmd_rm(struct opts *o)
{
	char why[FT_LOG_WHY];
	int rc;

	if (!o->has_job || !o->has_rank || o->epoch == 0)
		ft_diex(FT_EXIT_USAGE, "rm needs --job, --rank and --epoch");
	if (o->server != NULL) {
		connect_server(o);
		request(o, FT_CKPT_RM, 0, NULL, NULL, &rc);
		if (rc != 0)
			ft_diex(status_of(errno), "%s", o->k.why);
	} else if (ft_ckpt_rm(o->dir, o->job, o->rank, o->epoch, why,
	    sizeof(why)) != 0)
		ft_diex(status_of(errno), "%s", why);
	return ft_exit(FT_EXIT_OK);
}

static int
cmd_prune(struct opts *o)
{
	struct ft_ckpt_prune p;
	struct ft_ckpt_ent *e;
	struct timespec ts;
	char why[FT_LOG_WHY];
	size_t n, i;
	int rc;

	if (o->keep == 0 && o->older_ns == 0)
		ft_diex(FT_EXIT_USAGE, "prune needs --keep or --older-than");
	if (o->server != NULL) {
		connect_server(o);
		o->has_rank = 0;
		request(o, FT_CKPT_PRUNE, o->dryrun ? FT_CKPT_DRYRUN : 0, &e,
		    &n, &rc);
		snprintf(why, sizeof(why), "%s", o->k.why);
	} else {
		clock_gettime(CLOCK_REALTIME, &ts);
		memset(&p, 0, sizeof(p));
		p.alljobs = !o->has_job;
		p.job = o->job;
		p.keep = o->keep;
		p.older_ns = o->older_ns;
		p.now_ns = (uint64_t)ts.tv_sec * 1000000000u +
		    (uint64_t)ts.tv_nsec;
		p.dryrun = o->dryrun;
		rc = ft_ckpt_prune(o->dir, &p, &e, &n, why, sizeof(why));
	}
	for (i = 0; i < n; i++)
		if (e[i].state == FT_CKPT_REMOVED ||
		    e[i].state == FT_CKPT_WOULD || o->verbose > 0)
			print_ent(&e[i]);
	free(e);
	if (rc != 0)
		ft_diex(status_of(errno), "%s", why);
	return ft_exit(FT_EXIT_OK);
}

static uint64_t
parse_job(const char *s)
{
	uint64_t v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 16);
	if (errno != 0 || end == s || *end != '\0' || strlen(s) > 16 ||
	    s[0] == '-' || s[0] == '+' || s[0] == ' ')
		ft_diex(FT_EXIT_USAGE, "--job '%s': a job id, up to 16 hex "
		    "digits", s);
	return v;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *cmd, *errstr;
	int ch, rc;

	ft_diag_init(argv[0]);
	if (argc < 2)
		usage();
	cmd = argv[1];
	argc--;
	argv++;
	memset(&o, 0, sizeof(o));
	o.listen = "tcp:127.0.0.1:0";
	while ((ch = getopt_long(argc, argv, "o:v", longopts, NULL)) != -1) {
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
		case OPT_SERVER:
			o.server = optarg;
			break;
		case OPT_JOB:
			o.job = parse_job(optarg);
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
		case OPT_EPOCH:
			o.epoch = (uint64_t)strtonum(optarg, 1, LLONG_MAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--epoch '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_KEEP:
			o.keep = (uint32_t)strtonum(optarg, 1, 1000000,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--keep '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_OLDER:
			if (ft_parse_duration(optarg, &o.older_ns) != 0 ||
			    o.older_ns == 0)
				ft_diex(FT_EXIT_USAGE, "--older-than '%s' is not "
				    "a positive duration (as 30m, 2h or "
				    "168h)", optarg);
			break;
		case OPT_DRYRUN:
			o.dryrun = 1;
			break;
		case 'o':
			o.out = optarg;
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
	if (strcmp(cmd, "put") == 0) {
		if (argc == 0 || (o.dir == NULL) == (o.server == NULL))
			usage();
		rc = cmd_put(&o, argc, argv);
	} else if (strcmp(cmd, "verify") == 0) {
		if ((argc == 0) == (o.server == NULL))
			usage();
		rc = cmd_verify(&o, argc, argv);
	} else {
		/* The others take a store: DIR, or --server. */
		if (o.server == NULL && argc == 1)
			o.dir = argv[0];
		else if (o.server == NULL || argc != 0)
			usage();
		if (strcmp(cmd, "ls") == 0)
			rc = cmd_ls(&o);
		else if (strcmp(cmd, "get") == 0)
			rc = cmd_get(&o);
		else if (strcmp(cmd, "rm") == 0)
			rc = cmd_rm(&o);
		else if (strcmp(cmd, "prune") == 0)
			rc = cmd_prune(&o);
		else
			usage();
	}
	/* The server's connection and its buffers go before the exit
	 * (memcheck counted them lost once main's frame was gone). */
	ft_ckptc_close(&o.k);
	return rc;
}
