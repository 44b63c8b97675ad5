/* SPDX-License-Identifier: ISC */
/*
 * fttest: expose libft internals to the bats tests, as git's test-tool
 * does.  Each subcommand drives one piece of the library from the
 * command line and reports through its exit status.  It is a test aid,
 * not an installed program.
 *
 * fttest connect ADDR [--key HEX64] [--no-verify]
 *	Connect to "unix:/path" or "tcp:host:port" as rank 0 and run the
 *	connecting side of the handshake with the given key, or with a
 *	random one (so a wrong one).  Exits 0 when the handshake
 *	completed, 1 when it was refused (the peer closed the connection,
 *	or its challenge did not verify under our key), 99 when nothing
 *	was decided within 5 seconds.  With --no-verify a challenge that
 *	does not verify is answered with an AUTH anyway, as a client
 *	that does not check would, so that the accepting side's own check
 *	is exercised; the answer is then 1 when the peer closes the
 *	connection.  A connect that fails exits 111.
 *
 * fttest gossip ADDR --key HEX64 --id ID [--count N] [--cut K] [HB ...]
 *	Connect to a member of "ftgossip run" as detector ID, with the
 *	key, and send it one GOSSIP frame of epoch 0 that holds the
 *	counters HB ..., its member count N (default: the number of
 *	counters) and its last K bytes cut off (default 0): so a frame of
 *	any shape, well formed or not.  Then send PING.  Exits 0 when the
 *	PONG comes back (the member took the frame and kept the
 *	connection), 1 when the member closed the connection (or refused
 *	the handshake), 99 when nothing came within 5 seconds, 111 when
 *	the connect fails.
 *
 * fttest relay --listen ADDR --to ADDR --delay DURATION
 *	Forward every connection accepted on --listen to --to, each
 *	direction delayed by DURATION (relay.c).  Prints the bound
 *	address, then runs until killed.  An ADDR without "unix:" or
 *	"tcp:" is "tcp:ADDR", as ftboot's host:port.
 *
 * fttest log load ADDR --key-file F --job J --ranks R --count N
 *     [--clients C] [--batch B] [--ack-file FILE] [--latency K]
 *     [--timeout D] [--hold-at S --go-file FILE]
 *	Append determinants to "ftlog serve" for ranks 0 to R-1 of job J
 *	(hex) over C connections, until every rank's log reaches seq N
 *	and the logger acknowledged it all; batches of B, pipelined.
 *	Each determinant is a function of (rank, seq) alone (log.c).
 *	Each acknowledgement is appended to FILE as "RANK SEQ".  Prints
 *	one line: ranks, count, appended, seconds, rate (determinants a
 *	second), errors.  With --latency K: K times, a batch of B for rank
 *	0, flushed and waited for; prints min_us and median_us.  With
 *	--hold-at, it appends up to seq S of every rank, then waits until
 *	FILE exists to go on (so that a test can act while it is there).
 *	Exits 0, or 99 at the timeout (default 60s).
 * fttest log fetch ADDR --key-file F --job J --rank R [--from-seq S]
 *     [--from-clock C] [--json] [--timeout D]
 *	Fetch rank R's determinants and print them as ftlog dump does.
 *	Exits 0, 1 on the logger's error, 99 at the timeout.
 * fttest log bad ADDR --key-file F [--cut K]
 *	After the handshake, send an APPEND cut short by K bytes (its
 *	header saying so).  Exits 0 when the logger closes the
 *	connection, 1 when it answers, 99 after 5 seconds.
 *
 * fttest ckpt make|cut|bench ...
 *	Checkpoint images for the tests and bench/ckpt.sh (ckpt.c).
 *
 * Usage errors exit 100.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <bsd/stdlib.h>
#include <ctype.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/net/net.h"
#include "fttest.h"
#include "../../lib/peer/peer.h"

#define CONNECT_TIMEOUT_NS	(5 * 1000000000ull)

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: fttest connect ADDR [--key HEX64] [--no-verify]\n"
	    "       fttest gossip ADDR --key HEX64 --id ID [--count N] "
	    "[--cut K] [HB ...]\n"
	    "       fttest relay --listen ADDR --to ADDR --delay DURATION\n"
	    "       fttest log load|fetch|bad ADDR --key-file F ...\n");
	exit(FT_EXIT_USAGE);
}

/*
 * Wait until fd is ready for what the connection needs, or the
 * deadline.  Exits 99 on the deadline.
 */
static void
wait_conn(struct ft_conn *c, uint64_t deadline)
{
	struct pollfd p = { c->fd, POLLIN, 0 };
	uint64_t now;
	int rc;

	if (ft_conn_want_write(c))
		p.events |= POLLOUT;
	for (;;) {
		now = ft_now_ns();
		if (now >= deadline)
			ft_diex(FT_EXIT_TIMEOUT, "the handshake timed out");
		rc = poll(&p, 1, (int)((deadline - now) / 1000000 + 1));
		if (rc > 0)
			return;
		if (rc < 0 && errno != EINTR)
			ft_die(FT_EXIT_TEMP, "poll");
	}
}

/*
 * A challenge that did not verify: answer it with an AUTH whose MAC is
 * random, which is all a client without the key can send, and wait for
 * the peer to close the connection.
 */
static int
send_blind_auth(struct ft_conn *c, uint64_t deadline)
{
	struct ft_msg_auth au;
	struct ft_wbuf wb;
	ssize_t n;
	size_t off = 0;

	ft_random(au.mac, sizeof(au.mac));
	ft_wbuf_init(&wb);
	if (ft_msg_auth_encode(&wb, c->self, &au) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode AUTH");
	while (off < wb.len) {
		n = send(c->fd, wb.p + off, wb.len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EAGAIN) {
			wait_conn(c, deadline);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ft_warnx("refused: the peer closed the connection");
			ft_wbuf_release(&wb);
			return FT_EXIT_NO;
		}
		off += (size_t)n;
	}
	ft_wbuf_release(&wb);
	/* The peer must close the connection; if it talks instead, it
	 * took the forged AUTH. */
	for (;;) {
		wait_conn(c, deadline);
		if (ft_conn_fill(c) < 0) {
			ft_warnx("refused: the peer closed the connection "
			    "after our AUTH");
			return FT_EXIT_NO;
		}
		if (ft_conn_avail(c) > 0) {
			printf("the peer accepted a forged AUTH\n");
			return FT_EXIT_OK;
		}
	}
}

/*
 * Run the connecting side of the handshake over c.  Returns an exit
 * status: 0 or FT_EXIT_NO; wait_conn exits 99 on the deadline.
 */
static int
handshake(struct ft_conn *c, int noverify)
{
	uint64_t deadline = ft_now_ns() + CONNECT_TIMEOUT_NS;
	const uint8_t *body;
	struct ft_hdr h;
	int closed, rc = 0;

	for (;;) {
		/* Poll first: a connect in progress is only known to have
		 * finished once the socket is writable. */
		wait_conn(c, deadline);
		if (ft_conn_want_write(c) && ft_conn_flush(c) != 0) {
			if (c->hs == FT_HS_CONNECTING)
				ft_die(FT_EXIT_TEMP, "unable to connect");
			ft_warnx("refused: the peer closed the connection");
			return FT_EXIT_NO;
		}
		/* Done once READY and our AUTH is out. */
		if (c->hs == FT_HS_READY) {
			if (!ft_conn_want_write(c))
				break;
			continue;
		}
		/* Frames that came before the end still count. */
		closed = ft_conn_fill(c) < 0;
		while (c->hs != FT_HS_READY &&
		    (rc = ft_conn_frame(c, &h, &body)) == 1) {
			if (ft_conn_handshake(c, &h, body) >= 0)
				continue;
			if (errno == EACCES && noverify)
				return send_blind_auth(c, deadline);
			if (errno == EACCES)
				ft_warnx("refused: the peer's challenge does "
				    "not verify under our key");
			else
				ft_warnx("refused: unexpected or malformed "
				    "%s frame", ft_msg_name(h.type));
			return FT_EXIT_NO;
		}
		if (c->hs == FT_HS_READY)
			continue;
		if (rc < 0) {
			ft_warn("refused: malformed frame header");
			return FT_EXIT_NO;
		}
		if (closed) {
			ft_warnx("refused: the peer closed the connection");
			return FT_EXIT_NO;
		}
	}
	return FT_EXIT_OK;
}

/* --key: 64 hex digits, either case. */
static void
parse_key(const char *arg, uint8_t key[FT_WIRE_KEYLEN])
{
	char hex[2 * FT_WIRE_KEYLEN + 1];
	size_t i;

	if (strlen(arg) != sizeof(hex) - 1)
		ft_diex(FT_EXIT_USAGE, "--key '%s' is not %zu hex digits", arg,
		    sizeof(hex) - 1);
	for (i = 0; i < sizeof(hex) - 1; i++)
		hex[i] = (char)tolower((unsigned char)arg[i]);
	hex[i] = '\0';
	if (ft_hex_decode(hex, key, FT_WIRE_KEYLEN) != 0)
		ft_diex(FT_EXIT_USAGE, "--key '%s' is not %zu hex digits", arg,
		    sizeof(hex) - 1);
}

/*
 * Connect to addr as id in role and run the handshake with key.
 * Returns its exit status: 0 when c is READY, else FT_EXIT_NO.
 */
static int
dial(struct ft_conn *c, const char *addr, const uint8_t *key, uint32_t id,
    uint8_t role, int noverify)
{
	int fd;

	if ((fd = ft_net_connect(addr)) == -1) {
		if (errno == EINVAL)
			ft_diex(FT_EXIT_USAGE, "'%s' is not an address "
			    "(unix:/path or tcp:host:port)", addr);
		ft_die(FT_EXIT_TEMP, "unable to connect to '%s'", addr);
	}
	if (ft_conn_connecting(c, fd, key, id, role) != 0)
		ft_die(FT_EXIT_TEMP, "unable to set up the connection");
	return handshake(c, noverify);
}

/* The options of the subcommands, each of which takes some. */
struct args {
	uint8_t		 key[FT_WIRE_KEYLEN];
	int		 haskey, noverify, hasdelay;
	long long	 id, count, cut;	/* -1: not given */
	char		 listen[256], to[256];	/* "": not given */
	uint64_t	 delay;
};

/* An address of fttest relay: host:port stands for tcp:host:port. */
static void
parse_addr(const char *opt, const char *arg, char *buf, size_t size)
{
	int n;

	if (strncmp(arg, "unix:", 5) == 0 || strncmp(arg, "tcp:", 4) == 0)
		n = snprintf(buf, size, "%s", arg);
	else
		n = snprintf(buf, size, "tcp:%s", arg);
	if (n < 0 || (size_t)n >= size)
		ft_diex(FT_EXIT_USAGE, "%s '%s' is too long", opt, arg);
}

/*
 * Parse the options of a subcommand, those in longopts; the operands
 * are left at argv[optind] on.
 */
static void
parse_args(int argc, char *argv[], const struct option *longopts,
    struct args *a)
{
	const char *errstr;
	int ch;

	memset(a, 0, sizeof(*a));
	a->id = a->count = a->cut = -1;
	/* glibc: 0 restarts the scan, forgetting main's. */
	optind = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			parse_key(optarg, a->key);
			a->haskey = 1;
			break;
		case 'N':
			a->noverify = 1;
			break;
		case 'l':
			parse_addr("--listen", optarg, a->listen,
			    sizeof(a->listen));
			break;
		case 't':
			parse_addr("--to", optarg, a->to, sizeof(a->to));
			break;
		case 'd':
			if (ft_parse_duration(optarg, &a->delay) != 0 ||
			    a->delay > 3600 * 1000000000ull)
				ft_diex(FT_EXIT_USAGE, "--delay '%s' is not a "
				    "duration from 0 to 1h", optarg);
			a->hasdelay = 1;
			break;
		case 'i':
		case 'n':
		case 'c':
			*(ch == 'i' ? &a->id : ch == 'n' ? &a->count :
			    &a->cut) = strtonum(optarg, 0, UINT32_MAX, &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "'%s' is %s", optarg,
				    errstr);
			break;
		default:
			usage();
		}
	}
}

static int
cmd_connect(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "no-verify", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	struct args a;
	struct ft_conn c;
	int status;

	parse_args(argc, argv, longopts, &a);
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	if (!a.haskey)
		ft_key_generate(a.key);
	status = dial(&c, argv[0], a.key, 0, FT_ROLE_RANK, a.noverify);
	if (status == FT_EXIT_OK)
		printf("handshake completed with %u (version %u)\n", c.peer,
		    c.version);
	ft_conn_release(&c);
	return status;
}

/* A counter of fttest gossip: a decimal number up to 2^64 - 1. */
static uint64_t
parse_u64(const char *what, const char *arg)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (!isdigit((unsigned char)arg[0]) || *end != '\0' || errno != 0)
		ft_diex(FT_EXIT_USAGE, "%s '%s' is not a number from 0 to "
		    "2^64 - 1", what, arg);
	return (uint64_t)v;
}

/* The member closed the connection after our frames. */
static int
closed_after(void)
{
	ft_warnx("the peer closed the connection after the frame");
	printf("closed\n");
	return FT_EXIT_NO;
}

/*
 * Send the frames in wb over c, then wait for the PONG that echoes
 * nonce: 0 when it came, FT_EXIT_NO when the peer closed the
 * connection; wait_conn exits 99 on the deadline.
 */
static int
await_pong(struct ft_conn *c, const struct ft_wbuf *wb, uint64_t nonce)
{
	uint64_t deadline = ft_now_ns() + CONNECT_TIMEOUT_NS;
	struct ft_msg_ping pm;
	const uint8_t *body;
	struct ft_hdr h;
	int closed, rc;

	if (ft_conn_queue_copy(c, wb->p, wb->len) != 0)
		return closed_after();
	for (;;) {
		wait_conn(c, deadline);
		if (ft_conn_want_write(c) && ft_conn_flush(c) != 0)
			return closed_after();
		closed = ft_conn_fill(c) < 0;
		while ((rc = ft_conn_frame(c, &h, &body)) == 1)
			if (h.type == FT_MSG_PONG &&
			    ft_msg_ping_decode(body, h.len - FT_WIRE_HDRLEN,
			    &pm) == 0 && pm.nonce == nonce) {
				printf("pong\n");
				return FT_EXIT_OK;
			}
		if (rc < 0) {
			ft_warn("malformed frame header");
			return FT_EXIT_NO;
		}
		if (closed)
			return closed_after();
	}
}

static int
cmd_gossip(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "id", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "cut", required_argument, NULL, 'c' },
		{ NULL, 0, NULL, 0 },
	};
	struct ft_msg_ping pm;
	struct args a;
	struct ft_conn c;
	struct ft_wbuf wb;
	struct ft_hdr h;
	int i, status;

	parse_args(argc, argv, longopts, &a);
	argc -= optind;
	argv += optind;
	if (argc < 1 || !a.haskey || a.id < 0)
		usage();
	ft_wbuf_init(&wb);
	/* The header is written last, when the length is known. */
	ft_putbytes(&wb, (uint8_t[FT_WIRE_HDRLEN]){ 0 }, FT_WIRE_HDRLEN);
	ft_put64(&wb, 0);
	ft_put32(&wb, a.count >= 0 ? (uint32_t)a.count : (uint32_t)(argc - 1));
	for (i = 1; i < argc; i++)
		ft_put64(&wb, parse_u64("counter", argv[i]));
	if (wb.err != 0)
		ft_diex(FT_EXIT_TEMP, "out of memory");
	if (a.cut > 0 && (size_t)a.cut > wb.len - FT_WIRE_HDRLEN)
		ft_diex(FT_EXIT_USAGE, "--cut %lld is more than the body",
		    a.cut);
	if (a.cut > 0)
		wb.len -= (size_t)a.cut;
	h = (struct ft_hdr){ FT_WIRE_VERSION, FT_MSG_GOSSIP,
	    (uint32_t)wb.len, (uint32_t)a.id, 0 };
	ft_hdr_encode(wb.p, &h);
	ft_random(&pm.nonce, sizeof(pm.nonce));
	pm.epoch = 0;
	if (ft_msg_ping_encode(&wb, (uint32_t)a.id, FT_MSG_PING, &pm) != 0)
		ft_die(FT_EXIT_TEMP, "unable to encode PING");
	status = dial(&c, argv[0], a.key, (uint32_t)a.id, FT_ROLE_DETECTOR, 0);
	if (status == FT_EXIT_OK)
		status = await_pong(&c, &wb, pm.nonce);
	ft_conn_release(&c);
	ft_wbuf_release(&wb);
	return status;
}

static int
cmd_relay(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "to", required_argument, NULL, 't' },
		{ "delay", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	struct args a;

	parse_args(argc, argv, longopts, &a);
	if (argc != optind || a.listen[0] == '\0' || a.to[0] == '\0' ||
	    !a.hasdelay)
		usage();
	relay_run(a.listen, a.to, a.delay);
}

static const struct {
	const char	*name;
	int		(*fn)(int, char *[]);
} cmds[] = {
	{ "connect", cmd_connect },
	{ "gossip", cmd_gossip },
	{ "relay", cmd_relay },
	{ "log", log_main },
	{ "ckpt", ckpt_main },
};

int
main(int argc, char *argv[])
{
	char getopt_prog[80];
	size_t i;
	int ch;

	ft_diag_init(argv[0]);
	/* getopt starts its messages with argv[0]: make them read as ours,
	 * "fttest: fatal: invalid option -- 'x'", not with a path. */
	snprintf(getopt_prog, sizeof(getopt_prog), "%s: fatal",
	    ft_diag_prog());
	argv[0] = getopt_prog;
	while ((ch = getopt(argc, argv, "+")) != -1) {
		switch (ch) {
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	for (i = 0; i < FT_NELEM(cmds); i++)
		if (strcmp(argv[0], cmds[i].name) == 0) {
			/* The command's getopt speaks as fttest, too. */
			argv[0] = getopt_prog;
			return ft_exit(cmds[i].fn(argc, argv));
		}
	/* Not ft_diex: the usage follows. */
	fprintf(stderr, "%s: unknown command '%s'\n", getopt_prog, argv[0]);
	usage();
}
