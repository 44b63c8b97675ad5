/* SPDX-License-Identifier: ISC */
/*
 * The radix-tree membership protocol (detect.h has the whole story): a
 * state machine per member that turns failures, joins and messages into
 * messages and view events.  All I/O and time belong to the caller.
 */
#include <stdlib.h>
#include <string.h>

#include "detect.h"

static const char *const kind_names[] = {
	[FT_MB_NODE_FAILURE] = "NODE_FAILURE",
	[FT_MB_NODE_FAILURE_ACK] = "NODE_FAILURE_ACK",
	[FT_MB_ROOT_FAILURE] = "ROOT_FAILURE",
	[FT_MB_FAILED_NODE] = "FAILED_NODE",
	[FT_MB_ROOT_DEAD] = "ROOT_DEAD",
	[FT_MB_FAILURE_ACK] = "FAILURE_ACK",
	[FT_MB_NEW_NODE] = "NEW_NODE",
	[FT_MB_NODE_ALIVE] = "NODE_ALIVE",
	[FT_MB_JOIN_DET_ACK] = "JOIN_DET_ACK",
};

const char *
ft_mb_kind_name(unsigned int kind)
{
	if (kind == 0 || kind > FT_MB_KIND_MAX)
		return "unknown";
	return kind_names[kind];
}

static void
emit(struct ft_member *m, const struct ft_mb_event *ev)
{
	if (m->ops.event != NULL)
		m->ops.event(m->arg, ev);
}

static void
send_msg(struct ft_member *m, uint32_t to, const struct ft_msg_member *msg)
{
	if (to != m->self && to < m->n)
		m->ops.send(m->arg, to, msg);
}

int
ft_member_init(struct ft_member *m, uint32_t n, uint32_t self,
    uint32_t fanout, uint64_t retry_ns, unsigned int join,
    const struct ft_mb_ops *ops, void *arg, uint64_t now)
{
	uint32_t i;

	memset(m, 0, sizeof(*m));
	if (n == 0 || n > FT_GOSSIP_NMAX || self >= n ||
	    !ft_rtree_fanout_ok(fanout) || retry_ns == 0 ||
	    ops == NULL || ops->send == NULL ||
	    (join != 0 && join != FT_MB_NEW_NODE &&
	    join != FT_MB_NODE_ALIVE) || (join != 0 && n < 2)) {
		errno = EINVAL;
		return -1;
	}
	m->live = calloc(n, sizeof(*m->live));
	m->in_view = calloc(n, 1);
	m->failed = calloc(n, 1);
	m->by = calloc(n, sizeof(*m->by));
	m->joining = calloc(n, 1);
	m->kids = calloc(n, sizeof(*m->kids));
	m->acked = calloc(n, 1);
	m->sfail = calloc(n, sizeof(*m->sfail));
	m->sby = calloc(n, sizeof(*m->sby));
	m->sep = calloc(n, sizeof(*m->sep));
	m->failed_ep = calloc(n, sizeof(*m->failed_ep));
	m->join_ep = calloc(n, sizeof(*m->join_ep));
	m->slive = calloc(n, sizeof(*m->slive));
	if (m->live == NULL || m->in_view == NULL || m->failed == NULL ||
	    m->by == NULL || m->joining == NULL || m->kids == NULL ||
	    m->acked == NULL || m->sfail == NULL || m->sby == NULL ||
	    m->slive == NULL || m->sep == NULL || m->failed_ep == NULL ||
	    m->join_ep == NULL) {
		ft_member_release(m);
		errno = ENOMEM;
		return -1;
	}
	m->n = n;
	m->self = self;
	m->fanout = fanout;
	m->retry_ns = retry_ns;
	m->ops = *ops;
	m->arg = arg;
	m->parent = FT_MB_NONE;
	m->stable = 1;
	if (join != 0) {
		/* Outside every view until the root puts us in one. */
		m->joining_self = 1;
		m->join_kind = join;
		m->join_contact = self == 0 ? 1 : 0;
		m->join_at = now - retry_ns;	/* ask at the first tick */
		return 0;
	}
	for (i = 0; i < n; i++) {
		m->live[i] = i;
		m->in_view[i] = 1;
	}
	m->nlive = n;
	return 0;
}

void
ft_member_release(struct ft_member *m)
{
	free(m->live);
	free(m->in_view);
	free(m->failed);
	free(m->by);
	free(m->joining);
	free(m->kids);
	free(m->acked);
	free(m->sfail);
	free(m->sby);
	free(m->sep);
	free(m->failed_ep);
	free(m->join_ep);
	free(m->slive);
	memset(m, 0, sizeof(*m));
}

uint32_t
ft_member_target(const struct ft_member *m)
{
	uint32_t i;

	for (i = 0; i < m->nlive; i++)
		if (!m->failed[m->live[i]])
			return m->live[i];
	return m->self;
}

/* Record a failure; 1 if it was news. */
static int
note_failed(struct ft_member *m, uint32_t id, uint32_t by, uint64_t ep)
{
	struct ft_mb_event ev;

	/* Unknown, already known, about us (the view will say), from
	 * before the id last joined, or said by a member we hold failed:
	 * one cut off from us declares us all failed, and its word must
	 * not cross back when the link does. */
	if (id >= m->n || m->failed[id] || id == m->self ||
	    (m->join_ep[id] != 0 && ep < m->join_ep[id]) ||
	    (by < m->n && by != m->self && m->failed[by]))
		return 0;
	m->failed[id] = 1;
	m->by[id] = by;
	m->failed_ep[id] = ep;
	m->joining[id] = 0;
	memset(&ev, 0, sizeof(ev));
	ev.type = FT_MEV_FAILED;
	ev.id = id;
	ev.by = by;
	ev.epoch = m->epoch;
	emit(m, &ev);
	return 1;
}

/* id joined in the view of epoch ep: failures known from before go. */
static void
note_joined(struct ft_member *m, uint32_t id, uint64_t ep)
{
	if (id >= m->n || ep <= m->join_ep[id])
		return;
	m->join_ep[id] = ep;
	if (m->failed[id] && m->failed_ep[id] < ep)
		m->failed[id] = 0;
}

/* Take in the failures and joins a message lists. */
static void
note_list(struct ft_member *m, const struct ft_msg_member *msg)
{
	uint32_t i;

	for (i = 0; i < msg->nfail; i++)
		if (msg->by[i] == FT_MB_JOINED)
			note_joined(m, msg->fail[i], msg->ep[i]);
		else
			note_failed(m, msg->fail[i], msg->by[i], msg->ep[i]);
}

/* The failures and joins this member knows of, into msg. */
static void
fill_failures(struct ft_member *m, struct ft_msg_member *msg)
{
	uint32_t i, k = 0;

	for (i = 0; i < m->n; i++)
		if (m->failed[i]) {
			m->sfail[k] = i;
			m->sby[k] = m->by[i];
			m->sep[k++] = m->failed_ep[i];
		} else if (m->join_ep[i] != 0) {
			m->sfail[k] = i;
			m->sby[k] = FT_MB_JOINED;
			m->sep[k++] = m->join_ep[i];
		}
	msg->nfail = k;
	msg->fail = m->sfail;
	msg->by = m->sby;
	msg->ep = m->sep;
}

static void root_issue(struct ft_member *, uint64_t, int);

/* Send what we know to the root, or act on it if we are the root. */
static void
report(struct ft_member *m, uint64_t now)
{
	struct ft_msg_member msg;
	uint32_t to;

	if (m->joining_self || m->excluded)
		return;
	to = ft_member_target(m);
	if (to == m->self) {
		m->report_unacked = 0;
		root_issue(m, now, 0);
		return;
	}
	memset(&msg, 0, sizeof(msg));
	msg.kind = m->failed[m->root] ? FT_MB_ROOT_FAILURE :
	    FT_MB_NODE_FAILURE;
	msg.epoch = m->epoch;
	msg.root = m->root;
	fill_failures(m, &msg);
	m->report_unacked = 1;
	m->report_to = to;
	m->report_at = now;
	send_msg(m, to, &msg);
}

/* Does the view hold a failed member the root may not know of yet? */
static int
view_has_failed(const struct ft_member *m)
{
	uint32_t i;

	for (i = 0; i < m->nlive; i++)
		if (m->failed[m->live[i]])
			return 1;
	return 0;
}

/* The view message for (live, epoch, root), with what m knows failed. */
static void
view_msg(struct ft_member *m, struct ft_msg_member *msg, const uint32_t *live,
    uint32_t nlive, uint64_t epoch, uint32_t root, int root_changed)
{
	memset(msg, 0, sizeof(*msg));
	msg->kind = root_changed ? FT_MB_ROOT_DEAD : FT_MB_FAILED_NODE;
	msg->epoch = epoch;
	msg->root = root;
	msg->nlive = nlive;
	msg->live = (uint32_t *)(uintptr_t)live;
	fill_failures(m, msg);
}

static void
send_view_of(struct ft_member *m, uint32_t to, const uint32_t *live,
    uint32_t nlive, uint64_t epoch, uint32_t root, int root_changed)
{
	struct ft_msg_member msg;

	view_msg(m, &msg, live, nlive, epoch, root, root_changed);
	send_msg(m, to, &msg);
}

static void
send_view(struct ft_member *m, uint32_t to)
{
	send_view_of(m, to, m->live, m->nlive, m->epoch, m->root,
	    m->root_changed);
}

/*
 * The view to every child that has not answered and is not known to
 * have failed (all of them, when it has just been adopted).  One
 * message serves them all.
 */
static void
send_view_to_kids(struct ft_member *m)
{
	struct ft_msg_member msg;
	uint32_t i;

	view_msg(m, &msg, m->live, m->nlive, m->epoch, m->root,
	    m->root_changed);
	for (i = 0; i < m->nkids; i++)
		if (!m->acked[i] && !m->failed[m->kids[i]])
			send_msg(m, m->kids[i], &msg);
}

static void
send_ack(struct ft_member *m, uint32_t to, uint64_t epoch, uint64_t seen)
{
	struct ft_msg_member msg;

	memset(&msg, 0, sizeof(msg));
	msg.kind = FT_MB_FAILURE_ACK;
	msg.epoch = epoch;
	msg.seen = seen;
	msg.root = m->root;
	send_msg(m, to, &msg);
}

/* All children answered for the view being passed down. */
static void
complete(struct ft_member *m, uint64_t now)
{
	struct ft_mb_event ev;

	m->waiting = 0;
	m->done_seen = m->wait_seen;
	if (m->parent != FT_MB_NONE) {
		send_ack(m, m->parent, m->epoch, m->wait_seen);
		return;
	}
	if (m->wait_seen >= m->epoch) {
		/* Some member holds an epoch of a dead root's; go above. */
		if (m->wait_seen > m->seen)
			m->seen = m->wait_seen;
		root_issue(m, now, 1);
		return;
	}
	m->stable = 1;
	memset(&ev, 0, sizeof(ev));
	ev.type = FT_MEV_STABLE;
	ev.epoch = m->epoch;
	ev.root = m->root;
	ev.ns = now - m->issued_at;
	ev.live = m->live;
	ev.nlive = m->nlive;
	emit(m, &ev);
}

/* Adopt (live, epoch, root) and pass it to our children in its tree. */
static void
adopt(struct ft_member *m, const uint32_t *live, uint32_t nlive,
    uint64_t epoch, uint32_t root, uint32_t parent, uint64_t now)
{
	struct ft_mb_event ev;
	uint32_t i;

	memset(m->in_view, 0, m->n);
	for (i = 0; i < nlive; i++) {
		m->live[i] = live[i];
		m->in_view[live[i]] = 1;
		m->joining[live[i]] = 0;
	}
	m->nlive = nlive;
	m->epoch = epoch;
	if (epoch > m->seen)
		m->seen = epoch;
	m->rival = 0;
	m->root_changed = root != m->root;
	m->root = root;
	m->joining_self = 0;
	m->parent = parent;
	m->nkids = ft_rtree_children(m->live, m->nlive, m->fanout, m->self,
	    m->kids);
	memset(m->acked, 0, m->nkids);
	m->nacked = 0;
	m->wait_seen = 0;
	m->wait_at = now;
	m->waiting = 1;
	/* Pass it on before anything else: the tree waits on us. */
	send_view_to_kids(m);
	memset(&ev, 0, sizeof(ev));
	ev.type = FT_MEV_VIEW;
	ev.epoch = epoch;
	ev.root = root;
	ev.live = m->live;
	ev.nlive = m->nlive;
	emit(m, &ev);
	if (m->nkids == 0 && m->waiting && m->epoch == epoch)
		complete(m, now);
}

/*
 * The root makes the next view when it differs from the one it holds,
 * or when a member holds an epoch as high (seen), or when forced to go
 * above an epoch a child reported.
 */
static void
root_issue(struct ft_member *m, uint64_t now, int force)
{
	uint64_t epoch;
	uint32_t i, k = 0;

	for (i = 0; i < m->n; i++)
		if (i == m->self ||
		    ((m->in_view[i] || m->joining[i]) && !m->failed[i]))
			m->slive[k++] = i;
	if (!force && !m->rival && m->root == m->self && m->seen <= m->epoch &&
	    k == m->nlive &&
	    memcmp(m->slive, m->live, k * sizeof(*m->live)) == 0)
		return;
	epoch = (m->seen > m->epoch ? m->seen : m->epoch) + 1;
	for (i = 0; i < m->n; i++)
		if (m->joining[i])
			m->join_ep[i] = epoch;
	if (m->slive[0] != m->self) {
		/*
		 * A lower id joined: it is the root of the new view.  Hand
		 * the view to it to spread and stabilize; never reuse the
		 * epoch, and ask again (the joiner does) if it is lost.
		 */
		m->seen = epoch;
		send_view_of(m, m->slive[0], m->slive, k, epoch, m->slive[0],
		    1);
		return;
	}
	if (m->stable)
		m->issued_at = now;
	m->stable = 0;
	adopt(m, m->slive, k, epoch, m->self, FT_MB_NONE, now);
}

void
ft_member_failed(struct ft_member *m, uint32_t id, uint32_t by,
    uint64_t now)
{
	if (m->excluded)
		return;
	if (note_failed(m, id, by, m->epoch) && !m->joining_self)
		report(m, now);
}

static int
same_view(const struct ft_member *m, const struct ft_msg_member *msg)
{
	uint32_t i;

	if (msg->epoch != m->epoch || msg->root != m->root ||
	    msg->nlive != m->nlive)
		return 0;
	for (i = 0; i < m->nlive; i++)
		if (msg->live[i] != m->live[i])
			return 0;
	return 1;
}

/* A view's live list must be sorted, in range and hold its root. */
static int
view_ok(const struct ft_member *m, const struct ft_msg_member *msg)
{
	uint32_t i;

	if (msg->nlive == 0 || msg->nlive > m->n || msg->live[0] != msg->root)
		return 0;
	for (i = 0; i < msg->nlive; i++)
		if (msg->live[i] >= m->n ||
		    (i > 0 && msg->live[i] <= msg->live[i - 1]))
			return 0;
	return 1;
}

static void
on_view(struct ft_member *m, uint32_t from, const struct ft_msg_member *msg,
    uint64_t now)
{
	struct ft_mb_event ev;
	uint32_t i;
	int inside = 0;

	if (!view_ok(m, msg))
		return;
	for (i = 0; i < msg->nlive; i++)
		if (msg->live[i] == m->self)
			inside = 1;
	note_list(m, msg);
	if (msg->epoch > m->epoch || (m->joining_self && inside)) {
		if (!inside) {
			if (m->joining_self)
				return;	/* not ours yet */
			m->excluded = 1;
			memset(&ev, 0, sizeof(ev));
			ev.type = FT_MEV_EXCLUDED;
			ev.epoch = msg->epoch;
			ev.root = msg->root;
			emit(m, &ev);
			return;
		}
		if (msg->root == m->self) {
			/* Handed a view to spread: we are its root. */
			if (m->stable || m->joining_self)
				m->issued_at = now;
			m->stable = 0;
			adopt(m, msg->live, msg->nlive, msg->epoch, m->self,
			    FT_MB_NONE, now);
		} else {
			m->stable = 1;
			adopt(m, msg->live, msg->nlive, msg->epoch, msg->root,
			    from, now);
		}
		if (view_has_failed(m) || ft_member_target(m) == m->self)
			report(m, now);
		return;
	}
	if (same_view(m, msg)) {
		/* A resend: push it on below, or answer again. */
		if (m->waiting && m->parent == from)
			send_view_to_kids(m);
		else if (!m->waiting)
			send_ack(m, from, msg->epoch, m->done_seen);
		return;
	}
	/* An old or rival view: tell its root what we hold. */
	send_ack(m, from, msg->epoch, m->seen > m->epoch ? m->seen : m->epoch);
}

static void
on_ack(struct ft_member *m, uint32_t from, const struct ft_msg_member *msg,
    uint64_t now)
{
	uint32_t i;

	if (!m->waiting || msg->epoch != m->epoch)
		return;
	for (i = 0; i < m->nkids; i++)
		if (m->kids[i] == from && !m->acked[i]) {
			m->acked[i] = 1;
			m->nacked++;
			if (msg->seen > m->wait_seen)
				m->wait_seen = msg->seen;
			break;
		}
	if (m->nacked == m->nkids)
		complete(m, now);
}

static void
on_join(struct ft_member *m, uint32_t from, const struct ft_msg_member *msg,
    uint64_t now)
{
	struct ft_msg_member ack;
	struct ft_mb_event ev;
	uint32_t id;

	if (msg->nlive != 1 || (id = msg->live[0]) >= m->n || m->joining_self)
		return;
	if (ft_member_target(m) != m->self) {
		/* Pass it on to the root; the joiner retries if lost. */
		send_msg(m, ft_member_target(m), msg);
		return;
	}
	memset(&ack, 0, sizeof(ack));
	ack.kind = FT_MB_JOIN_DET_ACK;
	ack.epoch = m->epoch;
	ack.root = m->self;
	send_msg(m, id, &ack);
	(void)from;
	if (m->in_view[id] && !m->failed[id])
		return;		/* already in: the view will reach it */
	m->failed[id] = 0;
	m->joining[id] = 1;
	memset(&ev, 0, sizeof(ev));
	ev.type = FT_MEV_JOINED;
	ev.id = id;
	ev.epoch = m->epoch;
	emit(m, &ev);
	root_issue(m, now, 0);
}

void
ft_member_heard(struct ft_member *m, uint32_t from, uint64_t epoch,
    uint64_t now)
{
	(void)now;
	/* A member we dropped still speaks: show it the view that left it
	 * out, so it knows it is excluded and stops. */
	if (!m->excluded && !m->joining_self && from < m->n &&
	    from != m->self && m->failed[from] && !m->in_view[from] &&
	    epoch < m->epoch)
		send_view(m, from);
}

void
ft_member_recv(struct ft_member *m, uint32_t from,
    const struct ft_msg_member *msg, uint64_t now)
{
	struct ft_msg_member ack;
	uint32_t i;

	/* Epochs grow by one a view; one near 2^64 is forged or corrupt,
	 * and "one above" it would wrap to 0. */
	if (m->excluded || from >= m->n || from == m->self ||
	    msg->epoch > FT_MB_EPOCH_MAX || msg->seen > FT_MB_EPOCH_MAX)
		return;
	/* A member we hold failed is fenced: it may speak again only to
	 * rejoin, or once a view took it back in (the one it passes on
	 * may be how we learn that).  Cut off, it made views and reports
	 * of its own side (every other member failed, epochs perhaps
	 * above ours), which would exclude the live members if taken in
	 * once the link came back.  It is shown the view that left it
	 * out, as below. */
	if (m->failed[from] && msg->kind != FT_MB_NEW_NODE &&
	    msg->kind != FT_MB_NODE_ALIVE) {
		for (i = 0; i < msg->nfail; i++)
			if (msg->fail[i] == from &&
			    msg->by[i] == FT_MB_JOINED)
				note_joined(m, from, msg->ep[i]);
		if (m->failed[from]) {
			ft_member_heard(m, from, msg->epoch, now);
			return;
		}
	}
	if (msg->kind != FT_MB_NEW_NODE && msg->kind != FT_MB_NODE_ALIVE &&
	    msg->kind != FT_MB_FAILED_NODE && msg->kind != FT_MB_ROOT_DEAD)
		ft_member_heard(m, from, msg->epoch, now);
	if (msg->epoch > m->seen && msg->kind != FT_MB_FAILED_NODE &&
	    msg->kind != FT_MB_ROOT_DEAD)
		m->seen = msg->epoch;
	/* A report from a member holding a rival view of our epoch: the
	 * root must go above it. */
	if ((msg->kind == FT_MB_NODE_FAILURE ||
	    msg->kind == FT_MB_ROOT_FAILURE) && msg->epoch == m->epoch &&
	    msg->root != m->root)
		m->rival = 1;
	switch (msg->kind) {
	case FT_MB_NODE_FAILURE:
	case FT_MB_ROOT_FAILURE:
		memset(&ack, 0, sizeof(ack));
		ack.kind = FT_MB_NODE_FAILURE_ACK;
		ack.epoch = m->epoch;
		ack.root = m->root;
		send_msg(m, from, &ack);
		if (m->joining_self)
			return;
		note_list(m, msg);
		/* The root acts; anyone else passes it on. */
		report(m, now);
		break;
	case FT_MB_NODE_FAILURE_ACK:
		if (m->report_unacked && from == m->report_to)
			m->report_unacked = 0;
		break;
	case FT_MB_FAILED_NODE:
	case FT_MB_ROOT_DEAD:
		on_view(m, from, msg, now);
		break;
	case FT_MB_FAILURE_ACK:
		on_ack(m, from, msg, now);
		break;
	case FT_MB_NEW_NODE:
	case FT_MB_NODE_ALIVE:
		on_join(m, from, msg, now);
		break;
	case FT_MB_JOIN_DET_ACK:
		if (m->joining_self) {
			/* Heard: wait for the view before asking again. */
			m->join_contact = from;
			m->join_at = now + 4 * m->retry_ns;
		}
		break;
	default:
		break;
	}
}

void
ft_member_tick(struct ft_member *m, uint64_t now)
{
	struct ft_msg_member msg;

	if (m->excluded)
		return;
	if (m->joining_self) {
		if ((int64_t)(now - m->join_at) < (int64_t)m->retry_ns)
			return;
		memset(&msg, 0, sizeof(msg));
		msg.kind = (uint8_t)m->join_kind;
		msg.nlive = 1;
		msg.live = &m->self;
		send_msg(m, m->join_contact, &msg);
		m->join_at = now;
		/* The next try goes to the next member, in case this one
		 * is dead. */
		do
			m->join_contact = (m->join_contact + 1) % m->n;
		while (m->join_contact == m->self);
		return;
	}
	if (m->report_unacked && now - m->report_at >= m->retry_ns)
		report(m, now);
	if (m->waiting && now - m->wait_at >= m->retry_ns) {
		/* Children that have not answered get the view again. */
		m->wait_at = now;
		send_view_to_kids(m);
	}
}
