/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/pt2pt: the progress loop.  One poll(2) over the control
 * connection, the rank connections, the listeners and the protocol's
 * fd, then what each is ready for, and the engine's and the protocol's
 * work after it.
 */
#include "pt2pt_impl.h"

static int	progress_pass(struct ft_pt *, int);

/* A progress pass; callbacks it runs may start sends, not wait in one. */
int
ft_pt_progress(struct ft_pt *pt, int timeout_ms)
{
	int rc, outer = !pt->in_progress;

	pt->in_progress = 1;
	rc = progress_pass(pt, timeout_ms);
	if (outer)
		pt->in_progress = 0;
	return rc;
}

static int
progress_pass(struct ft_pt *pt, int timeout_ms)
{
	struct pollfd *np;
	struct pconn **npc;
	size_t n = 0, need = pt->nconns + 4, i, widx = SIZE_MAX;
	uint64_t now, wait;
	int rc, dead = 0, ctl_buffered;

	if (need > pt->cappfd) {
		if ((np = reallocarray(pt->pfd, need, sizeof(*np))) == NULL)
			return -1;
		pt->pfd = np;
		if ((npc = reallocarray(pt->pfdconn, need, sizeof(*npc))) ==
		    NULL)
			return -1;
		pt->pfdconn = npc;
		pt->cappfd = need;
	}
	if (pt->ctl != NULL && !pt->ctl->closed) {
		pt->pfd[n] = (struct pollfd){ pt->ctl->c.fd, POLLIN |
		    (ft_conn_want_write(&pt->ctl->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pt->ctl;
	}
	for (i = 0; i < pt->nconns; i++) {
		struct pconn *pc = pt->conns[i];

		pt->pfd[n] = (struct pollfd){ pc->c.fd, POLLIN |
		    (ft_conn_want_write(&pc->c) ? POLLOUT : 0), 0 };
		pt->pfdconn[n++] = pc;
	}
	/* Listeners last: what connections have is read before new ones
	 * may push them out (hs_guard). */
	if (pt->lfd_unix != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_unix, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->lfd_tcp != -1) {
		pt->pfd[n] = (struct pollfd){ pt->lfd_tcp, POLLIN, 0 };
		pt->pfdconn[n++] = NULL;
	}
	/* The protocol's fd goes last, and is skipped by the loop below. */
	if (pt->wfd != -1) {
		widx = n;
		pt->pfd[n] = (struct pollfd){ pt->wfd, pt->wevents, 0 };
		pt->pfdconn[n++] = NULL;
	}
	if (pt->wdeadline != 0 && timeout_ms != 0) {
		now = ft_now_ns();
		wait = pt->wdeadline > now ? (pt->wdeadline - now) / 1000000 +
		    1 : 0;
		if (wait > INT32_MAX)
			wait = INT32_MAX;
		if (timeout_ms < 0 || (uint64_t)timeout_ms > wait)
			timeout_ms = (int)wait;
	}
	/* Frames the launcher sent along with the table of addresses are
	 * buffered already (ft_job_join read them): poll would not say so. */
	ctl_buffered = pt->ctl != NULL && !pt->ctl->closed &&
	    ft_conn_avail(&pt->ctl->c) > 0;
	if (ctl_buffered)
		timeout_ms = 0;
	/* Wake up for the next HELLO deadline. */
	if (pt->hs_next != 0 && timeout_ms != 0) {
		now = ft_now_ns();
		wait = pt->hs_next > now ? (pt->hs_next - now) / 1000000 + 1 :
		    0;
		if (wait > INT32_MAX)
			wait = INT32_MAX;
		if (timeout_ms < 0 || (uint64_t)timeout_ms > wait)
			timeout_ms = (int)wait;
	}
	rc = poll(pt->pfd, (nfds_t)n, timeout_ms);
	if (rc < 0)
		return errno == EINTR ? 0 : -1;
	if (ctl_buffered)
		ft__pt_ctl_read(pt);
	for (i = 0; i < n && rc > 0; i++) {
		struct pconn *pc = pt->pfdconn[i];
		short re = pt->pfd[i].revents;

		if (re == 0 || i == widx)
			continue;
		rc--;
		/* Closed earlier in this pass: its fd may be someone's now. */
		if (pc != NULL && pc->closed)
			continue;
		if (pc == NULL) {
			ft__pt_accept_all(pt, pt->pfd[i].fd);
			continue;
		}
		if (pc == pt->ctl) {
			if (re & POLLOUT)
				(void)ft_conn_flush(&pc->c);
			if (re & (POLLIN | POLLHUP | POLLERR))
				ft__pt_ctl_read(pt);
			continue;
		}
		if ((re & (POLLOUT | POLLERR)) && ft_conn_flush(&pc->c) != 0) {
			ft__pt_conn_close(pt, pc, strerror(errno));
			dead = 1;
			continue;
		}
		if ((re & (POLLIN | POLLHUP | POLLERR)) &&
		    ft__pt_conn_read(pt, pc) != 0) {
			ft__pt_conn_close(pt, pc, pc->c.eof ? NULL :
			    strerror(errno));
			dead = 1;
			continue;
		}
		/* The handshake may have queued its answer. */
		if (ft_conn_want_write(&pc->c))
			(void)ft_conn_flush(&pc->c);
	}
	if (pt->hs_next != 0 && ft_now_ns() >= pt->hs_next)
		ft__pt_hs_guard(pt);
	if (pt->refusals.held > 0)
		ft_ratelim_flush(&pt->refusals, 0);
	if (pt->acks_on)
		ft__pt_acks_send(pt);
	if (dead || pt->reap_due)
		ft__pt_multi_trim_gone(pt);
	if (pt->neouts > 0)
		ft__pt_eout_check(pt);
	if (pt->proto.ops->io != NULL && ((widx != SIZE_MAX &&
	    pt->pfd[widx].revents != 0) || (pt->wdeadline != 0 &&
	    ft_now_ns() >= pt->wdeadline)))
		pt->proto.ops->io(&pt->proto, widx != SIZE_MAX ?
		    pt->pfd[widx].revents : 0);
	if (pt->proto.ops->tick != NULL)
		pt->proto.ops->tick(&pt->proto);
	if (dead || pt->reap_due) {
		pt->reap_due = 0;
		ft__pt_reap(pt);
	}
	return 0;
}
