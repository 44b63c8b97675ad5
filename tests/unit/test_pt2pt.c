/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the point-to-point engine, driven in one process.  A
 * world of one rank exercises matching through self-sends: posted and
 * unexpected, wildcards, non-overtaking, truncation, empty and large
 * messages, synchronous mode, probe, cancel and contexts.  Then two
 * engines of a world of two, progressed in turn, exchange eager and
 * rendezvous messages over a Unix socket, and a third engine with the
 * wrong key is refused.  Tests that show a crash run in a child.
 */
#include <sys/socket.h>
#include <sys/stat.h>

#include <stdint.h>
#include <stdlib.h>

#include "pt2pt/pt2pt.h"
#include "tap.h"

#if defined(__SANITIZE_ADDRESS__)
#define HAVE_LSAN	1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define HAVE_LSAN	1
#endif
#endif
#ifdef HAVE_LSAN
#include <sanitizer/lsan_interface.h>
#endif

#define MAXITER		200000	/* rounds of progress before giving up */
#define IDLE		2000	/* rounds that must change nothing */
#define MiB		(1u << 20)

static uint8_t	 key[FT_WIRE_KEYLEN], key2[FT_WIRE_KEYLEN];
static char	 dir[] = "/tmp/ft-test-pt.XXXXXX";
static char	 dir2[] = "/tmp/ft-test-pt2.XXXXXX";

static struct ft_pt *
engine(uint32_t rank, uint32_t size, const uint8_t *k, const char *d,
    const struct ft_proto_ops *ops)
{
	struct ft_pt_conf cf;
	struct ft_pt *pt;

	memset(&cf, 0, sizeof(cf));
	cf.rank = rank;
	cf.size = size;
	cf.key = k;
	cf.proto = ops;
	cf.unix_dir = d;
	if ((pt = ft_pt_new(&cf)) == NULL) {
		t_diag("ft_pt_new rank %u: %s", rank, strerror(errno));
		abort();
	}
	return pt;
}

/* Two engines of a world of two, each with the table of both. */
static void
duo(struct ft_pt **a, struct ft_pt **b, const struct ft_proto_ops *ops,
    const char *d)
{
	struct ft_rank_addr t[2];

	*a = engine(0, 2, key, d, ops);
	*b = engine(1, 2, key, d, ops);
	ft_pt_addr(*a, &t[0]);
	ft_pt_addr(*b, &t[1]);
	if (ft_pt_set_table(*a, t, 2) != 0 || ft_pt_set_table(*b, t, 2) != 0)
		abort();
}

static int	run(struct ft_pt *, struct ft_pt *, struct ft_req **, int);

/*
 * One eager message each way, to open both connections: then no RTS or
 * CTS is queued before a handshake (see rendezvous_first).
 */
static void
warm(struct ft_pt *a, struct ft_pt *b)
{
	struct ft_req s[2], r[2], *rq[4] = { &s[0], &s[1], &r[0], &r[1] };
	int x = 0, y = 0;

	memset(s, 0, sizeof(s));
	memset(r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r[0], &x, sizeof(x), 0, 99, 99);
	(void)ft_pt_irecv(a, &r[1], &y, sizeof(y), 1, 99, 99);
	(void)ft_pt_isend(a, &s[0], &x, sizeof(x), 1, 99, 0, 99,
	    FT_SEND_STANDARD);
	(void)ft_pt_isend(b, &s[1], &y, sizeof(y), 0, 99, 1, 99,
	    FT_SEND_STANDARD);
	if (!run(a, b, rq, 4))
		abort();
}

static int
all_done(struct ft_req **r, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (!r[i]->done)
			return 0;
	return 1;
}

/* Progress a and b in turn until every request is done; 1 if they are. */
static int
run(struct ft_pt *a, struct ft_pt *b, struct ft_req **r, int n)
{
	int i;

	for (i = 0; i < MAXITER; i++) {
		if (all_done(r, n))
			return 1;
		if (ft_pt_progress(a, 0) != 0 ||
		    (b != NULL && ft_pt_progress(b, 0) != 0))
			return 0;
	}
	if (all_done(r, n))
		return 1;
	t_diag("requests not done after %d rounds", MAXITER);
	return 0;
}

static void
spin(struct ft_pt *a, struct ft_pt *b, int rounds)
{
	while (rounds-- > 0) {
		(void)ft_pt_progress(a, 0);
		if (b != NULL)
			(void)ft_pt_progress(b, 0);
	}
}

/* Progress until b can probe a message on ctx; 1 if it could. */
static int
arrive(struct ft_pt *a, struct ft_pt *b, uint32_t ctx,
    struct ft_pt_status *st)
{
	int i;

	for (i = 0; i < MAXITER; i++) {
		if (ft_pt_iprobe(b, FT_PT_ANY, FT_PT_ANY, ctx, st))
			return 1;
		(void)ft_pt_progress(a, 0);
		(void)ft_pt_progress(b, 0);
	}
	t_diag("nothing arrived on context %u", ctx);
	return 0;
}

static void
pattern(uint8_t *p, size_t n, uint32_t seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)((i * 2654435761u + seed) >> 7);
}

static int
pattern_ok(const uint8_t *p, size_t n, uint32_t seed)
{
	uint8_t *q;
	int ok;

	if ((q = malloc(n > 0 ? n : 1)) == NULL)
		abort();
	pattern(q, n, seed);
	ok = memcmp(p, q, n) == 0;
	free(q);
	return ok;
}

static void *
xmalloc(size_t n)
{
	void *p;

	if ((p = malloc(n)) == NULL)
		abort();
	return p;
}

static int	 cb_calls;
static struct ft_req *cb_req;

static void
on_done(struct ft_req *r)
{
	cb_calls++;
	cb_req = r;
}

/* Nothing left unexpected on ctx of pt. */
static int
quiet(struct ft_pt *pt, uint32_t ctx)
{
	struct ft_pt_status st;

	return !ft_pt_iprobe(pt, FT_PT_ANY, FT_PT_ANY, ctx, &st);
}

static void
test_api(void)
{
	struct ft_pt_conf cf;
	struct ft_rank_addr t[2];
	struct ft_pt *p;
	struct ft_req s;
	char buf[4];

	memset(&cf, 0, sizeof(cf));
	cf.key = key;
	cf.rank = 2;
	cf.size = 2;
	errno = 0;
	T_OK(ft_pt_new(&cf) == NULL && errno == EINVAL,
	    "ft_pt_new: rank >= size fails with EINVAL");
	cf.rank = 0;
	cf.size = 0;
	T_OK(ft_pt_new(&cf) == NULL && errno == EINVAL,
	    "ft_pt_new: size 0 fails with EINVAL");
	cf.size = 1;
	cf.key = NULL;
	T_OK(ft_pt_new(&cf) == NULL && errno == EINVAL,
	    "ft_pt_new: no key fails with EINVAL");

	p = engine(0, 2, key, dir, NULL);
	T_OK(ft_pt_rank(p) == 0 && ft_pt_size(p) == 2,
	    "ft_pt_rank and ft_pt_size");
	ft_pt_addr(p, &t[0]);
	T_OK(strncmp(t[0].unix_addr, "unix:", 5) == 0 &&
	    t[0].tcp_addr[0] == '\0', "ft_pt_addr gives a unix address and, "
	    "without force_tcp, no tcp address (no TCP listener)");
	memset(&s, 0, sizeof(s));
	T_FAILS(ft_pt_isend(p, &s, buf, 4, 1, 0, 0, 0, FT_SEND_STANDARD),
	    ENOTCONN, "isend before the table fails with ENOTCONN");
	T_FAILS(ft_pt_set_table(p, t, 1), EINVAL,
	    "set_table with n != size fails with EINVAL");
	t[1] = t[0];
	T_EQ_INT(ft_pt_set_table(p, t, 2), 0, "set_table");
	memset(&s, 0, sizeof(s));
	T_FAILS(ft_pt_isend(p, &s, buf, 4, 2, 0, 0, 0, FT_SEND_STANDARD),
	    EINVAL, "isend to rank >= size fails with EINVAL");
	T_OK(!ft_pt_peer_gone(p, 1) && !ft_pt_peer_gone(p, 99) &&
	    !ft_pt_busy(p), "no peer gone, not busy");
	ft_pt_free(p);
	ft_pt_free(NULL);
}

/*
 * Which sockets an engine listens on: TCP only when asked (force_tcp),
 * or with no directory for Unix sockets; a world of one process listens
 * on nothing.  Two engines with force_tcp talk over TCP, and a peer
 * with no address we can use cannot be sent to.
 */
static void
test_listeners(void)
{
	struct ft_pt_conf cf;
	struct ft_rank_addr t[2];
	struct ft_pt *a, *b;
	struct ft_req s;
	int x = 1;

	memset(&cf, 0, sizeof(cf));
	cf.key = key;
	cf.size = 2;
	cf.unix_dir = dir;
	cf.force_tcp = 1;
	if ((a = ft_pt_new(&cf)) == NULL)
		abort();
	cf.rank = 1;
	if ((b = ft_pt_new(&cf)) == NULL)
		abort();
	ft_pt_addr(a, &t[0]);
	ft_pt_addr(b, &t[1]);
	T_OK(t[0].unix_addr[0] == '\0' &&
	    strncmp(t[0].tcp_addr, "tcp:127.0.0.1:", 14) == 0,
	    "force_tcp: a tcp address and no unix address");
	if (ft_pt_set_table(a, t, 2) != 0 || ft_pt_set_table(b, t, 2) != 0)
		abort();
	warm(a, b);
	T_OK(1, "force_tcp: two engines exchange messages over TCP");
	ft_pt_free(a);
	ft_pt_free(b);

	cf.force_tcp = 0;
	cf.unix_dir = NULL;
	if ((a = ft_pt_new(&cf)) == NULL)
		abort();
	ft_pt_addr(a, &t[0]);
	T_OK(t[0].unix_addr[0] == '\0' &&
	    strncmp(t[0].tcp_addr, "tcp:127.0.0.1:", 14) == 0,
	    "no directory: a tcp address only");
	ft_pt_free(a);
	cf.rank = 0;
	cf.size = 1;
	if ((a = ft_pt_new(&cf)) == NULL)
		abort();
	ft_pt_addr(a, &t[0]);
	T_OK(t[0].unix_addr[0] == '\0' && t[0].tcp_addr[0] == '\0',
	    "a world of one with no directory listens on nothing");
	ft_pt_free(a);

	/* Rank 1 on another host, with no TCP address. */
	a = engine(0, 2, key, dir, NULL);
	ft_pt_addr(a, &t[0]);
	t[1] = t[0];
	t[1].node = 1;
	if (ft_pt_set_table(a, t, 2) != 0)
		abort();
	memset(&s, 0, sizeof(s));
	T_FAILS(ft_pt_isend(a, &s, &x, sizeof(x), 1, 0, 0, 0,
	    FT_SEND_STANDARD), EHOSTUNREACH, "a peer on another host with "
	    "no tcp address: isend fails with EHOSTUNREACH");
	ft_pt_free(a);
}

/* ---- Strangers: connections that never finish the handshake. ---- */

/* Has the other end closed the socket?  Reads what is there. */
static int
hs_closed(int fd)
{
	char buf[512];
	ssize_t n;

	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		;
	return n == 0 || (n < 0 && errno != EAGAIN);
}

/* An engine of a world of two whose HELLO deadline is hello_ns. */
static struct ft_pt *
hs_engine(uint32_t rank, uint64_t hello_ns)
{
	struct ft_pt_conf cf;
	struct ft_pt *pt;

	memset(&cf, 0, sizeof(cf));
	cf.rank = rank;
	cf.size = 2;
	cf.key = key;
	cf.unix_dir = dir;
	cf.hello_ns = hello_ns;
	if ((pt = ft_pt_new(&cf)) == NULL)
		abort();
	return pt;
}

/* A client that sends HELLO with the job key and then stops. */
static void
hs_hello(struct ft_conn *c, const char *addr)
{
	int fd;

	if ((fd = ft_net_connect(addr)) == -1 ||
	    ft_conn_connecting(c, fd, key, 0, FT_ROLE_RANK) != 0 ||
	    ft_conn_flush(c) != 0 || c->hsout.len != 0)
		abort();
}

/*
 * A connection that sends nothing is closed once its HELLO deadline is
 * past, whenever the engine runs; one that sent HELLO is not, though
 * it never answers CHALLENGE (a rank answers in its next MPI call).
 */
static void
test_hs_timeout(void)
{
	struct ft_rank_addr t;
	struct ft_conn h;
	struct ft_pt *b;
	int fd, i, closed;

	t_sunk.n = 0;
	ft_diag_setsink(t_sink);
	b = hs_engine(1, 1000000);	/* 1 ms */
	ft_pt_addr(b, &t);
	if ((fd = ft_net_connect(t.unix_addr)) == -1)
		abort();
	hs_hello(&h, t.unix_addr);
	for (i = 0, closed = 0; i < 2000 && !closed; i++) {
		(void)ft_pt_progress(b, 10);
		closed = hs_closed(fd);
	}
	T_OK(closed, "a connection that sends no HELLO is closed after its "
	    "deadline (%d passes)", i);
	T_EQ_INT(t_sunk_with("refused a connection: sent no HELLO in time"), 1,
	    "and refused with a warning");
	spin(b, NULL, 50);
	(void)ft_pt_progress(b, 20);
	T_OK(!hs_closed(h.fd), "one that sent HELLO stays, past the "
	    "deadline, while its CHALLENGE goes unanswered");
	ft_conn_release(&h);
	close(fd);
	ft_pt_free(b);
	ft_diag_setsink(NULL);
}

/*
 * Past the cap (nproc + FT_HS_STRANGERS), the oldest silent connection
 * goes first, and one that sent HELLO is kept; warnings are limited.
 */
static void
test_hs_cap(void)
{
	enum { EXTRA = 11, N = 2 + FT_HS_STRANGERS + EXTRA - 1 };
	struct ft_rank_addr t;
	struct ft_conn h;
	struct ft_pt *b;
	int fd[N], i, n, ok;

	t_sunk.n = 0;
	ft_diag_setsink(t_sink);
	b = hs_engine(1, 3600ull * 1000000000u);
	ft_pt_addr(b, &t);
	hs_hello(&h, t.unix_addr);
	for (i = 0; i < N; i++)
		if ((fd[i] = ft_net_connect(t.unix_addr)) == -1)
			abort();
	/* All are in the accept queue: one pass takes them all. */
	for (i = 0, n = 0; i < MAXITER && n < EXTRA; i++) {
		(void)ft_pt_progress(b, 0);
		for (n = 0; n < N && hs_closed(fd[n]); n++)
			;
	}
	spin(b, NULL, IDLE);
	for (i = 0, n = 0, ok = 1; i < N; i++) {
		if (hs_closed(fd[i]))
			n++;
		ok = ok && hs_closed(fd[i]) == (i < EXTRA);
	}
	T_OK(ok && n == EXTRA, "%d connections in the handshake with a cap "
	    "of %d: the %d oldest silent ones are closed (%d closed)",
	    N + 1, 2 + FT_HS_STRANGERS, EXTRA, n);
	T_OK(!hs_closed(h.fd), "the one that sent HELLO, the oldest, stays");
	T_EQ_INT(t_sunk_with("refused a connection: too many connections in "
	    "the handshake"), FT_HS_WARN_BURST, "only the first few "
	    "refusals have a line of their own");
	ft_conn_release(&h);
	for (i = 0; i < N; i++)
		close(fd[i]);
	ft_pt_free(b);
	ft_diag_setsink(NULL);
	T_EQ_INT(t_sunk_with(" more refused connections suppressed"), 1,
	    "one line reports the others, at the latest when the engine "
	    "ends");
}

/* A peer that connects during a flood of silent connections gets in. */
static void
test_hs_flood(void)
{
	enum { N = 2 * (2 + FT_HS_STRANGERS) };
	struct ft_rank_addr t[2];
	struct ft_req s, r, *rq[2] = { &s, &r };
	struct ft_pt *a, *b;
	int fd[2 * N], i, x = 7, y = 0;

	ft_diag_setsink(t_sink);
	a = hs_engine(0, 1000000);
	b = hs_engine(1, 1000000);
	ft_pt_addr(a, &t[0]);
	ft_pt_addr(b, &t[1]);
	if (ft_pt_set_table(a, t, 2) != 0 || ft_pt_set_table(b, t, 2) != 0)
		abort();
	for (i = 0; i < N; i++)
		if ((fd[i] = ft_net_connect(t[1].unix_addr)) == -1)
			abort();
	spin(b, NULL, 10);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, &y, sizeof(y), 0, 3, 1);
	(void)ft_pt_isend(a, &s, &x, sizeof(x), 1, 1, 0, 3,
	    FT_SEND_STANDARD);
	for (i = N; i < 2 * N; i++)
		if ((fd[i] = ft_net_connect(t[1].unix_addr)) == -1)
			abort();
	T_OK(run(a, b, rq, 2) && y == 7 && !ft_pt_peer_gone(b, 0),
	    "a rank that connects among %d silent connections gets its "
	    "message through", 2 * N);
	for (i = 0; i < 2 * N; i++)
		close(fd[i]);
	ft_pt_free(a);
	ft_pt_free(b);
	ft_diag_setsink(NULL);
}

/* ---- One rank: matching through self-sends. ---- */

static void
test_self_basic(struct ft_pt *p)
{
	struct ft_req s, r, *rq[2] = { &s, &r };
	char rbuf[64], sbuf[64];
	int x = 0;

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	T_EQ_INT(ft_pt_irecv(p, &r, rbuf, sizeof(rbuf), 0, 5, 1), 0,
	    "self: irecv posted first");
	T_OK(!r.done && r.posted, "is posted and not done");
	T_EQ_INT(ft_pt_isend(p, &s, "hello", 6, 0, 1, 0, 5, FT_SEND_STANDARD),
	    0, "self: isend");
	T_OK(all_done(rq, 2) && strcmp(rbuf, "hello") == 0 &&
	    r.st.source == 0 && r.st.tag == 5 && r.st.bytes == 6 &&
	    r.st.msglen == 6 && r.st.error == 0 && !r.st.cancelled &&
	    !r.posted, "self: posted receive matched at once, status right");

	/* Unexpected: the send is buffered, its buffer free at once. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	snprintf(sbuf, sizeof(sbuf), "abc");
	T_OK(ft_pt_isend(p, &s, sbuf, 4, 0, 1, 0, 6, FT_SEND_STANDARD) == 0 &&
	    s.done, "self: an unexpected small send completes at once");
	memset(sbuf, 'z', sizeof(sbuf));
	T_OK(ft_pt_irecv(p, &r, rbuf, sizeof(rbuf), 0, 6, 1) == 0 && r.done &&
	    strcmp(rbuf, "abc") == 0 && r.st.msglen == 4,
	    "self: a receive posted later gets the buffered bytes");

	/* Wildcards and the communicator source. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(p, &s, "w", 2, 0, 1, 5, 7, FT_SEND_STANDARD);
	T_OK(ft_pt_irecv(p, &r, rbuf, sizeof(rbuf), FT_PT_ANY, FT_PT_ANY,
	    1) == 0 && r.done && r.st.source == 5 && r.st.tag == 7,
	    "self: ANY source and tag report the real source and tag");
	{
		struct ft_req r4, r5, s2;

		memset(&r4, 0, sizeof(r4));
		memset(&r5, 0, sizeof(r5));
		memset(&s2, 0, sizeof(s2));
		(void)ft_pt_irecv(p, &r4, rbuf, sizeof(rbuf), 4, FT_PT_ANY, 1);
		(void)ft_pt_isend(p, &s2, "five", 5, 0, 1, 5, 1,
		    FT_SEND_STANDARD);
		T_OK(!r4.done, "self: a receive from source 4 does not take "
		    "a message from 5");
		T_OK(ft_pt_irecv(p, &r5, rbuf, sizeof(rbuf), 5, FT_PT_ANY,
		    1) == 0 && r5.done && strcmp(rbuf, "five") == 0,
		    "a receive from source 5 does");
		T_EQ_INT(ft_pt_cancel(p, &r4), 1, "cancel the other");
	}
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(p, &r, rbuf, sizeof(rbuf), FT_PT_ANY, 8, 1);
	(void)ft_pt_isend(p, &s, "nine", 5, 0, 1, 0, 9, FT_SEND_STANDARD);
	T_OK(!r.done, "self: a receive for tag 8 ignores tag 9");
	{
		struct ft_req s8, r9;

		memset(&s8, 0, sizeof(s8));
		memset(&r9, 0, sizeof(r9));
		(void)ft_pt_isend(p, &s8, "eight", 6, 0, 1, 0, 8,
		    FT_SEND_STANDARD);
		T_OK(r.done && strcmp(rbuf, "eight") == 0 && r.st.tag == 8,
		    "and takes tag 8");
		(void)ft_pt_irecv(p, &r9, rbuf, sizeof(rbuf), 0, 9, 1);
		T_OK(r9.done && strcmp(rbuf, "nine") == 0,
		    "tag 9 is still there");
	}

	/* The completion callback and user pointer survive the calls. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	r.on_done = on_done;
	r.user = &x;
	cb_calls = 0;
	(void)ft_pt_irecv(p, &r, rbuf, sizeof(rbuf), 0, 10, 1);
	T_OK(cb_calls == 0 && r.user == &x && r.on_done == on_done,
	    "self: irecv keeps on_done and user");
	(void)ft_pt_isend(p, &s, "cb", 3, 0, 1, 0, 10, FT_SEND_STANDARD);
	T_OK(cb_calls == 1 && cb_req == &r && r.user == &x,
	    "on_done is called once, with the request");
	T_OK(quiet(p, 1), "self: nothing left over on context 1");
}

static void
test_self_order(struct ft_pt *p)
{
	struct ft_req s[16], r[16];
	uint8_t *big = xmalloc(100000), *rbig = xmalloc(100000);
	int v[16], got[16], i, ok;

	for (i = 0; i < 16; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		v[i] = i;
		(void)ft_pt_isend(p, &s[i], &v[i], sizeof(int), 0, 2, 0, 3,
		    FT_SEND_STANDARD);
	}
	ok = 1;
	for (i = 0; i < 16; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		got[i] = -1;
		(void)ft_pt_irecv(p, &r[i], &got[i], sizeof(int), 0, 3, 2);
		if (!r[i].done || got[i] != i)
			ok = 0;
	}
	T_OK(ok, "self: 16 sends on one tag are received in order");

	/* Posted receives are matched in the order they were posted. */
	for (i = 0; i < 4; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		got[i] = -1;
		(void)ft_pt_irecv(p, &r[i], &got[i], sizeof(int), FT_PT_ANY,
		    FT_PT_ANY, 2);
	}
	for (i = 0; i < 4; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		(void)ft_pt_isend(p, &s[i], &v[i], sizeof(int), 0, 2, 0, i,
		    FT_SEND_STANDARD);
	}
	T_OK(got[0] == 0 && got[1] == 1 && got[2] == 2 && got[3] == 3 &&
	    r[3].st.tag == 3, "self: posted receives match in post order");

	/* Tags 1, 2, 1, 2: ANY_TAG takes the earliest. */
	for (i = 0; i < 4; i++) {
		memset(&s[i], 0, sizeof(s[i]));
		(void)ft_pt_isend(p, &s[i], &v[i], sizeof(int), 0, 2, 0,
		    1 + i % 2, FT_SEND_STANDARD);
	}
	for (i = 0; i < 4; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		got[i] = -1;
	}
	(void)ft_pt_irecv(p, &r[0], &got[0], sizeof(int), 0, FT_PT_ANY, 2);
	(void)ft_pt_irecv(p, &r[1], &got[1], sizeof(int), 0, 2, 2);
	(void)ft_pt_irecv(p, &r[2], &got[2], sizeof(int), FT_PT_ANY,
	    FT_PT_ANY, 2);
	(void)ft_pt_irecv(p, &r[3], &got[3], sizeof(int), 0, FT_PT_ANY, 2);
	T_OK(got[0] == 0 && r[0].st.tag == 1 && got[1] == 1 && got[2] == 2 &&
	    got[3] == 3, "self: ANY_TAG takes the earliest, tag 2 the first "
	    "tag 2, then the rest in order");

	/* Small, large (not buffered), small: still in order. */
	pattern(big, 100000, 1);
	memset(&s[0], 0, sizeof(s[0]));
	memset(&s[1], 0, sizeof(s[1]));
	memset(&s[2], 0, sizeof(s[2]));
	(void)ft_pt_isend(p, &s[0], &v[5], sizeof(int), 0, 2, 0, 4,
	    FT_SEND_STANDARD);
	(void)ft_pt_isend(p, &s[1], big, 100000, 0, 2, 0, 4,
	    FT_SEND_STANDARD);
	(void)ft_pt_isend(p, &s[2], &v[6], sizeof(int), 0, 2, 0, 4,
	    FT_SEND_STANDARD);
	for (i = 0; i < 3; i++)
		memset(&r[i], 0, sizeof(r[i]));
	got[0] = got[2] = -1;
	(void)ft_pt_irecv(p, &r[0], &got[0], sizeof(int), 0, 4, 2);
	(void)ft_pt_irecv(p, &r[1], rbig, 100000, 0, 4, 2);
	(void)ft_pt_irecv(p, &r[2], &got[2], sizeof(int), 0, 4, 2);
	T_OK(got[0] == 5 && r[1].st.msglen == 100000 &&
	    pattern_ok(rbig, 100000, 1) && got[2] == 6 && s[1].done,
	    "self: small, large, small arrive in order");
	T_OK(quiet(p, 2), "self: nothing left over on context 2");
	free(big);
	free(rbig);
}

static void
test_self_sizes(struct ft_pt *p)
{
	struct ft_req s, r;
	uint8_t sbuf[100], rbuf[11], *big, *rbig;
	struct ft_pt_status st;

	/* Truncation, unexpected and posted. */
	pattern(sbuf, sizeof(sbuf), 2);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbuf, 0xaa, sizeof(rbuf));
	(void)ft_pt_isend(p, &s, sbuf, 100, 0, 3, 0, 1, FT_SEND_STANDARD);
	(void)ft_pt_irecv(p, &r, rbuf, 10, 0, 1, 3);
	T_OK(r.done && r.st.error == EMSGSIZE && r.st.bytes == 10 &&
	    r.st.msglen == 100 && memcmp(rbuf, sbuf, 10) == 0 &&
	    rbuf[10] == 0xaa, "self: truncation of an unexpected message");
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbuf, 0xaa, sizeof(rbuf));
	(void)ft_pt_irecv(p, &r, rbuf, 10, 0, 1, 3);
	(void)ft_pt_isend(p, &s, sbuf, 100, 0, 3, 0, 1, FT_SEND_STANDARD);
	T_OK(r.done && r.st.error == EMSGSIZE && r.st.bytes == 10 &&
	    r.st.msglen == 100 && memcmp(rbuf, sbuf, 10) == 0 &&
	    rbuf[10] == 0xaa && s.done,
	    "self: truncation of a message to a posted receive");

	/* Empty messages. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(p, &s, NULL, 0, 0, 3, 0, 2, FT_SEND_STANDARD);
	T_OK(ft_pt_iprobe(p, 0, 2, 3, &st) && st.msglen == 0,
	    "self: an empty message can be probed");
	T_OK(ft_pt_irecv(p, &r, NULL, 0, 0, 2, 3) == 0 && r.done &&
	    r.st.bytes == 0 && r.st.msglen == 0 && r.st.error == 0,
	    "self: an empty message into an empty buffer");
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbuf, 0xaa, sizeof(rbuf));
	(void)ft_pt_irecv(p, &r, rbuf, 10, 0, 2, 3);
	(void)ft_pt_isend(p, &s, NULL, 0, 0, 3, 0, 2, FT_SEND_SYNC);
	T_OK(r.done && s.done && r.st.bytes == 0 && r.st.error == 0 &&
	    rbuf[0] == 0xaa,
	    "self: an empty synchronous send into a posted 10-byte buffer");
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(p, &s, NULL, 0, 0, 3, 0, 2, FT_SEND_SYNC);
	T_OK(!s.done, "self: an empty synchronous send waits for a receive");
	(void)ft_pt_irecv(p, &r, NULL, 0, 0, 2, 3);
	T_OK(r.done && s.done, "and completes with it");

	/* 1 MiB, standard and synchronous. */
	big = xmalloc(MiB);
	rbig = xmalloc(MiB);
	pattern(big, MiB, 3);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(p, &s, big, MiB, 0, 3, 0, 3, FT_SEND_STANDARD);
	spin(p, NULL, 10);
	T_OK(ft_pt_irecv(p, &r, rbig, MiB, 0, 3, 3) == 0 && r.done &&
	    s.done && r.st.msglen == MiB && pattern_ok(rbig, MiB, 3),
	    "self: 1 MiB standard send arrives intact");
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbig, 0, MiB);
	(void)ft_pt_isend(p, &s, big, MiB, 0, 3, 0, 3, FT_SEND_SYNC);
	spin(p, NULL, 100);
	T_OK(!s.done, "self: 1 MiB synchronous send not done before a "
	    "receive is posted");
	T_OK(ft_pt_iprobe(p, FT_PT_ANY, FT_PT_ANY, 3, &st) &&
	    st.msglen == MiB && st.tag == 3, "it can be probed");
	T_OK(ft_pt_irecv(p, &r, rbig, MiB, 0, 3, 3) == 0 && r.done &&
	    s.done && pattern_ok(rbig, MiB, 3),
	    "the receive completes both, intact");
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(p, &s, big, 100, 0, 3, 0, 3, FT_SEND_SYNC);
	spin(p, NULL, 100);
	T_OK(!s.done, "self: a small synchronous send is not done either");
	(void)ft_pt_irecv(p, &r, rbig, 10, 0, 3, 3);
	T_OK(r.done && s.done && r.st.error == EMSGSIZE && r.st.bytes == 10,
	    "a truncating receive completes both");
	T_OK(quiet(p, 3), "self: nothing left over on context 3");
	free(big);
	free(rbig);
}

static void
test_self_probe_cancel(struct ft_pt *p)
{
	struct ft_req s, r, r1, r2, r3, s1, s2;
	struct ft_pt_status st;
	char buf[64];
	int a = -1, b = -1, c = -1, one = 1, two = 2;

	T_OK(!ft_pt_iprobe(p, FT_PT_ANY, FT_PT_ANY, 4, &st),
	    "probe: nothing on an unused context");
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "probe me, 33 bytes long, at last", 33, 0,
	    4, 0, 9, FT_SEND_STANDARD);
	memset(&st, 0x55, sizeof(st));
	T_OK(ft_pt_iprobe(p, FT_PT_ANY, FT_PT_ANY, 4, &st) &&
	    st.source == 0 && st.tag == 9 && st.msglen == 33 &&
	    st.error == 0 && !st.cancelled,
	    "probe: ANY/ANY sees source, tag and length");
	T_OK(ft_pt_iprobe(p, 0, 9, 4, &st) && st.msglen == 33,
	    "probe: again, it was not consumed");
	T_OK(!ft_pt_iprobe(p, 0, 8, 4, &st) && !ft_pt_iprobe(p, 1, 9, 4, &st) &&
	    !ft_pt_iprobe(p, 0, 9, 5, &st),
	    "probe: other tag, source or context see nothing");
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(p, &r, buf, sizeof(buf), FT_PT_ANY, 9, 4);
	T_OK(r.done && r.st.msglen == 33 &&
	    !ft_pt_iprobe(p, FT_PT_ANY, FT_PT_ANY, 4, &st),
	    "probe: gone once received");

	/* Cancel a posted receive; later messages do not touch it. */
	memset(&r, 0, sizeof(r));
	memset(buf, 0, sizeof(buf));
	(void)ft_pt_irecv(p, &r, buf, sizeof(buf), 0, 1, 4);
	T_EQ_INT(ft_pt_cancel(p, &r), 1, "cancel a posted receive: 1");
	T_OK(r.done && r.st.cancelled && !r.posted,
	    "it is done and marked cancelled");
	T_EQ_INT(ft_pt_cancel(p, &r), 0, "cancel it again: 0");
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "late", 5, 0, 4, 0, 1, FT_SEND_STANDARD);
	T_OK(buf[0] == 0 && r.st.cancelled &&
	    ft_pt_iprobe(p, 0, 1, 4, &st),
	    "a later send goes unexpected, not into the cancelled receive");
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(p, &r, buf, sizeof(buf), 0, 1, 4);
	T_OK(r.done && !r.st.cancelled && strcmp(buf, "late") == 0,
	    "and a new receive takes it");
	T_EQ_INT(ft_pt_cancel(p, &r), 0,
	    "cancel a receive that already matched: 0");
	T_OK(!r.st.cancelled, "and it is not marked cancelled");
	T_EQ_INT(ft_pt_cancel(p, &s), 0, "cancel a send: 0");

	/* Cancel the middle one of three posted receives. */
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	memset(&r3, 0, sizeof(r3));
	(void)ft_pt_irecv(p, &r1, &a, sizeof(int), 0, 2, 4);
	(void)ft_pt_irecv(p, &r2, &b, sizeof(int), 0, 2, 4);
	(void)ft_pt_irecv(p, &r3, &c, sizeof(int), 0, 2, 4);
	T_EQ_INT(ft_pt_cancel(p, &r2), 1, "cancel the middle posted receive");
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	(void)ft_pt_isend(p, &s1, &one, sizeof(int), 0, 4, 0, 2,
	    FT_SEND_STANDARD);
	(void)ft_pt_isend(p, &s2, &two, sizeof(int), 0, 4, 0, 2,
	    FT_SEND_STANDARD);
	T_OK(a == 1 && b == -1 && c == 2 && r1.done && r3.done,
	    "the first and third get the two messages");
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	(void)ft_pt_irecv(p, &r1, &a, sizeof(int), 0, 2, 4);
	(void)ft_pt_irecv(p, &r2, &b, sizeof(int), 0, 2, 4);
	T_EQ_INT(ft_pt_cancel(p, &r2), 1, "cancel the last posted receive");
	T_EQ_INT(ft_pt_cancel(p, &r1), 1, "cancel the only one left");
	memset(&s1, 0, sizeof(s1));
	(void)ft_pt_isend(p, &s1, &one, sizeof(int), 0, 4, 0, 2,
	    FT_SEND_STANDARD);
	T_OK(ft_pt_iprobe(p, 0, 2, 4, &st),
	    "after cancelling all, a send goes unexpected");
	memset(&r1, 0, sizeof(r1));
	(void)ft_pt_irecv(p, &r1, &a, sizeof(int), 0, 2, 4);
	T_OK(quiet(p, 4), "self: nothing left over on context 4");
}

/*
 * Matched probes: a claimed message is seen by no probe, receive or
 * claim; ft_pt_mrecv receives it, and a synchronous send claimed waits
 * for that receive.
 */
static void
test_self_claim(struct ft_pt *p)
{
	struct ft_req s, s2, r, r2;
	struct ft_pt_status st;
	void *m = NULL, *m2 = NULL;
	char buf[64], small[4];

	T_OK(!ft_pt_improbe(p, FT_PT_ANY, FT_PT_ANY, 6, &st, &m),
	    "claim: nothing on an unused context");
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "first", 6, 0, 6, 0, 5, FT_SEND_STANDARD);
	T_OK(ft_pt_improbe(p, FT_PT_ANY, FT_PT_ANY, 6, &st, &m) &&
	    st.source == 0 && st.tag == 5 && st.msglen == 6,
	    "claim: ANY/ANY claims it, with source, tag and length");
	T_OK(!ft_pt_iprobe(p, FT_PT_ANY, FT_PT_ANY, 6, &st) &&
	    !ft_pt_improbe(p, 0, 5, 6, &st, &m2),
	    "claim: no probe or claim sees it any more");
	memset(&r, 0, sizeof(r));
	memset(buf, 0, sizeof(buf));
	(void)ft_pt_irecv(p, &r, buf, sizeof(buf), FT_PT_ANY, FT_PT_ANY, 6);
	T_OK(!r.done && r.posted, "claim: a receive posted after it waits");
	memset(&s2, 0, sizeof(s2));
	(void)ft_pt_isend(p, &s2, "second", 7, 0, 6, 0, 5, FT_SEND_STANDARD);
	T_OK(r.done && strcmp(buf, "second") == 0,
	    "and takes the next message");
	memset(&r2, 0, sizeof(r2));
	memset(buf, 0, sizeof(buf));
	T_OK(ft_pt_mrecv(p, &r2, buf, sizeof(buf), m) == 0 && r2.done &&
	    strcmp(buf, "first") == 0 && r2.st.tag == 5 &&
	    r2.st.source == 0 && r2.st.bytes == 6,
	    "claim: ft_pt_mrecv receives the claimed one");
	T_OK(quiet(p, 6), "claim: nothing left over on context 6");

	/* Synchronous: the send waits for the matched receive. */
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "sync", 5, 0, 6, 0, 8, FT_SEND_SYNC);
	T_OK(ft_pt_improbe(p, 0, 8, 6, &st, &m) && st.msglen == 5,
	    "claim: a synchronous send to ourselves");
	spin(p, NULL, 50);
	T_OK(!s.done, "it is not done while only claimed");
	memset(&r, 0, sizeof(r));
	memset(buf, 0, sizeof(buf));
	T_OK(ft_pt_mrecv(p, &r, buf, sizeof(buf), m) == 0 && r.done &&
	    s.done && strcmp(buf, "sync") == 0,
	    "the matched receive completes both");

	/* Truncated, and empty. */
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "truncated", 10, 0, 6, 0, 9,
	    FT_SEND_STANDARD);
	memset(&s2, 0, sizeof(s2));
	(void)ft_pt_isend(p, &s2, NULL, 0, 0, 6, 0, 9, FT_SEND_STANDARD);
	T_OK(ft_pt_improbe(p, 0, 9, 6, &st, &m) && st.msglen == 10 &&
	    ft_pt_improbe(p, 0, 9, 6, &st, &m2) && st.msglen == 0,
	    "claim: two messages of one tag, in order");
	memset(&r, 0, sizeof(r));
	memset(&r2, 0, sizeof(r2));
	T_OK(ft_pt_mrecv(p, &r2, NULL, 0, m2) == 0 && r2.done &&
	    r2.st.msglen == 0 && r2.st.error == 0,
	    "claim: the empty one, received first");
	T_OK(ft_pt_mrecv(p, &r, small, sizeof(small), m) == 0 && r.done &&
	    r.st.error == EMSGSIZE && r.st.bytes == 4 &&
	    memcmp(small, "trun", 4) == 0,
	    "claim: the other truncated into 4 bytes");
	T_OK(quiet(p, 6), "claim: nothing left over on context 6");
}

static void
test_self_contexts(struct ft_pt *p)
{
	struct ft_req s, r11, r266, r10;
	char b11[8], b266[8], b10[8];

	memset(&s, 0, sizeof(s));
	memset(&r11, 0, sizeof(r11));
	memset(&r266, 0, sizeof(r266));
	memset(&r10, 0, sizeof(r10));
	(void)ft_pt_irecv(p, &r11, b11, sizeof(b11), FT_PT_ANY, FT_PT_ANY,
	    11);
	(void)ft_pt_irecv(p, &r266, b266, sizeof(b266), FT_PT_ANY, FT_PT_ANY,
	    10 + 256);
	(void)ft_pt_isend(p, &s, "ctx10", 6, 0, 10, 0, 1, FT_SEND_STANDARD);
	T_OK(!r11.done && !r266.done,
	    "contexts: a message on 10 matches no receive on 11 or 266");
	T_OK(ft_pt_irecv(p, &r10, b10, sizeof(b10), FT_PT_ANY, FT_PT_ANY,
	    10) == 0 && r10.done && strcmp(b10, "ctx10") == 0,
	    "a receive on 10 takes it");
	T_OK(ft_pt_cancel(p, &r11) == 1 && ft_pt_cancel(p, &r266) == 1,
	    "the others are still posted");
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(p, &s, "ctx266", 7, 0, 266, 0, 1, FT_SEND_STANDARD);
	T_OK(quiet(p, 10) && !quiet(p, 266),
	    "a message on 266 is not seen on 10");
	memset(&r266, 0, sizeof(r266));
	(void)ft_pt_irecv(p, &r266, b266, sizeof(b266), 0, 1, 266);
	T_OK(r266.done && strcmp(b266, "ctx266") == 0 && quiet(p, 266),
	    "but on 266");
}

/* ---- Two ranks. ---- */

static void
test_duo_eager(struct ft_pt *a, struct ft_pt *b)
{
	struct ft_req s, r, *rq[2] = { &s, &r };
	struct ft_pt_status st;
	uint8_t sbuf[5000], rbuf[5001];

	pattern(sbuf, sizeof(sbuf), 4);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, rbuf, sizeof(rbuf), 0, 1, 1);
	T_OK(ft_pt_isend(a, &s, sbuf, 100, 1, 1, 0, 1, FT_SEND_STANDARD) == 0,
	    "duo: eager isend from 0 to 1");
	T_OK(run(a, b, rq, 2) && r.st.source == 0 && r.st.tag == 1 &&
	    r.st.msglen == 100 && r.st.error == 0 && pattern_ok(rbuf, 100, 4),
	    "duo: the posted receive gets it");

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(a, &s, sbuf, sizeof(sbuf), 1, 1, 0, 2,
	    FT_SEND_STANDARD);
	T_OK(arrive(a, b, 1, &st) && st.source == 0 && st.tag == 2 &&
	    st.msglen == sizeof(sbuf), "duo: an unexpected eager message "
	    "can be probed");
	T_OK(ft_pt_irecv(b, &r, rbuf, sizeof(rbuf), 0, 2, 1) == 0 && r.done &&
	    pattern_ok(rbuf, sizeof(sbuf), 4),
	    "and received at once, intact");

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbuf, 0xaa, sizeof(rbuf));
	(void)ft_pt_irecv(b, &r, rbuf, 100, 0, 3, 1);
	(void)ft_pt_isend(a, &s, sbuf, sizeof(sbuf), 1, 1, 0, 3,
	    FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.error == EMSGSIZE && r.st.bytes == 100 &&
	    r.st.msglen == sizeof(sbuf) && pattern_ok(rbuf, 100, 4) &&
	    rbuf[100] == 0xaa, "duo: truncation of an eager message");

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, rbuf, sizeof(rbuf), 0, 4, 1);
	(void)ft_pt_isend(a, &s, NULL, 0, 1, 1, 0, 4, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.msglen == 0 && r.st.bytes == 0,
	    "duo: an empty eager message");

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(a, &r, rbuf, sizeof(rbuf), 1, 5, 1);
	(void)ft_pt_isend(b, &s, sbuf, 1000, 0, 1, 1, 5, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.source == 1 && r.st.msglen == 1000 &&
	    pattern_ok(rbuf, 1000, 4), "duo: eager from 1 to 0");
	T_OK(quiet(a, 1) && quiet(b, 1), "duo: nothing left over");
}

static void
test_duo_rendezvous(struct ft_pt *a, struct ft_pt *b)
{
	struct ft_req s, r, *rq[2] = { &s, &r };
	struct ft_pt_status st;
	size_t len = 4 * MiB;
	uint8_t *big = xmalloc(len + 3), *rbig = xmalloc(len + 4);

	pattern(big, len + 3, 5);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	T_EQ_INT(ft_pt_isend(a, &s, big, len, 1, 2, 0, 1, FT_SEND_STANDARD),
	    0, "duo: isend of 4 MiB");
	T_OK(!s.done && ft_pt_busy(a), "is not done at once, a is busy");
	T_OK(arrive(a, b, 2, &st) && st.msglen == len && st.tag == 1,
	    "duo: its RTS can be probed with the full length");
	T_OK(!s.done, "the send waits for a receive");
	(void)ft_pt_irecv(b, &r, rbig, len + 4, 0, 1, 2);
	T_OK(run(a, b, rq, 2) && r.st.msglen == len && r.st.bytes == len &&
	    r.st.error == 0 && pattern_ok(rbig, len, 5),
	    "duo: 4 MiB arrives intact");
	spin(a, b, 10);
	T_OK(!ft_pt_busy(a) && !ft_pt_busy(b), "neither engine is busy after");

	/* Posted first, an odd length. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbig, 0, len + 4);
	(void)ft_pt_irecv(b, &r, rbig, len + 4, FT_PT_ANY, FT_PT_ANY, 2);
	(void)ft_pt_isend(a, &s, big, len + 3, 1, 2, 0, 2, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.msglen == len + 3 &&
	    pattern_ok(rbig, len + 3, 5) && rbig[len + 3] == 0,
	    "duo: 4 MiB + 3 into a posted receive");

	/* A matched rendezvous cannot be cancelled any more. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, rbig, len, 0, 3, 2);
	(void)ft_pt_isend(a, &s, big, len, 1, 2, 0, 3, FT_SEND_STANDARD);
	{
		int i;

		for (i = 0; i < MAXITER && r.posted; i++) {
			(void)ft_pt_progress(a, 0);
			(void)ft_pt_progress(b, 0);
		}
	}
	T_OK(!r.posted && !r.done, "duo: the receive matched the RTS, data "
	    "still to come");
	T_EQ_INT(ft_pt_cancel(b, &r), 0, "cancel now returns 0");
	T_OK(run(a, b, rq, 2) && !r.st.cancelled && pattern_ok(rbig, len, 5),
	    "and the data still arrives");

	/* Truncation. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(rbig, 0xaa, 1001);
	(void)ft_pt_irecv(b, &r, rbig, 1000, 0, 4, 2);
	(void)ft_pt_isend(a, &s, big, MiB, 1, 2, 0, 4, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.error == EMSGSIZE &&
	    r.st.bytes == 1000 && r.st.msglen == MiB &&
	    pattern_ok(rbig, 1000, 5) && rbig[1000] == 0xaa,
	    "duo: truncation of a 1 MiB rendezvous");

	/* From 1 to 0 as well. */
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(a, &r, rbig, len, 1, 5, 2);
	(void)ft_pt_isend(b, &s, big, len, 0, 2, 1, 5, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && r.st.source == 1 && pattern_ok(rbig, len, 5),
	    "duo: 4 MiB from 1 to 0");
	T_OK(quiet(a, 2) && quiet(b, 2), "duo: nothing left over");
	free(big);
	free(rbig);
}

static void
test_duo_sync_order(struct ft_pt *a, struct ft_pt *b)
{
	struct ft_req s, r, *rq[2] = { &s, &r }, ss[3], rr[3];
	struct ft_req *all[6] = { &ss[0], &ss[1], &ss[2], &rr[0], &rr[1],
	    &rr[2] };
	struct ft_pt_status st;
	uint8_t sbuf[100], rbuf[100], *big, *rbig;
	char s1[10] = "first", s3[10] = "third", r1[10], r3[10];
	size_t blen = 300000;
	int i, pass;

	pattern(sbuf, sizeof(sbuf), 6);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(a, &s, sbuf, sizeof(sbuf), 1, 3, 0, 1, FT_SEND_SYNC);
	T_OK(arrive(a, b, 3, &st) && st.msglen == sizeof(sbuf),
	    "duo: a synchronous send's RTS arrives");
	spin(a, b, IDLE);
	T_OK(!s.done, "duo: the synchronous send is not done before the "
	    "receive");
	(void)ft_pt_irecv(b, &r, rbuf, sizeof(rbuf), 0, 1, 3);
	T_OK(run(a, b, rq, 2) && memcmp(rbuf, sbuf, sizeof(sbuf)) == 0,
	    "duo: it completes with the receive");

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_isend(a, &s, NULL, 0, 1, 3, 0, 2, FT_SEND_SYNC);
	spin(a, b, IDLE);
	T_OK(!s.done, "duo: an empty synchronous send waits too");
	(void)ft_pt_irecv(b, &r, rbuf, sizeof(rbuf), 0, 2, 3);
	T_OK(run(a, b, rq, 2) && r.st.msglen == 0 && r.st.bytes == 0,
	    "and completes with the receive");

	/* Small, large, small from one source keep their order. */
	big = xmalloc(blen);
	rbig = xmalloc(blen);
	pattern(big, blen, 7);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < 3; i++) {
			memset(&ss[i], 0, sizeof(ss[i]));
			memset(&rr[i], 0, sizeof(rr[i]));
		}
		memset(r1, 0, sizeof(r1));
		memset(r3, 0, sizeof(r3));
		memset(rbig, 0, blen);
		if (pass == 1) {
			(void)ft_pt_irecv(b, &rr[0], r1, sizeof(r1), 0,
			    FT_PT_ANY, 3);
			(void)ft_pt_irecv(b, &rr[1], rbig, blen, FT_PT_ANY,
			    7, 3);
			(void)ft_pt_irecv(b, &rr[2], r3, sizeof(r3),
			    FT_PT_ANY, FT_PT_ANY, 3);
		}
		(void)ft_pt_isend(a, &ss[0], s1, sizeof(s1), 1, 3, 0, 7,
		    FT_SEND_STANDARD);
		(void)ft_pt_isend(a, &ss[1], big, blen, 1, 3, 0, 7,
		    FT_SEND_STANDARD);
		(void)ft_pt_isend(a, &ss[2], s3, sizeof(s3), 1, 3, 0, 7,
		    FT_SEND_STANDARD);
		if (pass == 0) {
			(void)arrive(a, b, 3, &st);
			spin(a, b, 100);
			(void)ft_pt_irecv(b, &rr[0], r1, sizeof(r1), 0,
			    FT_PT_ANY, 3);
			(void)ft_pt_irecv(b, &rr[1], rbig, blen, FT_PT_ANY,
			    7, 3);
			(void)ft_pt_irecv(b, &rr[2], r3, sizeof(r3),
			    FT_PT_ANY, FT_PT_ANY, 3);
		}
		T_OK(run(a, b, all, 6) && strcmp(r1, "first") == 0 &&
		    rr[1].st.msglen == blen && pattern_ok(rbig, blen, 7) &&
		    strcmp(r3, "third") == 0,
		    "duo: small, large, small keep their order (%s)",
		    pass == 0 ? "unexpected" : "posted");
	}
	T_OK(quiet(a, 3) && quiet(b, 3), "duo: nothing left over");
	free(big);
	free(rbig);
}

/* A third engine, rank 1 with another key, tries to send to rank 0. */
static void
test_wrong_key(struct ft_pt *a, struct ft_pt *b)
{
	struct ft_rank_addr t[2];
	struct ft_pt *c;
	struct ft_req s, r, s2, r2, *rq[4] = { &s, &r, &s2, &r2 };
	struct ft_pt_status st;
	char buf[16], buf2[16];

	c = engine(1, 2, key2, dir2, NULL);
	ft_pt_addr(a, &t[0]);
	ft_pt_addr(c, &t[1]);
	if (ft_pt_set_table(c, t, 2) != 0)
		abort();
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(c, &s, "intruder", 9, 0, 9, 1, 77,
	    FT_SEND_STANDARD);
	spin(a, c, IDLE);
	T_OK(!ft_pt_iprobe(a, FT_PT_ANY, FT_PT_ANY, 9, &st),
	    "wrong key: rank 0 never sees the message");
	T_OK(!ft_pt_peer_gone(a, 1), "rank 0 does not mark rank 1 gone");
	ft_pt_free(c);

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	memset(&s2, 0, sizeof(s2));
	memset(&r2, 0, sizeof(r2));
	(void)ft_pt_irecv(a, &r, buf, sizeof(buf), 1, 77, 9);
	(void)ft_pt_irecv(b, &r2, buf2, sizeof(buf2), 0, 78, 9);
	(void)ft_pt_isend(b, &s, "friend", 7, 0, 9, 1, 77, FT_SEND_STANDARD);
	(void)ft_pt_isend(a, &s2, "hello", 6, 1, 9, 0, 78, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 4) && strcmp(buf, "friend") == 0 &&
	    strcmp(buf2, "hello") == 0,
	    "wrong key: rank 0 still works with the real rank 1");
}

/*
 * Many small messages in one burst, all written to the socket at once
 * (200 fit, so the sender has nothing left queued): the receiver reads
 * them in one go, and conn_read stops after 256 rounds with frames
 * still in its input buffer.  Nothing more comes on the socket, so
 * poll never wakes it up again for them.
 */
static void
test_burst(void)
{
	enum { N = 200 };
	struct ft_pt *a, *b;
	struct ft_req *s, *r, **rq;
	int *got, i, ok;

	duo(&a, &b, NULL, dir);
	/* Open the connection first, so that the burst is written at once. */
	{
		struct ft_req ws, wr, *wq[2] = { &ws, &wr };
		int w = 0;

		memset(&ws, 0, sizeof(ws));
		memset(&wr, 0, sizeof(wr));
		(void)ft_pt_irecv(b, &wr, &w, sizeof(w), 0, 1, 1);
		(void)ft_pt_isend(a, &ws, &w, sizeof(w), 1, 1, 0, 1,
		    FT_SEND_STANDARD);
		if (!run(a, b, wq, 2))
			abort();
	}
	s = calloc(N, sizeof(*s));
	r = calloc(N, sizeof(*r));
	rq = calloc(2 * N, sizeof(*rq));
	got = calloc(N, sizeof(*got));
	if (s == NULL || r == NULL || rq == NULL || got == NULL)
		abort();
	for (i = 0; i < N; i++) {
		got[i] = -1;
		(void)ft_pt_irecv(b, &r[i], &got[i], sizeof(int), 0, 0, 1);
		rq[i] = &r[i];
		rq[N + i] = &s[i];
	}
	for (i = 0; i < N; i++)
		(void)ft_pt_isend(a, &s[i], &i, sizeof(int), 1, 1, 0, 0,
		    FT_SEND_STANDARD);
	if (ft_pt_busy(a))
		t_diag("the sender still has bytes queued");
	ok = run(a, b, rq, 2 * N);
	for (i = 0; ok && i < N; i++)
		if (got[i] != i)
			ok = 0;
	if (!ok) {
		for (i = 0; i < N && r[i].done; i++)
			;
		t_diag("%d of %d receives done", i, N);
	}
	T_OK(ok, "duo: %d small messages sent in one burst all arrive", N);
	ft_pt_free(a);
	ft_pt_free(b);
	free(s);
	free(r);
	free(rq);
	free(got);
}

/*
 * Eager flow control: with no receive posted, only a window's worth of
 * eager sends complete; the rest wait, as rendezvous, for their receives.
 * Everything arrives in order, and once matched the credit comes back.
 */
static void
test_flow_control(void)
{
	enum { N = 100 };
	const size_t len = FT_PT_EAGER_MAX;
	const int window = (int)(FT_PT_EAGER_WINDOW /
	    (len + FT_PT_EAGER_COST));
	struct ft_pt *a, *b;
	struct ft_req *s, *r, **rq, xs, xr, *xq[2] = { &xs, &xr };
	uint8_t *sbuf, *rbuf;
	int i, done, ok;

	duo(&a, &b, NULL, dir);
	s = calloc(N, sizeof(*s));
	r = calloc(N, sizeof(*r));
	rq = calloc(2 * N, sizeof(*rq));
	sbuf = xmalloc(N * len);
	rbuf = xmalloc(N * len);
	if (s == NULL || r == NULL || rq == NULL)
		abort();
	for (i = ok = 0; i < N; i++) {
		pattern(sbuf + (size_t)i * len, len, (uint32_t)i);
		ok += ft_pt_isend(a, &s[i], sbuf + (size_t)i * len, len, 1, 1,
		    0, 7, FT_SEND_STANDARD) == 0;
	}
	T_EQ_INT(ok, N, "flow: every send starts");
	spin(a, b, 20000);
	for (i = done = 0; i < N; i++)
		done += s[i].done;
	if (!T_OK(done == window, "flow: with no receive posted, only the "
	    "eager window (%d of %d sends) completes", window, N))
		t_diag("%d sends completed", done);
	for (i = 0; i < N; i++) {
		(void)ft_pt_irecv(b, &r[i], rbuf + (size_t)i * len, len, 0, 7,
		    1);
		rq[i] = &r[i];
		rq[N + i] = &s[i];
	}
	ok = run(a, b, rq, 2 * N);
	for (i = 0; ok && i < N; i++)
		if (r[i].st.bytes != len ||
		    !pattern_ok(rbuf + (size_t)i * len, len, (uint32_t)i)) {
			t_diag("message %d is wrong", i);
			ok = 0;
		}
	T_OK(ok, "flow: all %d arrive, in order, eager and rendezvous mixed",
	    N);
	/* The receiver has matched everything: the window is open again. */
	spin(a, b, 2000);
	memset(&xs, 0, sizeof(xs));
	memset(&xr, 0, sizeof(xr));
	(void)ft_pt_isend(a, &xs, sbuf, len, 1, 1, 0, 8, FT_SEND_STANDARD);
	T_OK(xs.done, "flow: credit came back: an eager send completes at "
	    "once again");
	(void)ft_pt_irecv(b, &xr, rbuf, len, 0, 8, 1);
	T_OK(run(a, b, xq, 2), "flow: and is received");
	ft_pt_free(a);
	ft_pt_free(b);
	free(s);
	free(r);
	free(rq);
	free(sbuf);
	free(rbuf);
}

/* ---- The protocol seam sees every message with its number. ---- */

struct rec {
	uint32_t	src, dst;
	int32_t		tag;
	uint64_t	seq;
	size_t		len;
};

static struct rec	 sent[16], delivered[16];
static int		 nsent, ndelivered;

static int
rec_init(struct ft_proto *p, const struct ft_conf *cf)
{
	return 0;
}

static int
rec_send(struct ft_proto *p, struct ft_msg *m)
{
	if (p->conf.rank == 0 && nsent < 16)
		sent[nsent++] = (struct rec){ m->src, m->dst, m->tag, m->seq,
		    m->len };
	return 0;
}

static int
rec_deliver(struct ft_proto *p, const struct ft_msg *m)
{
	if (p->conf.rank == 1 && ndelivered < 16)
		delivered[ndelivered++] = (struct rec){ m->src, m->dst,
		    m->tag, m->seq, m->len };
	return 0;
}

static const struct ft_proto_ops rec_ops = {
	.abi = FT_PROTO_ABI,
	.name = "test-recorder",
	.init = rec_init,
	.send = rec_send,
	.deliver = rec_deliver,
};

/* A protocol that holds every ANY_SOURCE receive, to cancel one. */
static int
hold_recv_any(struct ft_proto *p, struct ft_req *r, uint64_t *rtag)
{
	(void)p;
	(void)r;
	*rtag = 1;
	return FT_RECV_WAIT;
}

static const struct ft_proto_ops hold_ops = {
	.abi = FT_PROTO_ABI,
	.name = "test-hold",
	.init = rec_init,
	.recv_any = hold_recv_any,
};

/*
 * A held ANY_SOURCE receive keeps back what its tag admits; cancelled,
 * it gives those messages to the receive posted behind it.
 */
static void
test_cancel_held(void)
{
	struct ft_pt *a, *b;
	struct ft_req s, held, behind, *rq[2] = { &s, &behind };
	int x = 42, y = 0, z = 0;

	duo(&a, &b, &hold_ops, dir);
	warm(a, b);
	memset(&s, 0, sizeof(s));
	memset(&held, 0, sizeof(held));
	memset(&behind, 0, sizeof(behind));
	(void)ft_pt_irecv(b, &held, &y, sizeof(y), FT_PT_ANY, 7, 1);
	(void)ft_pt_isend(a, &s, &x, sizeof(x), 1, 1, 0, 7, FT_SEND_STANDARD);
	(void)ft_pt_irecv(b, &behind, &z, sizeof(z), 0, 7, 1);
	spin(a, b, 50);
	T_OK(!held.done && !behind.done, "held: the message waits behind the "
	    "held ANY_SOURCE receive");
	T_OK(ft_pt_cancel(b, &held) == 1 && held.done && held.st.cancelled,
	    "held: the held receive is cancelled");
	T_OK(run(a, b, rq, 2) && z == 42 && behind.st.source == 0,
	    "held: once it is cancelled, the receive behind it takes the "
	    "message");
	ft_pt_free(a);
	ft_pt_free(b);
}

/*
 * A message a held ANY_SOURCE receive may take is not claimed; others
 * are.  A rendezvous claimed waits for its matched receive.
 */
static void
test_claim_held(void)
{
	struct ft_pt *a, *b;
	struct ft_req s, s2, held, r, *rq[2] = { &s, &r };
	struct ft_pt_status st;
	size_t len = 2 * MiB;
	uint8_t *big = xmalloc(len), *rbig = xmalloc(len);
	void *m = NULL;
	int x = 7, y = 8, got = 0, hv = 0;

	duo(&a, &b, &hold_ops, dir);
	warm(a, b);
	memset(&s, 0, sizeof(s));
	memset(&s2, 0, sizeof(s2));
	memset(&held, 0, sizeof(held));
	(void)ft_pt_irecv(b, &held, &hv, sizeof(hv), FT_PT_ANY, 7, 1);
	(void)ft_pt_isend(a, &s, &x, sizeof(x), 1, 1, 0, 7, FT_SEND_STANDARD);
	(void)ft_pt_isend(a, &s2, &y, sizeof(y), 1, 1, 0, 8,
	    FT_SEND_STANDARD);
	spin(a, b, 50);
	T_OK(!ft_pt_improbe(b, FT_PT_ANY, 7, 1, &st, &m) &&
	    !ft_pt_improbe(b, FT_PT_ANY, FT_PT_ANY, 1, &st, &m),
	    "claim: not the message a held receive may take");
	T_OK(ft_pt_improbe(b, 0, 8, 1, &st, &m) && st.tag == 8,
	    "claim: one of another tag, behind it");
	memset(&r, 0, sizeof(r));
	T_OK(ft_pt_mrecv(b, &r, &got, sizeof(got), m) == 0 && r.done &&
	    got == 8, "and receive it");
	T_OK(ft_pt_cancel(b, &held) == 1 && !held.st.error,
	    "claim: cancel the held receive");
	T_OK(ft_pt_improbe(b, FT_PT_ANY, FT_PT_ANY, 1, &st, &m) &&
	    st.tag == 7, "then its message can be claimed");
	memset(&r, 0, sizeof(r));
	T_OK(ft_pt_mrecv(b, &r, &got, sizeof(got), m) == 0 && r.done &&
	    got == 7, "and received");

	/* A rendezvous: the sender waits until the matched receive. */
	pattern(big, len, 9);
	memset(&s, 0, sizeof(s));
	(void)ft_pt_isend(a, &s, big, len, 1, 1, 0, 3, FT_SEND_STANDARD);
	T_OK(arrive(a, b, 1, &st) && ft_pt_improbe(b, 0, 3, 1, &st, &m) &&
	    st.msglen == len, "claim: a 2 MiB rendezvous");
	spin(a, b, 50);
	T_OK(!s.done, "the sender waits while it is only claimed");
	memset(&r, 0, sizeof(r));
	T_OK(ft_pt_mrecv(b, &r, rbig, len, m) == 0 && run(a, b, rq, 2) &&
	    r.st.bytes == len && pattern_ok(rbig, len, 9),
	    "claim: the matched receive takes it intact");
	ft_pt_free(a);
	ft_pt_free(b);
	free(big);
	free(rbig);
}

static void
test_proto_seq(void)
{
	struct ft_pt *a, *b;
	struct ft_req s[4], r[4], *rq[8];
	uint8_t *big = xmalloc(200000), *rbig = xmalloc(200000);
	char sm[3][8] = { "zero", "two", "three" }, rb[3][8];
	int i, seqok, fieldok;

	duo(&a, &b, &rec_ops, dir);
	memset(s, 0, sizeof(s));
	memset(r, 0, sizeof(r));
	for (i = 0; i < 4; i++) {
		rq[i] = &s[i];
		rq[4 + i] = &r[i];
	}
	warm(a, b);	/* rank 0's message number 0 */
	nsent = ndelivered = 0;
	(void)ft_pt_isend(a, &s[0], sm[0], 8, 1, 1, 0, 10, FT_SEND_STANDARD);
	(void)ft_pt_isend(a, &s[1], big, 200000, 1, 1, 0, 11,
	    FT_SEND_STANDARD);
	(void)ft_pt_isend(a, &s[2], sm[1], 8, 1, 1, 0, 12, FT_SEND_STANDARD);
	(void)ft_pt_isend(a, &s[3], sm[2], 8, 1, 1, 0, 13, FT_SEND_SYNC);
	(void)ft_pt_irecv(b, &r[0], rb[0], 8, 0, 10, 1);
	(void)ft_pt_irecv(b, &r[1], rbig, 200000, 0, 11, 1);
	(void)ft_pt_irecv(b, &r[2], rb[1], 8, 0, 12, 1);
	(void)ft_pt_irecv(b, &r[3], rb[2], 8, 0, 13, 1);
	T_OK(run(a, b, rq, 8) && nsent == 4 && ndelivered == 4,
	    "proto: 4 sends and 4 deliveries (eager, rendezvous, eager, "
	    "synchronous)");
	/* Deliveries come in completion order: pair them up by tag. */
	seqok = fieldok = 1;
	for (i = 0; i < nsent; i++) {
		struct rec *d = NULL;
		int j;

		for (j = 0; j < ndelivered; j++)
			if (delivered[j].tag == sent[i].tag)
				d = &delivered[j];
		if (sent[i].seq != (uint64_t)i + 1 || d == NULL) {
			seqok = fieldok = 0;
			continue;
		}
		if (d->seq != sent[i].seq) {
			seqok = 0;
			t_diag("tag %d: sent as seq %" PRIu64 ", delivered "
			    "as seq %" PRIu64, sent[i].tag, sent[i].seq,
			    d->seq);
		}
		if (d->src != 0 || d->dst != 1 || d->len != sent[i].len)
			fieldok = 0;
	}
	T_OK(fieldok, "proto: deliver sees source, destination, tag and "
	    "length");
	T_OK(seqok, "proto: deliver sees the message number the send hook "
	    "saw, for rendezvous messages too");
	ft_pt_free(a);
	ft_pt_free(b);
	free(big);
	free(rbig);
}

/* ---- Crashes, each in a child. ---- */

/*
 * Run fn in a child with a fresh directory for its sockets, and clean
 * the directory up whether the child finished or crashed.
 */
static int
in_child(int (*fn)(void *))
{
	char d[] = "/tmp/ft-test-ptc.XXXXXX", path[64];
	const char *names[] = { "r0.sock", "r1.sock" };
	size_t i;
	int ok;

	if (mkdtemp(d) == NULL)
		abort();
	ok = t_child(fn, d);
	for (i = 0; i < FT_NELEM(names); i++) {
		snprintf(path, sizeof(path), "%s/%s", d, names[i]);
		(void)unlink(path);
		snprintf(path, sizeof(path), "%s/%s", dir2, names[i]);
		(void)unlink(path);
	}
	rmdir(d);
	return ok;
}

/*
 * An engine whose handshake with rank 0 is refused sends to it again.
 * The refused connection is freed by reap(), but peers[0].out still
 * points at it: the second send uses freed memory (ASan reports it).
 */
static int
refused_then_resend(void *arg)
{
	struct ft_rank_addr t[2];
	struct ft_pt *a, *c;
	struct ft_req s1, s2;
	int rc;

	alarm(20);
	/* Rank 0 and the impostor rank 1 do not share a directory. */
	a = engine(0, 2, key, arg, NULL);
	c = engine(1, 2, key2, dir2, NULL);
	ft_pt_addr(a, &t[0]);
	ft_pt_addr(c, &t[1]);
	if (ft_pt_set_table(a, t, 2) != 0 || ft_pt_set_table(c, t, 2) != 0)
		return 1;
	memset(&s1, 0, sizeof(s1));
	memset(&s2, 0, sizeof(s2));
	(void)ft_pt_isend(c, &s1, "x", 2, 0, 1, 1, 0, FT_SEND_STANDARD);
	spin(a, c, IDLE);
	rc = ft_pt_isend(c, &s2, "y", 2, 0, 1, 1, 0, FT_SEND_STANDARD);
	spin(a, c, IDLE);
	t_diag("the second send returned %d", rc);
	ft_pt_free(a);
	ft_pt_free(c);
	return 0;
}

/*
 * The first message between two ranks is a rendezvous: its RTS, and the
 * CTS that is the receiver's first frame to the sender, are queued with
 * ft_conn_queue_copy before their connection's handshake is done, and
 * ft_conn_send2 copies them with memcpy(..., NULL, 0) for the absent
 * second piece (UBSan reports it).
 */
static int
rendezvous_first(void *arg)
{
	struct ft_pt *a, *b;
	struct ft_req s, r, *rq[2] = { &s, &r };
	uint8_t *big = xmalloc(200000), *rbig = xmalloc(200000);
	int ok;

	alarm(20);
	pattern(big, 200000, 9);
	duo(&a, &b, NULL, arg);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, rbig, 200000, 0, 1, 1);
	(void)ft_pt_isend(a, &s, big, 200000, 1, 1, 0, 1, FT_SEND_STANDARD);
	ok = run(a, b, rq, 2) && pattern_ok(rbig, 200000, 9);
	ft_pt_free(a);
	ft_pt_free(b);
	free(big);
	free(rbig);
	return ok ? 0 : 1;
}

/*
 * A rendezvous truncated into an empty receive with a NULL buffer, as
 * MPI_Recv(NULL, 0, ...) of a large message posts: on_rdata computes
 * NULL + offset (UBSan reports it).
 */
static int
truncate_into_null(void *arg)
{
	struct ft_pt *a, *b;
	struct ft_req s, r, *rq[2] = { &s, &r };
	uint8_t *big = xmalloc(MiB);
	int ok;

	alarm(20);
	pattern(big, MiB, 8);
	duo(&a, &b, NULL, arg);
	warm(a, b);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, NULL, 0, 0, 1, 1);
	(void)ft_pt_isend(a, &s, big, MiB, 1, 1, 0, 1, FT_SEND_STANDARD);
	ok = run(a, b, rq, 2) && r.st.error == EMSGSIZE && r.st.bytes == 0 &&
	    r.st.msglen == MiB;
	ft_pt_free(a);
	ft_pt_free(b);
	free(big);
	return ok ? 0 : 1;
}

#ifdef HAVE_LSAN
/*
 * A peer dies in the middle of an eager message nobody has posted a
 * receive for yet: the engine has allocated the unexpected message and
 * is reading its payload when the connection ends.  conn_close and
 * reap never free pc->ux, so it leaks (LeakSanitizer reports it).
 */
static int
peer_dies_mid_message(void *arg)
{
	struct ft_rank_addr t[2];
	struct ft_msg_eager eg = { 1, 0, 5, 0, 0 };
	uint8_t pre[FT_WIRE_HDRLEN + FT_EAGER_FIXED], part[10];
	const uint8_t *body;
	struct ft_conn c;
	struct ft_hdr h;
	struct ft_pt *b;
	int fd, i, rc;

	alarm(20);
	b = engine(1, 2, key, arg, NULL);
	ft_pt_addr(b, &t[1]);
	t[0] = t[1];
	if (ft_pt_set_table(b, t, 2) != 0)
		return 1;
	/* A raw rank 0 that does the handshake by hand. */
	if ((fd = ft_net_connect(t[1].unix_addr)) == -1 ||
	    ft_conn_connecting(&c, fd, key, 0, FT_ROLE_RANK) != 0)
		return 1;
	for (i = 0; i < MAXITER && (c.hs != FT_HS_READY ||
	    ft_conn_want_write(&c)); i++) {
		(void)ft_pt_progress(b, 0);
		if (ft_conn_want_write(&c) && ft_conn_flush(&c) != 0)
			return 1;
		if (ft_conn_fill(&c) < 0)
			return 1;
		while (c.hs != FT_HS_READY &&
		    (rc = ft_conn_frame(&c, &h, &body)) == 1)
			if (ft_conn_handshake(&c, &h, body) < 0)
				return 1;
	}
	if (c.hs != FT_HS_READY)
		return 1;
	memset(part, 'p', sizeof(part));
	if (ft_msg_eager_prefix(pre, 0, &eg, 1000) != 0 ||
	    ft_conn_send2(&c, pre, sizeof(pre), part, sizeof(part)) != 0)
		return 1;
	spin(b, NULL, 100);
	ft_conn_release(&c);
	spin(b, NULL, 100);
	if (!ft_pt_peer_gone(b, 0)) {
		t_diag("rank 0 is not marked gone");
		return 1;
	}
	ft_pt_free(b);
	return __lsan_do_recoverable_leak_check() != 0 ? 1 : 0;
}

/*
 * A replicated engine (2 processes a rank) sends a synchronous message
 * to rank 1, whose processes never answer its RTS: the multi-send that
 * waits for them is the engine's, and ft_pt_free left it behind
 * (LeakSanitizer reports it; found by fuzz_rankrecv).
 */
static int
multi_freed(void *arg)
{
	struct ft_rank_addr t[4];
	struct ft_pt_conf cf;
	struct ft_pt *a;
	struct ft_req s;
	char path[64], addr[80], bound[FT_WIRE_ADDR_MAX];
	int lfd, x = 1;

	alarm(20);
	/* Rank 1's processes listen, and never accept. */
	snprintf(path, sizeof(path), "%s/mute.sock", dir2);
	snprintf(addr, sizeof(addr), "unix:%s", path);
	if ((lfd = ft_net_listen(addr, bound, sizeof(bound))) == -1)
		return 1;
	memset(&cf, 0, sizeof(cf));
	cf.size = 2;
	cf.ppr = 2;
	cf.key = key;
	cf.unix_dir = arg;
	cf.proto = &ft__proto_replicate;
	if ((a = ft_pt_new(&cf)) == NULL)
		return 1;
	ft_pt_addr(a, &t[0]);
	t[1] = t[0];
	memset(&t[2], 0, sizeof(t[2]));
	snprintf(t[2].unix_addr, sizeof(t[2].unix_addr), "%s", addr);
	t[3] = t[2];
	if (ft_pt_set_table(a, t, 4) != 0)
		return 1;
	memset(&s, 0, sizeof(s));
	if (ft_pt_isend(a, &s, &x, sizeof(x), 1, 1, 0, 0, FT_SEND_SYNC) != 0)
		return 1;
	spin(a, NULL, 10);
	if (s.done || !ft_pt_busy(a)) {
		t_diag("the send is not waiting for an answer");
		return 1;
	}
	ft_pt_free(a);
	close(lfd);
	unlink(path);
	return __lsan_do_recoverable_leak_check() != 0 ? 1 : 0;
}
#endif

/*
 * A protocol that routes every message through send_msg with a cookie,
 * and counts the sent hook: the engine's notice that a message is out.
 */
static int	acks_sent;

static int
acks_send_hook(struct ft_proto *p, struct ft_msg *m)
{
	uint32_t proc = m->dst;

	if (p->core->send_msg(p->cookie, &proc, 1, m, &acks_sent) != 0)
		return -1;
	return 1;
}

static void
acks_sent_hook(struct ft_proto *p, void *cookie)
{
	(void)p;
	if (cookie == &acks_sent)
		acks_sent++;
}

static const struct ft_proto_ops acks_ops = {
	.abi = FT_PROTO_ABI,
	.name = "test-acks",
	.init = rec_init,
	.send = acks_send_hook,
	.sent = acks_sent_hook,
};

/*
 * Under a protocol that waits for its messages to be out, a message on
 * TCP is out only when its receiver has read it (ACK), since bytes in
 * the sender's kernel die with a reset or with the host; on a Unix
 * socket, as soon as it is in the receiver's socket.
 */
static void
test_acks(int tcp)
{
	struct ft_pt_conf cf;
	struct ft_rank_addr t[2];
	struct ft_pt *a, *b;
	struct ft_req s, r, *rq[2] = { &s, &r };
	const char *how = tcp ? "tcp" : "unix";
	size_t big = 3 * MiB;
	uint8_t *sb, *rb;
	int x = 7, y = 0;

	memset(&cf, 0, sizeof(cf));
	cf.key = key;
	cf.size = 2;
	cf.unix_dir = dir;
	cf.force_tcp = tcp;
	cf.proto = &acks_ops;
	if ((a = ft_pt_new(&cf)) == NULL)
		abort();
	cf.rank = 1;
	if ((b = ft_pt_new(&cf)) == NULL)
		abort();
	ft_pt_addr(a, &t[0]);
	ft_pt_addr(b, &t[1]);
	if (ft_pt_set_table(a, t, 2) != 0 || ft_pt_set_table(b, t, 2) != 0)
		abort();
	warm(a, b);
	spin(a, b, IDLE);
	acks_sent = 0;

	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	T_OK(ft_pt_isend(a, &s, &x, sizeof(x), 1, 5, 0, 5,
	    FT_SEND_STANDARD) == 0, "%s acks: isend", how);
	/* b never runs: it has read nothing. */
	spin(a, NULL, IDLE);
	if (tcp)
		T_EQ_INT(acks_sent, 0, "tcp acks: an eager message the "
		    "receiver has not read is not out");
	else
		T_EQ_INT(acks_sent, 1, "unix acks: an eager message in the "
		    "receiver's socket is out");
	/* b reads it (unexpected) and acknowledges it. */
	spin(b, NULL, 10);
	spin(a, NULL, 10);
	T_OK(acks_sent == 1, "%s acks: the message is out once read (%d)",
	    how, acks_sent);
	T_OK(ft_pt_irecv(b, &r, &y, sizeof(y), 0, 5, 5) == 0,
	    "%s acks: irecv", how);
	T_OK(run(a, b, rq, 2) && y == 7, "%s acks: eager delivered", how);

	/* A rendezvous: out once its data is read. */
	if ((sb = malloc(big)) == NULL || (rb = calloc(1, big)) == NULL)
		abort();
	pattern(sb, big, 3);
	memset(&s, 0, sizeof(s));
	memset(&r, 0, sizeof(r));
	(void)ft_pt_irecv(b, &r, rb, big, 0, 6, 5);
	(void)ft_pt_isend(a, &s, sb, big, 1, 5, 0, 6, FT_SEND_STANDARD);
	T_OK(run(a, b, rq, 2) && memcmp(sb, rb, big) == 0,
	    "%s acks: rendezvous delivered", how);
	spin(a, b, IDLE);
	T_OK(acks_sent == 2, "%s acks: the rendezvous is out (%d)", how,
	    acks_sent);
	T_OK(!ft_pt_busy(a) && !ft_pt_busy(b), "%s acks: acks do not "
	    "answer acks: both engines idle", how);
	free(sb);
	free(rb);
	ft_pt_free(a);
	ft_pt_free(b);
}

int
main(void)
{
	struct ft_rank_addr self;
	struct ft_pt *p, *a, *b;

	ft_key_generate(key);
	ft_key_generate(key2);
	if (mkdtemp(dir) == NULL || mkdtemp(dir2) == NULL)
		abort();
	test_api();
	test_listeners();
	test_hs_timeout();
	test_hs_cap();
	test_hs_flood();

	p = engine(0, 1, key, dir, NULL);
	ft_pt_addr(p, &self);
	if (ft_pt_set_table(p, &self, 1) != 0)
		abort();
	test_self_basic(p);
	test_self_order(p);
	test_self_sizes(p);
	test_self_probe_cancel(p);
	test_self_claim(p);
	test_self_contexts(p);
	T_OK(!ft_pt_busy(p), "self: the engine is not busy at the end");
	ft_pt_free(p);

	duo(&a, &b, NULL, dir);
	test_duo_eager(a, b);
	test_duo_rendezvous(a, b);
	test_duo_sync_order(a, b);
	test_wrong_key(a, b);
	ft_pt_free(a);
	ft_pt_free(b);

	test_burst();
	test_flow_control();
	test_proto_seq();
	test_cancel_held();
	test_claim_held();
	test_acks(1);
	test_acks(0);
	T_OK(in_child(rendezvous_first), "a rendezvous as the first "
	    "message to a peer (RTS queued before the handshake, UBSan)");
	T_OK(in_child(refused_then_resend), "after a refused handshake, "
	    "a new send to that peer touches no freed memory (ASan)");
	T_OK(in_child(truncate_into_null), "a rendezvous truncated into "
	    "a NULL, 0-byte receive does no arithmetic on NULL (UBSan)");
#ifdef HAVE_LSAN
	T_OK(in_child(peer_dies_mid_message), "a peer that dies in the "
	    "middle of an unexpected eager message leaks nothing (LSan)");
	T_OK(in_child(multi_freed), "ft_pt_free frees a multi-send still "
	    "waiting for its RTS to be answered (LSan)");
#else
	t_skip("a peer that dies in the middle of an unexpected eager "
	    "message leaks nothing (needs LSan)");
	t_skip("ft_pt_free frees a multi-send still waiting for its RTS to be "
	    "answered (needs LSan)");
#endif
	rmdir(dir);
	rmdir(dir2);
	return t_done();
}
