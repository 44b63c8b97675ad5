/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the replication tables (lib/proto/replicate.c): the
 * election of a rank's master from the view, the backup table a replica
 * keeps until its master commits (copies, the committed watermark, the
 * byte and entry counts, divergence by CRC), and the ring of the
 * master's decisions (order, duplicates, gaps, what stays kept).  The
 * ASan build checks that ft_rep_backup_free and ft_nd_log_free release
 * everything.
 */
#include <stdint.h>
#include <stdlib.h>

#include "proto/proto.h"
#include "tap.h"

/* gone[] in a heap buffer of exactly size * nrep bytes, for ASan. */
static uint8_t *
gone_new(uint32_t size, uint32_t nrep)
{
	uint8_t *g;

	if ((g = calloc((size_t)size * nrep, 1)) == NULL)
		abort();
	return g;
}

static void
test_master(void)
{
	uint8_t *g;
	uint32_t r, k, bad;

	/* Three ranks of three replicas, no one gone. */
	g = gone_new(3, 3);
	bad = 0;
	for (r = 0; r < 3; r++)
		if (ft_rep_master(g, r, 3) != 0)
			bad++;
	T_EQ_UINT(bad, 0, "master: replica 0 of every rank when no one is "
	    "gone");

	/* Rank 1 loses replica 0: only rank 1 moves. */
	g[1 * 3 + 0] = 1;
	T_EQ_UINT(ft_rep_master(g, 1, 3), 1, "master: rank 1 without replica "
	    "0 is led by replica 1");
	T_OK(ft_rep_master(g, 0, 3) == 0 && ft_rep_master(g, 2, 3) == 0,
	    "master: ranks 0 and 2 keep replica 0 (gone[rank * R + k])");
	g[1 * 3 + 1] = 1;
	T_EQ_UINT(ft_rep_master(g, 1, 3), 2, "master: then replica 2");
	g[1 * 3 + 2] = 1;
	T_EQ_UINT(ft_rep_master(g, 1, 3), UINT32_MAX,
	    "master: UINT32_MAX when every replica of the rank is gone");
	T_OK(ft_rep_master(g, 0, 3) == 0 && ft_rep_master(g, 2, 3) == 0,
	    "master: and the other ranks are untouched");

	/* The lowest live replica, not the highest or the first gone. */
	g[2 * 3 + 0] = 1;
	g[2 * 3 + 2] = 1;
	T_EQ_UINT(ft_rep_master(g, 2, 3), 1,
	    "master: rank 2 with replicas 0 and 2 gone is led by 1");
	g[0 * 3 + 1] = 1;
	g[0 * 3 + 2] = 1;
	T_EQ_UINT(ft_rep_master(g, 0, 3), 0,
	    "master: replicas above a live replica 0 do not matter");
	g[0 * 3 + 0] = 1;
	T_EQ_UINT(ft_rep_master(g, 0, 3), UINT32_MAX,
	    "master: rank 0 all gone");
	free(g);

	/* One replica a rank: the rank is its own master until gone. */
	g = gone_new(4, 1);
	g[2] = 1;
	bad = 0;
	for (r = 0; r < 4; r++)
		if (ft_rep_master(g, r, 1) != (r == 2 ? UINT32_MAX : 0))
			bad++;
	T_EQ_UINT(bad, 0, "master: R = 1, each rank is replica 0 or gone");
	free(g);

	/* The last replica of the last rank, at the end of gone[]. */
	g = gone_new(5, 4);
	for (k = 0; k < 3; k++)
		g[4 * 4 + k] = 1;
	T_EQ_UINT(ft_rep_master(g, 4, 4), 3,
	    "master: the last process id of the view can lead");
	free(g);
}

/* A message of len bytes with sequence number seq. */
static struct ft_msg
msg(uint64_t seq, const void *buf, size_t len)
{
	struct ft_msg m;

	memset(&m, 0, sizeof(m));
	m.ctx = 0x80000001u;
	m.src = 3;
	m.csrc = 3;	/* the entry keeps the source in the communicator */
	m.dst = 7;
	m.tag = 0x7fffffff;
	m.seq = seq;
	m.buf = buf;
	m.len = len;
	return m;
}

/* Add seq with len bytes from a fixed pattern and this crc: the result. */
static int
add(struct ft_rep_backup *b, uint64_t seq, size_t len, uint32_t crc)
{
	static const uint8_t pat[64] = "0123456789abcdefghijklmnopqrstuvwxyz";
	struct ft_msg m = msg(seq, pat, len);

	if (len > sizeof(pat))
		abort();
	return ft_rep_backup_add(b, &m, 1, crc);
}

/*
 * Check the list against the count and bytes fields, and that its
 * sequence numbers are exactly want[0..n-1] with tail the last.
 */
static int
list_is(const struct ft_rep_backup *b, const uint64_t *want, size_t n)
{
	const struct ft_rep_entry *e, *last = NULL;
	size_t i = 0, bytes = 0;

	for (e = b->head; e != NULL; e = e->next) {
		if (i >= n || e->seq != want[i])
			return 0;
		bytes += e->len;
		last = e;
		i++;
	}
	return i == n && b->tail == last && b->count == n &&
	    b->bytes == bytes;
}

static void
test_backup_add(void)
{
	struct ft_rep_backup b;
	struct ft_msg m;
	char buf[16];
	const struct ft_rep_entry *e;

	memset(&b, 0, sizeof(b));
	snprintf(buf, sizeof(buf), "abcdef");
	m = msg(0x8000000000000000ull, buf, 7);
	T_EQ_INT(ft_rep_backup_add(&b, &m, 2, 0xdeadbeefu), 1,
	    "backup: add keeps an uncommitted message (returns 1)");
	e = b.head;
	T_OK(e != NULL && b.tail == e && e->next == NULL && b.count == 1 &&
	    b.bytes == 7, "backup: one entry of 7 bytes");
	if (e == NULL) {
		ft_rep_backup_free(&b);
		return;
	}
	T_OK(e->seq == 0x8000000000000000ull && e->ctx == 0x80000001u &&
	    e->src == 3 && e->tag == 0x7fffffff && e->mode == 2 &&
	    e->crc == 0xdeadbeefu && e->len == 7,
	    "backup: the entry holds seq, ctx, src, tag, mode, crc and len");
	T_OK(e->data != NULL && (const void *)e->data != (const void *)buf &&
	    memcmp(e->data, "abcdef", 7) == 0,
	    "backup: the entry holds its own copy of the bytes");
	memset(buf, 'X', sizeof(buf));
	T_OK(memcmp(e->data, "abcdef", 7) == 0,
	    "backup: changing the sender's buffer leaves the copy alone");

	/* An empty message is kept too, with no bytes. */
	m = msg(0x8000000000000001ull, NULL, 0);
	T_EQ_INT(ft_rep_backup_add(&b, &m, 0, 0), 1,
	    "backup: an empty message is kept");
	T_OK(b.count == 2 && b.bytes == 7 && b.tail != NULL &&
	    b.tail->len == 0 && b.head->next == b.tail,
	    "backup: appended at the tail, adding no bytes");
	ft_rep_backup_free(&b);
	T_OK(b.head == NULL && b.tail == NULL && b.count == 0 &&
	    b.bytes == 0 && b.committed == 0,
	    "backup: free empties the table");
	ft_rep_backup_free(&b);
	T_OK(b.head == NULL && b.count == 0, "backup: free twice is harmless");
}

static void
test_backup_commit(void)
{
	static const uint64_t s34[] = { 3, 4 }, s345[] = { 3, 4, 5 },
	    s1112[] = { 11, 12 }, none[1];
	struct ft_rep_backup b;
	uint64_t bad, i;
	int kept, rc;

	memset(&b, 0, sizeof(b));
	kept = 0;
	for (i = 0; i < 5; i++)
		kept += add(&b, i, (size_t)i + 1, 0) == 1;
	T_OK(kept == 5 && b.count == 5 && b.bytes == 15,
	    "backup: 0 to 4 kept, 1 + 2 + 3 + 4 + 5 = 15 bytes");
	T_EQ_INT(ft_rep_backup_commit(&b, 2, 0, &bad), 0,
	    "backup: commit 2 (unchecked) returns 0");
	T_OK(list_is(&b, s34, 2) && b.bytes == 9,
	    "backup: commit 2 drops 0, 1 and 2 and keeps 3 and 4 (9 bytes)");
	T_EQ_UINT(b.committed, 3, "backup: messages below 3 are committed");

	/* Below the watermark nothing is kept; at it, the copy is. */
	T_EQ_INT(add(&b, 2, 10, 0), 0, "backup: add of 2 < 3 returns 0");
	T_EQ_INT(add(&b, 0, 10, 0), 0, "backup: add of 0 returns 0");
	T_OK(list_is(&b, s34, 2) && b.bytes == 9,
	    "backup: and keeps nothing");
	T_EQ_INT(add(&b, 5, 6, 0), 1, "backup: add of 5 returns 1");
	T_OK(list_is(&b, s345, 3) && b.bytes == 15,
	    "backup: 5 appended after a commit, the tail moved");

	/* A commit of a seq between entries, and of one already gone. */
	T_EQ_INT(ft_rep_backup_commit(&b, 2, 0, &bad), 0,
	    "backup: commit 2 again returns 0");
	T_OK(list_is(&b, s345, 3) && b.committed == 3,
	    "backup: and changes nothing");
	T_EQ_INT(ft_rep_backup_commit(&b, 10, 0, &bad), 0,
	    "backup: commit 10, past the last entry");
	T_OK(list_is(&b, none, 0) && b.head == NULL && b.tail == NULL &&
	    b.bytes == 0 && b.committed == 11,
	    "backup: drops everything, committed 11");

	/* The watermark only grows. */
	T_EQ_INT(add(&b, 11, 2, 0), 1,
	    "backup: add of 11, at the watermark, returns 1");
	T_EQ_INT(add(&b, 12, 3, 0), 1, "backup: add of 12 returns 1");
	T_EQ_INT(ft_rep_backup_commit(&b, 5, 0, &bad), 0,
	    "backup: a late commit of 5 returns 0");
	T_OK(b.committed == 11 && list_is(&b, s1112, 2) && b.bytes == 5,
	    "backup: committed stays 11, and 11 and 12 stay kept");
	T_EQ_INT(add(&b, 8, 3, 0), 0,
	    "backup: add of 8 after the late commit still returns 0");
	T_OK(list_is(&b, s1112, 2), "backup: and keeps nothing");
	ft_rep_backup_free(&b);

	/* Near the top of the sequence space. */
	memset(&b, 0, sizeof(b));
	rc = add(&b, UINT64_MAX - 1, 1, 0);
	T_OK(rc == 1 && ft_rep_backup_commit(&b, UINT64_MAX - 1, 0, &bad) ==
	    0 && b.count == 0 && b.committed == UINT64_MAX,
	    "backup: commit 2^64 - 2 makes committed 2^64 - 1");
	T_EQ_INT(add(&b, UINT64_MAX - 1, 1, 0), 0,
	    "backup: and 2^64 - 2 is not kept again");
	T_OK(add(&b, UINT64_MAX, 1, 0) == 1 && b.count == 1,
	    "backup: 2^64 - 1 is kept");
	ft_rep_backup_free(&b);
}

static void
test_backup_crc(void)
{
	struct ft_rep_backup b;
	uint64_t bad;

	memset(&b, 0, sizeof(b));
	add(&b, 7, 4, 0x1234u);
	bad = 0;
	T_EQ_INT(ft_rep_backup_commit(&b, 7, 0x9999u, &bad), 1,
	    "crc: commit with another digest returns 1");
	T_EQ_UINT(bad, 7, "crc: and sets *bad to the seq");
	T_OK(b.count == 0 && b.bytes == 0 && b.committed == 8,
	    "crc: the copy is dropped all the same");
	ft_rep_backup_free(&b);

	memset(&b, 0, sizeof(b));
	add(&b, 7, 4, 0x1234u);
	T_EQ_INT(ft_rep_backup_commit(&b, 7, 0x1234u, &bad), 0,
	    "crc: commit with the same digest returns 0");
	ft_rep_backup_free(&b);

	memset(&b, 0, sizeof(b));
	add(&b, 7, 4, 0);
	T_EQ_INT(ft_rep_backup_commit(&b, 7, 0x9999u, &bad), 0,
	    "crc: a copy without a digest (0) is not checked");
	ft_rep_backup_free(&b);

	memset(&b, 0, sizeof(b));
	add(&b, 7, 4, 0x1234u);
	T_EQ_INT(ft_rep_backup_commit(&b, 7, 0, &bad), 0,
	    "crc: a commit without a digest (0) is not checked");
	ft_rep_backup_free(&b);

	/* Only message seq is compared: the digest is that message's. */
	memset(&b, 0, sizeof(b));
	add(&b, 3, 1, 0xaaaau);
	add(&b, 4, 1, 0xbbbbu);
	add(&b, 5, 1, 0xccccu);
	T_EQ_INT(ft_rep_backup_commit(&b, 5, 0xccccu, &bad), 0,
	    "crc: commit 5 compares only 5's digest, not 3's or 4's");
	T_OK(b.count == 0 && b.committed == 6, "crc: and drops 3, 4 and 5");
	ft_rep_backup_free(&b);

	memset(&b, 0, sizeof(b));
	add(&b, 3, 1, 0xaaaau);
	add(&b, 4, 1, 0xbbbbu);
	add(&b, 5, 1, 0xccccu);
	bad = 0;
	T_OK(ft_rep_backup_commit(&b, 4, 0xdddd, &bad) == 1 && bad == 4 &&
	    b.count == 1 && b.head != NULL && b.head->seq == 5,
	    "crc: a divergent 4 of 3, 4, 5: returns 1, *bad 4, 5 kept");
	T_OK(ft_rep_backup_commit(&b, 4, 0xdddd, &bad) == 0 && b.count == 1,
	    "crc: the same commit again finds no copy: 0");
	ft_rep_backup_free(&b);

	/* A commit for a seq with no copy (a gap) checks nothing. */
	memset(&b, 0, sizeof(b));
	add(&b, 3, 1, 0xaaaau);
	add(&b, 5, 1, 0xccccu);
	T_OK(ft_rep_backup_commit(&b, 4, 0xdddd, &bad) == 0 && b.count == 1 &&
	    b.head->seq == 5, "crc: commit 4 over 3 and 5: 0, 5 kept");
	ft_rep_backup_free(&b);
}

/* Many entries of many sizes, freed: the ASan build checks the leaks. */
static void
test_backup_free(void)
{
	struct ft_rep_backup b;
	uint8_t *big;
	uint64_t i, bad;
	size_t bytes = 0;
	int kept = 0;

	if ((big = malloc(1 << 16)) == NULL)
		abort();
	memset(big, 'b', 1 << 16);
	memset(&b, 0, sizeof(b));
	for (i = 0; i < 1000; i++) {
		struct ft_msg m = msg(i, big, (size_t)(i * 61) % (1 << 16));

		kept += ft_rep_backup_add(&b, &m, 0, (uint32_t)i) == 1;
		bytes += m.len;
	}
	free(big);
	T_OK(kept == 1000 && b.count == 1000 && b.bytes == bytes,
	    "free: 1000 copies, %zu bytes", bytes);
	T_EQ_INT(ft_rep_backup_commit(&b, 499, 499, &bad), 0,
	    "free: commit half of them, digests equal");
	T_OK(b.count == 500 && b.head != NULL && b.head->seq == 500,
	    "free: 500 left, from 500");
	ft_rep_backup_free(&b);
	T_OK(b.head == NULL && b.tail == NULL && b.count == 0 &&
	    b.bytes == 0, "free: the table is empty");
	T_OK(add(&b, 0, 3, 0) == 1 && b.count == 1 && b.head == b.tail,
	    "free: the table can be used again");
	ft_rep_backup_free(&b);
}

static struct ft_decision
dec(uint64_t index)
{
	struct ft_decision d;

	d.index = index;
	d.kind = (uint32_t)index ^ 0x80000000u;
	d.site = ~index;
	d.a = index * 3;
	d.b = UINT64_MAX - index;
	d.c = index << 32;
	return d;
}

static int
dec_is(const struct ft_decision *d, uint64_t index)
{
	struct ft_decision w = dec(index);

	return d != NULL && d->index == w.index && d->kind == w.kind &&
	    d->site == w.site && d->a == w.a && d->b == w.b && d->c == w.c;
}

static void
test_ndlog(void)
{
	struct ft_nd_log l;
	struct ft_decision d;
	uint64_t i;
	int bad, rc;

	T_EQ_INT(ft_nd_log_init(&l, 4), 0, "ndlog: init with room for 4");
	T_OK(l.count == 0 && ft_nd_log_get(&l, 0) == NULL,
	    "ndlog: empty, index 0 unknown");
	bad = 0;
	for (i = 0; i < 4; i++) {
		d = dec(i);
		if (ft_nd_log_add(&l, &d) != 0)
			bad++;
		/* The log holds a copy, not the caller's struct. */
		memset(&d, 0xee, sizeof(d));
	}
	T_OK(bad == 0 && l.count == 4, "ndlog: 0 to 3 added in order");
	bad = 0;
	for (i = 0; i < 4; i++)
		if (!dec_is(ft_nd_log_get(&l, i), i))
			bad++;
	T_EQ_INT(bad, 0, "ndlog: get returns each with every field");
	T_OK(ft_nd_log_get(&l, 4) == NULL && ft_nd_log_get(&l, 5) == NULL &&
	    ft_nd_log_get(&l, UINT64_MAX) == NULL,
	    "ndlog: get of count, count + 1 and 2^64 - 1 is NULL");

	/* Again an index already held: a duplicate, ignored. */
	d = dec(2);
	d.a = 12345;
	T_EQ_INT(ft_nd_log_add(&l, &d), 1, "ndlog: index 2 again returns 1");
	T_OK(l.count == 4 && dec_is(ft_nd_log_get(&l, 2), 2),
	    "ndlog: and leaves the first decision 2 in place");
	d = dec(0);
	T_EQ_INT(ft_nd_log_add(&l, &d), 1, "ndlog: index 0 again returns 1");

	/* A gap. */
	d = dec(5);
	T_FAILS(ft_nd_log_add(&l, &d), EPROTO,
	    "ndlog: index 5 after 3 is a gap: EPROTO");
	d = dec(UINT64_MAX);
	T_FAILS(ft_nd_log_add(&l, &d), EPROTO,
	    "ndlog: index 2^64 - 1 after 3 is a gap");
	T_OK(l.count == 4 && ft_nd_log_get(&l, 5) == NULL,
	    "ndlog: a gap adds nothing");

	/* Past the ring: the oldest fall out. */
	d = dec(4);
	rc = ft_nd_log_add(&l, &d);
	d = dec(5);
	rc |= ft_nd_log_add(&l, &d);
	T_OK(rc == 0 && l.count == 6, "ndlog: 4 and 5 added, count 6");
	T_OK(ft_nd_log_get(&l, 0) == NULL && ft_nd_log_get(&l, 1) == NULL,
	    "ndlog: 0 and 1 no longer kept (count - index > cap)");
	bad = 0;
	for (i = 2; i < 6; i++)
		if (!dec_is(ft_nd_log_get(&l, i), i))
			bad++;
	T_EQ_INT(bad, 0, "ndlog: 2 to 5 kept, each its own decision");
	d = dec(1);
	T_EQ_INT(ft_nd_log_add(&l, &d), 1,
	    "ndlog: 1, fallen out of the ring, is still a duplicate");
	T_OK(dec_is(ft_nd_log_get(&l, 2), 2),
	    "ndlog: and overwrites nothing");

	/* Many times round the ring. */
	bad = 0;
	for (i = 6; i < 1000; i++) {
		d = dec(i);
		if (ft_nd_log_add(&l, &d) != 0)
			bad++;
	}
	T_OK(bad == 0 && l.count == 1000, "ndlog: up to 999 added");
	bad = 0;
	for (i = 0; i < 996; i++)
		if (ft_nd_log_get(&l, i) != NULL)
			bad++;
	for (i = 996; i < 1000; i++)
		if (!dec_is(ft_nd_log_get(&l, i), i))
			bad++;
	T_EQ_INT(bad, 0, "ndlog: exactly the newest 4 (996 to 999) kept");
	ft_nd_log_free(&l);
	T_OK(l.ring == NULL && l.count == 0 && l.cap == 0,
	    "ndlog: free empties it");

	/* Room for one. */
	T_EQ_INT(ft_nd_log_init(&l, 1), 0, "ndlog: init with room for 1");
	d = dec(0);
	rc = ft_nd_log_add(&l, &d);
	d = dec(1);
	rc |= ft_nd_log_add(&l, &d);
	T_OK(rc == 0 && ft_nd_log_get(&l, 0) == NULL &&
	    dec_is(ft_nd_log_get(&l, 1), 1),
	    "ndlog: cap 1 keeps only the newest");
	ft_nd_log_free(&l);
}

/*
 * Room for none: init must either refuse, or give a log that counts
 * decisions and keeps none.  Run in a child: a division by the cap would
 * kill it.
 */
static int
ndlog_cap0(void *arg)
{
	struct ft_nd_log l;
	struct ft_decision d = dec(0);
	int rc;

	(void)arg;
	if (ft_nd_log_init(&l, 0) != 0)
		return 0;
	rc = ft_nd_log_add(&l, &d) == 0 && l.count == 1 &&
	    ft_nd_log_get(&l, 0) == NULL ? 0 : 1;
	ft_nd_log_free(&l);
	return rc;
}

int
main(void)
{
	test_master();
	test_backup_add();
	test_backup_commit();
	test_backup_crc();
	test_backup_free();
	test_ndlog();
	T_OK(t_child(ndlog_cap0, NULL),
	    "ndlog: cap 0 is refused by init, or counts and keeps nothing");
	return t_done();
}
