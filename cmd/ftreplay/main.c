/* SPDX-License-Identifier: ISC */
/*
 * ftreplay: reads message logs offline.  Options and wiring only;
 * lib/replay does the work.
 *
 *	ftreplay --verify [options] [DIR | -]		(or ftreplay verify)
 *	ftreplay inspect [options] [--svg FILE] [DIR | -]
 *
 * The log is ftlog dump's output on stdin (or "-"), or a log
 * directory.  verify exits 0 when every job's log holds, 1 at the
 * first violation, 100 on input it cannot read.
 */
#include <sys/stat.h>

#include <bsd/stdlib.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/replay/replay.h"

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftreplay --verify [--sclock clock|seq] "
	    "[--no-channel-order] [--json]\n"
	    "                [--max-memory MiB] [DIR | -]\n"
	    "       ftreplay inspect [--job J] [--json] [--svg FILE] "
	    "[--bins N]\n"
	    "                [--sclock clock|seq] [DIR | -]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_VERIFY = 256,
	OPT_SCLOCK,
	OPT_NOCHAN,
	OPT_JSON,
	OPT_MAXMEM,
	OPT_JOB,
	OPT_SVG,
	OPT_BINS,
};

static const struct option longopts[] = {
	{ "verify", no_argument, NULL, OPT_VERIFY },
	{ "sclock", required_argument, NULL, OPT_SCLOCK },
	{ "no-channel-order", no_argument, NULL, OPT_NOCHAN },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "max-memory", required_argument, NULL, OPT_MAXMEM },
	{ "job", required_argument, NULL, OPT_JOB },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "bins", required_argument, NULL, OPT_BINS },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	int			 verify, inspect, json, has_job;
	uint64_t		 job;
	const char		*svg;
	uint32_t		 bins;
	const char		*src;
	struct ft_replay_opts	 ro;
};

static void
warn_torn(void *arg, const struct ft_rank_sum *s)
{
	(void)arg;
	if (s->torn > 0)
		ft_warnx("job %016" PRIx64 " rank %u: a torn tail of %" PRIu64
		    " bytes is left out", s->job, s->rank, s->torn);
}

/* Read the log: stdin, or a directory.  Exits 100 on bad input. */
static struct ft_replay *
load(const struct opts *o)
{
	struct ft_replay *l;
	struct stat st;
	const char *tmp;
	char why[FT_LOG_WHY];
	int rc;

	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	if ((l = ft_replay_new(tmp, why, sizeof(why))) == NULL)
		ft_diex(FT_EXIT_TEMP, "%s", why);
	if (o->src == NULL || strcmp(o->src, "-") == 0)
		rc = ft_replay_read_stream(l, stdin, "stdin", why, sizeof(why));
	else {
		if (stat(o->src, &st) != 0)
			ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
			    "log directory '%s'", o->src);
		if (!S_ISDIR(st.st_mode))
			ft_diex(FT_EXIT_USAGE, "'%s' is not a log directory "
			    "(give ftlog dump's output on stdin)", o->src);
		rc = ft_replay_read_dir(l, o->src, warn_torn, NULL, why,
		    sizeof(why));
	}
	if (rc != 0) {
		switch (errno) {
		case EPROTO:
		case EINVAL:
		case EILSEQ:
		case EBADMSG:
		case ENOTSUP:
		case EMSGSIZE:
			ft_diex(FT_EXIT_USAGE, "%s", why);
		default:
			ft_diex(FT_EXIT_TEMP, "%s", why);
		}
	}
	if (ft_replay_njobs(l) == 0)
		ft_warnx("no determinants in %s", o->src == NULL ||
		    strcmp(o->src, "-") == 0 ? "stdin" : o->src);
	return l;
}

/* A string as JSON, quotes included. */
static void
json_str(const char *s)
{
	putchar('"');
	for (; *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			printf("\\u%04x", (unsigned char)*s);
		else
			putchar(*s);
	}
	putchar('"');
}

static void
print_violation(const struct opts *o, const struct ft_replay_violation *v)
{
	char line[FT_DET_TEXT_MAX];
	size_t i, n;
	int len;

	ft_errorx("job %016" PRIx64 " rank %u clock %" PRIu64 ": rule %s: %s",
	    v->job, v->rank, v->clock, v->rule, v->what);
	if (o->json) {
		printf("{\"job\":\"%016" PRIx64 "\",\"rank\":%u,\"clock\":%"
		    PRIu64 ",\"rule\":\"%s\",\"result\":\"violation\","
		    "\"what\":", v->job, v->rank, v->clock, v->rule);
		json_str(v->what);
		printf(",\"records\":[");
	} else
		printf("job=%016" PRIx64 " rank=%u clock=%" PRIu64 " rule=%s "
		    "result=violation\n", v->job, v->rank, v->clock, v->rule);
	for (i = 0; i < v->nrec; i++) {
		len = ft_det_format(line, sizeof(line), v->rec[i].job,
		    v->rec[i].rank, &v->rec[i].d, o->json);
		if (len <= 0)
			continue;
		n = (size_t)len - 1;	/* its newline */
		if (o->json) {
			n--;		/* and its closing brace */
			printf("%s%.*s", i > 0 ? "," : "", (int)n, line);
			if (v->rec[i].line > 0)
				printf(",\"line\":%" PRIu64, v->rec[i].line);
			putchar('}');
		} else {
			printf("involved %.*s", (int)n, line);
			if (v->rec[i].line > 0)
				printf(" line=%" PRIu64, v->rec[i].line);
			putchar('\n');
		}
	}
	if (o->json)
		printf("]}\n");
}

static int
cmd_verify(const struct opts *o)
{
	struct ft_replay *l;
	struct ft_replay_stats st;
	struct ft_replay_violation v;
	char why[FT_REPLAY_WHY];
	size_t j;
	int rc = 0;

	l = load(o);
	for (j = 0; j < ft_replay_njobs(l) && rc == 0; j++) {
		rc = ft_replay_verify(l, ft_replay_job(l, j), &o->ro, &st, &v,
		    why, sizeof(why));
		if (rc < 0)
			ft_diex(FT_EXIT_TEMP, "%s", why);
		if (rc == 1) {
			print_violation(o, &v);
			break;
		}
		if (o->json)
			printf("{\"job\":\"%016" PRIx64 "\",\"ranks\":%u,"
			    "\"determinants\":%" PRIu64 ",\"deliveries\":%"
			    PRIu64 ",\"nondet\":%" PRIu64 ",\"result\":"
			    "\"ok\"}\n", st.job, st.ranks, st.dets,
			    st.deliveries, st.nondet);
		else
			printf("job=%016" PRIx64 " ranks=%u determinants=%"
			    PRIu64 " deliveries=%" PRIu64 " nondet=%" PRIu64
			    " result=ok\n", st.job, st.ranks, st.dets,
			    st.deliveries, st.nondet);
		ft_info("job %016" PRIx64 ": %" PRIu64 " KiB of clock bitmap",
		    st.job, st.mem >> 10);
	}
	ft_replay_free(l);
	return ft_exit(rc == 1 ? FT_EXIT_NO : FT_EXIT_OK);
}

int	 inspect_run(const struct opts *, struct ft_replay *);

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *errstr;
	char *end;
	int ch;

	ft_diag_init(argv[0]);
	memset(&o, 0, sizeof(o));
	if (argc >= 2 && strcmp(argv[1], "verify") == 0)
		o.verify = 1;
	else if (argc >= 2 && strcmp(argv[1], "inspect") == 0)
		o.inspect = 1;
	if (o.verify || o.inspect) {
		argc--;
		argv++;
	}
	while ((ch = getopt_long(argc, argv, "v", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_VERIFY:
			o.verify = 1;
			break;
		case OPT_SCLOCK:
			if (strcmp(optarg, "clock") == 0)
				o.ro.sclock = FT_REPLAY_SCLOCK_CLOCK;
			else if (strcmp(optarg, "seq") == 0)
				o.ro.sclock = FT_REPLAY_SCLOCK_SEQ;
			else
				ft_diex(FT_EXIT_USAGE, "--sclock '%s': clock "
				    "or seq", optarg);
			break;
		case OPT_NOCHAN:
			o.ro.no_channel_order = 1;
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_MAXMEM:
			o.ro.max_mem = (uint64_t)strtonum(optarg, 1, 1 << 20,
			    &errstr) << 20;
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--max-memory '%s' is %s "
				    "(MiB, 1 to 1048576)", optarg, errstr);
			break;
		case OPT_JOB:
			errno = 0;
			o.job = strtoull(optarg, &end, 16);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    strlen(optarg) > 16 || optarg[0] == '-' ||
			    optarg[0] == '+')
				ft_diex(FT_EXIT_USAGE, "--job '%s': a job id, "
				    "up to 16 hex digits", optarg);
			o.has_job = 1;
			break;
		case OPT_SVG:
			o.svg = optarg;
			break;
		case OPT_BINS:
			o.bins = (uint32_t)strtonum(optarg, 1, 10000, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--bins '%s' is %s",
				    optarg, errstr);
			break;
		case 'v':
			ft_diag_setlevel(1);
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1 || o.verify == o.inspect)
		usage();
	if (o.verify && (o.svg != NULL || o.bins != 0 || o.has_job))
		usage();
	o.src = argc == 1 ? argv[0] : NULL;
	if (o.verify)
		return cmd_verify(&o);
	return ft_exit(inspect_run(&o, load(&o)));
}

int
inspect_run(const struct opts *o, struct ft_replay *l)
{
	(void)o;
	ft_replay_free(l);
	return FT_EXIT_OK;
}
