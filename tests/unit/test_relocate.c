/* SPDX-License-Identifier: ISC */
/*
 * Restarts across hosts: the RESPAWN codec (round trip, a cut at every
 * offset, refusals), RELEASE, and the placement of a restarted process
 * (ft__relocate_pick, ft__relocate_holds).
 */
#include "tap.h"

#include "job/relocate.h"
#include "wire/wire.h"

static void
test_respawn(void)
{
	struct ft_msg_job_respawn m = { 7, 2, FT_RESPAWN_ROLLBACK, 9, 150,
	    12 }, d;
	struct ft_wbuf b;
	struct ft_hdr h;
	size_t blen, k;
	int bad = 0;

	ft_wbuf_init(&b);
	T_OK(ft_msg_job_respawn_encode(&b, FT_WIRE_LAUNCHER, &m) == 0 &&
	    ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_JOB_RESPAWN,
	    "RESPAWN: encodes a frame of its type");
	blen = b.len - FT_WIRE_HDRLEN;
	T_EQ_UINT(blen, 32, "RESPAWN: a body of 32 bytes");
	T_OK(ft_msg_job_respawn_decode(b.p + FT_WIRE_HDRLEN, blen, &d) == 0 &&
	    d.id == 7 && d.incarnation == 2 && d.kill_signal == 9 &&
	    d.kill_after == 150 && d.flags == FT_RESPAWN_ROLLBACK &&
	    d.rollback == 12, "RESPAWN: round trip");
	for (k = 0; k < blen; k++) {
		errno = 0;
		if (ft_msg_job_respawn_decode(b.p + FT_WIRE_HDRLEN, k, &d) !=
		    -1 || errno != EPROTO)
			bad++;
	}
	T_EQ_INT(bad, 0, "RESPAWN: a cut at every offset is EPROTO");
	T_OK(ft_msg_job_respawn_decode(b.p + FT_WIRE_HDRLEN, blen + 1,
	    &d) == -1 && errno == EPROTO, "RESPAWN: a byte too many is "
	    "EPROTO");
	/* Not armed, no rollback; a rollback to the beginning (0). */
	m = (struct ft_msg_job_respawn){ 0, 1, 0, 0, 0, 0 };
	ft_wbuf_reset(&b);
	T_OK(ft_msg_job_respawn_encode(&b, FT_WIRE_LAUNCHER, &m) == 0 &&
	    ft_msg_job_respawn_decode(b.p + FT_WIRE_HDRLEN, 32, &d) == 0 &&
	    d.kill_signal == 0 && d.kill_after == 0 && d.flags == 0,
	    "RESPAWN: an unarmed restart round trips");
	m.flags = FT_RESPAWN_ROLLBACK;
	ft_wbuf_reset(&b);
	T_OK(ft_msg_job_respawn_encode(&b, FT_WIRE_LAUNCHER, &m) == 0 &&
	    ft_msg_job_respawn_decode(b.p + FT_WIRE_HDRLEN, 32, &d) == 0 &&
	    d.flags == FT_RESPAWN_ROLLBACK && d.rollback == 0,
	    "RESPAWN: a rollback to the beginning round trips");
	/* Refused both ways: incarnation 0 (the first process is JOB_START's),
	 * a signal above 64, a count without a signal, an unknown flag, an
	 * epoch without the rollback flag. */
	{
		static const struct ft_msg_job_respawn badm[] = {
			{ 1, 0, 0, 0, 0, 0 }, { 1, 1, 0, 65, 3, 0 },
			{ 1, 1, 0, 0, 3, 0 }, { 1, 1, 2, 0, 0, 0 },
			{ 1, 1, 0, 0, 0, 5 },
		};
		uint8_t body[32];

		for (k = 0; k < FT_NELEM(badm); k++) {
			ft_wbuf_reset(&b);
			errno = 0;
			T_OK(ft_msg_job_respawn_encode(&b, FT_WIRE_LAUNCHER,
			    &badm[k]) == -1 && errno == EINVAL,
			    "RESPAWN: encoding bad fields %zu is EINVAL", k);
			/* The same fields on the wire. */
			ft_be32(body, badm[k].id);
			ft_be32(body + 4, badm[k].incarnation);
			ft_be32(body + 8, badm[k].flags);
			ft_be32(body + 12, badm[k].kill_signal);
			ft_be64(body + 16, badm[k].kill_after);
			ft_be64(body + 24, badm[k].rollback);
			errno = 0;
			T_OK(ft_msg_job_respawn_decode(body, 32, &d) == -1 &&
			    errno == EPROTO, "RESPAWN: decoding bad fields %zu "
			    "is EPROTO", k);
		}
	}
	ft_wbuf_reset(&b);
	T_OK(ft_msg_empty_encode(&b, FT_WIRE_LAUNCHER, FT_MSG_JOB_RELEASE) ==
	    0 && ft_hdr_decode(b.p, &h) == 0 && h.type == FT_MSG_JOB_RELEASE &&
	    h.len == FT_WIRE_HDRLEN, "RELEASE: an empty frame");
	T_EQ_STR(ft_msg_name(FT_MSG_JOB_RESPAWN), "JOB_RESPAWN",
	    "RESPAWN: its name");
	T_EQ_STR(ft_msg_name(FT_MSG_JOB_RELEASE), "JOB_RELEASE",
	    "RELEASE: its name");
	ft_wbuf_release(&b);
}

static void
test_pick(void)
{
	uint8_t alive[4] = { 1, 1, 1, 1 };
	uint32_t load[4] = { 2, 2, 2, 2 };

	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 2,
	    "pick: its own host while it is alive");
	load[2] = 9;
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 2,
	    "pick: its own host even when it is the busiest");
	alive[2] = 0;
	load[2] = 0;
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 0,
	    "pick: its host dead, equal loads: the first live host");
	load[0] = 3;
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 1,
	    "pick: its host dead: the least loaded live host");
	load[3] = 1;
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 3,
	    "pick: the least loaded, wherever it is in the list");
	alive[3] = 0;
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), 1,
	    "pick: a dead host is never picked, however idle");
	T_EQ_UINT(ft__relocate_pick(7, alive, load, 4), 1,
	    "pick: an own host out of range counts as dead");
	memset(alive, 0, sizeof(alive));
	T_EQ_UINT(ft__relocate_pick(2, alive, load, 4), FT_RELOCATE_NONE,
	    "pick: no live host: none");
	T_EQ_UINT(ft__relocate_pick(0, alive, load, 0), FT_RELOCATE_NONE,
	    "pick: no host at all: none");
	{
		char *shrink[] = { "A=1", "FT_FTMPI_COMM_MODE=shrink" };
		char *rebuild[] = { "FT_FTMPI_COMM_MODE=shrink",
		    "FT_FTMPI_COMM_MODE=rebuild", "FT_FTMPI_COMM_MODEX=1" };

		T_OK(ft__relocate_holds("vlog", NULL, 0) &&
		    ft__relocate_holds("coord", NULL, 0) &&
		    !ft__relocate_holds("none", rebuild, 3) &&
		    !ft__relocate_holds("replicate", NULL, 0) &&
		    !ft__relocate_holds("ulfm", NULL, 0) &&
		    !ft__relocate_holds(NULL, NULL, 0),
		    "holds: agents wait for RELEASE under vlog and coord, not "
		    "none, replicate, ulfm");
		T_OK(ft__relocate_holds("ftmpi", rebuild, 3) &&
		    !ft__relocate_holds("ftmpi", shrink, 2) &&
		    !ft__relocate_holds("ftmpi", rebuild, 1) &&
		    !ft__relocate_holds("ftmpi", NULL, 0),
		    "holds: under ftmpi, in mode rebuild only (its last "
		    "setting)");
	}
}

int
main(void)
{
	test_respawn();
	test_pick();
	return t_done();
}
