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
 * Usage errors exit 100.
 */
#include <sys/socket.h>

#include <ctype.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/net/net.h"

#define CONNECT_TIMEOUT_NS	(5 * 1000000000ull)

static void
usage(void) FT_NORETURN;

static void
usage(void)
{
	fprintf(stderr,
	    "usage: fttest connect ADDR [--key HEX64] [--no-verify]\n");
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
	printf("handshake completed with %u (version %u)\n", c->peer,
	    c->version);
	return FT_EXIT_OK;
}

static int
cmd_connect(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "key", required_argument, NULL, 'k' },
		{ "no-verify", no_argument, NULL, 'N' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t key[FT_WIRE_KEYLEN];
	struct ft_conn c;
	char hex[2 * FT_WIRE_KEYLEN + 1];
	size_t i;
	int ch, fd, status, haskey = 0, noverify = 0;

	/* glibc: 0 restarts the scan, forgetting main's. */
	optind = 0;
	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (ch) {
		case 'k':
			if (strlen(optarg) != sizeof(hex) - 1)
				ft_diex(FT_EXIT_USAGE, "--key '%s' is not %zu "
				    "hex digits", optarg, sizeof(hex) - 1);
			for (i = 0; i < sizeof(hex) - 1; i++)
				hex[i] = (char)tolower(
				    (unsigned char)optarg[i]);
			hex[i] = '\0';
			if (ft_hex_decode(hex, key, sizeof(key)) != 0)
				ft_diex(FT_EXIT_USAGE, "--key '%s' is not %zu "
				    "hex digits", optarg, sizeof(hex) - 1);
			haskey = 1;
			break;
		case 'N':
			noverify = 1;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 1)
		usage();
	if (!haskey)
		ft_key_generate(key);
	if ((fd = ft_net_connect(argv[0])) == -1) {
		if (errno == EINVAL)
			ft_diex(FT_EXIT_USAGE, "'%s' is not an address "
			    "(unix:/path or tcp:host:port)", argv[0]);
		ft_die(FT_EXIT_TEMP, "unable to connect to '%s'", argv[0]);
	}
	if (ft_conn_connecting(&c, fd, key, 0, FT_ROLE_RANK) != 0)
		ft_die(FT_EXIT_TEMP, "unable to set up the connection");
	status = handshake(&c, noverify);
	ft_conn_release(&c);
	return status;
}

static const struct {
	const char	*name;
	int		(*fn)(int, char *[]);
} cmds[] = {
	{ "connect", cmd_connect },
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
