/* SPDX-License-Identifier: ISC */
/*
 * The radix-tree membership protocol, run as a deterministic simulation:
 * n state machines in one process, a network that delivers messages in a
 * random order (not even first-in first-out between two members), kills
 * at chosen or random times, and detectors modelled as failure reports
 * that reach each survivor at a random later time.  After the network
 * drains, every survivor must hold the same view, of exactly the
 * survivors, which its root declared stable; epochs must only grow; no
 * live member may be reported failed or excluded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/detect/detect.h"
#include "tap.h"

#define NMAX	64
#define QMAX	200000
#define RETRY	1000000ull		/* 1 ms of simulated time */

struct packet {
	uint32_t	 from, to;
	struct ft_msg_member msg;
};

/* A detection due: member "at" learns that "dead" failed. */
struct detection {
	uint64_t	 when;
	uint32_t	 at, dead;
};

struct sim;

struct node {
	struct sim	*s;
	uint32_t	 id;
	uint64_t	 last_view;	/* epoch of the last VIEW event */
	uint64_t	 stable_epoch;	/* last STABLE event, at the root */
	int		 bad_epoch;	/* a VIEW epoch that did not grow */
	int		 excluded;
};

struct sim {
	uint32_t	 n, fanout;
	uint64_t	 now, rng;
	int		 fifo;		/* deliver in order between two ids */
	int		 trace;
	struct ft_member m[NMAX];
	struct node	 node[NMAX];
	int		 alive[NMAX];
	int		 in_use[NMAX];	/* has a state machine */
	struct packet	*q;
	size_t		 nq;
	struct detection det[NMAX * NMAX * 2];
	size_t		 ndet;
	int		 false_failed;	/* a FAILED event for a live id */
	int		 overflow;
	uint64_t	 sent;
	/* A cut: messages between members of different sides are lost. */
	int		 cut;
	int		 side[NMAX];
};

static uint32_t *
dup_ids(const uint32_t *p, uint32_t n)
{
	uint32_t *c;

	if (n == 0)
		return NULL;
	c = malloc(n * sizeof(*c));
	if (c == NULL)
		abort();
	memcpy(c, p, n * sizeof(*c));
	return c;
}

static void
sim_send(void *arg, uint32_t to, const struct ft_msg_member *msg)
{
	struct node *nd = arg;
	struct sim *s = nd->s;
	struct packet *p;

	if (s->nq == QMAX) {
		s->overflow = 1;
		return;
	}
	p = &s->q[s->nq++];
	p->from = nd->id;
	p->to = to;
	p->msg = *msg;
	p->msg.live = dup_ids(msg->live, msg->nlive);
	p->msg.fail = dup_ids(msg->fail, msg->nfail);
	p->msg.by = dup_ids(msg->by, msg->nfail);
	p->msg.ep = NULL;
	if (msg->nfail > 0) {
		if ((p->msg.ep = malloc(msg->nfail * sizeof(uint64_t))) ==
		    NULL)
			abort();
		memcpy(p->msg.ep, msg->ep, msg->nfail * sizeof(uint64_t));
	}
	s->sent++;
}

static void
sim_event(void *arg, const struct ft_mb_event *ev)
{
	struct node *nd = arg;
	struct sim *s = nd->s;

	switch (ev->type) {
	case FT_MEV_FAILED:
		if (s->alive[ev->id])
			s->false_failed = 1;
		break;
	case FT_MEV_VIEW:
		if (ev->epoch <= nd->last_view && nd->last_view != 0)
			nd->bad_epoch = 1;
		nd->last_view = ev->epoch;
		break;
	case FT_MEV_STABLE:
		nd->stable_epoch = ev->epoch;
		break;
	case FT_MEV_EXCLUDED:
		nd->excluded = 1;
		break;
	default:
		break;
	}
}

static const struct ft_mb_ops sim_ops = { sim_send, sim_event };

static void
sim_init(struct sim *s, uint32_t n, uint32_t fanout, uint64_t seed,
    int fifo)
{
	uint32_t i;

	memset(s, 0, sizeof(*s));
	s->n = n;
	s->fanout = fanout;
	s->rng = seed | 1;
	s->fifo = fifo;
	s->now = 1000 * RETRY;
	s->q = calloc(QMAX, sizeof(*s->q));
	if (s->q == NULL)
		abort();
	for (i = 0; i < n; i++) {
		s->node[i].s = s;
		s->node[i].id = i;
		if (ft_member_init(&s->m[i], n, i, fanout, RETRY, 0, &sim_ops,
		    &s->node[i], s->now) != 0)
			abort();
		s->alive[i] = s->in_use[i] = 1;
	}
}

static void
free_packet(struct packet *p)
{
	free(p->msg.live);
	free(p->msg.fail);
	free(p->msg.by);
	free(p->msg.ep);
}

static void
sim_release(struct sim *s)
{
	uint32_t i;

	for (i = 0; i < s->nq; i++)
		free_packet(&s->q[i]);
	free(s->q);
	for (i = 0; i < s->n; i++)
		if (s->in_use[i])
			ft_member_release(&s->m[i]);
}

/* Kill id now; each survivor's detector notices within spread ns. */
static void
sim_kill(struct sim *s, uint32_t id, uint64_t spread)
{
	uint32_t i;

	s->alive[id] = 0;
	for (i = 0; i < s->n; i++) {
		if (i == id || !s->alive[i] || s->ndet == NMAX * NMAX * 2)
			continue;
		s->det[s->ndet].when = s->now + 1 +
		    ft_gossip_rand(&s->rng) % spread;
		s->det[s->ndet].at = i;
		s->det[s->ndet].dead = id;
		s->ndet++;
	}
}

/* Start id over, outside the view, asking to join as kind. */
static void
sim_join(struct sim *s, uint32_t id, unsigned int kind)
{
	if (s->in_use[id])
		ft_member_release(&s->m[id]);
	memset(&s->node[id], 0, sizeof(s->node[id]));
	s->node[id].s = s;
	s->node[id].id = id;
	if (ft_member_init(&s->m[id], s->n, id, s->fanout, RETRY, kind,
	    &sim_ops, &s->node[id], s->now) != 0)
		abort();
	s->in_use[id] = s->alive[id] = 1;
}

/* Deliver one message: a random one, or with fifo the oldest of a
 * random link. */
static void
deliver_one(struct sim *s)
{
	struct packet p;
	size_t k, j;

	k = ft_gossip_rand(&s->rng) % s->nq;
	if (s->fifo)
		for (j = 0; j < k; j++)
			if (s->q[j].from == s->q[k].from &&
			    s->q[j].to == s->q[k].to) {
				k = j;
				break;
			}
	p = s->q[k];
	memmove(&s->q[k], &s->q[k + 1], (s->nq - k - 1) * sizeof(*s->q));
	s->nq--;
	s->now += 1000 + ft_gossip_rand(&s->rng) % 20000;
	if (s->trace && s->alive[p.to])
		fprintf(stderr, "# t=%llu %u -> %u %s epoch %llu seen %llu "
		    "root %u nlive %u\n", (unsigned long long)s->now, p.from,
		    p.to, ft_mb_kind_name(p.msg.kind),
		    (unsigned long long)p.msg.epoch,
		    (unsigned long long)p.msg.seen, p.msg.root, p.msg.nlive);
	/* Messages of the dead still arrive: they were sent before.
	 * Across a cut, none does. */
	if (s->alive[p.to] && !(s->cut && s->side[p.from] != s->side[p.to]))
		ft_member_recv(&s->m[p.to], p.from, &p.msg, s->now);
	free_packet(&p);
}

static void
run_detections(struct sim *s)
{
	size_t i;

	for (i = 0; i < s->ndet; ) {
		if (s->det[i].when <= s->now) {
			if (s->alive[s->det[i].at])
				ft_member_failed(&s->m[s->det[i].at],
				    s->det[i].dead, s->det[i].at, s->now);
			s->det[i] = s->det[--s->ndet];
		} else
			i++;
	}
}

static void
tick_all(struct sim *s)
{
	uint32_t i;

	for (i = 0; i < s->n; i++)
		if (s->alive[i])
			ft_member_tick(&s->m[i], s->now);
}

/* Run for at most steps events, or until nothing is left to do. */
static void
sim_run(struct sim *s, size_t steps)
{
	size_t idle = 0;

	while (steps-- > 0 && !s->overflow) {
		run_detections(s);
		if (s->nq > 0 && ft_gossip_rand(&s->rng) % 50 != 0) {
			deliver_one(s);
			idle = 0;
			continue;
		}
		s->now += RETRY / 2;
		tick_all(s);
		if (s->nq == 0 && s->ndet == 0 && ++idle > 8)
			return;
	}
}

/* Every survivor holds the view of exactly the survivors, stable. */
static int
sim_agrees(struct sim *s, char *why, size_t whysize)
{
	uint32_t i, j, k, nalive = 0, first = UINT32_MAX;
	struct ft_member *m;

	for (i = 0; i < s->n; i++)
		if (s->alive[i]) {
			nalive++;
			if (first == UINT32_MAX)
				first = i;
		}
	if (s->overflow) {
		snprintf(why, whysize, "queue overflow");
		return 0;
	}
	if (s->false_failed) {
		snprintf(why, whysize, "a live member was reported failed");
		return 0;
	}
	for (i = 0; i < s->n; i++) {
		if (!s->alive[i])
			continue;
		m = &s->m[i];
		if (s->node[i].excluded || s->node[i].bad_epoch) {
			snprintf(why, whysize, "member %u %s", i,
			    s->node[i].excluded ? "excluded" :
			    "saw an epoch that did not grow");
			return 0;
		}
		if (m->nlive != nalive || m->epoch != s->m[first].epoch ||
		    m->root != first) {
			snprintf(why, whysize, "member %u: %u members, epoch "
			    "%llu, root %u; member %u: epoch %llu; %u alive",
			    i, m->nlive, (unsigned long long)m->epoch, m->root,
			    first, (unsigned long long)s->m[first].epoch,
			    nalive);
			return 0;
		}
		for (j = 0, k = 0; j < s->n; j++)
			if (s->alive[j] && m->live[k++] != j) {
				snprintf(why, whysize, "member %u: wrong list",
				    i);
				return 0;
			}
	}
	if (s->node[first].stable_epoch != s->m[first].epoch &&
	    s->m[first].epoch != 0) {
		snprintf(why, whysize, "root %u: epoch %llu, stable %llu",
		    first, (unsigned long long)s->m[first].epoch,
		    (unsigned long long)s->node[first].stable_epoch);
		return 0;
	}
	return 1;
}

/* The state of every member, to debug a failing run. */
static void
dump(const struct sim *s)
{
	const struct ft_member *m;
	uint32_t i, j;

	for (i = 0; i < s->n; i++) {
		m = &s->m[i];
		fprintf(stderr, "# %u %s epoch %llu seen %llu root %u wait %d "
		    "unacked report %d->%u stable %d:", i, s->alive[i] ?
		    "alive" : "dead", (unsigned long long)m->epoch,
		    (unsigned long long)m->seen, m->root, m->waiting,
		    m->report_unacked, m->report_to, m->stable);
		for (j = 0; j < s->n; j++)
			if (m->in_view[j] || m->failed[j])
				fprintf(stderr, " %u%s%s", j,
				    m->in_view[j] ? "" : "-",
				    m->failed[j] ? "F" : "");
		fprintf(stderr, "\n");
	}
}

static void
scenario(const char *name, uint32_t n, uint32_t fanout, int fifo,
    const uint32_t *kills, size_t nkills, uint64_t gap)
{
	struct sim s;
	char why[200] = "";
	int ok = 1;
	uint64_t seed;
	size_t i;

	for (seed = 1; seed <= 40 && ok; seed++) {
		sim_init(&s, n, fanout, seed * 7919, fifo);
		for (i = 0; i < nkills; i++) {
			sim_kill(&s, kills[i], 3 * RETRY);
			/* gap 0: all at once; else let the protocol run
			 * a little between kills (during stabilization). */
			if (gap > 0)
				sim_run(&s, gap);
		}
		sim_run(&s, 5000000);
		ok = sim_agrees(&s, why, sizeof(why));
		if (!ok)
			t_diag("%s: seed %llu: %s", name,
			    (unsigned long long)seed, why);
		sim_release(&s);
	}
	T_OK(ok, "membership: %s (n=%u, fanout %u, %s, 40 seeds): the "
	    "survivors agree on a stable view of exactly themselves", name,
	    n, fanout, fifo ? "in order per link" : "fully reordered");
}

static void
test_scenarios(void)
{
	static const uint32_t one[] = { 5 };
	static const uint32_t several[] = { 3, 9, 12, 4 };
	static const uint32_t root[] = { 0 };
	static const uint32_t chain[] = { 0, 1, 2 };
	static const uint32_t mixed[] = { 7, 0, 13, 1 };
	int fifo;

	for (fifo = 0; fifo <= 1; fifo++) {
		scenario("one failure", 16, 2, fifo, one, 1, 0);
		scenario("four at once", 16, 2, fifo, several, 4, 0);
		scenario("four, one at a time during stabilization", 16, 4,
		    fifo, several, 4, 15);
		scenario("the root", 16, 2, fifo, root, 1, 0);
		scenario("the root and the next two at once", 16, 2, fifo,
		    chain, 3, 0);
		scenario("chained roots, each during the last's "
		    "stabilization", 16, 2, fifo, chain, 3, 10);
		scenario("roots and others mixed", 17, 8, fifo, mixed, 4, 5);
	}
}

static void
test_random(void)
{
	struct sim s;
	char why[200] = "";
	uint32_t n, i, nk, id, fanout;
	uint64_t rng = 12345, msgs = 0, seed;
	int ok = 1, trial, fifo;

	for (trial = 0; trial < 1000 && ok; trial++) {
		n = 2 + ft_gossip_rand(&rng) % 40;
		fanout = 2u << (ft_gossip_rand(&rng) % 3);
		/* One draw per statement: argument order is unspecified. */
		seed = ft_gossip_rand(&rng);
		fifo = (int)(ft_gossip_rand(&rng) & 1);
		sim_init(&s, n, fanout, seed, fifo);
		if (getenv("MEMBER_TRACE") != NULL &&
		    strtol(getenv("MEMBER_TRACE"), NULL, 10) == trial)
			s.trace = 1;
		nk = (uint32_t)(ft_gossip_rand(&rng) % n);
		for (i = 0; i < nk; i++) {
			id = (uint32_t)(ft_gossip_rand(&rng) % n);
			if (s.alive[id])
				sim_kill(&s, id,
				    1 + ft_gossip_rand(&rng) % (5 * RETRY));
			sim_run(&s, ft_gossip_rand(&rng) % 40);
		}
		sim_run(&s, 5000000);
		ok = sim_agrees(&s, why, sizeof(why));
		if (!ok) {
			t_diag("random trial %d (n=%u, fanout %u): %s",
			    trial, n, fanout, why);
			if (getenv("MEMBER_DEBUG") != NULL)
				dump(&s);
		}
		msgs += s.sent;
		sim_release(&s);
	}
	T_OK(ok, "membership: 1000 random runs (n 2..41, fanouts 2/4/8, "
	    "random kills at random times, reordered): survivors agree");
	t_diag("random runs sent %llu messages", (unsigned long long)msgs);
}

static void
test_joins(void)
{
	struct sim s;
	char why[200] = "";
	uint64_t seed;
	int ok = 1;

	/* A member that failed comes back (NODE_ALIVE), and one more
	 * starts outside the view (NEW_NODE), while another fails. */
	for (seed = 1; seed <= 40 && ok; seed++) {
		sim_init(&s, 12, 2, seed, (int)(seed & 1));
		sim_kill(&s, 4, 2 * RETRY);
		sim_kill(&s, 9, 2 * RETRY);
		sim_run(&s, 5000000);
		ok = sim_agrees(&s, why, sizeof(why));
		if (ok) {
			sim_join(&s, 4, FT_MB_NODE_ALIVE);
			sim_run(&s, 5000000);
			ok = sim_agrees(&s, why, sizeof(why)) &&
			    s.m[0].in_view[4];
			if (ok && !s.m[0].in_view[4])
				snprintf(why, sizeof(why), "4 not back");
		}
		if (ok) {
			sim_join(&s, 9, FT_MB_NEW_NODE);
			sim_kill(&s, 6, 2 * RETRY);
			sim_run(&s, 5000000);
			ok = sim_agrees(&s, why, sizeof(why)) &&
			    s.m[0].in_view[9] && !s.m[0].in_view[6];
		}
		if (!ok)
			t_diag("joins: seed %llu: %s", (unsigned long long)seed,
			    why);
		sim_release(&s);
	}
	T_OK(ok, "membership: a failed id rejoins (NODE_ALIVE), another "
	    "joins (NEW_NODE) during a failure: all agree, both in");

	/* The root itself rejoins: id 0 comes back and is root again. */
	sim_init(&s, 8, 2, 99, 1);
	sim_kill(&s, 0, RETRY);
	sim_run(&s, 5000000);
	ok = sim_agrees(&s, why, sizeof(why)) && s.m[1].root == 1;
	sim_join(&s, 0, FT_MB_NODE_ALIVE);
	sim_run(&s, 5000000);
	ok = ok && sim_agrees(&s, why, sizeof(why)) && s.m[5].root == 0;
	T_OK(ok, "membership: the old root rejoins and is the root again "
	    "(%s)", why);
	sim_release(&s);
}

static void
test_exclusion(void)
{
	struct sim s;
	uint32_t i;
	int ok;

	/* A false report: 3 is declared failed though it runs.  It must
	 * learn it was left out, and stop. */
	sim_init(&s, 8, 2, 5, 1);
	ft_member_failed(&s.m[6], 3, 6, s.now);
	sim_run(&s, 5000000);
	/* Its next gossip reaches a member, which answers with the view. */
	ft_member_heard(&s.m[1], 3, s.m[3].epoch, s.now);
	sim_run(&s, 5000000);
	ok = s.node[3].excluded && !s.m[0].in_view[3];
	for (i = 0; i < 8; i++)
		if (i != 3 && s.m[i].in_view[3])
			ok = 0;
	T_OK(ok, "membership: a member left out of the view learns it is "
	    "excluded; no one keeps it");
	sim_release(&s);
}

static void
test_rival_epochs(void)
{
	struct ft_msg_member msg;
	struct sim s;
	uint32_t live[8], i, nl = 0;
	char why[200] = "";
	int ok;

	/*
	 * The trap of a dead root: root 0 gave epoch 1 and then 2 to
	 * member 7 alone and died.  Root 1 starts from epoch 0; its
	 * views must go above 2, or member 7 would refuse them.
	 */
	sim_init(&s, 8, 2, 3, 1);
	/* epoch 2 from root 0: all but 5, a rival of what 1 will issue */
	for (i = 0; i < 8; i++)
		if (i != 5)
			live[nl++] = i;
	memset(&msg, 0, sizeof(msg));
	msg.kind = FT_MB_FAILED_NODE;
	msg.root = 0;
	msg.live = live;
	msg.nlive = nl;
	msg.epoch = 2;
	ft_member_recv(&s.m[7], 0, &msg, s.now);
	/* drop what 7 sent on: root 0 is dead */
	for (i = 0; i < s.nq; i++)
		free_packet(&s.q[i]);
	s.nq = 0;
	s.alive[0] = 0;
	s.alive[5] = 0;
	for (i = 1; i < 7; i++)
		if (i != 5) {
			ft_member_failed(&s.m[i], 0, i, s.now);
			ft_member_failed(&s.m[i], 5, i, s.now);
		}
	sim_run(&s, 5000000);
	ok = sim_agrees(&s, why, sizeof(why)) && s.m[1].epoch > 2;
	T_OK(ok, "membership: a new root goes above an epoch only a dead "
	    "root's partial view carried (epoch %llu%s%s)",
	    (unsigned long long)s.m[1].epoch, why[0] ? ": " : "", why);
	sim_release(&s);
}

static void
test_forged_epochs(void)
{
	struct ft_msg_member msg;
	struct sim s;
	uint32_t fail[1] = { 3 }, by[1] = { 2 };
	uint64_t ep[1] = { 0 };
	char why[200] = "";
	int ok;

	/*
	 * A report claiming epoch 2^64 - 1 reaches the root: were it
	 * believed, the next view would be numbered "one above", 0, and
	 * every member would refuse it.  It is ignored, and a real failure
	 * afterwards still gives a view everyone takes.
	 */
	sim_init(&s, 8, 2, 11, 1);
	memset(&msg, 0, sizeof(msg));
	msg.kind = FT_MB_NODE_FAILURE;
	msg.epoch = UINT64_MAX;
	msg.seen = UINT64_MAX;
	msg.nfail = 1;
	msg.fail = fail;
	msg.by = by;
	msg.ep = ep;
	ft_member_recv(&s.m[0], 2, &msg, s.now);
	ok = s.m[0].epoch == 0 && s.m[0].seen == 0 && !s.m[0].failed[3];
	sim_kill(&s, 5, RETRY);
	sim_run(&s, 5000000);
	ok = ok && sim_agrees(&s, why, sizeof(why)) && s.m[0].epoch == 1;
	T_OK(ok, "membership: an epoch near 2^64 is ignored, not wrapped to 0 "
	    "(%s)", why);
	sim_release(&s);
}

static void
test_partition(void)
{
	struct sim s;
	uint32_t i, j, lone;
	uint64_t seed;
	int ok = 1, falsely = 0;
	char why[200] = "";

	/*
	 * A member cut off, not killed: each side's detector declares the
	 * other side failed, each side makes its views (the lone member's
	 * epochs may go above the others'), then the link comes back and
	 * both sides' messages cross, retries and gossip included.  The
	 * others must keep their view of themselves: none excluded, none
	 * of them failed, the lone member out.
	 */
	for (seed = 1; seed <= 40 && ok; seed++) {
		sim_init(&s, 8, 2, seed * 104729, (int)(seed & 1));
		lone = (uint32_t)(seed % 8);
		s.side[lone] = 1;
		s.cut = 1;
		for (i = 0; i < 8; i++)
			for (j = 0; j < 8; j++)
				if (i != j && (i == lone) != (j == lone) &&
				    s.ndet < NMAX * NMAX * 2) {
					s.det[s.ndet].when = s.now + 1 +
					    ft_gossip_rand(&s.rng) % (3 * RETRY);
					s.det[s.ndet].at = i;
					s.det[s.ndet].dead = j;
					s.ndet++;
				}
		sim_run(&s, 5000000);
		s.cut = 0;
		/* Its gossip reaches the others again, and theirs it. */
		for (i = 0; i < 8; i++)
			if (i != lone) {
				ft_member_heard(&s.m[i], lone, s.m[lone].epoch,
				    s.now);
				ft_member_heard(&s.m[lone], i, s.m[i].epoch,
				    s.now);
			}
		sim_run(&s, 5000000);
		/* The lone member's view of itself alone is not a false
		 * report the others took: sim_agrees would see it as one. */
		s.false_failed = 0;
		s.alive[lone] = 0;
		ok = sim_agrees(&s, why, sizeof(why));
		for (i = 0; i < 8 && ok; i++)
			for (j = 0; j < 8; j++)
				if (i != lone && j != lone && s.m[i].failed[j])
					falsely = 1;
		if (falsely) {
			ok = 0;
			snprintf(why, sizeof(why), "a member of the live side "
			    "holds another failed");
		}
		if (!ok) {
			t_diag("partition: seed %llu, member %u cut off: %s",
			    (unsigned long long)seed, lone, why);
			if (getenv("MEMBER_DEBUG") != NULL)
				dump(&s);
		}
		sim_release(&s);
	}
	T_OK(ok, "membership: a member cut off and back (40 seeds, each "
	    "member in turn): what its side declared does not cross; the "
	    "others keep their view, none excluded");
}

static void
test_basics(void)
{
	struct ft_member m;
	static const struct ft_mb_ops ops = { sim_send, NULL };

	T_FAILS(ft_member_init(&m, 8, 8, 2, RETRY, 0, &ops, NULL, 0),
	    EINVAL, "member init: self out of range");
	T_FAILS(ft_member_init(&m, 8, 1, 3, RETRY, 0, &ops, NULL, 0),
	    EINVAL, "member init: fanout not a power of two");
	T_FAILS(ft_member_init(&m, 8, 1, 2, RETRY, 99, &ops, NULL, 0),
	    EINVAL, "member init: unknown join kind");
	T_OK(ft_member_init(&m, 8, 3, 2, RETRY, 0, &ops, NULL, 0) == 0 &&
	    m.nlive == 8 && m.epoch == 0 && m.root == 0 &&
	    ft_member_target(&m) == 0, "member init: the view of all, "
	    "epoch 0, root 0, with no message");
	ft_member_release(&m);
	T_EQ_STR(ft_mb_kind_name(FT_MB_ROOT_DEAD), "ROOT_DEAD",
	    "kind names");
	T_EQ_STR(ft_mb_kind_name(0), "unknown", "kind name of 0");
}

int
main(void)
{
	test_basics();
	test_scenarios();
	test_exclusion();
	test_rival_epochs();
	test_forged_epochs();
	test_partition();
	test_joins();
	test_random();
	return t_done();
}
