/* SPDX-License-Identifier: ISC */
/*
 * ftreplay: reads message logs offline.  Options and wiring only;
 * lib/replay does the work.
 *
 *	ftreplay --verify [options] [DIR | -]		(or ftreplay verify)
 *	ftreplay inspect [options] [--svg FILE [--events FILE]] [DIR | -]
 *	ftreplay run --rank R [--gdb | --print-command] DIR -- PROGRAM ...
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
#include "run.h"

#define usage	ft_replay_usage

void
ft_replay_usage(void)
{
	fprintf(stderr,
	    "usage: ftreplay --verify [--sclock clock|seq] "
	    "[--no-channel-order] [--json]\n"
	    "                [--max-memory MiB] [DIR | -]\n"
	    "       ftreplay inspect [--job J] [--json] [--svg FILE] "
	    "[--bins N]\n"
	    "                [--events FILE] [--sclock clock|seq] [DIR | -]\n"
	    "       ftreplay run [-v] [--rank R] [--gdb | --print-command] "
	    "DIR\n"
	    "                -- PROGRAM [ARGS ...]\n");
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
	OPT_EVENTS,
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
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	int			 verify, inspect, json, has_job;
	uint64_t		 job;
	const char		*svg;
	const char		*events;	/* --events FILE */
	uint32_t		 bins;
	const char		*src;
	struct ft_replay_opts	 ro;
};

/* Time stamps of a directory's ranks, for inspect's spans. */
struct spans {
	struct ft_rank_sum	*s;
	size_t			 n, cap;
};

static void
warn_torn(void *arg, const struct ft_rank_sum *s)
{
	struct spans *sp = arg;
	struct ft_rank_sum *ns;

	if (sp != NULL && (ns = ft_grow(sp->s, &sp->cap, sp->n,
	    sizeof(*ns))) != NULL) {
		sp->s = ns;
		sp->s[sp->n++] = *s;
	}
	if (s->torn > 0)
		ft_warnx("job %016" PRIx64 " rank %u: a torn tail of %" PRIu64
		    " bytes is left out", s->job, s->rank, s->torn);
}

/* Read the log: stdin, or a directory.  Exits 100 on bad input. */
static struct ft_replay *
load(const struct opts *o, struct spans *sp)
{
	struct ft_replay *l;
	struct stat st;
	const char *tmp;
	FILE *f;
	char why[FT_LOG_WHY];
	int rc;

	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	if ((l = ft_replay_new(tmp, why, sizeof(why))) == NULL)
		ft_diex(FT_EXIT_TEMP, "%s", why);
	if (o->src == NULL || strcmp(o->src, "-") == 0)
		rc = ft_replay_read_stream(l, stdin, "stdin", why, sizeof(why));
	else if (stat(o->src, &st) != 0)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP, "'%s'",
		    o->src);
	else if (S_ISDIR(st.st_mode))
		rc = ft_replay_read_dir(l, o->src, warn_torn, sp, why,
		    sizeof(why));
	else {
		/* A file of ftlog dump's output. */
		if ((f = fopen(o->src, "r")) == NULL)
			ft_die(FT_EXIT_TEMP, "'%s'", o->src);
		rc = ft_replay_read_stream(l, f, o->src, why, sizeof(why));
		fclose(f);
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

	l = load(o, NULL);
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

static const struct ft_rank_sum *
span_of(const struct spans *sp, uint64_t job, uint32_t rank)
{
	size_t i;

	for (i = 0; i < sp->n; i++)
		if (sp->s[i].job == job && sp->s[i].rank == rank)
			return &sp->s[i];
	return NULL;
}

static void
print_rank(const struct opts *o, uint64_t job, const struct ft_replay_rank *r,
    const struct ft_rank_sum *ts)
{
	static const char *const kn[] = { NULL, "anysrc", "probe", "flag",
	    "index", "count", "clock" };
	char span[32];
	int k;

	printf(o->json ? "{\"job\":\"%016" PRIx64 "\",\"rank\":%u,"
	    "\"determinants\":%" PRIu64 ",\"received\":%" PRIu64 ","
	    "\"sent\":%" PRIu64 ",\"unsuccessful_probes\":%" PRIu64 :
	    "job=%016" PRIx64 " rank=%u determinants=%" PRIu64 " received=%"
	    PRIu64 " sent=%" PRIu64 " unsuccessful_probes=%" PRIu64, job,
	    r->rank, r->dets, r->recv, r->sent, r->probes);
	for (k = 1; k <= FT_DET_KIND_MAX; k++)
		printf(o->json ? ",\"%s\":%" PRIu64 : " %s=%" PRIu64, kn[k],
		    r->kinds[k]);
	printf(o->json ? ",\"first_clock\":%" PRIu64 ",\"last_clock\":%"
	    PRIu64 : " first_clock=%" PRIu64 " last_clock=%" PRIu64,
	    r->first_clock, r->last_clock);
	if (ts != NULL && ts->first_ns != 0) {
		ft_fmt_duration(ts->last_ns - ts->first_ns, span, sizeof(span));
		printf(o->json ? ",\"span\":\"%s\"" : " span=%s", span);
	}
	printf(o->json ? "}\n" : "\n");
}

static int
inspect_run(const struct opts *o, struct ft_replay *l,
    const struct spans *sp)
{
	struct ft_replay_summary s;
	struct ft_replay_svg so;
	char why[FT_REPLAY_WHY], title[64];
	struct ft_replay_mark *marks = NULL;
	struct stat st;
	uint64_t job;
	size_t j, i;
	FILE *f;
	int found = 0;

	for (j = 0; j < ft_replay_njobs(l); j++) {
		job = ft_replay_job(l, j);
		if (o->has_job && job != o->job)
			continue;
		found = 1;
		if (ft_replay_summarize(l, job, &s, why, sizeof(why)) != 0)
			ft_diex(FT_EXIT_TEMP, "%s", why);
		for (i = 0; i < s.nranks; i++)
			print_rank(o, job, &s.ranks[i], span_of(sp, job,
			    s.ranks[i].rank));
		for (i = 0; i < s.ncells; i++)
			printf(o->json ? "{\"job\":\"%016" PRIx64 "\","
			    "\"from\":%u,\"to\":%u,\"messages\":%" PRIu64
			    "}\n" : "job=%016" PRIx64 " from=%u to=%u "
			    "messages=%" PRIu64 "\n", job, s.cells[i].from,
			    s.cells[i].to, s.cells[i].messages);
		ft_replay_summary_release(&s);
		if (o->svg == NULL)
			continue;
		if (!o->has_job && ft_replay_njobs(l) > 1)
			ft_diex(FT_EXIT_USAGE, "the log holds %zu jobs: say "
			    "which to draw with --job", ft_replay_njobs(l));
		if ((f = fopen(o->svg, "w")) == NULL)
			ft_die(FT_EXIT_TEMP, "'%s'", o->svg);
		memset(&so, 0, sizeof(so));
		so.bins = o->bins;
		snprintf(title, sizeof(title), "job %016" PRIx64, job);
		so.title = title;
		if (o->events != NULL) {
			so.events = 1;
			marks = ft_replay_marks(o->events, o->src != NULL &&
			    stat(o->src, &st) == 0 && S_ISDIR(st.st_mode) ?
			    o->src : NULL, job, &so.nmarks);
			so.marks = marks;
		}
		if (ft_replay_svg(l, job, &o->ro, &so, f, why,
		    sizeof(why)) != 0)
			ft_diex(FT_EXIT_TEMP, "%s: %s", o->svg, why);
		free(marks);
		marks = NULL;
		if (fclose(f) != 0)
			ft_die(FT_EXIT_TEMP, "'%s'", o->svg);
	}
	if (o->has_job && !found)
		ft_diex(FT_EXIT_NO, "no job %016" PRIx64 " in the log", o->job);
	ft_replay_free(l);
	return FT_EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;
	struct spans sp;
	const char *errstr;
	int ch, rc;

	ft_diag_init(argv[0]);
	memset(&o, 0, sizeof(o));
	if (argc >= 2 && strcmp(argv[1], "run") == 0)
		return ft_replay_run(argc - 1, argv + 1);
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
			if (ft_log_job_parse(optarg, &o.job) != 0)
				ft_diex(FT_EXIT_USAGE, "--job '%s': a job id, "
				    "up to 16 hex digits", optarg);
			o.has_job = 1;
			break;
		case OPT_SVG:
			o.svg = optarg;
			break;
		case OPT_EVENTS:
			o.events = optarg;
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
	if (o.events != NULL && o.svg == NULL)
		ft_diex(FT_EXIT_USAGE, "--events draws on the diagram: give "
		    "--svg FILE too");
	o.src = argc == 1 ? argv[0] : NULL;
	if (o.verify)
		return cmd_verify(&o);
	memset(&sp, 0, sizeof(sp));
	rc = inspect_run(&o, load(&o, &sp), &sp);
	free(sp.s);
	return ft_exit(rc);
}
