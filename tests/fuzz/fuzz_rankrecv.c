/* SPDX-License-Identifier: ISC */
/*
 * Fuzz a rank's receive path (conn_read, on_eager, on_rdata, on_rts,
 * on_cts, on_credit, payload_done) with what an authenticated peer may
 * send.  Each input builds a real engine, rank 0 of a world of two
 * (ft_pt_new, listening in a directory of its own), connects to it as
 * rank 1 and runs the handshake with the job key, then plays a script
 * of operations: post receives, start sends, cancel, probe, and write
 * bytes on the connection (raw, or frames with a valid header and an
 * arbitrary body, EAGER, RTS, CTS, RDATA and CREDIT aimed at the
 * engine's own handles), with progress in between.  Rank 1's address
 * is a listener that never accepts, so what the engine sends it (CTS,
 * credit, data) stays queued behind a handshake that never ends.
 * The engine must neither crash nor leak (ASan, LSan), and a receive it
 * completes must report no more bytes than it holds.
 *
 * Script: byte 0 sets options (bit 0: end with an end of file; bit 1:
 * replication, 2 processes a rank, under the replicate protocol, the
 * peer being process 1 + (byte 0 >> 2) % 3, and process 1, our replica,
 * dead from the start), then operations, each a
 * byte (its index in ops[], modulo their number) and its arguments;
 * arguments missing at the end of the input read as 0.
 */
#include <sys/socket.h>

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fuzz.h"
#include "pt2pt/pt2pt.h"

#define NRECV		16
#define NSEND		4
#define MAXOPS		256

static const uint8_t key[FT_WIRE_KEYLEN] = "fuzz-rankrecv-key-0123456789abc";
static char	 dir[] = "/tmp/ft-fuzz-rankrecv.XXXXXX";
static char	 peer_path[sizeof(dir) + 16];	/* rank 1's listener */
static char	 peer_addr[sizeof(peer_path) + 8];

struct script {
	const uint8_t	*p;
	size_t		 len, off;
};

struct world {
	struct ft_pt	*pt;
	struct ft_conn	 c;		/* rank 1's connection to rank 0 */
	uint32_t	 peer, nproc;	/* the process we play; processes */
	int		 lfd;		/* rank 1's listener, never accepted */
	int		 eof;		/* rank 1 stopped writing */
	struct ft_wbuf	 out;		/* bytes rank 1 has yet to write */
	struct ft_req	 r[NRECV], s[NSEND];
	uint8_t		*rbuf[NRECV], *sbuf[NSEND];
	size_t		 rcap[NRECV];
	int		 nr, ns;
};

int	 LLVMFuzzerInitialize(int *, char ***);

static void
quiet(const char *line, size_t len)
{
	(void)line;
	(void)len;
}

static void
cleanup(void)
{
	(void)unlink(peer_path);
	(void)rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (mkdtemp(dir) == NULL || atexit(cleanup) != 0)
		abort();
	snprintf(peer_path, sizeof(peer_path), "%s/peer.sock", dir);
	snprintf(peer_addr, sizeof(peer_addr), "unix:%s", peer_path);
	/* The engine's warnings about what it is fed are expected. */
	ft_diag_setsink(quiet);
	return 0;
}

/*
 * The pool of message copies (ft_buf_get) outlives an input: fill it
 * before each, so that every input starts from the same state.
 */
static void
pool_fill(void)
{
	void *b[256];
	int pooled[256], i;

	for (i = 0; i < 256; i++)
		if ((b[i] = ft_buf_get(FT_BUF_POOLED, &pooled[i])) == NULL)
			abort();
	for (i = 0; i < 256; i++)
		ft_buf_put(b[i], pooled[i]);
}

static uint64_t
get(struct script *s, size_t n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | (s->off < s->len ? s->p[s->off++] : 0);
	return v;
}

/* Up to n bytes of the script, as they are. */
static const uint8_t *
take(struct script *s, size_t *n)
{
	const uint8_t *p = s->p + s->off;

	if (*n > s->len - s->off)
		*n = s->len - s->off;
	s->off += *n;
	return p;
}

static void
check(const struct world *w)
{
	const struct ft_req *r;
	int i;

	for (i = 0; i < w->nr; i++) {
		r = &w->r[i];
		if (r->done && !r->st.cancelled &&
		    (r->st.bytes > w->rcap[i] || r->st.bytes > r->st.msglen))
			abort();
	}
}

static void
progress(struct world *w, int passes)
{
	while (passes-- > 0)
		if (ft_pt_progress(w->pt, 0) != 0 && errno != ENOMEM)
			abort();
	check(w);
}

/*
 * Write what rank 1 has queued, letting the engine read in between.
 * Gives up when the engine has closed the connection, or reads nothing
 * more (it may wait for a receive before it reads a payload).
 */
static void
flush(struct world *w)
{
	size_t off = 0;
	ssize_t n;
	int idle = 0;

	while (off < w->out.len && !w->eof && idle < 8) {
		n = send(w->c.fd, w->out.p + off, w->out.len - off,
		    MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n > 0) {
			off += (size_t)n;
			idle = 0;
		} else if (n < 0 && errno != EAGAIN && errno != EINTR)
			w->eof = 1;
		else
			idle++;
		progress(w, 1);
	}
	ft_wbuf_reset(&w->out);
	progress(w, 2);
}

/* A header from rank 1, of a frame of blen body bytes. */
static void
header(struct world *w, unsigned int type, uint32_t flags, uint64_t blen)
{
	struct ft_hdr h = { FT_WIRE_VERSION, (uint8_t)type, 0, w->peer,
	    flags };
	uint8_t p[FT_WIRE_HDRLEN];

	h.len = blen > FT_FRAME_MAX ? FT_FRAME_MAX :
	    (uint32_t)(FT_WIRE_HDRLEN + blen);
	ft_hdr_encode(p, &h);
	ft_putbytes(&w->out, p, sizeof(p));
}

/* Some body bytes from the script. */
static void
body(struct world *w, struct script *s)
{
	size_t n = (size_t)get(s, 2);
	const uint8_t *p = take(s, &n);

	ft_putbytes(&w->out, p, n);
}

static const unsigned int types[] = {
	FT_MSG_EAGER, FT_MSG_RTS, FT_MSG_CTS, FT_MSG_RDATA, FT_MSG_CREDIT,
	FT_MSG_COMMIT, FT_MSG_DECIDE, FT_MSG_HELLO, FT_MSG_FINALIZE,
};

static int
src_of(uint64_t b)
{
	return b % 3 == 2 ? FT_PT_ANY : (int)(b % 3);
}

static int
tag_of(uint64_t b)
{
	return b == 0xff ? FT_PT_ANY : (int)(b % 8);
}

/* A buffer size: up to 32 KiB, or up to 1 MiB in steps of 32 bytes. */
static size_t
size_of(struct script *s)
{
	uint64_t v = get(s, 2);

	return (size_t)(v & 0x7fff) << (v & 0x8000 ? 5 : 0);
}

static void
op_recv(struct world *w, struct script *s)
{
	int src = src_of(get(s, 1)), tag = tag_of(get(s, 1));
	uint32_t ctx = (uint32_t)get(s, 1) % 4;
	size_t cap = size_of(s);
	int i = w->nr;

	if (i == NRECV)
		return;
	/* Sometimes NULL, as MPI_Recv(NULL, 0, ...) posts. */
	w->rbuf[i] = cap > 0 ? malloc(cap) : NULL;
	if (cap > 0 && w->rbuf[i] == NULL)
		abort();
	w->rcap[i] = cap;
	w->nr++;
	/* A match may answer rank 1 and find it gone: an error, no more. */
	(void)ft_pt_irecv(w->pt, &w->r[i], w->rbuf[i], cap, src, tag, ctx);
	check(w);
}

static void
op_send(struct world *w, struct script *s)
{
	int tag = tag_of(get(s, 1)) & 7, sync = (int)get(s, 1) & 1;
	uint32_t ctx = (uint32_t)get(s, 1) % 4;
	size_t len = size_of(s);
	int i = w->ns;

	if (i == NSEND)
		return;
	if ((w->sbuf[i] = calloc(1, len > 0 ? len : 1)) == NULL)
		abort();
	w->ns++;
	/* Rank 1 is unreachable: the send may fail, never crash. */
	(void)ft_pt_isend(w->pt, &w->s[i], w->sbuf[i], len, 1, ctx, 0, tag,
	    sync ? FT_SEND_SYNC : FT_SEND_STANDARD);
}

/* An EAGER header: fixed part as given, payload len declared. */
static void
op_eager(struct world *w, struct script *s)
{
	uint8_t fixed[FT_EAGER_FIXED];
	uint64_t len = get(s, 3);

	header(w, FT_MSG_EAGER, 0, FT_EAGER_FIXED + len);
	ft_be32(fixed, (uint32_t)get(s, 1) % 4);
	ft_be32(fixed + 4, (uint32_t)get(s, 1) % 3);
	ft_be32(fixed + 8, (uint32_t)get(s, 1) % 8);
	ft_be64(fixed + 12, get(s, 1));
	ft_putbytes(&w->out, fixed, sizeof(fixed));
	body(w, s);
}

static void
op_rts(struct world *w, struct script *s)
{
	struct ft_msg_rts rts;
	uint64_t v;

	rts.ctx = (uint32_t)get(s, 1) % 4;
	rts.src = (uint32_t)get(s, 1) % 3;
	rts.tag = (int32_t)(get(s, 1) % 8);
	rts.seq = get(s, 1);
	v = get(s, 3);
	rts.size = v & 0x800000 ? UINT64_MAX - (v & 0xff) : v;
	rts.sreq = get(s, 2);
	if (ft_msg_rts_encode(&w->out, w->peer, (uint32_t)get(s, 1) & 1,
	    &rts) != 0)
		abort();
}

/* CTS for one of our sends (or a made-up handle). */
static void
op_cts(struct world *w, struct script *s)
{
	struct ft_msg_cts cts;
	uint64_t k = get(s, 1);

	cts.sreq = k < (uint64_t)w->ns ? w->s[k].id : get(s, 8);
	cts.rreq = get(s, 2);
	if (ft_msg_cts_encode(&w->out, w->peer, &cts) != 0)
		abort();
}

/* RDATA for one of our receives (or a made-up handle). */
static void
op_rdata(struct world *w, struct script *s)
{
	uint8_t fixed[FT_RDATA_FIXED];
	uint64_t k = get(s, 1), off = get(s, 3), len = get(s, 3);

	header(w, FT_MSG_RDATA, 0, FT_RDATA_FIXED + len);
	ft_be64(fixed, k < (uint64_t)w->nr ? w->r[k].id : get(s, 8));
	ft_be64(fixed + 8, off);
	ft_putbytes(&w->out, fixed, sizeof(fixed));
	body(w, s);
}

static void
op_credit(struct world *w, struct script *s)
{
	struct ft_msg_credit cr = { get(s, 4) };

	header(w, FT_MSG_CREDIT, 0, 8);
	ft_put64(&w->out, cr.bytes);
}

/* Any frame type, any declared length, any body. */
static void
op_frame(struct world *w, struct script *s)
{
	unsigned int type = types[get(s, 1) % FT_NELEM(types)];
	uint32_t flags = (uint32_t)get(s, 1) & 3;

	header(w, type, flags, get(s, 3));
	body(w, s);
}

static void
op_raw(struct world *w, struct script *s)
{
	body(w, s);
}

static void
op_progress(struct world *w, struct script *s)
{
	int n = (int)(get(s, 1) % 8);

	flush(w);
	progress(w, n);
}

static void
op_cancel(struct world *w, struct script *s)
{
	uint64_t k = get(s, 1);

	if (k < (uint64_t)w->nr)
		(void)ft_pt_cancel(w->pt, &w->r[k]);
	check(w);
}

static void
op_probe(struct world *w, struct script *s)
{
	struct ft_pt_status st;
	int src = src_of(get(s, 1)), tag = tag_of(get(s, 1));

	(void)ft_pt_iprobe(w->pt, src, tag, (uint32_t)get(s, 1) % 4, &st);
}

static void
op_eof(struct world *w, struct script *s)
{
	(void)s;
	flush(w);
	(void)shutdown(w->c.fd, SHUT_WR);
	w->eof = 1;
	progress(w, 2);
}

/* The launcher says some processes died (a replicated job's VIEW). */
static void
op_view(struct world *w, struct script *s)
{
	uint32_t dead[4], n = 0, q, mask = (uint32_t)get(s, 1);

	for (q = 1; q < w->nproc; q++)
		if (mask & (1u << q))
			dead[n++] = q;
	(void)ft_pt_view(w->pt, dead, n);
	check(w);
}

static void (*const ops[])(struct world *, struct script *) = {
	op_recv, op_send, op_eager, op_rts, op_cts, op_rdata, op_credit,
	op_frame, op_raw, op_progress, op_cancel, op_probe, op_eof, op_view,
};

/* The peer connects to the engine and proves it holds the key. */
static void
join(struct world *w)
{
	struct ft_rank_addr t[4];
	const uint8_t *b;
	struct ft_hdr h;
	uint32_t q;
	int fd, i, rc;

	ft_pt_addr(w->pt, &t[0]);
	for (q = 1; q < w->nproc; q++) {
		memset(&t[q], 0, sizeof(t[q]));
		snprintf(t[q].unix_addr, sizeof(t[q].unix_addr), "%s",
		    peer_addr);
	}
	if (ft_pt_set_table(w->pt, t, w->nproc) != 0 ||
	    (fd = ft_net_connect(t[0].unix_addr)) == -1 ||
	    ft_conn_connecting(&w->c, fd, key, w->peer, FT_ROLE_RANK) != 0)
		abort();
	for (i = 0; i < 100 && (w->c.hs != FT_HS_READY ||
	    w->c.hsout.len > 0); i++) {
		if (ft_conn_flush(&w->c) != 0)
			abort();
		progress(w, 1);
		if (ft_conn_fill(&w->c) < 0)
			abort();
		while (w->c.hs != FT_HS_READY &&
		    (rc = ft_conn_frame(&w->c, &h, &b)) == 1)
			if (ft_conn_handshake(&w->c, &h, b) < 0)
				abort();
	}
	if (w->c.hs != FT_HS_READY || w->c.hsout.len > 0)
		abort();
	progress(w, 1);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct script s = { data, size, 0 };
	struct ft_pt_conf cf;
	struct world w;
	char bound[FT_WIRE_ADDR_MAX];
	int i, opts;

	pool_fill();
	memset(&w, 0, sizeof(w));
	ft_wbuf_init(&w.out);
	(void)unlink(peer_path);
	if ((w.lfd = ft_net_listen(peer_addr, bound, sizeof(bound))) == -1)
		abort();
	memset(&cf, 0, sizeof(cf));
	cf.size = 2;
	cf.key = key;
	cf.unix_dir = dir;
	opts = (int)get(&s, 1);
	w.peer = 1;
	w.nproc = 2;
	if (opts & 2) {
		/* Replication, 2 processes a rank: we are process 0, the
		 * peer is our replica or one of rank 1's. */
		cf.ppr = 2;
		cf.proto = &ft__proto_replicate;
		w.peer = 1 + (uint32_t)(opts >> 2) % 3;
		w.nproc = 4;
	}
	if ((w.pt = ft_pt_new(&cf)) == NULL)
		abort();
	join(&w);
	if (cf.ppr == 2) {
		/* Our replica is dead: else, as master, we would wait in a
		 * send for it to take our decisions, which it never does
		 * (it never accepts).  What it sent is still read. */
		if (ft_pt_view(w.pt, (const uint32_t[]){ 1 }, 1) != 0)
			abort();
	}
	for (i = 0; i < MAXOPS && s.off < s.len; i++)
		ops[get(&s, 1) % FT_NELEM(ops)](&w, &s);
	flush(&w);
	if (opts & 1)
		op_eof(&w, &s);
	ft_pt_free(w.pt);
	ft_conn_release(&w.c);
	close(w.lfd);
	for (i = 0; i < w.nr; i++)
		free(w.rbuf[i]);
	for (i = 0; i < w.ns; i++)
		free(w.sbuf[i]);
	ft_wbuf_release(&w.out);
	return 0;
}
