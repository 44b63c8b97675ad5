/* SPDX-License-Identifier: ISC */
/*
 * vlog images (issue 15) outside a job: ftrun's scheduler of turns
 * (--ckpt-policy rr|adaptive, lib/job/vsched.c), the notes ranks send
 * it, and the reader of the "VLG1" protocol state (ft-ckpt(5)) on
 * states built here byte by byte.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"
#include "job/coord.h"
#include "job/vsched.h"
#include "proto/proto.h"
#include "tap.h"

#define MS	1000000ull

static void
test_policy(void)
{
	T_OK(ft__vsched_policy("all") == FT__VSCHED_ALL &&
	    ft__vsched_policy("rr") == FT__VSCHED_RR &&
	    ft__vsched_policy("adaptive") == FT__VSCHED_ADAPTIVE,
	    "policy: all, rr, adaptive");
	T_OK(ft__vsched_policy("RR") == -1 && ft__vsched_policy("") == -1,
	    "policy: anything else refused");
}

static void
test_rr(void)
{
	struct ft__vsched v;
	uint32_t k, got[8], n = 0;
	uint64_t t;

	T_OK(ft__vsched_init(&v, 4, FT__VSCHED_ALL, 100 * MS) == 0 &&
	    !ft__vsched_tick(&v, 1, &k) && ft__vsched_next(&v) == 0,
	    "all: no turns");
	ft__vsched_free(&v);
	T_OK(ft__vsched_init(&v, 4, FT__VSCHED_RR, 0) == 0 &&
	    !ft__vsched_tick(&v, 1, &k), "rr without an interval: no turns");
	ft__vsched_free(&v);
	T_OK(ft__vsched_init(&v, 4, FT__VSCHED_RR, 100 * MS) == 0,
	    "rr: set up for 4 ranks");
	T_OK(!ft__vsched_tick(&v, 1000, &k) &&
	    ft__vsched_next(&v) == 1000 + 25 * MS,
	    "rr: the first turn an interval / n after the start");
	for (t = 1000; t <= 1000 + 200 * MS; t += MS)
		if (n < 8 && ft__vsched_tick(&v, t, &k))
			got[n++] = k;
	T_OK(n == 8 && got[0] == 0 && got[1] == 1 && got[2] == 2 &&
	    got[3] == 3 && got[4] == 0 && got[7] == 3,
	    "rr: one rank at a time, in turn, round after round");
	T_OK(!ft__vsched_tick(&v, ft__vsched_next(&v) - 1, &k) &&
	    ft__vsched_tick(&v, ft__vsched_next(&v), &k),
	    "rr: not before its time, at its time");
	/* A late tick does not bring two turns at once. */
	t = ft__vsched_next(&v) + 500 * MS;
	T_OK(ft__vsched_tick(&v, t, &k) && !ft__vsched_tick(&v, t, &k),
	    "rr: a late tick gives one turn, not those missed");
	ft__vsched_free(&v);
}

static void
test_adaptive(void)
{
	struct ft__vsched v;
	uint64_t recv[5] = { 10, 40, 0, 30, 7 }, sent[5] = { 10, 10, 0, 10, 0 };
	uint32_t order[5], k, got[5], n = 0;
	uint64_t t;

	ft__vsched_order(5, recv, sent, order);
	/* 4: sent nothing, received: first; 1: 4.0; 3: 3.0; 0: 1.0; 2:
	 * nothing at all (as a rank not heard of). */
	T_OK(order[0] == 4 && order[1] == 1 && order[2] == 3 &&
	    order[3] == 0 && order[4] == 2,
	    "adaptive: by received/sent, highest first");
	memset(recv, 0, sizeof(recv));
	memset(sent, 0, sizeof(sent));
	ft__vsched_order(5, recv, sent, order);
	T_OK(order[0] == 0 && order[1] == 1 && order[4] == 4,
	    "adaptive: ties (nothing known) in rank order");
	recv[0] = UINT64_MAX;
	sent[0] = UINT64_MAX - 1;
	recv[1] = UINT64_MAX - 1;
	sent[1] = UINT64_MAX;
	sent[2] = sent[3] = sent[4] = 1;
	ft__vsched_order(5, recv, sent, order);
	T_OK(order[0] == 0 && order[1] == 1,
	    "adaptive: no overflow with huge counts");
	T_OK(ft__vsched_init(&v, 3, FT__VSCHED_ADAPTIVE, 30 * MS) == 0,
	    "adaptive: set up for 3 ranks");
	ft__vsched_traffic(&v, 2, 90, 10);
	ft__vsched_traffic(&v, 0, 20, 10);
	ft__vsched_traffic(&v, 7, 1000, 1);	/* no such rank: ignored */
	for (t = 0; t <= 100 * MS && n < 3; t += MS)
		if (ft__vsched_tick(&v, t, &k))
			got[n++] = k;
	T_OK(n == 3 && got[0] == 2 && got[1] == 0 && got[2] == 1,
	    "adaptive: a round in the order of the reports");
	/* A report in the middle of a round counts from the next. */
	ft__vsched_traffic(&v, 1, 1000, 1);
	for (n = 0; t <= 300 * MS && n < 3; t += MS)
		if (ft__vsched_tick(&v, t, &k))
			got[n++] = k;
	T_OK(n == 3 && got[0] == 1 && got[1] == 2 && got[2] == 0,
	    "adaptive: the next round takes the new reports");
	ft__vsched_free(&v);
}

static void
test_notes(void)
{
	uint64_t e, v;
	int kind;

	T_OK(ft__coord_note_parse("epoch=4 from=1", &e, &kind, &v) == 0 &&
	    kind == FT__COORD_FROM && e == 4, "note: from=1");
	T_OK(ft__coord_note_parse("epoch=4 from=2", &e, &kind, &v) != 0,
	    "note: from=2 refused");
	T_OK(ft__coord_note_parse("epoch=9 recv=0", &e, &kind, &v) == 0 &&
	    kind == FT__COORD_RECV && v == 0, "note: recv=0");
	T_OK(ft__coord_note_parse("epoch=9 sent=18446744073709551615", &e,
	    &kind, &v) == 0 && kind == FT__COORD_SENT && v == UINT64_MAX,
	    "note: sent=2^64-1");
	T_OK(ft__coord_note_parse("epoch=9 sent=18446744073709551616", &e,
	    &kind, &v) != 0, "note: sent beyond 64 bits refused");
}

/* A vlog state's fixed part (magic: VLG1 or VLG2), of rank of 2. */
static void
vlg_head(struct ft_wbuf *b, uint32_t magic, uint32_t rank)
{
	ft_wbuf_init(b);
	ft_put32(b, magic);
	ft_put32(b, rank);
	ft_put32(b, 2);
	ft_put32(b, 0);		/* inc */
	ft_put64(b, 3);		/* epoch */
	ft_put64(b, 100);	/* clock */
	ft_put64(b, 90);	/* lclock */
	ft_put32(b, 0);		/* lprobes */
	ft_put64(b, 2);		/* any_site */
	ft_put64(b, 40);	/* determinants */
	ft_put64(b, 0);		/* self_sent */
}

/* A VLG1 state for rank 1 of 2: one delivered out of order, one entry
 * of 3 bytes logged to rank 0 from seq 5. */
static void
vlg(struct ft_wbuf *b, uint32_t rank, uint32_t nskip, uint64_t skip,
    uint64_t lbase, uint64_t nlog)
{
	uint64_t k;

	vlg_head(b, 0x564c4731u, rank);
	/* peer 0: from it, to it */
	ft_put64(b, 7);
	ft_put32(b, nskip);
	if (nskip > 0)
		ft_put64(b, skip);
	ft_put64(b, lbase);
	ft_put64(b, nlog);
	/* At most one entry written: the reader must refuse the rest. */
	for (k = lbase; k < nlog && k < lbase + 1; k++) {
		ft_put32(b, 2);
		ft_put32(b, 1);
		ft_put32(b, 9);
		ft_put32(b, 0);
		ft_put64(b, 77);
		ft_put64(b, 3);
		ft_putbytes(b, "abc", 3);
	}
	/* peer 1: ourselves */
	ft_put64(b, 0);
	ft_put32(b, 0);
	ft_put64(b, 0);
	ft_put64(b, 0);
}

static void
test_state(void)
{
	struct ft_wbuf b;
	size_t cut, bad = 0;
	uint8_t *p;

	vlg(&b, 1, 1, 9, 5, 6);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) == 0,
	    "VLG1: a whole state of rank 1 of 2 is read");
	T_OK(ft__vlog_state_check(b.p, b.len, 0, 2) != 0 && errno == EPROTO,
	    "VLG1: refused as another rank's");
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 3) != 0,
	    "VLG1: refused in a job of another size");
	for (cut = 0; cut < b.len; cut++)
		if (ft__vlog_state_check(b.p, cut, 1, 2) == 0)
			bad++;
	T_OK(bad == 0, "VLG1: every cut of it is refused (%zu cuts)", b.len);
	if ((p = malloc(b.len + 1)) == NULL)
		abort();
	memcpy(p, b.p, b.len);
	p[b.len] = 0;
	T_OK(ft__vlog_state_check(p, b.len + 1, 1, 2) != 0,
	    "VLG1: a byte too many is refused");
	free(p);
	ft_wbuf_release(&b);
	vlg(&b, 1, 1, 7, 5, 6);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) != 0,
	    "VLG1: a delivered seq at or below dlow is refused");
	ft_wbuf_release(&b);
	vlg(&b, 1, 0, 0, 6, 5);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) != 0,
	    "VLG1: a log that ends before it begins is refused");
	ft_wbuf_release(&b);
	vlg(&b, 1, 0, 0, 0, 1u << 30);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) != 0,
	    "VLG1: more entries than bytes is refused before reading them");
	ft_wbuf_release(&b);
}

/*
 * A VLG2 state (vlogbw) for rank 1 of 2: two entries logged to rank 0
 * from seq 5, the first with its 3 bytes in the image (kind 0), the
 * second an extent of the sender-log file (kind 1: off, crc); kind2
 * and off say what the second holds.
 */
static void
vlg2(struct ft_wbuf *b, uint32_t kind2, uint64_t off, uint64_t len2)
{
	vlg_head(b, 0x564c4732u, 1);
	/* peer 0 */
	ft_put64(b, 7);
	ft_put32(b, 0);
	ft_put64(b, 5);
	ft_put64(b, 7);
	ft_put32(b, 2);
	ft_put32(b, 1);
	ft_put32(b, 9);
	ft_put32(b, 0);
	ft_put64(b, 77);
	ft_put64(b, 3);
	ft_put32(b, 0);		/* in the image */
	ft_putbytes(b, "abc", 3);
	ft_put32(b, 2);
	ft_put32(b, 1);
	ft_put32(b, 9);
	ft_put32(b, 0);
	ft_put64(b, 78);
	ft_put64(b, len2);
	ft_put32(b, kind2);
	ft_put64(b, off);
	ft_put32(b, 0x12345678u);
	/* peer 1: ourselves */
	ft_put64(b, 0);
	ft_put32(b, 0);
	ft_put64(b, 0);
	ft_put64(b, 0);
}

static void
test_state2(void)
{
	struct ft_wbuf b;
	size_t cut, bad = 0;

	vlg2(&b, 1, 4096, 1 << 20);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) == 0,
	    "VLG2: a state with a payload inline and one in the sender-log "
	    "file is read");
	T_OK(ft__vlog_state_check(b.p, b.len, 0, 2) != 0 && errno == EPROTO,
	    "VLG2: refused as another rank's");
	for (cut = 0; cut < b.len; cut++)
		if (ft__vlog_state_check(b.p, cut, 1, 2) == 0)
			bad++;
	T_OK(bad == 0, "VLG2: every cut of it is refused (%zu cuts)", b.len);
	ft_wbuf_release(&b);
	vlg2(&b, 2, 4096, 1 << 20);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) != 0 && errno == EPROTO,
	    "VLG2: a payload of an unknown kind is refused");
	ft_wbuf_release(&b);
	vlg2(&b, 1, UINT64_MAX - 10, 100);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) != 0 && errno == EPROTO,
	    "VLG2: an extent past 2^64 is refused");
	ft_wbuf_release(&b);
	/* A length as large as the file may be, with no bytes behind it
	 * in the image: its extent is read from the file, not the image. */
	vlg2(&b, 1, 0, UINT64_MAX / 2);
	T_OK(ft__vlog_state_check(b.p, b.len, 1, 2) == 0,
	    "VLG2: an extent's length is not taken from the image's bytes");
	ft_wbuf_release(&b);
}

int
main(void)
{
	test_policy();
	test_state2();
	test_rr();
	test_adaptive();
	test_notes();
	test_state();
	return t_done();
}
