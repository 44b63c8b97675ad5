/* SPDX-License-Identifier: ISC */
/*
 * Failure detection (ARCHITECTURE.md section 3, layer detect): the gossip
 * schedules of P2P-MPI's detector and the simulation of how failures can
 * cut its gossip paths.  Members are numbered 0 .. n-1; a round is one
 * gossip period, counted from 1.
 *
 * Schedules (s is the sender, L = ceil(log2 n)):
 *	random	a destination drawn uniformly from the others each round
 *	rr	round r: (s + r) mod n, r = 1 .. n-1, cycle n-1
 *	brr	round r: (s + 2^(r-1)) mod n, r = 1 .. L, cycle L
 *	dbrr	rounds 1 .. L as brr, rounds L+1 .. 2L counter-clockwise,
 *		(s - 2^(r-L-1)) mod n, cycle 2L
 */
#ifndef FT_DETECT_H
#define FT_DETECT_H

#include "../base/base.h"
#include "../wire/wire.h"

enum ft_gossip_proto {
	FT_GOSSIP_RANDOM = 0,
	FT_GOSSIP_RR,
	FT_GOSSIP_BRR,
	FT_GOSSIP_DBRR,
};

#define FT_GOSSIP_NMAX		65536u	/* members at most */
#define FT_GOSSIP_SAFETY	3	/* Tcleanup, over min rounds, halved */

/* Parse "random", "rr", "brr" or "dbrr"; -1 with EINVAL otherwise. */
int	 ft_gossip_proto_parse(const char *, enum ft_gossip_proto *);
const char *ft_gossip_proto_name(enum ft_gossip_proto);

/* ceil(log2 n), 0 for n <= 1. */
uint32_t ft_gossip_log2(uint32_t n);

/* Rounds in one cycle of the schedule: 0 when n < 2; 1 for random. */
uint32_t ft_gossip_cycle(enum ft_gossip_proto, uint32_t n);

/*
 * The destination of member s in round r (r >= 1) of a deterministic
 * schedule; for random, *rng (xorshift state, never 0) draws it.  n >= 2.
 */
uint32_t ft_gossip_dest(enum ft_gossip_proto, uint32_t n, uint32_t s,
	    uint64_t r, uint64_t *rng);

/*
 * The minimum dissemination time in rounds, Tcleanup_min / Tgossip: BRR
 * L, DBRR 2L, RR ceil((sqrt(1 + 8n) - 1) / 2); random has no bound, and
 * gets ceil(log2 n) + ceil(ln n), the rounds push gossip needs to reach
 * everyone with high probability.  The default cleanup is
 * FT_GOSSIP_SAFETY / 2 times that, rounded up, and at least 3 rounds:
 * 3L for DBRR, as in the P2P-MPI paper.
 */
uint32_t ft_gossip_min_rounds(enum ft_gossip_proto, uint32_t n);
uint32_t ft_gossip_cleanup_rounds(enum ft_gossip_proto, uint32_t n);

/* xorshift64*; *state must not be 0. */
uint64_t ft_gossip_rand(uint64_t *state);

/*
 * Detector failure.  With each member failed independently, the detector
 * fails when two live members remain, one of which can never hear of the
 * other: in the directed graph whose vertices are the live members and
 * whose edges are the gossip messages of one cycle between live members,
 * some live member cannot reach another (the graph is not strongly
 * connected).  Heartbeats only travel along those edges, one hop per
 * round, and the schedule repeats every cycle, so a pair that no path
 * joins stays apart for good.  A job with fewer than two live members
 * does not count as a failure.
 *
 * For random, whose destinations change every round, paths are never cut
 * for good; its figure is the chance that the destinations of one window
 * of ceil(log2 n) rounds, with the failures, leave some pair unjoined.
 */

/* The results of a simulation. */
struct ft_gossip_simres {
	uint64_t	 trials;
	uint64_t	 failures;
	/* exact runs: per number f of failed members, the failing sets */
	uint64_t	*fail_by_f;	/* n + 1 counters, or NULL */
	uint64_t	*sets_by_f;	/* n + 1 counters, or NULL */
};

/*
 * Monte Carlo: trials (rounded up to a multiple of 64) independent
 * failure sets, each member failed with probability p, drawn from *rng.
 * Returns 0, or -1 with errno (EINVAL, ENOMEM).
 */
int	 ft_gossip_sim_mc(enum ft_gossip_proto, uint32_t n, double p,
	    uint64_t trials, uint64_t *rng, struct ft_gossip_simres *);

/*
 * Exact: every one of the 2^n failure sets (n <= FT_GOSSIP_EXACT_MAX),
 * counted by size into res->fail_by_f and res->sets_by_f, which the
 * caller provides (n + 1 zeroed counters each).  The probability for a
 * given p is then ft_gossip_exact_prob.  Deterministic schedules only.
 * Sets first .. last - 1 of the 2^n (so two threads can share the work).
 */
#define FT_GOSSIP_EXACT_MAX	30
int	 ft_gossip_sim_exact(enum ft_gossip_proto, uint32_t n, uint64_t first,
	    uint64_t last, struct ft_gossip_simres *);
double	 ft_gossip_exact_prob(const struct ft_gossip_simres *, uint32_t n,
	    double p);

/*
 * The heartbeat table of one module.  Every Tgossip the module ticks its
 * own heartbeat and sends hb[] to the protocol's destination; a table
 * received is merged (the larger counter wins).  A member whose counter
 * has not grown for Tcleanup becomes a suspect, to be pinged directly
 * before it is declared failed (ft_hbtable_fail); a suspect whose counter
 * grows again is cleared.  Times are the caller's, in nanoseconds.
 *
 * A counter is its member's wall clock in microseconds when it last
 * ticked, so no counter runs ahead of the clock: a receiver refuses one
 * more than FT_HB_AHEAD_US ahead of its own, which the clocks of the
 * members must not be apart by.  Counters merge by maximum, so one
 * taken far ahead would stop the member's own from ever growing past
 * it, and have it suspected for good; one within the bound is
 * overtaken once the member's clock passes it.
 */
#define FT_HB_AHEAD_US	(60 * UINT64_C(1000000))

enum ft_hb_state {
	FT_HB_ALIVE = 0,
	FT_HB_SUSPECT,
	FT_HB_FAILED,
};

struct ft_hbtable {
	uint32_t	 n, self;
	uint64_t	*hb;		/* heartbeat counters */
	uint64_t	*grew_at;	/* when each last grew */
	uint8_t		*state;		/* enum ft_hb_state */
};

/* Caller-owned t; 0, or -1 with EINVAL or ENOMEM. */
int	 ft_hbtable_init(struct ft_hbtable *, uint32_t n, uint32_t self,
	    uint64_t now);
void	 ft_hbtable_release(struct ft_hbtable *);
/* Our counter becomes clock_us, or one more if that is not above it. */
void	 ft_hbtable_tick(struct ft_hbtable *, uint64_t now, uint64_t clock_us);
/*
 * Merge a received table of n counters (EPROTO if n differs).  A
 * counter above limit (our clock in microseconds plus FT_HB_AHEAD_US)
 * is refused; one we hold above limit is replaced by any received that
 * is not, without counting as growth.  The suspects it clears are
 * stored in revived (t->n entries, or NULL) and counted in *nrevived.
 * Failed members stay failed.  Returns the number of counters refused,
 * or -1.
 */
int	 ft_hbtable_merge(struct ft_hbtable *, const uint64_t *hb, uint32_t n,
	    uint64_t now, uint64_t limit, uint32_t *revived,
	    uint32_t *nrevived);
/* Newly suspected members into suspects (t->n entries); their count. */
uint32_t ft_hbtable_check(struct ft_hbtable *, uint64_t now,
	    uint64_t cleanup_ns, uint32_t *suspects);
/*
 * id is alive after all (it answered a ping, or a view holds it again):
 * watched anew, its silence counted from since (which may lie ahead).
 */
void	 ft_hbtable_alive(struct ft_hbtable *, uint32_t id, uint64_t since);
/* Declare id failed: 1 if it was not already, 0 if it was, -1 EINVAL. */
int	 ft_hbtable_fail(struct ft_hbtable *, uint32_t id);

/*
 * The radix tree over the live members: live is the sorted list of the
 * nlive live ids, fanout a power of two from 2 to 256.  The root is the
 * lowest live id.  ft_rtree_parent sets *parent and returns 0, returns 1
 * for the root, or -1 (ENOENT: id is not live; EINVAL: bad fanout).
 * ft_rtree_children stores id's children in kids (at most
 * (fanout - 1) * ceil(log_fanout nlive) of them), largest subtree first,
 * and returns their number.
 */
/* Is a a power of two from 2 to 256, a fanout the tree accepts? */
int	 ft_rtree_fanout_ok(uint32_t a);
int	 ft_rtree_parent(const uint32_t *live, uint32_t nlive, uint32_t fanout,
	    uint32_t id, uint32_t *parent);
uint32_t ft_rtree_children(const uint32_t *live, uint32_t nlive,
	    uint32_t fanout, uint32_t id, uint32_t *kids);

/*
 * The membership view (the radix-tree protocol).  Every member starts
 * with the view of all n ids, epoch 0, root 0, and needs no message to
 * build the tree.  Afterwards:
 *
 *  - a member that learns of a failure (its own detector, a local death,
 *    a report) sends NODE_FAILURE with every failure it knows of to the
 *    root, the lowest id of its view not known to have failed, and
 *    resends until NODE_FAILURE_ACK comes back; when that root is the
 *    view's root's successor because the root failed, the message is
 *    ROOT_FAILURE.  A member that is itself that lowest id is the root.
 *  - the root makes the next view (its view less every failure it knows
 *    of, plus joiners), numbers it one above every epoch it has heard
 *    of, and sends it down the tree of the new view as FAILED_NODE
 *    (ROOT_DEAD when the root changed).  Each member adopts a view whose
 *    epoch is above its own, passes it to its children, and answers
 *    FAILURE_ACK up once all of them have; leaves answer at once.
 *  - a member that holds an epoch at least as high as a view it is sent
 *    (a view of a root that died half-way) does not adopt it and answers
 *    FAILURE_ACK with that epoch in "seen"; the root then issues the view
 *    again above it.  So epochs never repeat, whoever the root is.
 *  - the view is stable when the root has the acks of all its children
 *    with no higher epoch seen; a failure during stabilization makes the
 *    root issue the next view at once.
 *  - a joiner (a new id, NEW_NODE, or one back from failure, NODE_ALIVE)
 *    asks any member, which passes the request to the root; the root
 *    answers JOIN_DET_ACK and puts the joiner in the next view.
 *  - a member that finds itself left out of a view is excluded: it was
 *    declared failed, and it stops.
 *
 * A state machine like the heartbeat table: the caller supplies time,
 * delivers messages (ft_member_recv) and sends the ones ops->send
 * hands it, by whatever transport, in any order.
 */

const char *ft_mb_kind_name(unsigned int);

enum ft_mb_event_type {
	FT_MEV_FAILED,		/* id failed, detected by "by" */
	FT_MEV_VIEW,		/* a view adopted */
	FT_MEV_STABLE,		/* root: every member has the view */
	FT_MEV_EXCLUDED,	/* this member was left out of a view */
	FT_MEV_JOINED,		/* root: id asked to join */
};

struct ft_mb_event {
	enum ft_mb_event_type type;
	uint32_t	 id, by;
	uint64_t	 epoch;
	uint32_t	 root;
	const uint32_t	*live;		/* VIEW */
	uint32_t	 nlive;
	uint64_t	 ns;		/* STABLE: from issue to the last ack */
};

struct ft_mb_ops {
	void	(*send)(void *arg, uint32_t to, const struct ft_msg_member *);
	void	(*event)(void *arg, const struct ft_mb_event *);
};

struct ft_member {
	uint32_t	 n, self, fanout;
	uint64_t	 retry_ns;	/* resend after this long unanswered */
	struct ft_mb_ops ops;
	void		*arg;
	/* The view this member holds. */
	uint64_t	 epoch;
	uint32_t	 root;
	int		 root_changed;	/* from the view before */
	uint32_t	 nlive;
	uint32_t	*live;		/* sorted */
	uint8_t		*in_view;
	uint64_t	 seen;		/* highest epoch heard of */
	/* What it knows beyond the view. */
	uint8_t		*failed;
	uint32_t	*by;
	uint64_t	*failed_ep;	/* epoch the detector held */
	uint64_t	*join_ep;	/* epoch of the last join, or 0 */
	uint8_t		*joining;	/* root: ids waiting to join */
	/* Reporting failures and joins to the root. */
	int		 report_unacked;
	uint32_t	 report_to;
	uint64_t	 report_at;
	/* The view this member is passing down. */
	int		 waiting;
	uint32_t	 parent;	/* FT_MB_NONE at the root */
	uint32_t	 nkids, nacked;
	uint32_t	*kids;
	uint8_t		*acked;		/* per kid */
	uint64_t	 wait_seen;
	uint64_t	 done_seen;	/* wait_seen when the acks were in */
	int		 rival;		/* a member holds another view of
					 * our epoch */
	uint64_t	 wait_at;	/* when it was sent down (resends) */
	uint64_t	 issued_at;	/* root: first issue since stable */
	int		 stable;
	/* A joiner, until a view holds it. */
	int		 joining_self;
	uint32_t	 join_kind, join_contact;
	uint64_t	 join_at;
	int		 excluded;
	/* Scratch for messages. */
	uint32_t	*sfail, *sby, *slive;
	uint64_t	*sep;
};

/*
 * Set m up for member self of n; fanout a power of two, 2 .. 256;
 * join 0 to start in the view of all n, or FT_MB_NEW_NODE or
 * FT_MB_NODE_ALIVE to start outside it and ask to join.  Returns 0, or
 * -1 with EINVAL or ENOMEM.
 */
int	 ft_member_init(struct ft_member *, uint32_t n, uint32_t self,
	    uint32_t fanout, uint64_t retry_ns, unsigned int join,
	    const struct ft_mb_ops *, void *arg, uint64_t now);
void	 ft_member_release(struct ft_member *);
/* id has failed, as by detected (self for a local detection). */
void	 ft_member_failed(struct ft_member *, uint32_t id, uint32_t by,
	    uint64_t now);
/* A message from member from; one with an epoch or seen above
 * FT_MB_EPOCH_MAX is ignored. */
#define FT_MB_EPOCH_MAX	(UINT64_C(1) << 62)
void	 ft_member_recv(struct ft_member *, uint32_t from,
	    const struct ft_msg_member *, uint64_t now);
/*
 * Anything from member from, which holds epoch (its gossip): a member
 * this one left out of its view is sent that view, to learn it was
 * excluded.
 */
void	 ft_member_heard(struct ft_member *, uint32_t from, uint64_t epoch,
	    uint64_t now);
/* Resends; call at least every retry_ns / 2. */
void	 ft_member_tick(struct ft_member *, uint64_t now);
/* The member failures are reported to: lowest of the view not failed. */
uint32_t ft_member_target(const struct ft_member *);

#endif
