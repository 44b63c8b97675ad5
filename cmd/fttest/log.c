/* SPDX-License-Identifier: ISC */
/*
 * fttest log: drive the event logger's client (lib/store) against a
 * running "ftlog serve" without the vlog protocol: append determinants
 * of a known content for R ranks, fetch them back, or send a malformed
 * frame.  Its determinants are a function of (rank, seq) only, so that
 * a log it wrote has one content, which the golden test of ftlog dump
 * checks.
 */
#include <bsd/stdlib.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/net/net.h"
#include "../../lib/peer/peer.h"
#include "../../lib/store/store.h"
#include "fttest.h"

#define MAXCLIENTS	256

struct load {
	struct ft_logc	*c[MAXCLIENTS];
	int		 nc;
	uint32_t	 ranks;
	uint64_t	 count;		/* target last seq of every rank */
	uint64_t	*appended, *durable;
	int		*opened;
	FILE		*ackf;
	uint64_t	 errors;
	/* fetch */
	int		 json, done, failed;
	uint64_t	 job, got;
	struct fttest_jobgen *gen;	/* --pattern job, one a rank */
};

static void
log_usage(void) FT_NORETURN;

static void
log_usage(void)
{
	fprintf(stderr,
	    "usage: fttest log load ADDR --key-file F --job J --ranks R "
	    "--count N\n"
	    "                [--clients C] [--batch B] [--ack-file FILE] "
	    "[--latency K] [--timeout D]\n"
	    "                [--hold-at S --go-file FILE] [--pattern job]\n"
	    "       fttest log gen --job J --ranks R --count N [--json]\n"
	    "       fttest log fetch ADDR --key-file F --job J --rank R "
	    "[--from-seq S]\n"
	    "                [--from-clock C] [--json] [--timeout D]\n"
	    "       fttest log bad ADDR --key-file F [--cut K]\n");
	exit(FT_EXIT_USAGE);
}

void
fttest_log_det(uint32_t rank, uint32_t ranks, uint64_t seq,
    struct ft_det *d)
{
	memset(d, 0, sizeof(*d));
	d->seq = seq;
	d->clock = 2 * seq + rank;
	d->sender = (uint32_t)((rank + seq) % ranks);
	d->sclock = seq + 7 * (uint64_t)rank;
	d->probes = (uint32_t)(seq % 3);
	if (seq % 5 == 0) {
		d->kind = 1 + (uint32_t)((seq / 5) % FT_DET_KIND_MAX);
		if (d->kind != 1)
			d->sender = FT_DET_NOSENDER;
		d->v[0] = seq;
		d->v[1] = rank;
		d->v[2] = seq * 1000003u ^ 0xfeedfacecafebeefull;
	}
}

static void
on_acked(void *arg, uint32_t rank, uint64_t seq, uint64_t clock)
{
	struct load *l = arg;

	(void)clock;
	if (rank >= l->ranks)
		return;
	if (!l->opened[rank]) {
		l->opened[rank] = 1;
		l->appended[rank] = seq;
	}
	l->durable[rank] = seq;
	if (l->ackf != NULL) {
		fprintf(l->ackf, "%u %" PRIu64 "\n", rank, seq);
		fflush(l->ackf);
	}
}

static void
on_error(void *arg, uint32_t rank, uint32_t reqid, uint32_t code,
    const char *text)
{
	struct load *l = arg;

	l->errors++;
	if (reqid != 0)
		l->failed = 1;
	if (rank == UINT32_MAX)
		ft_warnx("%s", text);
	else
		ft_warnx("rank %u: error %u: %s", rank, code, text);
}

static void
on_records(void *arg, uint32_t rank, uint32_t reqid,
    const struct ft_det *d, uint32_t n, int last)
{
	struct load *l = arg;
	char line[FT_DET_TEXT_MAX];
	uint32_t i;

	for (i = 0; i < n; i++)
		if (ft_det_format(line, sizeof(line), l->job, rank, &d[i],
		    l->json) > 0)
			fputs(line, stdout);
	l->got += n;
	if (last)
		l->done = 1;
}

/* Poll every client once, for at most ms. */
static int
pump(struct load *l, int ms)
{
	struct pollfd p[MAXCLIENTS];
	uint64_t dl, now = ft_now_ns();
	int i;

	for (i = 0; i < l->nc; i++) {
		p[i].fd = ft_logc_fd(l->c[i]);
		p[i].events = ft_logc_events(l->c[i]);
		p[i].revents = 0;
		dl = ft_logc_deadline(l->c[i]);
		if (dl != 0 && ms != 0) {
			dl = dl > now ? (dl - now) / 1000000 + 1 : 0;
			if (ms < 0 || dl < (uint64_t)ms)
				ms = (int)dl;
		}
	}
	if (poll(p, (nfds_t)l->nc, ms) < 0 && errno != EINTR)
		return -1;
	for (i = 0; i < l->nc; i++)
		if (ft_logc_progress(l->c[i]) != 0)
			return -1;
	return 0;
}

struct largs {
	const char	*addr;
	const char	*keyfile;
	uint64_t	 job;
	int		 hasjob;
	uint32_t	 ranks, rank;
	uint64_t	 count;
	int		 clients, json;
	uint32_t	 batch;
	const char	*ackfile;
	uint32_t	 latency;
	uint64_t	 timeout;
	uint64_t	 from_seq, from_clock;
	uint32_t	 cut;
	uint64_t	 hold;
	const char	*go;
	int		 jobpattern;
};

static void
largs_parse(int argc, char *argv[], struct largs *a)
{
	static const struct option longopts[] = {
		{ "key-file", required_argument, NULL, 'k' },
		{ "job", required_argument, NULL, 'j' },
		{ "ranks", required_argument, NULL, 'R' },
		{ "rank", required_argument, NULL, 'r' },
		{ "count", required_argument, NULL, 'n' },
		{ "clients", required_argument, NULL, 'C' },
		{ "batch", required_argument, NULL, 'b' },
		{ "ack-file", required_argument, NULL, 'a' },
		{ "latency", required_argument, NULL, 'L' },
		{ "timeout", required_argument, NULL, 't' },
		{ "from-seq", required_argument, NULL, 's' },
		{ "from-clock", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'J' },
		{ "cut", required_argument, NULL, 'x' },
		{ "hold-at", required_argument, NULL, 'H' },
		{ "go-file", required_argument, NULL, 'g' },
		{ "pattern", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	const char *errstr = NULL;
	char *end;
	int ch;

	memset(a, 0, sizeof(*a));
	optind = 0;
	a->clients = 1;
	a->batch = 64;
	a->timeout = 60ull * 1000000000u;
	a->ranks = 1;
	a->cut = 1;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			a->keyfile = optarg;
			break;
		case 'j':
			errno = 0;
			a->job = strtoull(optarg, &end, 16);
			if (errno != 0 || *end != '\0' || end == optarg)
				ft_diex(FT_EXIT_USAGE, "--job: hex digits");
			a->hasjob = 1;
			break;
		case 'R':
			a->ranks = (uint32_t)strtonum(optarg, 1, 1u << 20,
			    &errstr);
			break;
		case 'r':
			a->rank = (uint32_t)strtonum(optarg, 0, 1u << 20,
			    &errstr);
			break;
		case 'n':
			a->count = (uint64_t)strtonum(optarg, 0, 1ll << 40,
			    &errstr);
			break;
		case 'C':
			a->clients = (int)strtonum(optarg, 1, MAXCLIENTS,
			    &errstr);
			break;
		case 'b':
			a->batch = (uint32_t)strtonum(optarg, 1,
			    FT_LOG_BATCH_MAX, &errstr);
			break;
		case 'a':
			a->ackfile = optarg;
			break;
		case 'L':
			a->latency = (uint32_t)strtonum(optarg, 1, 1000000,
			    &errstr);
			break;
		case 't':
			if (ft_parse_duration(optarg, &a->timeout) != 0)
				ft_diex(FT_EXIT_USAGE, "--timeout: a duration");
			break;
		case 's':
			a->from_seq = (uint64_t)strtonum(optarg, 0,
			    LLONG_MAX, &errstr);
			break;
		case 'c':
			a->from_clock = (uint64_t)strtonum(optarg, 0,
			    LLONG_MAX, &errstr);
			break;
		case 'J':
			a->json = 1;
			break;
		case 'H':
			a->hold = (uint64_t)strtonum(optarg, 1, 1ll << 40,
			    &errstr);
			break;
		case 'g':
			a->go = optarg;
			break;
		case 'x':
			a->cut = (uint32_t)strtonum(optarg, 1, 1000, &errstr);
			break;
		case 'P':
			if (strcmp(optarg, "job") == 0)
				a->jobpattern = 1;
			else if (strcmp(optarg, "seq") != 0)
				ft_diex(FT_EXIT_USAGE, "--pattern '%s': seq or "
				    "job", optarg);
			break;
		default:
			log_usage();
		}
		if (errstr != NULL)
			ft_diex(FT_EXIT_USAGE, "%s '%s' is %s", argv[optind - 1],
			    optarg, errstr);
	}
	if (strcmp(argv[0], "gen") == 0) {
		if (optind != argc)
			log_usage();
		return;
	}
	if (optind + 1 != argc || a->keyfile == NULL)
		log_usage();
	a->addr = argv[optind];
}

static void
key_load(const char *path, uint8_t key[FT_WIRE_KEYLEN])
{
	char why[FT_WIRE_TEXT_MAX];

	if (ft_cluster_key_load(path, key, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
}

static int
all_opened(void *arg)
{
	struct load *l = arg;
	uint32_t r;

	for (r = 0; r < l->ranks; r++)
		if (!l->opened[r])
			return 0;
	return 1;
}

static int
all_durable(void *arg)
{
	struct load *l = arg;
	uint32_t r;

	for (r = 0; r < l->ranks; r++)
		if (l->durable[r] < l->appended[r])
			return 0;
	return 1;
}

/* Wait until cond over every client, or the deadline: 0 or -1. */
static int
wait_all(struct load *l, int (*cond)(void *), uint64_t deadline)
{
	while (!cond(l)) {
		if (ft_now_ns() >= deadline)
			return -1;
		if (pump(l, 100) != 0)
			ft_die(FT_EXIT_TEMP, "client");
	}
	return 0;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int
cmd_load(const struct largs *a)
{
	struct ft_logc_cb cb = { on_acked, on_records, on_error };
	struct load l;
	struct ft_det d;
	uint8_t key[FT_WIRE_KEYLEN];
	uint64_t deadline, t0, total = 0, *lat = NULL, window, hold;
	uint32_t r, k, i;
	double secs;
	int c, busy;

	if (!a->hasjob)
		log_usage();
	key_load(a->keyfile, key);
	memset(&l, 0, sizeof(l));
	l.ranks = a->ranks;
	l.count = a->count;
	l.nc = a->clients < (int)a->ranks ? a->clients : (int)a->ranks;
	l.appended = calloc(a->ranks, sizeof(*l.appended));
	l.durable = calloc(a->ranks, sizeof(*l.durable));
	l.opened = calloc(a->ranks, sizeof(*l.opened));
	if (l.appended == NULL || l.durable == NULL || l.opened == NULL)
		ft_die(FT_EXIT_TEMP, "calloc");
	if (a->jobpattern) {
		if ((l.gen = calloc(a->ranks, sizeof(*l.gen))) == NULL)
			ft_die(FT_EXIT_TEMP, "calloc");
		for (r = 0; r < a->ranks; r++)
			fttest_jobgen_init(&l.gen[r], r, a->ranks);
	}
	if (a->ackfile != NULL && (l.ackf = fopen(a->ackfile, "a")) == NULL)
		ft_die(FT_EXIT_TEMP, "%s", a->ackfile);
	for (c = 0; c < l.nc; c++)
		if ((l.c[c] = ft_logc_new(a->addr, key, a->job, (uint32_t)c,
		    &cb, &l)) == NULL)
			ft_die(FT_EXIT_USAGE, "client of %s", a->addr);
	for (r = 0; r < a->ranks; r++)
		if (ft_logc_open(l.c[r % (uint32_t)l.nc], r) != 0)
			ft_die(FT_EXIT_TEMP, "open");
	deadline = ft_now_ns() + a->timeout;
	if (wait_all(&l, all_opened, deadline) != 0) {
		ft_warnx("the logger did not answer in time");
		return FT_EXIT_TIMEOUT;
	}
	if (a->latency > 0) {
		/* Ack latency: a batch of rank 0, flushed, waited for. */
		if ((lat = calloc(a->latency, sizeof(*lat))) == NULL)
			ft_die(FT_EXIT_TEMP, "calloc");
		for (k = 0; k < a->latency; k++) {
			t0 = ft_now_ns();
			for (i = 0; i < a->batch; i++) {
				fttest_log_det(0, a->ranks, l.appended[0] + 1,
				    &d);
				if (ft_logc_append(l.c[0], 0, &d) != 0)
					ft_die(FT_EXIT_TEMP, "append");
				l.appended[0]++;
			}
			ft_logc_flush(l.c[0]);
			if (wait_all(&l, all_durable, deadline) != 0)
				return FT_EXIT_TIMEOUT;
			lat[k] = ft_now_ns() - t0;
		}
		qsort(lat, a->latency, sizeof(*lat), cmp_u64);
		printf("batch=%u repeats=%u min_us=%.1f median_us=%.1f\n",
		    a->batch, a->latency, lat[0] / 1e3,
		    lat[a->latency / 2] / 1e3);
		free(lat);
		return FT_EXIT_OK;
	}
	/*
	 * Throughput: batches for every rank, pipelined within a window;
	 * with --hold-at, no further than that seq until --go-file exists.
	 */
	hold = a->hold > 0 && a->hold < a->count ? a->hold : a->count;
	window = 16 * (uint64_t)a->batch;
	t0 = ft_now_ns();
	for (;;) {
		busy = 0;
		if (a->hold > 0 && a->go != NULL && access(a->go, F_OK) == 0)
			hold = a->count;
		for (r = 0; r < a->ranks; r++) {
			if (l.appended[r] >= hold ||
			    l.appended[r] - l.durable[r] >= window)
				continue;
			busy = 1;
			for (i = 0; i < a->batch && l.appended[r] < hold;
			    i++) {
				if (l.gen != NULL)
					fttest_jobgen_det(&l.gen[r],
					    l.appended[r] + 1, &d);
				else
					fttest_log_det(r, a->ranks,
					    l.appended[r] + 1, &d);
				if (ft_logc_append(l.c[r % (uint32_t)l.nc], r,
				    &d) != 0)
					ft_die(FT_EXIT_TEMP, "append");
				l.appended[r]++;
				total++;
			}
		}
		for (c = 0; c < l.nc; c++)
			ft_logc_flush(l.c[c]);
		if (!busy && all_durable(&l) && hold == a->count)
			break;
		if (ft_now_ns() >= deadline) {
			ft_warnx("not every determinant was acknowledged in "
			    "time");
			return FT_EXIT_TIMEOUT;
		}
		if (pump(&l, busy ? 0 : 100) != 0)
			ft_die(FT_EXIT_TEMP, "client");
	}
	secs = (double)(ft_now_ns() - t0) / 1e9;
	printf("ranks=%u count=%" PRIu64 " appended=%" PRIu64 " seconds=%.3f "
	    "rate=%.0f errors=%" PRIu64 "\n", a->ranks, a->count, total, secs,
	    secs > 0 ? (double)total / secs : 0.0, l.errors);
	for (c = 0; c < l.nc; c++)
		ft_logc_free(l.c[c]);
	if (l.ackf != NULL)
		fclose(l.ackf);
	free(l.appended);
	free(l.durable);
	free(l.opened);
	free(l.gen);
	return FT_EXIT_OK;
}

static int
fetch_done(void *arg)
{
	struct load *l = arg;

	return l->done || l->failed;
}

static int
cmd_fetch(const struct largs *a)
{
	struct ft_logc_cb cb = { on_acked, on_records, on_error };
	struct load l;
	uint8_t key[FT_WIRE_KEYLEN];
	uint64_t deadline;
	uint32_t reqid = 0;

	if (!a->hasjob)
		log_usage();
	key_load(a->keyfile, key);
	memset(&l, 0, sizeof(l));
	l.ranks = 0;
	l.job = a->job;
	l.json = a->json;
	l.nc = 1;
	if ((l.c[0] = ft_logc_new(a->addr, key, a->job, 0, &cb, &l)) == NULL)
		ft_die(FT_EXIT_USAGE, "client of %s", a->addr);
	deadline = ft_now_ns() + a->timeout;
	while (reqid == 0) {
		if (ft_logc_connected(l.c[0]) &&
		    (reqid = ft_logc_fetch(l.c[0], a->rank, a->from_seq,
		    a->from_clock)) == 0)
			ft_die(FT_EXIT_TEMP, "fetch");
		if (reqid == 0 && ft_logc_wait(l.c[0], fetch_done, &l,
		    ft_now_ns() + 100000000u < deadline ?
		    ft_now_ns() + 100000000u : deadline) != 0 &&
		    errno != ETIMEDOUT)
			ft_die(FT_EXIT_TEMP, "client");
		if (ft_now_ns() >= deadline)
			return FT_EXIT_TIMEOUT;
	}
	if (ft_logc_wait(l.c[0], fetch_done, &l, deadline) != 0)
		return errno == ETIMEDOUT ? FT_EXIT_TIMEOUT : FT_EXIT_TEMP;
	ft_logc_free(l.c[0]);
	return l.failed ? FT_EXIT_NO : FT_EXIT_OK;
}

/*
 * An APPEND cut short by a->cut bytes, its header saying so, after an
 * authenticated handshake: 0 when the logger closes the connection.
 */
static int
cmd_bad(const struct largs *a)
{
	struct ft_msg_log_append m;
	struct ft_conn c;
	struct ft_wbuf b;
	struct ft_hdr h;
	struct ft_det d;
	const uint8_t *body;
	uint8_t key[FT_WIRE_KEYLEN];
	uint64_t deadline = ft_now_ns() + 5ull * 1000000000u;
	int fd, rc;

	key_load(a->keyfile, key);
	if ((fd = ft_net_connect(a->addr)) < 0)
		ft_die(FT_EXIT_TEMP, "connect %s", a->addr);
	if (ft_conn_connecting(&c, fd, key, 0, FT_ROLE_LOGGER) != 0)
		ft_die(FT_EXIT_TEMP, "connection");
	if (ft_conn_await(&c, 0, 0, &h, &body, deadline) != 0)
		ft_die(FT_EXIT_NO, "handshake");
	fttest_log_det(0, 1, 1, &d);
	memset(&m, 0, sizeof(m));
	m.job = 1;
	m.rank = 0;
	m.n = 1;
	m.d = &d;
	ft_wbuf_init(&b);
	if (ft_msg_log_append_encode(&b, 0, &m) != 0)
		ft_die(FT_EXIT_TEMP, "encode");
	if (a->cut >= b.len - FT_WIRE_HDRLEN)
		ft_diex(FT_EXIT_USAGE, "--cut is above the body's %zu bytes",
		    b.len - FT_WIRE_HDRLEN);
	b.len -= a->cut;
	ft_wbuf_set32(&b, 4, (uint32_t)b.len);
	if (ft_conn_queue_copy(&c, b.p, b.len) != 0)
		ft_die(FT_EXIT_TEMP, "send");
	rc = ft_conn_await(&c, FT_MSG_LOG_ACK, FT_MSG_LOG_ERROR, &h, &body,
	    deadline);
	ft_wbuf_release(&b);
	ft_conn_release(&c);
	if (rc < 0 && errno == ECONNRESET)
		return FT_EXIT_OK;
	if (rc < 0 && errno == ETIMEDOUT)
		return FT_EXIT_TIMEOUT;
	ft_warnx("the logger answered a malformed APPEND (%s)",
	    rc == 1 ? ft_msg_name(h.type) : strerror(errno));
	return FT_EXIT_NO;
}

int
log_main(int argc, char *argv[])
{
	struct largs a;

	if (argc < 2)
		log_usage();
	argc--;
	argv++;
	largs_parse(argc, argv, &a);
	if (strcmp(argv[0], "load") == 0)
		return cmd_load(&a);
	if (strcmp(argv[0], "fetch") == 0)
		return cmd_fetch(&a);
	if (strcmp(argv[0], "bad") == 0)
		return cmd_bad(&a);
	if (strcmp(argv[0], "gen") == 0) {
		if (!a.hasjob)
			log_usage();
		return fttest_jobgen_print(a.job, a.ranks, a.count, a.json);
	}
	log_usage();
}
