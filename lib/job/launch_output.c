/* SPDX-License-Identifier: ISC */
/*
 * The ranks' output and input: standard output and error forwarded
 * whole lines at a time, each byte once whichever replicas or
 * incarnations wrote it; ftrun's standard input to rank 0.
 */
#include "launch_impl.h"

/*
 * Write process i's whole lines.  The replicas of a rank write the same
 * stream: a line is printed by the first replica to reach it, so each
 * byte of the rank's output is printed once, in order, whichever
 * replicas die on the way.
 */
void
ft__l_flush_lines(struct launcher *l, uint32_t i, struct outbuf *o, int final)
{
	uint32_t rank = l->ranks[i].rank;
	uint64_t *printed = &l->printed[2 * rank + (o->to == STDERR_FILENO)];
	char prefix[32], *nl, *line;
	size_t plen = 0, llen, start = 0, skip;
	struct iovec iov[3];
	ssize_t n;

	if (l->cf->tag_output && l->ranks[i].spec != NULL)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "[%s] ",
		    l->ranks[i].spec->label);
	else if (l->cf->tag_output)
		plen = (size_t)snprintf(prefix, sizeof(prefix), "[%u] ", rank);
	while (start < o->len) {
		line = o->buf + start;
		nl = memchr(line, '\n', o->len - start);
		if (nl != NULL)
			llen = (size_t)(nl - line) + 1;
		else if (final || (start == 0 && o->len == LINE_MAX_FWD))
			llen = o->len - start;
		else
			break;
		o->off += llen;
		start += llen;
		if (o->off <= *printed)
			continue;	/* another replica printed it */
		skip = *printed > o->off - llen ?
		    (size_t)(*printed - (o->off - llen)) : 0;
		*printed = o->off;
		line += skip;
		llen -= skip;
		iov[0].iov_base = prefix;
		iov[0].iov_len = skip > 0 ? 0 : plen;
		iov[1].iov_base = line;
		iov[1].iov_len = llen;
		/* A line cut by EOF or by its length is completed here, so
		 * the next one never starts on the same line. */
		iov[2].iov_base = "\n";
		iov[2].iov_len = line[llen - 1] == '\n' ? 0 : 1;
		if (!(o->to == STDOUT_FILENO && l->stdout_broken)) {
			size_t total = iov[0].iov_len + llen + iov[2].iov_len;
			int cnt = 3;
			struct iovec *v = iov;

			while (total > 0) {
				n = writev(o->to, v, cnt);
				if (n < 0 && errno == EINTR)
					continue;
				if (n < 0) {
					if (o->to == STDOUT_FILENO)
						l->stdout_broken = 1;
					break;
				}
				total -= (size_t)n;
				while (cnt > 0 && (size_t)n >= v->iov_len) {
					n -= (ssize_t)v->iov_len;
					v++;
					cnt--;
				}
				if (cnt > 0) {
					v->iov_base = (char *)v->iov_base + n;
					v->iov_len -= (size_t)n;
				}
			}
		}
	}
	memmove(o->buf, o->buf + start, o->len - start);
	o->len -= start;
}

/*
 * Replicated: the last line of a rank's output, if it has no newline, is
 * printed from a replica that ended well; a replica that died may have
 * written only part of it.
 */
void
ft__l_end_outputs(struct launcher *l)
{
	struct lrank *r;
	uint32_t i;
	int k;

	if (l->nrep == 1 && !l->vlog && !l->coord.on)
		return;
	for (i = 0; i < l->n; i++) {
		r = &l->ranks[i];
		if (r->dead || r->state != R_EXITED || !WIFEXITED(r->status) ||
		    WEXITSTATUS(r->status) != 0)
			continue;
		for (k = 0; k < 2; k++)
			ft__l_flush_lines(l, i, k ? &r->err : &r->out, 1);
	}
}

/* Read what a rank wrote; close the pipe on end of file. */
void
ft__l_read_output(struct launcher *l, uint32_t rank, struct outbuf *o)
{
	ssize_t n;
	int rounds;

	for (rounds = 0; rounds < 16 && o->fd != -1; rounds++) {
		if (o->len == LINE_MAX_FWD)
			ft__l_flush_lines(l, rank, o, 0);
		n = read(o->fd, o->buf + o->len, LINE_MAX_FWD - o->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			break;
		if (n <= 0) {
			/* Replicated, a cut line is printed at the end, from
			 * a replica that ended well (end_outputs). */
			ft__l_flush_lines(l, rank, o, l->nrep == 1 &&
			    !l->vlog && !l->coord.on);
			close(o->fd);
			o->fd = -1;
			break;
		}
		o->len += (size_t)n;
		ft__l_flush_lines(l, rank, o, 0);
	}
}

static void
close_in(struct launcher *l, uint32_t k)
{
	if (l->in_remote[k]) {
		/* The end of input, once what was read has gone. */
		(void)ft__remote_input(l->rm, k, NULL, 0, 1);
		l->in_remote[k] = 0;
	} else if (l->in_fds[k] != -1) {
		close(l->in_fds[k]);
		l->in_fds[k] = -1;
	} else
		return;
	if (--l->in_open == 0)
		l->stdin_open = 0;
}

void
ft__l_close_stdin(struct launcher *l)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		close_in(l, k);
	l->stdin_open = 0;
}

static int
in_open(const struct launcher *l, uint32_t k)
{
	return l->in_fds[k] != -1 || l->in_remote[k];
}

/* Has every replica of rank 0 taken the buffer?  Then read more. */
int
ft__l_stdin_drained(const struct launcher *l)
{
	uint32_t k;

	for (k = 0; k < l->nrep; k++)
		if (in_open(l, k) && l->in_offs[k] < l->inlen)
			return 0;
	return 1;
}

/* Our stdin goes to rank 0: to every replica of it, each at its pace. */
void
ft__l_forward_stdin(struct launcher *l)
{
	ssize_t n;
	uint32_t k;

	if (ft__l_stdin_drained(l)) {
		n = read(STDIN_FILENO, l->inbuf, sizeof(l->inbuf));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		if (n <= 0) {
			ft__l_close_stdin(l);
			return;
		}
		l->inlen = (size_t)n;
		ft_rec_stdin_add(&l->inrec, l->inbuf, l->inlen);
		for (k = 0; k < l->nrep; k++)
			l->in_offs[k] = 0;
	}
	for (k = 0; k < l->nrep; k++) {
		if (!in_open(l, k) || l->in_offs[k] == l->inlen)
			continue;
		if (l->in_remote[k]) {
			/* What the window takes; the rest after I/O. */
			n = ft__remote_input(l->rm, k, (const uint8_t *)l->inbuf +
			    l->in_offs[k], l->inlen - l->in_offs[k], 0);
			if (n < 0) {
				l->in_remote[k] = 0;
				if (--l->in_open == 0)
					l->stdin_open = 0;
			} else
				l->in_offs[k] += (size_t)n;
			continue;
		}
		n = write(l->in_fds[k], l->inbuf + l->in_offs[k],
		    l->inlen - l->in_offs[k]);
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0) {
			/* It closed its stdin: the rest is not wanted. */
			close_in(l, k);
			continue;
		}
		l->in_offs[k] += (size_t)n;
	}
}

/*
 * Rank r is at the cut of an image of epoch (coord, or vlog's images):
 * where its output stands is where a restart from that image prints
 * from.  What it wrote before telling us is in its pipes.
 */
void
ft__l_cut_output(struct launcher *l, struct lrank *r, uint64_t epoch)
{
	uint32_t i = (uint32_t)(r - l->ranks);

	ft__l_read_output(l, i, &r->out);
	ft__l_read_output(l, i, &r->err);
	if (ft__coord_cut_put(&r->ck_cuts, epoch, r->out.off + r->out.len,
	    r->err.off + r->err.len) != 0)
		ft_die(FT_EXIT_TEMP, "out of memory");
}

/* Forget what the pipes of a dead process still hold but whole lines. */
void
ft__l_drain_output(struct launcher *l, uint32_t i, struct outbuf *o)
{
	if (o->fd != -1) {
		ft__l_read_output(l, i, o);
		/* A child it left behind may hold the pipe open. */
		if (o->fd != -1) {
			close(o->fd);
			o->fd = -1;
		}
	}
	/* A cut last line is made again, whole, by the next one. */
	o->len = 0;
	o->off = 0;
}

int
ft__l_outputs_open(const struct launcher *l)
{
	uint32_t i;

	for (i = 0; i < l->n; i++)
		if (l->ranks[i].out.fd != -1 || l->ranks[i].err.fd != -1)
			return 1;
	return 0;
}
