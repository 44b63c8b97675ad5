/* SPDX-License-Identifier: ISC */
/*
 * Sockets and connections: listeners and non-blocking connects for
 * "unix:/path" and "tcp:host:port" addresses, a connection with an input
 * buffer and a send queue, and the authenticated handshake every
 * connection starts with.
 *
 * The handshake (ft-wire(7)): the connecting side sends HELLO with a fresh
 * nonce; the accepting side answers CHALLENGE with its own nonce and an
 * HMAC-SHA-256 (libsodium) over the version, the connector's role, both
 * ids and both nonces under the shared key; the connecting side checks
 * it and answers AUTH with its own HMAC.  Each side has then proved it
 * knows the key, and frames queued before that are only sent after it.
 * Until then no frame larger than FT_WIRE_HS_MAX is accepted.
 */
#ifndef FT_NET_H
#define FT_NET_H

#include <sys/types.h>
#include <sys/uio.h>

#include "../wire/wire.h"

/*
 * Listen on addr ("unix:/path", "tcp:HOST:PORT"; port 0 picks one).
 * The socket is non-blocking and close-on-exec.  bound receives the
 * address peers should connect to (boundsize bytes, NUL-terminated).
 * Returns the fd, or -1 with errno (EINVAL for a malformed address).
 */
int	 ft_net_listen(const char *addr, char *bound, size_t boundsize);

/*
 * Start a non-blocking connect to addr.  Returns the fd, whose
 * connection may still be in progress (wait for POLLOUT and then
 * ft_net_connect_done), or -1 with errno.
 */
int	 ft_net_connect(const char *addr);
/* 0 once the connect finished, -1 with the connect's errno. */
int	 ft_net_connect_done(int fd);
/* Accept one connection, non-blocking and close-on-exec; -1, errno. */
int	 ft_net_accept(int lfd);

/* One element of a connection's send queue. */
struct ft_oseg {
	struct ft_oseg	*next;
	const uint8_t	*p;		/* bytes still to send */
	size_t		 len;
	void		*owned;		/* freed when sent, may be NULL */
	int		 pooled;	/* owned came from the copy pool */
	void		(*done)(void *);	/* called once sent */
	void		*arg;
};

enum ft_hs_state {
	FT_HS_CONNECTING,	/* connect(2) in progress */
	FT_HS_WAIT_CHALLENGE,	/* connector: HELLO sent */
	FT_HS_WAIT_HELLO,	/* acceptor */
	FT_HS_WAIT_AUTH,	/* acceptor: CHALLENGE sent */
	FT_HS_READY,
	FT_HS_FAILED,
};

struct ft_conn {
	int		 fd;
	enum ft_hs_state hs;
	uint32_t	 self;		/* our id in the handshake */
	uint32_t	 peer;		/* the peer's id, once known */
	uint8_t		 role;		/* ours, when we connected */
	uint8_t		 peer_role;
	uint8_t		 version;	/* negotiated wire version */
	const uint8_t	*key;		/* FT_WIRE_KEYLEN bytes, not owned */
	uint8_t		 nonce_self[FT_WIRE_NONCE];
	uint8_t		 nonce_peer[FT_WIRE_NONCE];
	/* Input: bytes read but not yet consumed are ibuf[ibeg..iend). */
	uint8_t		*ibuf;
	size_t		 ibeg, iend, isize;
	/* Output: handshake bytes first, then the queue once READY. */
	struct ft_wbuf	 hsout;
	struct ft_oseg	*oq_head, *oq_tail;
	size_t		 oq_bytes;
	/* Bytes ever given to ft_conn_send2 or ft_conn_queue_ref: the
	 * position in the stream after the handshake. */
	uint64_t	 qtotal;
	int		 eof;
	void		*user;
	uint64_t	 accepted;	/* ft_now_ns() at accept, or 0 */
};

#define FT_CONN_IBUF	(256u << 10)
#define FT_WIRE_HS_MAX	256	/* largest frame before the handshake ends */

/*
 * Set up conn over fd, as the connecting side (ft_conn_connecting:
 * HELLO goes out once the connect finished) or the accepting side.
 * key must stay valid as long as the connection.  Returns 0, or -1
 * with ENOMEM.  ft_conn_release closes the fd and frees the queue,
 * calling no done callback.
 */
int	 ft_conn_connecting(struct ft_conn *, int fd, const uint8_t *key,
	    uint32_t self, uint8_t role);
int	 ft_conn_accepted(struct ft_conn *, int fd, const uint8_t *key,
	    uint32_t self);
void	 ft_conn_release(struct ft_conn *);

/*
 * Give c an input buffer of size bytes instead of FT_CONN_IBUF, for
 * connections that carry small frames: a heap block, not a mapping
 * whose release costs a TLB shootdown.  It still grows for a larger
 * frame.  Only while nothing is buffered; 0, or -1 with EINVAL (size
 * below a handshake frame, or input buffered) or ENOMEM.
 */
int	 ft_conn_set_ibuf(struct ft_conn *, size_t);

/* Is there anything to write (so the caller polls for POLLOUT)? */
int	 ft_conn_want_write(const struct ft_conn *);
/*
 * Are bytes queued that the kernel does not have yet, whether or not
 * they can be written now?  Until the handshake is done, everything
 * queued waits in user space (and dies with the process).
 */
int	 ft_conn_unsent(const struct ft_conn *);

/*
 * Drive the connection when its fd is writable: finish the connect,
 * send the handshake, then the queue.  Returns 0, or -1 with errno on a
 * failed connect or a write error other than EAGAIN.
 */
int	 ft_conn_flush(struct ft_conn *);

/*
 * Queue bytes.  ft_conn_queue_copy copies them; ft_conn_queue_ref keeps
 * the pointer, which must stay valid until done(arg) is called (done
 * may be NULL).  Both try to write at once when nothing is queued.
 * Return 0, or -1 with ENOMEM or a write error.
 */
int	 ft_conn_queue_copy(struct ft_conn *, const void *, size_t);
int	 ft_conn_queue_ref(struct ft_conn *, const void *, size_t,
	    void (*done)(void *), void *arg);
/*
 * References queued by ft_conn_queue_ref with this arg, into [base,
 * base + len): the lowest offset still to send is lowered into *min
 * (left alone when none); ft_conn_rebase points them at the same
 * offsets of nbase, whose bytes from there on must equal base's.
 */
void	 ft_conn_ref_min(const struct ft_conn *, const void *arg,
	    const void *base, size_t len, size_t *min);
void	 ft_conn_rebase(struct ft_conn *, const void *arg, const void *base,
	    size_t len, const void *nbase);

/*
 * Send a frame made of two pieces (a prefix and a payload) and copy
 * only what could not be written at once, so that the caller's buffer
 * is free when the call returns.  Returns 0, or -1 with errno.
 */
int	 ft_conn_send2(struct ft_conn *, const void *, size_t,
	    const void *, size_t);

/*
 * Read what the socket has into the input buffer.  Returns the number of
 * bytes read, 0 if none were waiting, or -1 with errno (ECONNRESET on
 * end of file, which also sets eof).
 */
ssize_t	 ft_conn_fill(struct ft_conn *);
/* Bytes buffered and not consumed. */
static inline size_t
ft_conn_avail(const struct ft_conn *c)
{
	return c->iend - c->ibeg;
}

/*
 * If a whole frame is buffered, decode its header into *h, point *body
 * at its body, consume it and return 1; return 0 if more bytes are
 * needed; -1 with errno (EPROTO, EMSGSIZE) on a bad header.  Frames
 * larger than the buffer make it grow up to FT_FRAME_MAX.  *body stays
 * valid until the next call on the connection.
 */
int	 ft_conn_frame(struct ft_conn *, struct ft_hdr *h, const uint8_t **body);

/*
 * Handle a frame while the handshake is under way.  Returns 1 once the
 * connection became READY, 0 to go on, -1 on failure with errno:
 * EACCES (wrong key), EPROTO (unexpected or malformed frame, version
 * range with nothing in common).
 */
int	 ft_conn_handshake(struct ft_conn *, const struct ft_hdr *,
	    const uint8_t *body);

/*
 * Blocking use of a connection, for clients with one request at a time.
 * ft_conn_wait polls until c can make progress (readable, or writable
 * when it has bytes to send): 0, or -1 with ETIMEDOUT at the deadline
 * (ft_now_ns) or poll's errno.  ft_conn_await pumps c (handshake
 * included) until a frame of type want, or of type alt when alt is not
 * 0, arrives: 1 with it (*body valid until the next call on c); with
 * want 0, 0 once the handshake is over; -1 with errno otherwise (EPROTO
 * for a frame of another type, the handshake's errno, ECONNRESET on
 * end of file, ETIMEDOUT).
 */
int	 ft_conn_wait(struct ft_conn *, uint64_t deadline);
int	 ft_conn_await(struct ft_conn *, unsigned int want, unsigned int alt,
	    struct ft_hdr *, const uint8_t **body, uint64_t deadline);

/*
 * Strangers.  Anyone who can reach a listener can open connections and
 * leave them in the handshake.  An acceptor keeps at most its expected
 * peers and FT_HS_STRANGERS more in the handshake, and closes one that
 * has sent no HELLO FT_HS_HELLO_NS after it was accepted: a peer that
 * holds the key sends HELLO as soon as it is connected, so it is in
 * the socket by the time the acceptor looks.  What follows HELLO waits
 * for the connector to run (a rank answers CHALLENGE in its next MPI
 * call, which may be minutes away), so no deadline applies to it; the
 * cap bounds it.  Warnings about refused connections go through an
 * ft_ratelim of FT_HS_WARN_BURST lines every FT_HS_WARN_NS.
 */
#define FT_HS_HELLO_NS		(5ull * 1000000000u)
#define FT_HS_STRANGERS		64
#define FT_HS_WARN_BURST	5
#define FT_HS_WARN_NS		(10ull * 1000000000u)

/*
 * Enforce those limits on n connections, seen through at(arg, i) (NULL
 * for one that is closed); only accepted connections whose handshake is
 * not over count.  Closes, through drop(arg, i, why), every one that
 * sent no HELLO within hello_ns of being accepted, then, while more
 * than max are left, the one to go first: one that sent nothing before
 * one that sent HELLO, the oldest first, so that a peer's connection
 * outlives a flood of silent ones.  drop must make at(arg, i) return
 * NULL.  Returns the earliest HELLO deadline still ahead, or 0.
 */
uint64_t ft_hs_guard(const struct ft_conn *(*at)(void *, size_t),
	    void (*drop)(void *, size_t, const char *), void *arg, size_t n,
	    size_t max, uint64_t now, uint64_t hello_ns);

/* Fill buf with random bytes (libsodium). */
void	 ft_random(void *buf, size_t n);
/* Generate a fresh job key. */
void	 ft_key_generate(uint8_t key[FT_WIRE_KEYLEN]);

#endif
