/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: connections.  Opening one to a process on first use
 * (waiting for the launcher's news of a process that joined late),
 * accepting them and guarding the handshake, the launcher's control
 * connection, acknowledgements on TCP, closing and reaping.
 */
#include "pt2pt_impl.h"

/* Has process q joined, as far as we know?  Else its entry is empty. */
static int
proc_known(const struct ft_pt *pt, uint32_t q)
{
	const struct ft_rank_addr *a;

	if (q >= pt->nproc || pt->table == NULL)
		return 0;
	a = &pt->table[q];
	return a->pid != 0 || a->unix_addr[0] != '\0' ||
	    a->tcp_addr[0] != '\0';
}

/*
 * Wait for the launcher to tell us of process q (a PROCS frame on the
 * control connection): it does so before anyone can know of q.
 * Returns 0, or -1 with EINVAL when no news of q comes.
 */
int
ft__pt_await_proc(struct ft_pt *pt, uint32_t q)
{
	uint64_t deadline = ft_now_ns() + FT_PT_JOIN_NS;
	struct pollfd p;

	while (!proc_known(pt, q)) {
		if (q >= FT_WIRE_MAX_RANKS || pt->ctl == NULL ||
		    pt->ctl->closed || ft_now_ns() >= deadline) {
			errno = EINVAL;
			return -1;
		}
		p = (struct pollfd){ pt->ctl->c.fd, POLLIN, 0 };
		if (ft_conn_avail(&pt->ctl->c) == 0 &&
		    poll(&p, 1, 100) <= 0)
			continue;
		ft__pt_ctl_read(pt);
	}
	return 0;
}

static int
conn_add(struct ft_pt *pt, struct pconn *pc)
{
	struct pconn **nc;

	if ((nc = ft_grow(pt->conns, &pt->capconns, pt->nconns,
	    sizeof(*nc))) == NULL)
		return -1;
	pt->conns = nc;
	pt->conns[pt->nconns++] = pc;
	return 0;
}

static int
conn_open(struct ft_pt *pt, uint32_t dst)
{
	const struct ft_rank_addr *a;
	const char *addr;
	struct pconn *pc;
	uint64_t deadline;
	int fd;

	if (pt->table == NULL) {
		errno = ENOTCONN;
		return -1;
	}
	if (!proc_known(pt, dst) && ft__pt_await_proc(pt, dst) != 0)
		return -1;
	a = &pt->table[dst];
	if (!pt->force_tcp && a->node == pt->node && a->unix_addr[0] != '\0')
		addr = a->unix_addr;
	else
		addr = a->tcp_addr;
	/* It listens on nothing we can reach (no TCP without --tcp). */
	if (addr[0] == '\0') {
		errno = EHOSTUNREACH;
		return -1;
	}
	/* A full accept queue (a busy peer) is worth waiting out. */
	deadline = ft_now_ns() + 5000000000u;
	while ((fd = ft_net_connect(addr)) == -1) {
		if (errno != EAGAIN || ft_now_ns() >= deadline)
			return -1;
		(void)poll(NULL, 0, 1);
	}
	if ((pc = calloc(1, sizeof(*pc))) == NULL) {
		close(fd);
		return -1;
	}
	if (ft_conn_connecting(&pc->c, fd, pt->key, pt->self,
	    FT_ROLE_RANK) != 0 || conn_add(pt, pc) != 0) {
		ft_conn_release(&pc->c);
		free(pc);
		return -1;
	}
	pc->c.peer = dst;
	pc->dialed = dst;
	pc->outgoing = 1;
	pc->tcp = strncmp(addr, "tcp:", 4) == 0;
	pt->procs[dst].out = pc;
	/*
	 * HELLO leaves now, not at our next call, which may come after the
	 * peer's deadline for it (ft_hs_guard).  A TCP connect may still
	 * be under way; the kernels finish it without the peer's help.  A
	 * failure is found and reported by the progress that follows.
	 */
	while (ft_conn_flush(&pc->c) == 0 && pc->c.hsout.len > 0 &&
	    ft_now_ns() < deadline)
		(void)poll(&(struct pollfd){ fd, POLLOUT, 0 }, 1, 1);
	return 0;
}

/* The connection to process dst, opened on first use. */
struct pconn *
ft__pt_peer_conn(struct ft_pt *pt, uint32_t dst)
{
	if (pt->procs[dst].gone) {
		errno = ECONNRESET;
		return NULL;
	}
	if (pt->procs[dst].out == NULL && conn_open(pt, dst) != 0)
		return NULL;
	return pt->procs[dst].out;
}

/* Where the stream to pc stands for acknowledgements (struct pconn). */
uint64_t
ft__pt_stream_pos(const struct pconn *pc)
{
	return pc->c.qtotal - pc->ack_bytes;
}

/* Is everything sent to pc up to pos out of our hands? */
int
ft__pt_delivered(const struct ft_pt *pt, const struct pconn *pc, uint64_t pos)
{
	/* Not want_write: data queued behind a handshake still in progress
	 * is not out either. */
	if (pt->acks_on && pc->tcp)
		return pc->acked >= pos;
	return !ft_conn_unsent(&pc->c);
}

/* Acknowledge what came in on TCP since the last pass. */
void
ft__pt_acks_send(struct ft_pt *pt)
{
	struct ft_msg_ack ack;
	struct pconn *pc, *out;
	struct ft_wbuf wb;
	size_t i;

	ft_wbuf_init(&wb);
	for (i = 0; i < pt->nconns; i++) {
		pc = pt->conns[i];
		if (pc->outgoing || pc->closed || !pc->ack_due || !pc->tcp ||
		    pc->c.hs != FT_HS_READY)
			continue;
		pc->ack_due = 0;
		if ((out = ft__pt_peer_conn(pt, pc->c.peer)) == NULL)
			continue;	/* it is gone: nothing to tell it */
		ack.bytes = pc->in_done;
		ft_wbuf_reset(&wb);
		if (ft_msg_ack_encode(&wb, pt->self, &ack) != 0 ||
		    ft_conn_queue_copy(&out->c, wb.p, wb.len) != 0) {
			ft__pt_conn_close(pt, out, strerror(errno));
			pt->reap_due = 1;
			continue;
		}
		out->ack_bytes += wb.len;
	}
	ft_wbuf_release(&wb);
}

void
ft__pt_conn_close(struct ft_pt *pt, struct pconn *pc, const char *why)
{
	uint32_t peer = pc->outgoing ? pc->dialed : pc->c.peer;

	if (pc->closed)
		return;
	pc->closed = 1;
	/* When the protocol resends, a dead peer is ftrun's news and the
	 * job goes on (with FT_PROTO_FAILS, the application's): only a
	 * wrong key is worth a word. */
	if (pc->quiet || ((pt->resends || pt->fails) &&
	    !(pc->c.hs == FT_HS_FAILED && errno == EACCES)))
		;
	else if (pc->outgoing && pc->c.hs != FT_HS_READY)
		ft_warnx("unable to connect to rank %u: %s", peer,
		    why != NULL ? why : "closed during the handshake");
	else if (pc->c.hs != FT_HS_READY)
		/* Anyone's, as many as they like: rate-limited. */
		ft_warnx_limited(&pt->refusals, "refused a connection: %s",
		    pc->c.hs == FT_HS_FAILED && errno == EACCES ?
		    "wrong job key" : why != NULL ? why :
		    "closed during the handshake");
	else if (why != NULL && !pc->c.eof && !pt->resends && !pt->fails)
		/* As above: with resends, a reset is no news. */
		ft_warnx("dropped the connection with rank %u: %s", peer, why);
	if ((pc->c.hs == FT_HS_READY || pc->outgoing) && peer < pt->nproc) {
		pt->procs[peer].gone = 1;
		if (pt->procs[peer].out == pc)
			pt->procs[peer].out = NULL;
	}
	/* A message cut short by the close is lost with its sender. */
	if (pc->ux != NULL) {
		ft_buf_put(pc->ux->data, pc->ux->pooled);
		free(pc->ux);
		pc->ux = NULL;
	}
	/* With resends, another process sends the message again. */
	if (pc->req != NULL && !pt->resends)
		pc->req->st.error = ECONNRESET;
	if (pt->fails)
		ft__pt_conn_fail_reqs(pt, pc);
	pc->req = NULL;
	close(pc->c.fd);
	pc->c.fd = -1;
}

static const struct ft_conn *
hs_at(void *arg, size_t i)
{
	struct ft_pt *pt = arg;

	return pt->conns[i]->closed ? NULL : &pt->conns[i]->c;
}

static void
hs_drop(void *arg, size_t i, const char *why)
{
	struct ft_pt *pt = arg;

	/* Said even when the protocol resends: no peer is this slow. */
	ft_warnx_limited(&pt->refusals, "refused a connection: %s", why);
	pt->conns[i]->quiet = 1;
	ft__pt_conn_close(pt, pt->conns[i], NULL);
	pt->reap_due = 1;
}

/* Enforce the limits on connections in the handshake (ft_hs_guard). */
void
ft__pt_hs_guard(struct ft_pt *pt)
{
	pt->hs_next = ft_hs_guard(hs_at, hs_drop, pt, pt->nconns,
	    (size_t)pt->nproc + FT_HS_STRANGERS, ft_now_ns(), pt->hello_ns);
}

void
ft__pt_accept_all(struct ft_pt *pt, int lfd)
{
	struct pconn *pc;
	int fd;

	while ((fd = ft_net_accept(lfd)) != -1) {
		if ((pc = calloc(1, sizeof(*pc))) == NULL) {
			close(fd);
			return;
		}
		if (ft_conn_accepted(&pc->c, fd, pt->key, pt->self) != 0 ||
		    conn_add(pt, pc) != 0) {
			ft_conn_release(&pc->c);
			free(pc);
			return;
		}
		pc->c.peer = FT_WIRE_LAUNCHER;
		pc->tcp = lfd == pt->lfd_tcp;
		/* A rank's HELLO is there already: read it now, so that its
		 * connection is not taken for a silent stranger's. */
		if (ft__pt_conn_read(pt, pc) != 0) {
			ft__pt_conn_close(pt, pc, pc->c.eof ? NULL :
			    strerror(errno));
			pt->reap_due = 1;
		}
		ft__pt_hs_guard(pt);
	}
}

void
ft__pt_ctl_read(struct ft_pt *pt)
{
	struct pconn *pc = pt->ctl;
	const uint8_t *body;
	struct ft_hdr h;
	ssize_t got;
	int rc;

	for (;;) {
		while ((rc = ft_conn_frame(&pc->c, &h, &body)) == 1)
			pt->on_ctl(pt->ctl_arg, &h, body);
		if (rc < 0 || (got = ft_conn_fill(&pc->c)) < 0) {
			pc->closed = 1;
			pt->on_ctl(pt->ctl_arg, NULL, NULL);
			return;
		}
		if (got == 0)
			return;
	}
}

/* Drop closed connections from the array. */
void
ft__pt_reap(struct ft_pt *pt)
{
	size_t i, j;

	for (i = j = 0; i < pt->nconns; i++) {
		if (pt->conns[i]->closed) {
			ft_conn_release(&pt->conns[i]->c);
			free(pt->conns[i]);
		} else
			pt->conns[j++] = pt->conns[i];
	}
	pt->nconns = j;
}
