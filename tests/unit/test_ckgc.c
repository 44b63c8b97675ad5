/* SPDX-License-Identifier: ISC */
/*
 * The job's GC on the checkpoint server (ckptsrv2): the decision
 * (ft_ckpt_gc_decide, lib/store/ckgc.c) on listings, and what a stale,
 * reordered, lost or repeated GC may remove, exhaustively over small
 * stores.
 */
#include <errno.h>
#include <string.h>

#include "tap.h"
#include "store/store.h"

#define MAXN	7

/* Entries of epochs ep[0..n) (ascending), bad[i]: refused. */
static size_t
ents(struct ft_ckpt_ent *e, const uint64_t *ep, const int *bad, size_t n)
{
	size_t i;

	memset(e, 0, n * sizeof(*e));
	for (i = 0; i < n; i++) {
		e[i].job = 7;
		e[i].rank = 1;
		e[i].epoch = ep[i];
		e[i].state = bad != NULL && bad[i] ? FT_CKPT_BAD : FT_CKPT_OK;
	}
	return n;
}

/* "1k 2r ...": each entry's fate, for the messages. */
static const char *
fates(const struct ft_ckpt_ent *e, size_t n)
{
	static char buf[128];
	size_t i, o = 0;

	buf[0] = '\0';
	for (i = 0; i < n && o + 24 < sizeof(buf); i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%llu%c",
		    i > 0 ? " " : "", (unsigned long long)e[i].epoch,
		    e[i].state == FT_CKPT_REMOVED ? 'r' : 'k');
	return buf;
}

static void
test_cases(void)
{
	static const uint64_t ep[] = { 1, 2, 3, 4, 5, 6 };
	static const int bad3[] = { 0, 0, 1, 0, 0, 0 };
	struct ft_ckpt_ent e[MAXN];
	size_t n;

	n = ents(e, ep, NULL, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 6, 3), 3u,
	    "gc: 1..6, durable 6, keep 3: 1, 2, 3 go");
	T_EQ_STR(fates(e, n), "1r 2r 3r 4k 5k 6k", "gc: the fates");
	n = ents(e, ep, NULL, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 4, 3), 1u,
	    "gc: durable 4 (older news): only 1 goes, 5 and 6 stay");
	T_EQ_STR(fates(e, n), "1r 2k 3k 4k 5k 6k", "gc: the fates");
	n = ents(e, ep, NULL, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 9, 3), 0u,
	    "gc: an epoch the server lacks decides nothing");
	n = ents(e, ep, bad3, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 3, 1), 0u,
	    "gc: an epoch whose image is refused decides nothing");
	n = ents(e, ep, bad3, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 5, 3), 1u,
	    "gc: a refused image does not count among the kept");
	T_EQ_STR(fates(e, n), "1r 2k 3k 4k 5k 6k",
	    "gc: 2, 4, 5 complete are kept, 3 between them too");
	n = ents(e, ep, NULL, 2);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 2, 3), 0u,
	    "gc: fewer images than keep: none goes");
	n = ents(e, ep, NULL, 6);
	T_EQ_UINT(ft_ckpt_gc_decide(e, n, 6, 0), 5u,
	    "gc: keep 0 counts as 1: the named image stays");
	T_EQ_UINT(ft_ckpt_gc_decide(e, 0, 6, 3), 0u, "gc: an empty store");
}

/* Is the image of epoch x removed in e[0..n)? */
static int
removed(const struct ft_ckpt_ent *e, size_t n, uint64_t x)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (e[i].epoch == x)
			return e[i].state == FT_CKPT_REMOVED;
	return 0;
}

/*
 * Every store of epochs 1..MAXN (present or not, complete or refused),
 * every keep 1..3, every pair of GCs d1 <= d2: the older one removes a
 * subset of what the newer removes when the server holds the image the
 * newer names (late or reordered: harmless); the
 * newer applied after the older removes no more than alone (lost or
 * repeated: the same end); neither removes an image at or above what
 * it names, the newest complete image, nor one of the keep newest
 * complete at or below what it names.
 */
static void
test_stale(void)
{
	struct ft_ckpt_ent a[MAXN], b[MAXN], c[MAXN];
	uint64_t ep[MAXN], d1, d2;
	int bad[MAXN], subset = 1, safe = 1, again = 1, named;
	unsigned int set, badset, keep;
	size_t n, i, m, cases = 0, ok;
	uint64_t newest;

	for (set = 1; set < (1u << MAXN); set++)
	for (badset = 0; badset < (1u << MAXN); badset++) {
		if ((badset & ~set) != 0)
			continue;
		for (n = 0, i = 0; i < MAXN; i++)
			if (set & (1u << i)) {
				bad[n] = (badset & (1u << i)) != 0;
				ep[n++] = i + 1;
			}
		for (newest = 0, i = n; i > 0 && newest == 0; i--)
			if (!bad[i - 1])
				newest = ep[i - 1];
		for (keep = 1; keep <= 3; keep++)
		for (d1 = 1; d1 <= MAXN; d1++)
		for (d2 = d1; d2 <= MAXN; d2++) {
			cases++;
			(void)ents(a, ep, bad, n);
			(void)ents(b, ep, bad, n);
			(void)ft_ckpt_gc_decide(a, n, d1, keep);
			(void)ft_ckpt_gc_decide(b, n, d2, keep);
			for (named = 0, i = 0; i < n; i++)
				named |= ep[i] == d2 && !bad[i];
			for (i = 0; named && i < n; i++)
				if (a[i].state == FT_CKPT_REMOVED &&
				    b[i].state != FT_CKPT_REMOVED)
					subset = 0;
			/* d2 applied to what d1 left. */
			for (m = 0, i = 0; i < n; i++)
				if (a[i].state != FT_CKPT_REMOVED) {
					c[m] = a[i];
					c[m++].state = bad[i] ? FT_CKPT_BAD :
					    FT_CKPT_OK;
				}
			(void)ft_ckpt_gc_decide(c, m, d2, keep);
			for (i = 0; i < m; i++)
				if (c[i].state == FT_CKPT_REMOVED &&
				    !removed(b, n, c[i].epoch))
					again = 0;
			/* What each must keep. */
			for (ok = 0, i = n; i > 0; i--) {
				if (removed(b, n, ep[i - 1]) &&
				    (ep[i - 1] >= d2 || ep[i - 1] == newest ||
				    (!bad[i - 1] && ep[i - 1] <= d2 &&
				    ok < keep)))
					safe = 0;
				if (!bad[i - 1] && ep[i - 1] <= d2)
					ok++;
			}
		}
	}
	T_OK(cases > 100000, "gc: %zu stores and GC pairs tried", cases);
	T_OK(subset, "gc: a stale GC removes a subset of a newer one's");
	T_OK(again, "gc: a GC repeated or after a stale one removes "
	    "nothing a newer one alone would keep");
	T_OK(safe, "gc: never an image at or above the one named, the "
	    "newest complete, nor the keep newest complete below it");
}

/* The GC request on the wire (ft-wire(7) CKPT_REQ, op 7). */
static void
test_wire(void)
{
	struct ft_msg_ckpt_req q, r;
	struct ft_wbuf b;

	memset(&q, 0, sizeof(q));
	q.reqid = 9;
	q.op = FT_CKPT_GC;
	q.job = 0x1234;
	q.rank = 3;
	q.epoch = 12;
	q.keep = 3;
	ft_wbuf_init(&b);
	T_OK(ft_msg_ckpt_req_encode(&b, 1, &q) == 0 &&
	    ft_msg_ckpt_req_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &r) == 0 && r.op == FT_CKPT_GC &&
	    r.epoch == 12 && r.keep == 3 && r.rank == 3 && r.job == 0x1234,
	    "gc on the wire: a round trip");
	/* Epoch 0 in a frame the encoder would refuse: patch it. */
	memset(b.p + FT_WIRE_HDRLEN + 20, 0, 8);
	T_OK(ft_msg_ckpt_req_decode(b.p + FT_WIRE_HDRLEN,
	    b.len - FT_WIRE_HDRLEN, &r) == -1 && errno == EPROTO,
	    "gc on the wire: epoch 0 is refused");
	q.epoch = 0;
	T_FAILS(ft_msg_ckpt_req_encode(&b, 1, &q), EINVAL,
	    "gc: the encoder refuses epoch 0");
	q.epoch = 12;
	q.keep = 0;
	T_FAILS(ft_msg_ckpt_req_encode(&b, 1, &q), EINVAL,
	    "gc: the encoder refuses keep 0");
	q.keep = 3;
	q.flags = FT_CKPT_ALLRANKS;
	T_FAILS(ft_msg_ckpt_req_encode(&b, 1, &q), EINVAL,
	    "gc: the encoder refuses every rank");
	ft_wbuf_release(&b);
}

int
main(void)
{
	test_cases();
	test_wire();
	test_stale();
	return t_done();
}
