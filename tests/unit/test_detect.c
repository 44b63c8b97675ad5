/* SPDX-License-Identifier: ISC */
/*
 * lib/detect: gossip schedules, dissemination bounds, and the detector
 * failure simulation, whose bit-parallel reachability is checked against
 * a plain graph search over every failure set of small groups.
 */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "detect/detect.h"

static void
test_schedules(void)
{
	static const uint32_t brr8[] = { 1, 2, 4, 1, 2, 4 };
	static const uint32_t dbrr8[] = { 1, 2, 4, 7, 6, 4, 1 };
	static const uint32_t rr5[] = { 1, 2, 3, 4, 1 };
	uint32_t r, d, hits[7], ok;
	uint64_t rng = 42;
	enum ft_gossip_proto p;

	ok = 1;
	for (r = 1; r <= 6; r++)
		ok &= ft_gossip_dest(FT_GOSSIP_BRR, 8, 0, r, NULL) ==
		    brr8[r - 1];
	T_OK(ok, "brr, n=8: member 0 sends to 1, 2, 4, then again");
	ok = 1;
	for (r = 1; r <= 7; r++)
		ok &= ft_gossip_dest(FT_GOSSIP_DBRR, 8, 0, r, NULL) ==
		    dbrr8[r - 1];
	T_OK(ok, "dbrr, n=8: 1, 2, 4 clockwise, then 7, 6, 4, then again");
	ok = 1;
	for (r = 1; r <= 5; r++)
		ok &= ft_gossip_dest(FT_GOSSIP_RR, 5, 0, r, NULL) == rr5[r - 1];
	T_OK(ok, "rr, n=5: (s + r) mod n over r = 1..4, then again");
	T_EQ_UINT(ft_gossip_dest(FT_GOSSIP_BRR, 6, 5, 3, NULL), 3,
	    "brr, n=6: member 5 in round 3 sends to (5 + 4) mod 6");
	T_EQ_UINT(ft_gossip_dest(FT_GOSSIP_DBRR, 6, 1, 5, NULL), 5,
	    "dbrr, n=6: member 1 in round 5 sends to (1 - 2) mod 6");

	memset(hits, 0, sizeof(hits));
	ok = 1;
	for (r = 1; r <= 7000; r++) {
		d = ft_gossip_dest(FT_GOSSIP_RANDOM, 7, 3, r, &rng);
		if (d >= 7 || d == 3)
			ok = 0;
		else
			hits[d]++;
	}
	for (d = 0; d < 7; d++)
		if (d != 3 && (hits[d] < 900 || hits[d] > 1450))
			ok = 0;
	T_OK(ok, "random: never itself, every other member about 1/6th "
	    "of the time");

	T_EQ_UINT(ft_gossip_log2(1), 0, "log2: 1 -> 0");
	T_EQ_UINT(ft_gossip_log2(2), 1, "log2: 2 -> 1");
	T_EQ_UINT(ft_gossip_log2(5), 3, "log2: 5 -> 3");
	T_EQ_UINT(ft_gossip_log2(256), 8, "log2: 256 -> 8");
	T_EQ_UINT(ft_gossip_cycle(FT_GOSSIP_DBRR, 100), 14, "dbrr cycle, "
	    "n=100: 2 ceil(log2 n)");
	T_EQ_UINT(ft_gossip_cycle(FT_GOSSIP_RR, 1), 0, "no cycle for one "
	    "member");
	T_EQ_UINT(ft_gossip_min_rounds(FT_GOSSIP_BRR, 64), 6,
	    "brr, n=64: Tcleanup_min is 6 periods");
	T_EQ_UINT(ft_gossip_min_rounds(FT_GOSSIP_DBRR, 64), 12,
	    "dbrr, n=64: Tcleanup_min is 12 periods");
	T_EQ_UINT(ft_gossip_min_rounds(FT_GOSSIP_RR, 64), 11,
	    "rr, n=64: ceil((sqrt(513) - 1) / 2) = 11 periods");
	T_EQ_UINT(ft_gossip_min_rounds(FT_GOSSIP_RR, 66), 11,
	    "rr, n=66: 11 periods (11 * 12 / 2 = 66)");
	T_EQ_UINT(ft_gossip_min_rounds(FT_GOSSIP_RANDOM, 64), 6 + 5,
	    "random, n=64: ceil(log2 n) + ceil(ln n)");
	T_EQ_UINT(ft_gossip_cleanup_rounds(FT_GOSSIP_DBRR, 64), 18,
	    "dbrr, n=64: the default Tcleanup is 3 ceil(log2 n), as in "
	    "the paper");
	T_EQ_UINT(ft_gossip_cleanup_rounds(FT_GOSSIP_BRR, 2), 3,
	    "never fewer than 3 periods");

	T_OK(ft_gossip_proto_parse("dbrr", &p) == 0 && p == FT_GOSSIP_DBRR,
	    "parse: dbrr");
	T_OK(ft_gossip_proto_parse("BRR", &p) == -1 && errno == EINVAL,
	    "parse: names are lowercase");
	T_OK(strcmp(ft_gossip_proto_name(FT_GOSSIP_RR), "rr") == 0,
	    "name: rr");
}

/*
 * The reference: is the live gossip graph of failure set fset (bit i:
 * member i failed) not strongly connected?  Edges come straight from
 * ft_gossip_dest over one cycle; a plain search from the lowest live
 * member, along the edges and against them.
 */
static int
ref_fails(enum ft_gossip_proto p, uint32_t n, uint32_t fset)
{
	uint32_t cyc = ft_gossip_cycle(p, n), adj[32][32], s, d, r, root = n;
	uint32_t live = 0, reached, stack[32], sp;
	uint8_t mark[32];
	int dir;

	memset(adj, 0, sizeof(adj));
	for (s = 0; s < n; s++) {
		if (fset >> s & 1)
			continue;
		live++;
		if (root == n)
			root = s;
		for (r = 1; r <= cyc; r++) {
			d = ft_gossip_dest(p, n, s, r, NULL);
			if (!(fset >> d & 1))
				adj[s][d] = 1;
		}
	}
	if (live < 2)
		return 0;
	for (dir = 0; dir < 2; dir++) {
		memset(mark, 0, sizeof(mark));
		mark[root] = 1;
		stack[0] = root;
		sp = 1;
		reached = 1;
		while (sp > 0) {
			s = stack[--sp];
			for (d = 0; d < n; d++)
				if (!mark[d] && (dir == 0 ? adj[s][d] :
				    adj[d][s])) {
					mark[d] = 1;
					stack[sp++] = d;
					reached++;
				}
		}
		if (reached < live)
			return 1;
	}
	return 0;
}

static void
test_exact_vs_reference(void)
{
	static const enum ft_gossip_proto protos[] = {
		FT_GOSSIP_BRR, FT_GOSSIP_DBRR, FT_GOSSIP_RR,
	};
	uint64_t fail[32], sets[32], want[32];
	struct ft_gossip_simres res;
	uint32_t n, f, k;
	size_t i;
	int ok;

	for (i = 0; i < sizeof(protos) / sizeof(protos[0]); i++) {
		ok = 1;
		for (n = 1; n <= 13; n++) {
			memset(fail, 0, sizeof(fail));
			memset(sets, 0, sizeof(sets));
			memset(want, 0, sizeof(want));
			memset(&res, 0, sizeof(res));
			res.fail_by_f = fail;
			res.sets_by_f = sets;
			if (ft_gossip_sim_exact(protos[i], n, 0, 1ull << n,
			    &res) != 0) {
				ok = 0;
				break;
			}
			for (k = 0; k < 1u << n; k++)
				if (ref_fails(protos[i], n, k))
					want[__builtin_popcount(k)]++;
			for (f = 0; f <= n; f++)
				if (fail[f] != want[f]) {
					t_diag("%s n=%u f=%u: %llu failing "
					    "sets, the reference says %llu",
					    ft_gossip_proto_name(protos[i]),
					    n, f, (unsigned long long)fail[f],
					    (unsigned long long)want[f]);
					ok = 0;
				}
			if (res.trials != 1ull << n)
				ok = 0;
		}
		T_OK(ok, "%s: the bit-parallel count of failing sets matches "
		    "a plain search, for every failure set, n = 1..13",
		    ft_gossip_proto_name(protos[i]));
	}

	/* Split in two ranges, as two threads would: the same counts. */
	memset(fail, 0, sizeof(fail));
	memset(sets, 0, sizeof(sets));
	memset(&res, 0, sizeof(res));
	res.fail_by_f = fail;
	res.sets_by_f = sets;
	ok = ft_gossip_sim_exact(FT_GOSSIP_BRR, 12, 0, 1000, &res) == 0 &&
	    ft_gossip_sim_exact(FT_GOSSIP_BRR, 12, 1000, 4096, &res) == 0;
	memset(want, 0, sizeof(want));
	for (k = 0; k < 4096; k++)
		if (ref_fails(FT_GOSSIP_BRR, 12, k))
			want[__builtin_popcount(k)]++;
	for (f = 0; f <= 12; f++)
		ok &= fail[f] == want[f];
	T_OK(ok && res.trials == 4096, "exact: a range split at an odd "
	    "place counts the same");

	/* Every subset of size f is counted: sets_by_f is C(n, f). */
	T_OK(sets[0] == 1 && sets[1] == 12 && sets[6] == 924 &&
	    sets[12] == 1, "exact: sets by size are binomial coefficients");

	memset(&res, 0, sizeof(res));
	res.fail_by_f = fail;
	res.sets_by_f = sets;
	T_OK(ft_gossip_sim_exact(FT_GOSSIP_RANDOM, 8, 0, 256, &res) == -1 &&
	    errno == EINVAL, "exact: refuses random");
	T_OK(ft_gossip_sim_exact(FT_GOSSIP_BRR, 31, 0, 1, &res) == -1 &&
	    errno == EINVAL, "exact: refuses n above FT_GOSSIP_EXACT_MAX");
	T_OK(ft_gossip_sim_exact(FT_GOSSIP_BRR, 4, 0, 17, &res) == -1 &&
	    errno == EINVAL, "exact: refuses a range past 2^n");
}

static void
test_monte_carlo(void)
{
	uint64_t fail[32], sets[32], rng = 12345;
	struct ft_gossip_simres ex, mc;
	double pe, pm, se;

	/* BRR, n=16, p=0.2: Monte Carlo agrees with the exact figure. */
	memset(fail, 0, sizeof(fail));
	memset(sets, 0, sizeof(sets));
	memset(&ex, 0, sizeof(ex));
	ex.fail_by_f = fail;
	ex.sets_by_f = sets;
	if (ft_gossip_sim_exact(FT_GOSSIP_BRR, 16, 0, 1ull << 16, &ex) != 0)
		abort();
	pe = ft_gossip_exact_prob(&ex, 16, 0.2);
	memset(&mc, 0, sizeof(mc));
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_BRR, 16, 0.2, 1 << 20, &rng, &mc) ==
	    0 && mc.trials == 1 << 20, "mc: 2^20 trials run");
	pm = (double)mc.failures / (double)mc.trials;
	se = 0;
	if (pe > 0 && pe < 1) {
		/* sqrt without libm: one Newton step from a close guess. */
		double v = pe * (1 - pe) / (double)mc.trials, x = v * 1e4;

		for (int i = 0; i < 60; i++)
			x = (x + v / x) / 2;
		se = x;
	}
	if (!T_OK(pe > 0.01 && pm > pe - 5 * se && pm < pe + 5 * se,
	    "mc: brr n=16 p=0.2 within 5 standard errors of the exact "
	    "probability"))
		t_diag("exact %g, Monte Carlo %g, se %g", pe, pm, se);

	T_OK(ft_gossip_exact_prob(&ex, 16, 0) == 0, "exact: p=0 never fails");
	T_OK(ft_gossip_exact_prob(&ex, 16, 1) == 0, "exact: p=1 leaves "
	    "nobody to fail");

	memset(&mc, 0, sizeof(mc));
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_DBRR, 64, 0, 640, &rng, &mc) == 0 &&
	    mc.failures == 0, "mc: no failure when nobody fails");
	memset(&mc, 0, sizeof(mc));
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_RR, 64, 0.5, 640, &rng, &mc) == 0 &&
	    mc.failures == 0, "mc: rr, where everyone talks to everyone, "
	    "never fails");
	memset(&mc, 0, sizeof(mc));
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_RANDOM, 32, 0.2, 2000, &rng, &mc) ==
	    0 && mc.trials == 2000 && mc.failures > 0 &&
	    mc.failures < 2000, "mc: random runs trial by trial");
	rng = 0;
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_BRR, 8, 0.1, 64, &rng, &mc) == -1 &&
	    errno == EINVAL, "mc: a zero generator state is refused");
	rng = 1;
	T_OK(ft_gossip_sim_mc(FT_GOSSIP_BRR, 8, 1.5, 64, &rng, &mc) == -1 &&
	    errno == EINVAL, "mc: a probability above 1 is refused");
}

static void
test_hbtable(void)
{
	const uint64_t ms = 1000000, cleanup = 300 * ms, lim = UINT64_MAX;
	struct ft_hbtable a, b;
	uint32_t sus[4], rev[4], nrev = 9, k;
	uint64_t wrong[3] = { 1, 2, 3 };

	T_OK(ft_hbtable_init(&a, 4, 0, 0) == 0 &&
	    ft_hbtable_init(&b, 4, 1, 0) == 0, "hbtable: two modules of 4");
	ft_hbtable_release(&a);
	T_OK(ft_hbtable_init(&a, 4, 4, 0) == -1 && errno == EINVAL,
	    "hbtable: self must be a member");
	T_OK(ft_hbtable_init(&a, 4, 0, 0) == 0, "hbtable: again");
	ft_hbtable_tick(&a, 100 * ms, 0);
	ft_hbtable_tick(&a, 200 * ms, 0);
	ft_hbtable_tick(&b, 100 * ms, 0);
	T_OK(ft_hbtable_merge(&b, a.hb, 4, 200 * ms, lim, rev, &nrev) == 0 &&
	    b.hb[0] == 2 && b.hb[1] == 1 && nrev == 0,
	    "hbtable: merge keeps the larger counter, never lowers its own");
	T_OK(ft_hbtable_merge(&b, wrong, 3, 200 * ms, lim, NULL, NULL) == -1 &&
	    errno == EPROTO, "hbtable: a table of another size is refused");
	T_EQ_UINT(ft_hbtable_check(&b, 299 * ms, cleanup, sus), 0,
	    "hbtable: nobody is suspected before Tcleanup");
	k = ft_hbtable_check(&b, 300 * ms, cleanup, sus);
	T_OK(k == 2 && sus[0] == 2 && sus[1] == 3 &&
	    b.state[2] == FT_HB_SUSPECT, "hbtable: the silent members 2 "
	    "and 3 are suspected after Tcleanup, not 0 (heard at 200 ms) "
	    "nor itself");
	T_EQ_UINT(ft_hbtable_check(&b, 400 * ms, cleanup, sus), 0,
	    "hbtable: a suspect is reported once");
	a.hb[2] = 5;
	T_OK(ft_hbtable_merge(&b, a.hb, 4, 450 * ms, lim, rev, &nrev) == 0 &&
	    nrev == 1 && rev[0] == 2 && b.state[2] == FT_HB_ALIVE,
	    "hbtable: a suspect whose heartbeat grows is cleared");
	T_OK(ft_hbtable_fail(&b, 3) == 1 && ft_hbtable_fail(&b, 3) == 0 &&
	    b.state[3] == FT_HB_FAILED, "hbtable: fail is reported once");
	a.hb[3] = 7;
	T_OK(ft_hbtable_merge(&b, a.hb, 4, 500 * ms, lim, rev, &nrev) == 0 &&
	    nrev == 0 && b.state[3] == FT_HB_FAILED,
	    "hbtable: a failed member stays failed");
	T_OK(ft_hbtable_fail(&b, 1) == -1 && errno == EINVAL,
	    "hbtable: a module does not fail itself");
	ft_hbtable_release(&a);
	ft_hbtable_release(&b);
}

/*
 * Defect 6: one GOSSIP frame that set member 1's counter to 2^64-1
 * spread to every member, and since counters merge by maximum, member
 * 1's own could never grow past it: it was suspected and pinged every
 * Tcleanup, for good.  Counters are clocks in microseconds, so one far
 * ahead of the receiver's clock is refused, and one within the bound is
 * overtaken once the member's clock passes it.
 */
static void
test_hbtable_bound(void)
{
	const uint64_t ms = 1000000, s = 1000 * ms, cleanup = 300 * ms;
	const uint64_t clock = UINT64_C(1800000000000000);	/* us */
	struct ft_hbtable a, b;
	uint32_t sus[4], rev[4], nrev, k, i;
	uint64_t forged[4], t;
	int ok;

	T_OK(ft_hbtable_init(&a, 4, 1, 0) == 0 &&
	    ft_hbtable_init(&b, 4, 0, 0) == 0, "bound: two modules of 4");
	ft_hbtable_tick(&a, 0, clock);
	ft_hbtable_tick(&a, 0, clock);
	ft_hbtable_tick(&a, 0, clock - 5);
	T_EQ_UINT(a.hb[1], clock + 2, "bound: a tick takes the clock, or "
	    "one more when the clock stood still or went back");
	T_OK(ft_hbtable_merge(&b, a.hb, 4, 0, clock + FT_HB_AHEAD_US, NULL,
	    NULL) == 0 && b.hb[1] == clock + 2,
	    "bound: a counter at the clock is taken");

	/* The forged frame: member 1 at 2^64-1, member 2 at the clock. */
	memset(forged, 0, sizeof(forged));
	forged[1] = UINT64_MAX;
	forged[2] = clock;
	T_EQ_INT(ft_hbtable_merge(&b, forged, 4, 10 * ms,
	    clock + FT_HB_AHEAD_US, NULL, NULL), 1,
	    "bound: a counter of 2^64-1 is refused, and counted");
	T_OK(b.hb[1] == clock + 2 && b.hb[2] == clock,
	    "bound: the refused counter is not taken, the others are");
	forged[1] = clock + FT_HB_AHEAD_US + 1;
	T_EQ_INT(ft_hbtable_merge(&b, forged, 4, 10 * ms,
	    clock + FT_HB_AHEAD_US, NULL, NULL), 1,
	    "bound: so is one a microsecond past the bound");

	/* Member 1 goes on ticking, one period of 50 ms after another:
	 * never suspected, as its counter grows past the forged one. */
	ok = 1;
	for (t = 50 * ms; t <= 2 * s; t += 50 * ms) {
		ft_hbtable_tick(&a, t, clock + t / 1000);
		forged[1] = UINT64_MAX;
		(void)ft_hbtable_merge(&b, forged, 4, t,
		    clock + t / 1000 + FT_HB_AHEAD_US, NULL, NULL);
		if (ft_hbtable_merge(&b, a.hb, 4, t,
		    clock + t / 1000 + FT_HB_AHEAD_US, NULL, NULL) != 0)
			ok = 0;
		k = ft_hbtable_check(&b, t, cleanup, sus);
		for (i = 0; i < k; i++)
			if (sus[i] == 1)
				ok = 0;
	}
	T_OK(ok && b.hb[1] == a.hb[1] && b.state[1] == FT_HB_ALIVE,
	    "bound: with a forged 2^64-1 in every other table, member 1 "
	    "is never suspected while it ticks");

	/* A forged counter within the bound is taken; member 1 is
	 * suspected while its clock is behind it, then revived by its own
	 * counter once its clock passes it. */
	forged[1] = clock + 2 * s / 1000 + 30 * s / 1000;
	(void)ft_hbtable_merge(&b, forged, 4, 2 * s, clock + 2 * s / 1000 +
	    FT_HB_AHEAD_US, NULL, NULL);
	T_EQ_UINT(b.hb[1], forged[1], "bound: a counter 30 s ahead, within "
	    "the bound, is taken");
	ft_hbtable_tick(&a, 3 * s, clock + 3 * s / 1000);
	(void)ft_hbtable_merge(&b, a.hb, 4, 3 * s, clock + 3 * s / 1000 +
	    FT_HB_AHEAD_US, NULL, NULL);
	k = ft_hbtable_check(&b, 3 * s, cleanup, sus);
	T_OK(k >= 1 && sus[0] == 1 && b.hb[1] == forged[1],
	    "bound: while member 1's clock is behind it, member 1's counter "
	    "does not grow: suspected");
	ft_hbtable_tick(&a, 33 * s, clock + 33 * s / 1000);
	T_OK(ft_hbtable_merge(&b, a.hb, 4, 33 * s, clock + 33 * s / 1000 +
	    FT_HB_AHEAD_US, rev, &nrev) == 0 && nrev == 1 && rev[0] == 1 &&
	    b.hb[1] == a.hb[1] && b.state[1] == FT_HB_ALIVE,
	    "bound: once its clock passes the forged counter, member 1's "
	    "own grows again, and it is cleared");

	/* A counter already held far ahead (taken before the bound, or
	 * when this clock was later) gives way to the next possible one,
	 * which is no news of the member; then its counter grows again. */
	b.hb[1] = UINT64_MAX;
	b.grew_at[1] = 33 * s;
	t = 33 * s + 100 * ms;
	ft_hbtable_tick(&a, t, clock + t / 1000);
	T_OK(ft_hbtable_merge(&b, a.hb, 4, t, clock + t / 1000 +
	    FT_HB_AHEAD_US, NULL, NULL) == 0 && b.hb[1] == a.hb[1] &&
	    b.grew_at[1] == 33 * s, "bound: a counter held above the bound "
	    "is replaced by one received below it, with no growth counted");
	t += 100 * ms;
	ft_hbtable_tick(&a, t, clock + t / 1000);
	T_OK(ft_hbtable_merge(&b, a.hb, 4, t, clock + t / 1000 +
	    FT_HB_AHEAD_US, NULL, NULL) == 0 && b.hb[1] == a.hb[1] &&
	    b.grew_at[1] == t, "bound: member 1 recovers: its counter "
	    "grows again");
	ft_hbtable_release(&a);
	ft_hbtable_release(&b);
}

static int
has(const uint32_t *v, uint32_t n, uint32_t x)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (v[i] == x)
			return 1;
	return 0;
}

static void
test_rtree(void)
{
	uint32_t live[300], kids[300], nk, par, i, n, a, depth, id, hops;
	uint64_t rng = 7;
	int ok, rc;

	for (i = 0; i < 16; i++)
		live[i] = i;
	nk = ft_rtree_children(live, 8, 2, 0, kids);
	T_OK(nk == 3 && kids[0] == 4 && kids[1] == 2 && kids[2] == 1,
	    "rtree, a=2, 8 members: the root's children are 4, 2, 1");
	T_OK(ft_rtree_parent(live, 8, 2, 7, &par) == 0 && par == 6 &&
	    ft_rtree_parent(live, 8, 2, 5, &par) == 0 && par == 4 &&
	    ft_rtree_parent(live, 8, 2, 3, &par) == 0 && par == 2,
	    "rtree, a=2: parents of 7, 5, 3 are 6, 4, 2");
	T_EQ_INT(ft_rtree_parent(live, 8, 2, 0, &par), 1,
	    "rtree: the lowest id is the root");
	nk = ft_rtree_children(live, 16, 4, 0, kids);
	T_OK(nk == 6 && kids[0] == 4 && kids[1] == 8 && kids[2] == 12 &&
	    kids[3] == 1 && kids[5] == 3, "rtree, a=4, 16 members: the "
	    "root's children are 4, 8, 12, then 1, 2, 3");
	T_OK(ft_rtree_parent(live, 16, 4, 13, &par) == 0 && par == 12 &&
	    ft_rtree_parent(live, 16, 4, 6, &par) == 0 && par == 4,
	    "rtree, a=4: parents of 13 and 6 are 12 and 4");

	/* After failures: the tree is over positions in the live list. */
	{
		static const uint32_t alive[] = { 2, 3, 5, 8, 9 };

		/* Positions 0..4; 9 is position 4, a child of the root,
		 * and 8, position 3, hangs under 5, position 2. */
		T_OK(ft_rtree_parent(alive, 5, 2, 9, &par) == 0 &&
		    par == 2 && ft_rtree_parent(alive, 5, 2, 8, &par) == 0 &&
		    par == 5 && ft_rtree_parent(alive, 5, 2, 2, &par) == 1,
		    "rtree: with 0, 1, 4, 6, 7 gone, 2 is the root, the "
		    "parent of 9, and 5 the parent of 8");
		T_OK(ft_rtree_parent(alive, 5, 2, 4, &par) == -1 &&
		    errno == ENOENT, "rtree: a dead id has no parent");
		T_OK(ft_rtree_parent(alive, 5, 3, 3, &par) == -1 &&
		    errno == EINVAL, "rtree: fanout 3 is refused");
	}

	/* Random live sets: one tree, every member reached from the root
	 * in at most ceil(log_a n) hops, parent and children agree. */
	ok = 1;
	for (a = 2; a <= 16 && ok; a *= 2) {
		for (int trial = 0; trial < 40 && ok; trial++) {
			n = 0;
			for (id = 0; id < 300; id++)
				if (ft_gossip_rand(&rng) % 3 != 0)
					live[n++] = id;
			for (depth = 0, hops = 1; hops < n; hops *= a)
				depth++;
			for (i = 0; i < n && ok; i++) {
				id = live[i];
				for (hops = 0; (rc = ft_rtree_parent(live, n, a,
				    id, &par)) == 0; hops++) {
					nk = ft_rtree_children(live, n, a,
					    par, kids);
					if (!has(kids, nk, id))
						ok = 0;
					id = par;
				}
				if (rc != 1 || id != live[0] || hops > depth)
					ok = 0;
			}
		}
	}
	T_OK(ok, "rtree: for fanouts 2..16 and random live sets, every "
	    "member's parent lists it, and the root is within "
	    "ceil(log_a n) hops");
}

int
main(void)
{
	test_schedules();
	test_exact_vs_reference();
	test_monte_carlo();
	test_hbtable();
	test_hbtable_bound();
	test_rtree();
	return t_done();
}
