/* SPDX-License-Identifier: ISC */
/*
 * ftgossip: the gossip failure detector and membership module, and its
 * offline tools.  Options and wiring only; lib/detect does the work.
 *
 *	ftgossip run --self ID --members FILE [--protocol P] [--period D]
 *	    [--cleanup D] [--fanout A] [--ping-timeout D] [--startup D]
 *	    [--key-file F] [--listen-fd N] [--join new|alive] [--json] [-v]
 *	ftgossip simulate --protocol P -n N --fail-prob P --trials T
 *	    [--exact] [--threads K] [--seed S]
 *	ftgossip predict --protocol P -n N [--period D]
 *
 * simulate and predict print one line of key=value fields; run prints
 * one event a line until it is stopped (SIGTERM, SIGINT) or excluded.
 */
#include <sys/stat.h>
#include <sys/un.h>

#include <bsd/stdlib.h>
#include <ctype.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/detect/detect.h"
#include "../../lib/detect/node.h"
#include "../../lib/job/job.h"

#define MAXTHREADS	64

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftgossip run --self ID --members FILE [--protocol P] "
	    "[--period D]\n"
	    "                [--cleanup D] [--fanout A] [--ping-timeout D] "
	    "[--startup D]\n"
	    "                [--key-file F] [--listen-fd N] "
	    "[--join new|alive] [--json] [-v]\n"
	    "       ftgossip simulate --protocol brr|dbrr|rr|random -n N "
	    "--fail-prob P --trials T\n"
	    "                [--exact] [--threads K] [--seed S]\n"
	    "       ftgossip predict --protocol P -n N [--period D]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_PROTOCOL = 256,
	OPT_FAILPROB,
	OPT_TRIALS,
	OPT_EXACT,
	OPT_THREADS,
	OPT_SEED,
	OPT_PERIOD,
	OPT_SELF,
	OPT_MEMBERS,
	OPT_CLEANUP,
	OPT_FANOUT,
	OPT_PING,
	OPT_STARTUP,
	OPT_KEYFILE,
	OPT_JOIN,
	OPT_JSON,
	OPT_LISTENFD,
};

static const struct option longopts[] = {
	{ "protocol", required_argument, NULL, OPT_PROTOCOL },
	{ "fail-prob", required_argument, NULL, OPT_FAILPROB },
	{ "trials", required_argument, NULL, OPT_TRIALS },
	{ "exact", no_argument, NULL, OPT_EXACT },
	{ "threads", required_argument, NULL, OPT_THREADS },
	{ "seed", required_argument, NULL, OPT_SEED },
	{ "period", required_argument, NULL, OPT_PERIOD },
	{ "self", required_argument, NULL, OPT_SELF },
	{ "members", required_argument, NULL, OPT_MEMBERS },
	{ "cleanup", required_argument, NULL, OPT_CLEANUP },
	{ "fanout", required_argument, NULL, OPT_FANOUT },
	{ "ping-timeout", required_argument, NULL, OPT_PING },
	{ "startup", required_argument, NULL, OPT_STARTUP },
	{ "key-file", required_argument, NULL, OPT_KEYFILE },
	{ "join", required_argument, NULL, OPT_JOIN },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "listen-fd", required_argument, NULL, OPT_LISTENFD },
	{ NULL, 0, NULL, 0 },
};

struct opts {
	enum ft_gossip_proto	 proto;
	int			 have_proto;
	uint32_t		 n;
	double			 pfail;
	int			 have_pfail;
	uint64_t		 trials;
	int			 exact;
	int			 threads;
	uint64_t		 seed;
	uint64_t		 period_ns;
	/* run */
	uint32_t		 self;
	int			 have_self;
	const char		*members;
	uint64_t		 cleanup_ns, ping_ns, startup_ns;
	uint32_t		 fanout;
	const char		*keyfile;
	unsigned int		 join;
	int			 json;
	int			 listen_fd;
	int			 verbose;
};

/* One thread's share of a simulation. */
struct work {
	const struct opts	*o;
	uint64_t		 first, last;	/* exact: sets; mc: trials */
	uint64_t		 rng;
	struct ft_gossip_simres	 res;
	int			 err;
};

static void *
run_work(void *arg)
{
	struct work *w = arg;

	if (w->o->exact)
		w->err = ft_gossip_sim_exact(w->o->proto, w->o->n, w->first,
		    w->last, &w->res) != 0 ? errno : 0;
	else
		w->err = ft_gossip_sim_mc(w->o->proto, w->o->n, w->o->pfail,
		    w->last - w->first, &w->rng, &w->res) != 0 ? errno : 0;
	return NULL;
}

static int
simulate(const struct opts *o)
{
	struct work w[MAXTHREADS];
	pthread_t th[MAXTHREADS];
	uint64_t total, per, *fail_by_f, *sets_by_f, trials = 0, failures = 0;
	uint64_t seed = o->seed;
	double t0, secs, prob;
	int i, k, nt = o->threads;

	if (o->exact && o->proto == FT_GOSSIP_RANDOM)
		ft_diex(FT_EXIT_USAGE, "--exact needs a deterministic "
		    "schedule (brr, dbrr or rr), not random");
	if (o->exact && o->n > FT_GOSSIP_EXACT_MAX)
		ft_diex(FT_EXIT_USAGE, "--exact enumerates 2^n failure sets: "
		    "-n %u is above %d", o->n, FT_GOSSIP_EXACT_MAX);
	total = o->exact ? 1ull << o->n : o->trials;
	if ((uint64_t)nt > total)
		nt = total > 0 ? (int)total : 1;
	fail_by_f = calloc((size_t)nt * (o->n + 1), sizeof(*fail_by_f));
	sets_by_f = calloc((size_t)nt * (o->n + 1), sizeof(*sets_by_f));
	if (fail_by_f == NULL || sets_by_f == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	/* Whole blocks of 64 per thread, so no trial is split. */
	per = (total / (uint64_t)nt + 63) & ~63ull;
	t0 = ft_now();
	for (i = 0; i < nt; i++) {
		memset(&w[i], 0, sizeof(w[i]));
		w[i].o = o;
		w[i].first = per * (uint64_t)i < total ? per * (uint64_t)i :
		    total;
		w[i].last = per * (uint64_t)(i + 1) < total ?
		    per * (uint64_t)(i + 1) : total;
		w[i].res.fail_by_f = fail_by_f + (size_t)i * (o->n + 1);
		w[i].res.sets_by_f = sets_by_f + (size_t)i * (o->n + 1);
		/* splitmix64 of the seed: distinct, nonzero streams. */
		seed += 0x9e3779b97f4a7c15ull;
		w[i].rng = (seed ^ (seed >> 30)) * 0xbf58476d1ce4e5b9ull;
		w[i].rng ^= w[i].rng >> 31;
		if (w[i].rng == 0)
			w[i].rng = 1;
		if (pthread_create(&th[i], NULL, run_work, &w[i]) != 0)
			ft_diex(FT_EXIT_TEMP, "unable to start thread %d", i);
	}
	for (i = 0; i < nt; i++) {
		(void)pthread_join(th[i], NULL);
		if (w[i].err != 0) {
			errno = w[i].err;
			ft_die(w[i].err == EINVAL ? FT_EXIT_USAGE :
			    FT_EXIT_TEMP, "simulation failed");
		}
		trials += w[i].res.trials;
		failures += w[i].res.failures;
		if (i > 0)
			for (k = 0; k <= (int)o->n; k++) {
				fail_by_f[k] += w[i].res.fail_by_f[k];
				sets_by_f[k] += w[i].res.sets_by_f[k];
			}
	}
	secs = ft_now() - t0;
	printf("protocol=%s n=%u fail_prob=%g", ft_gossip_proto_name(o->proto),
	    o->n, o->pfail);
	if (o->exact) {
		w[0].res.fail_by_f = fail_by_f;
		prob = ft_gossip_exact_prob(&w[0].res, o->n, o->pfail);
		printf(" exact=1 sets=%llu failing_sets=%llu",
		    (unsigned long long)trials, (unsigned long long)failures);
	} else {
		prob = trials > 0 ? (double)failures / (double)trials : 0;
		printf(" trials=%llu failures=%llu",
		    (unsigned long long)trials, (unsigned long long)failures);
	}
	printf(" probability=%.6g threads=%d seconds=%.3f "
	    "trials_per_s=%.0f\n", prob, nt, secs,
	    secs > 0 ? (double)trials / secs : 0);
	free(fail_by_f);
	free(sets_by_f);
	return ft_exit(FT_EXIT_OK);
}

static int
predict(const struct opts *o)
{
	uint32_t minr = ft_gossip_min_rounds(o->proto, o->n);
	uint32_t cleanr = ft_gossip_cleanup_rounds(o->proto, o->n);
	double period = (double)o->period_ns / 1e9;

	printf("protocol=%s n=%u period=%gs cycle_rounds=%u min_rounds=%u "
	    "tcleanup_min=%gs cleanup_rounds=%u tcleanup=%gs\n",
	    ft_gossip_proto_name(o->proto), o->n, period,
	    ft_gossip_cycle(o->proto, o->n), minr, minr * period, cleanr,
	    cleanr * period);
	return ft_exit(FT_EXIT_OK);
}

/* "unix:PATH" (PATH not empty) or "tcp:HOST:PORT", PORT 1 .. 65535. */
static int
address_ok(const char *addr)
{
	struct sockaddr_un sun;
	const char *colon, *errstr;

	if (strlen(addr) >= FT_WIRE_ADDR_MAX)
		return 0;
	if (strncmp(addr, "unix:", 5) == 0)
		return addr[5] != '\0' && strlen(addr + 5) < sizeof(sun.sun_path);
	if (strncmp(addr, "tcp:", 4) != 0 ||
	    (colon = strrchr(addr + 4, ':')) == NULL || colon == addr + 4)
		return 0;
	(void)strtonum(colon + 1, 1, 65535, &errstr);
	return errstr == NULL;
}

/* The next blank-separated word of s (or of *at, when s is NULL). */
static char *
next_word(char **at, char *s)
{
	char *w;

	if (s != NULL)
		*at = s;
	w = *at + strspn(*at, " \t\r\n");
	if (*w == '\0')
		return NULL;
	*at = w + strcspn(w, " \t\r\n");
	if (**at != '\0')
		*(*at)++ = '\0';
	return w;
}

/* A member's address and the line that gave it, to find one twice. */
struct where {
	const char	*addr;
	size_t		 line;
	uint32_t	 id;
};

static int
where_cmp(const void *a, const void *b)
{
	const struct where *x = a, *y = b;
	int c = strcmp(x->addr, y->addr);

	if (c != 0)
		return c;
	return x->line < y->line ? -1 : x->line > y->line;
}

/*
 * No two members may share an address: one of them could never
 * listen, and the others would take one for the other.
 */
static void
check_addresses(const char *path, char (*addrs)[FT_WIRE_ADDR_MAX],
    const size_t *lines, uint32_t n)
{
	struct where *w;
	uint32_t i;

	if ((w = calloc(n, sizeof(*w))) == NULL)
		ft_die(FT_EXIT_TEMP, "members");
	for (i = 0; i < n; i++)
		w[i] = (struct where){ addrs[i], lines[i], i };
	qsort(w, n, sizeof(*w), where_cmp);
	for (i = 1; i < n; i++)
		if (strcmp(w[i].addr, w[i - 1].addr) == 0)
			ft_diex(FT_EXIT_USAGE, "%s:%zu: member %u has the "
			    "address of member %u, '%s'", path, w[i].line,
			    w[i].id, w[i - 1].id, w[i].addr);
	free(w);
}

/*
 * The members file: "ID ADDR" lines, ids 0 .. n-1 each once, '#'
 * comments and blank lines ignored, no address twice.
 */
static char (*read_members(const char *path, uint32_t *np))[FT_WIRE_ADDR_MAX]
{
	char (*addrs)[FT_WIRE_ADDR_MAX] = NULL, (*grown)[FT_WIRE_ADDR_MAX];
	char *line = NULL, *p, *id, *addr, *extra, *line_at = NULL;
	const char *errstr;
	size_t cap = 0, lineno = 0, max = 0, *lines = NULL, *glines;
	ssize_t len;
	uint32_t n = 0, i;
	long long v;
	struct stat st;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		ft_die(FT_EXIT_USAGE, "members file '%s'", path);
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode))
		ft_diex(FT_EXIT_USAGE, "members file '%s' is a directory",
		    path);
	while ((len = getline(&line, &cap, f)) != -1) {
		lineno++;
		/* A NUL would end the address early, and quietly. */
		if (memchr(line, '\0', (size_t)len) != NULL)
			ft_diex(FT_EXIT_USAGE, "%s:%zu: the line holds a NUL "
			    "byte", path, lineno);
		if ((p = strchr(line, '#')) != NULL)
			*p = '\0';
		id = next_word(&line_at, line);
		if (id == NULL)
			continue;
		addr = next_word(&line_at, NULL);
		extra = next_word(&line_at, NULL);
		if (addr == NULL || extra != NULL)
			ft_diex(FT_EXIT_USAGE, "%s:%zu: expected \"ID ADDRESS\"",
			    path, lineno);
		v = strtonum(id, 0, FT_GOSSIP_NMAX - 1, &errstr);
		if (errstr != NULL)
			ft_diex(FT_EXIT_USAGE, "%s:%zu: id '%s' is %s", path,
			    lineno, id, errstr);
		if (!address_ok(addr))
			ft_diex(FT_EXIT_USAGE, "%s:%zu: address '%s' is not "
			    "unix:PATH or tcp:HOST:PORT", path, lineno, addr);
		if ((size_t)v >= max) {
			grown = reallocarray(addrs, (size_t)v + 64,
			    sizeof(*addrs));
			if (grown != NULL)
				addrs = grown;
			glines = reallocarray(lines, (size_t)v + 64,
			    sizeof(*lines));
			if (glines != NULL)
				lines = glines;
			if (grown == NULL || glines == NULL)
				ft_die(FT_EXIT_TEMP, "members");
			memset(grown + max, 0, ((size_t)v + 64 - max) *
			    sizeof(*addrs));
			max = (size_t)v + 64;
		}
		if (addrs[v][0] != '\0')
			ft_diex(FT_EXIT_USAGE, "%s:%zu: id %lld appears twice",
			    path, lineno, v);
		snprintf(addrs[v], sizeof(addrs[v]), "%s", addr);
		lines[v] = lineno;
		n++;
	}
	if (ferror(f))
		ft_die(FT_EXIT_TEMP, "%s", path);
	fclose(f);
	free(line);
	if (n < 2)
		ft_diex(FT_EXIT_USAGE, "%s: at least 2 members are needed",
		    path);
	for (i = 0; i < n; i++)
		if ((size_t)i >= max || addrs[i][0] == '\0')
			ft_diex(FT_EXIT_USAGE, "%s: ids must be 0 .. %u; %u is "
			    "missing", path, n - 1, i);
	check_addresses(path, addrs, lines, n);
	free(lines);
	*np = n;
	return addrs;
}

/*
 * The shared key: 32 bytes, raw or as 64 hex digits, from a file only
 * its owner can read; or from the fd in FT_KEY_FD (ftrun's ranks).
 */
static void
read_key(const char *path, uint8_t key[FT_WIRE_KEYLEN])
{
	struct stat st;
	const char *fdenv, *errstr;
	uint8_t buf[130], any;
	ssize_t got;
	size_t len = 0, i;
	int fd;
	unsigned int hi, lo;

	if (path == NULL) {
		if ((fdenv = getenv(FT_ENV_KEYFD)) == NULL)
			ft_diex(FT_EXIT_USAGE, "--key-file is missing (or "
			    "set %s)", FT_ENV_KEYFD);
		fd = (int)strtonum(fdenv, 0, 65535, &errstr);
		if (errstr != NULL)
			ft_diex(FT_EXIT_USAGE, "%s '%s' is %s", FT_ENV_KEYFD,
			    fdenv, errstr);
	} else {
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
			ft_die(FT_EXIT_USAGE, "key file '%s'", path);
		if (fstat(fd, &st) != 0)
			ft_die(FT_EXIT_TEMP, "key file '%s'", path);
		if (S_ISDIR(st.st_mode))
			ft_diex(FT_EXIT_USAGE, "key file '%s' is a directory",
			    path);
		if ((st.st_mode & 077) != 0)
			ft_diex(FT_EXIT_USAGE, "key file '%s' is open to others "
			    "(mode %04o); chmod 600 it", path,
			    (unsigned int)(st.st_mode & 07777));
	}
	while (len < sizeof(buf) &&
	    (got = read(fd, buf + len, sizeof(buf) - len)) != 0) {
		if (got < 0) {
			if (errno == EINTR)
				continue;
			ft_die(FT_EXIT_TEMP, "reading the key");
		}
		len += (size_t)got;
	}
	close(fd);
	if (len == FT_WIRE_KEYLEN) {
		memcpy(key, buf, FT_WIRE_KEYLEN);
	} else {
		while (len > 0 && isspace(buf[len - 1]))
			len--;
		if (len != 2 * FT_WIRE_KEYLEN)
			ft_diex(FT_EXIT_USAGE, "the key must be %d bytes or %d "
			    "hex digits", FT_WIRE_KEYLEN, 2 * FT_WIRE_KEYLEN);
		for (i = 0; i < FT_WIRE_KEYLEN; i++) {
			if (sscanf((const char *)buf + 2 * i, "%1x%1x", &hi,
			    &lo) != 2)
				ft_diex(FT_EXIT_USAGE, "the key has a non-hex "
				    "digit");
			key[i] = (uint8_t)(hi << 4 | lo);
		}
	}
	explicit_bzero(buf, sizeof(buf));
	/* What an unset or placeholder key looks like: no secret. */
	for (i = 0, any = 0; i < FT_WIRE_KEYLEN; i++)
		any |= key[i];
	if (any == 0)
		ft_diex(FT_EXIT_USAGE, "the key is all zeros; make a random "
		    "one");
}

static volatile sig_atomic_t stop_flag;

static void
on_stop(int sig)
{
	(void)sig;
	stop_flag = 1;
}

static int
run(const struct opts *o)
{
	struct ft_gnode_cfg cfg;
	struct sigaction sa;
	uint8_t key[FT_WIRE_KEYLEN];
	int rc;

	memset(&cfg, 0, sizeof(cfg));
	cfg.addrs = read_members(o->members, &cfg.n);
	if (o->self >= cfg.n)
		ft_diex(FT_EXIT_USAGE, "--self %u is not in %s (ids 0 .. %u)",
		    o->self, o->members, cfg.n - 1);
	read_key(o->keyfile, key);
	cfg.self = o->self;
	cfg.proto = o->proto;
	cfg.fanout = o->fanout;
	cfg.period_ns = o->period_ns;
	cfg.cleanup_ns = o->cleanup_ns != 0 ? o->cleanup_ns :
	    ft_gossip_cleanup_rounds(o->proto, cfg.n) * o->period_ns;
	/*
	 * A dead process is found by a refused connection at once; the
	 * timeout only decides about a silent host or a stalled process,
	 * so it errs long: a busy machine must not cost a false failure.
	 */
	cfg.ping_ns = o->ping_ns != 0 ? o->ping_ns :
	    cfg.cleanup_ns > 1000000000u ? cfg.cleanup_ns : 1000000000u;
	cfg.startup_ns = o->startup_ns;
	cfg.key = key;
	cfg.join = o->join;
	cfg.json = o->json;
	cfg.events = stdout;
	cfg.in_fd = STDIN_FILENO;
	cfg.listen_fd = o->listen_fd;
	cfg.stop = &stop_flag;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	(void)fcntl(STDIN_FILENO, F_SETFL,
	    fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);
	rc = ft_gnode_run(&cfg);
	free(cfg.addrs);
	explicit_bzero(key, sizeof(key));
	return ft_exit(rc);
}

int
main(int argc, char *argv[])
{
	struct opts o;
	const char *cmd, *errstr;
	char *end, getopt_prog[80];
	long ncpu;
	int ch;

	ft_diag_init(argv[0]);
	/* getopt starts its messages with argv[0]: make them read as ours,
	 * "ftgossip: fatal: unrecognized option '--bogus'". */
	snprintf(getopt_prog, sizeof(getopt_prog), "%s: fatal",
	    ft_diag_prog());
	argv[0] = getopt_prog;
	if (argc < 2)
		usage();
	cmd = argv[1];
	if (strcmp(cmd, "simulate") != 0 && strcmp(cmd, "predict") != 0 &&
	    strcmp(cmd, "run") != 0) {
		/* Not ft_diex: the usage follows. */
		fprintf(stderr, "%s: unknown command '%s'\n", getopt_prog, cmd);
		usage();
	}
	memset(&o, 0, sizeof(o));
	o.period_ns = 100000000u;
	o.proto = FT_GOSSIP_DBRR;
	o.fanout = 2;
	o.listen_fd = -1;
	o.startup_ns = 10000000000ull;
	ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	o.threads = ncpu > 0 && ncpu <= MAXTHREADS ? (int)ncpu : 1;
	o.seed = (uint64_t)ft_now_ns() ^ (uint64_t)getpid() << 32;
	optind = 2;
	while ((ch = getopt_long(argc, argv, "n:v", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.n = (uint32_t)strtonum(optarg, 1, FT_GOSSIP_NMAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-n '%s' is %s", optarg,
				    errstr);
			break;
		case OPT_PROTOCOL:
			if (ft_gossip_proto_parse(optarg, &o.proto) != 0)
				ft_diex(FT_EXIT_USAGE, "unknown protocol '%s' "
				    "(valid: random, rr, brr, dbrr)", optarg);
			o.have_proto = 1;
			break;
		case OPT_FAILPROB:
			errno = 0;
			o.pfail = strtod(optarg, &end);
			if (errno != 0 || end == optarg || *end != '\0' ||
			    !(o.pfail >= 0 && o.pfail <= 1))
				ft_diex(FT_EXIT_USAGE, "--fail-prob '%s' is "
				    "not a probability between 0 and 1",
				    optarg);
			o.have_pfail = 1;
			break;
		case OPT_TRIALS:
			o.trials = (uint64_t)strtonum(optarg, 1,
			    1000000000000000ll, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--trials '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_EXACT:
			o.exact = 1;
			break;
		case OPT_THREADS:
			o.threads = (int)strtonum(optarg, 1, MAXTHREADS,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--threads '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_SEED:
			o.seed = (uint64_t)strtonum(optarg, 0, LLONG_MAX,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--seed '%s' is %s",
				    optarg, errstr);
			break;
		case OPT_PERIOD:
			if (ft_parse_duration(optarg, &o.period_ns) != 0 ||
			    o.period_ns == 0)
				ft_diex(FT_EXIT_USAGE, "--period '%s' is not a "
				    "positive duration", optarg);
			break;
		case OPT_SELF:
			o.self = (uint32_t)strtonum(optarg, 0,
			    FT_GOSSIP_NMAX - 1, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--self '%s' is %s",
				    optarg, errstr);
			o.have_self = 1;
			break;
		case OPT_MEMBERS:
			o.members = optarg;
			break;
		case OPT_CLEANUP:
		case OPT_PING:
		case OPT_STARTUP:
			if (ft_parse_duration(optarg, ch == OPT_CLEANUP ?
			    &o.cleanup_ns : ch == OPT_PING ? &o.ping_ns :
			    &o.startup_ns) != 0 || (ch != OPT_STARTUP &&
			    (ch == OPT_CLEANUP ? o.cleanup_ns : o.ping_ns) ==
			    0))
				ft_diex(FT_EXIT_USAGE, "'%s' is not a positive "
				    "duration", optarg);
			break;
		case OPT_FANOUT:
			o.fanout = (uint32_t)strtonum(optarg, 2, 256, &errstr);
			if (errstr != NULL || !ft_rtree_fanout_ok(o.fanout))
				ft_diex(FT_EXIT_USAGE, "--fanout '%s' is not a "
				    "power of two from 2 to 256", optarg);
			break;
		case OPT_KEYFILE:
			o.keyfile = optarg;
			break;
		case OPT_JOIN:
			if (strcmp(optarg, "new") == 0)
				o.join = FT_MB_NEW_NODE;
			else if (strcmp(optarg, "alive") == 0)
				o.join = FT_MB_NODE_ALIVE;
			else
				ft_diex(FT_EXIT_USAGE, "--join '%s' is not new "
				    "or alive", optarg);
			break;
		case OPT_JSON:
			o.json = 1;
			break;
		case OPT_LISTENFD:
			o.listen_fd = (int)strtonum(optarg, 3, INT_MAX, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "--listen-fd '%s' is %s",
				    optarg, errstr);
			break;
		case 'v':
			o.verbose++;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	ft_diag_setlevel(o.verbose);
	if (strcmp(cmd, "run") == 0) {
		if (!o.have_self)
			ft_diex(FT_EXIT_USAGE, "--self is missing");
		if (o.members == NULL)
			ft_diex(FT_EXIT_USAGE, "--members is missing");
		return run(&o);
	}
	if (!o.have_proto)
		ft_diex(FT_EXIT_USAGE, "--protocol is missing");
	if (o.n == 0)
		ft_diex(FT_EXIT_USAGE, "-n is missing");
	if (strcmp(cmd, "predict") == 0)
		return predict(&o);
	if (!o.have_pfail)
		ft_diex(FT_EXIT_USAGE, "--fail-prob is missing");
	if (!o.exact && o.trials == 0)
		ft_diex(FT_EXIT_USAGE, "--trials is missing");
	return simulate(&o);
}
