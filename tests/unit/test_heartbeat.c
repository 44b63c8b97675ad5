/* SPDX-License-Identifier: ISC */
/*
 * lib/job/heartbeat: records round-trip; the reader finds records after
 * stray bytes, keeps a torn tail for the next read, refuses unknown
 * flags and ids; and a started thread writes well-formed beats of the
 * state the main thread publishes, at the period asked, until stopped.
 */
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "job/job.h"

static void
test_round_trip(void)
{
	struct ft_hb_rec a = { 7, FT_HB_IN_MPI, 1234, 0x0102030405060708ULL }, b;
	uint8_t buf[3 * FT_HB_RECLEN];
	size_t used;

	ft_hb_encode(buf, &a);
	T_OK(buf[0] == 'F' && buf[1] == 'T' && buf[2] == 'H' && buf[3] == 'B',
	    "a record starts with FTHB");
	T_EQ_INT(ft_hb_decode(buf, FT_HB_RECLEN, &used, &b), 1, "decodes");
	T_EQ_UINT(used, FT_HB_RECLEN, "uses one record");
	T_OK(b.id == 7 && b.flags == FT_HB_IN_MPI && b.state_ms == 1234 &&
	    b.completed == a.completed, "fields come back");
	/* Stray bytes, then a record: skipped, then found. */
	memset(buf, 'x', 5);
	ft_hb_encode(buf + 5, &a);
	T_EQ_INT(ft_hb_decode(buf, 5 + FT_HB_RECLEN, &used, &b), 1,
	    "a record after stray bytes is found");
	T_EQ_UINT(used, 5 + FT_HB_RECLEN, "the stray bytes are consumed");
	/* A torn record waits for the rest. */
	ft_hb_encode(buf, &a);
	T_EQ_INT(ft_hb_decode(buf, FT_HB_RECLEN - 1, &used, &b), 0,
	    "a torn record is not decoded");
	T_EQ_UINT(used, 0, "and kept whole for the next read");
	/* Garbage only: all but a tail that might start a record. */
	memset(buf, 'x', sizeof(buf));
	T_EQ_INT(ft_hb_decode(buf, sizeof(buf), &used, &b), 0, "garbage");
	T_EQ_UINT(used, sizeof(buf) - 3, "garbage is dropped but for 3 bytes");
	/* Unknown flags or an impossible id: not a record. */
	a.flags = 0x80;
	ft_hb_encode(buf, &a);
	T_EQ_INT(ft_hb_decode(buf, FT_HB_RECLEN, &used, &b), 0,
	    "unknown flags are refused");
	a.flags = 0;
	a.id = FT_WIRE_MAX_RANKS;
	ft_hb_encode(buf, &a);
	T_EQ_INT(ft_hb_decode(buf, FT_HB_RECLEN, &used, &b), 0,
	    "an id beyond the largest job is refused");
}

/* Read one record from fd, waiting up to 5 s. */
static int
read_beat(int fd, struct ft_hb_rec *r)
{
	uint8_t buf[FT_HB_RECLEN];
	struct pollfd p = { fd, POLLIN, 0 };
	size_t got = 0, used;
	ssize_t n;

	while (got < sizeof(buf)) {
		if (poll(&p, 1, 5000) != 1)
			return -1;
		if ((n = read(fd, buf + got, sizeof(buf) - got)) <= 0)
			return -1;
		got += (size_t)n;
	}
	return ft_hb_decode(buf, got, &used, r) == 1 ? 0 : -1;
}

static void
test_thread(void)
{
	struct ft_hb_rec r;
	int p[2], i, ok = 1;

	if (pipe2(p, O_NONBLOCK) != 0) {
		T_OK(0, "pipe");
		return;
	}
	ft_hb_state(0, 0);
	T_EQ_INT(ft_hb_start(p[1], 42, 10000000), 0, "the thread starts");
	T_EQ_INT(ft_hb_start(p[1], 42, 10000000), -1, "only once");
	T_EQ_INT(read_beat(p[0], &r), 0, "it beats at once");
	T_OK(r.id == 42 && r.flags == 0 && r.completed == 0, "as process 42");
	ft_hb_state(FT_HB_IN_MPI, 9);
	/* Beats already in the pipe may predate the change: read on. */
	for (i = 0; i < 50 && ok; i++) {
		ok = read_beat(p[0], &r) == 0;
		if (ok && r.flags == FT_HB_IN_MPI && r.completed == 9)
			break;
	}
	T_OK(ok && i < 50, "the beats carry the state published");
	ft_hb_stop();
	/* Drain, then nothing more comes. */
	while (read(p[0], &r, sizeof(r)) > 0)
		;
	{
		struct pollfd pf = { p[0], POLLIN, 0 };

		T_EQ_INT(poll(&pf, 1, 100), 0, "no beat after ft_hb_stop");
	}
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	test_round_trip();
	test_thread();
	return t_done();
}
