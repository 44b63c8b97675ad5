/* SPDX-License-Identifier: ISC */
/*
 * Fuzz the parser of ftlog dump text (lib/replay).  With bit 0 of the
 * first byte clear, the rest is one line: when the parser takes it,
 * the determinant printed again (key=value, or JSON with bit 1) must
 * parse to the same.  With bit 0 set, the rest is a whole input: read
 * as a stream, then every job checked and summed up, in little memory,
 * which must end in a result, never a crash.
 */
#include <stdio.h>
#include <unistd.h>

#include "fuzz.h"
#include "replay/replay.h"

static int
same(const struct ft_rrec *a, const struct ft_rrec *b)
{
	return a->job == b->job && a->rank == b->rank &&
	    a->d.seq == b->d.seq && a->d.clock == b->d.clock &&
	    a->d.kind == b->d.kind && a->d.sender == b->d.sender &&
	    a->d.sclock == b->d.sclock && a->d.probes == b->d.probes &&
	    a->d.v[0] == b->d.v[0] && a->d.v[1] == b->d.v[1] &&
	    a->d.v[2] == b->d.v[2];
}

static void
one_line(const uint8_t *data, size_t size, int json)
{
	struct ft_rrec r, r2;
	char why[FT_REPLAY_WHY], line[FT_DET_TEXT_MAX];
	int n;

	if (ft_replay_parse((const char *)data, size, &r, why,
	    sizeof(why)) != 0) {
		if (errno != EPROTO || why[0] == '\0')
			abort();
		return;
	}
	if ((n = ft_det_format(line, sizeof(line), r.job, r.rank, &r.d,
	    json)) <= 0)
		abort();
	if (ft_replay_parse(line, (size_t)n - 1, &r2, why, sizeof(why)) != 0 ||
	    !same(&r, &r2))
		abort();
}

static void
stream(const uint8_t *data, size_t size)
{
	struct ft_replay_opts o;
	struct ft_replay_stats st;
	struct ft_replay_violation v;
	struct ft_replay_summary s;
	struct ft_replay *l;
	char why[FT_REPLAY_WHY];
	size_t j;
	FILE *f;
	int rc;

	if ((f = fmemopen((void *)data, size, "r")) == NULL)
		return;
	if ((l = ft_replay_new("/tmp", why, sizeof(why))) == NULL)
		abort();
	memset(&o, 0, sizeof(o));
	o.max_mem = 4u << 20;
	if (ft_replay_read_stream(l, f, "fuzz", why, sizeof(why)) == 0)
		for (j = 0; j < ft_replay_njobs(l); j++) {
			o.sclock = j % 2;
			rc = ft_replay_verify(l, ft_replay_job(l, j), &o, &st,
			    &v, why, sizeof(why));
			if (rc < -1 || rc > 1 || (rc == 1 && v.rule == NULL))
				abort();
			if (ft_replay_summarize(l, ft_replay_job(l, j), &s,
			    why, sizeof(why)) == 0)
				ft_replay_summary_release(&s);
		}
	ft_replay_free(l);
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	if (data[0] & 1)
		stream(data + 1, size - 1);
	else
		one_line(data + 1, size - 1, data[0] & 2);
	return 0;
}
