/* SPDX-License-Identifier: ISC */
/*
 * ftreplay inspect --events FILE (replay2): the failures, restarts and
 * checkpoints of ftrun's --events file as marks on the diagram.
 *
 * An event has ftrun's time (CLOCK_MONOTONIC, seconds); a log has the
 * logger's time stamps (CLOCK_REALTIME, ns), at most one a second a
 * rank, each before the determinants taken with it.  The event's time
 * is made realtime by the offset between the two clocks now (the job
 * ran on this host, since its last boot, the clock not stepped since).
 * Between two of a rank's stamps its clock is taken to grow evenly in
 * time (by the clocks of the determinants after each stamp); after the
 * last, up to the clock of its last determinant at its last exit in the
 * events file.  The mark goes to the first determinant whose clock is
 * at least the one so found, and to the end of the line when there is
 * none (the rank logged nothing after it).  Clocks rather than seqs:
 * a rank's unsuccessful probes come in bursts, its clock with its
 * messages.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/replay/replay.h"
#include "../../lib/store/store.h"
#include "run.h"

struct stamp {
	uint32_t	 rank;
	uint64_t	 ns, seq;
	uint64_t	 clock;		/* of the determinant seq */
	int		 has_clock;
};

struct last {
	uint32_t	 rank;
	uint64_t	 count, clock;	/* determinants, the last's clock */
};

struct ev {
	uint32_t	 rank;
	int		 kind;		/* enum ft_replay_mark_kind, -1: exit */
	uint64_t	 ns;		/* realtime */
	char		 what[64];
};

struct collect {
	struct stamp	*st;
	size_t		 nst, capst;
	struct last	*last;
	size_t		 nlast, caplast;
	uint64_t	 clock;		/* the last determinant's, so far */
};

static void
on_stamp(void *arg, uint64_t job, uint32_t rank, uint64_t ns, uint64_t seq)
{
	struct collect *c = arg;
	struct stamp *n;

	(void)job;
	if ((n = ft_grow(c->st, &c->capst, c->nst, sizeof(*n))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	c->st = n;
	c->st[c->nst++] = (struct stamp){ rank, ns, seq, 0, 0 };
}

/* Each determinant: the clock of one after a stamp, and the last's. */
static int
on_det(void *arg, uint64_t job, uint32_t rank, const struct ft_det *d)
{
	struct collect *c = arg;
	size_t i;

	(void)job;
	for (i = c->nst; i > 0 && c->st[i - 1].rank == rank &&
	    !c->st[i - 1].has_clock; i--)
		if (c->st[i - 1].seq == d->seq) {
			c->st[i - 1].clock = d->clock;
			c->st[i - 1].has_clock = 1;
		}
	c->clock = d->clock;
	return 0;
}

static void
on_rank(void *arg, const struct ft_rank_sum *s)
{
	struct collect *c = arg;
	struct last *n;

	if ((n = ft_grow(c->last, &c->caplast, c->nlast, sizeof(*n))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	c->last = n;
	c->last[c->nlast++] = (struct last){ s->rank, s->count, c->clock };
	c->clock = 0;
}

/* The number after "key": in line, or -1 when absent or not one. */
static int
num_field(const char *line, const char *key, double *v)
{
	const char *p = strstr(line, key);
	char *end;

	if (p == NULL)
		return -1;
	p += strlen(key);
	*v = strtod(p, &end);
	return end == p ? -1 : 0;
}

/* Monotonic seconds to realtime ns, by the clocks' offset now. */
static uint64_t
to_realtime(double mono)
{
	struct timespec r, m;
	double off;

	clock_gettime(CLOCK_REALTIME, &r);
	clock_gettime(CLOCK_MONOTONIC, &m);
	off = ((double)r.tv_sec - (double)m.tv_sec) +
	    ((double)r.tv_nsec - (double)m.tv_nsec) / 1e9;
	return mono + off <= 0 ? 0 : (uint64_t)((mono + off) * 1e9);
}

/*
 * Read the events file: the kinds drawn, and exits (the end of a
 * rank's time).  Exits 100 naming the line of one that is not ftrun's.
 */
static struct ev *
read_events(const char *path, size_t *n)
{
	FILE *f;
	char line[4096], *name, *q;
	struct ev *v = NULL, *nv;
	size_t cap = 0, lineno = 0;
	double t, rank;
	int kind;

	*n = 0;
	if ((f = fopen(path, "r")) == NULL)
		ft_die(errno == ENOENT ? FT_EXIT_USAGE : FT_EXIT_TEMP,
		    "--events '%s'", path);
	while (fgets(line, sizeof(line), f) != NULL) {
		lineno++;
		if (line[0] == '\n')
			continue;
		if (line[0] != '{' || num_field(line, "{\"t\":", &t) != 0 ||
		    (name = strstr(line, "\"event\":\"")) == NULL)
			ft_diex(FT_EXIT_USAGE, "--events '%s' line %zu: not an "
			    "event of ftrun --events", path, lineno);
		name += 9;
		if ((q = strchr(name, '"')) == NULL)
			ft_diex(FT_EXIT_USAGE, "--events '%s' line %zu: not an "
			    "event of ftrun --events", path, lineno);
		*q = '\0';
		if (strcmp(name, "failed") == 0)
			kind = FT_MARK_FAILED;
		else if (strcmp(name, "restart") == 0)
			kind = FT_MARK_RESTART;
		else if (strstr(name, "ckpt") != NULL ||
		    strstr(name, "checkpoint") != NULL)
			kind = FT_MARK_CKPT;
		else if (strcmp(name, "exit") == 0)
			kind = -1;
		else
			continue;
		/* The rank is after the name, as ftrun writes it. */
		*q = '"';
		/* An event of no rank (a job's checkpoint) is not drawn. */
		if (num_field(line, "\"rank\":", &rank) != 0 || rank < 0 ||
		    rank >= FT_WIRE_MAX_RANKS)
			continue;
		if ((nv = ft_grow(v, &cap, *n, sizeof(*nv))) == NULL)
			ft_die(FT_EXIT_TEMP, "out of memory");
		v = nv;
		v[*n].rank = (uint32_t)rank;
		v[*n].kind = kind;
		v[*n].ns = to_realtime(t);
		snprintf(v[*n].what, sizeof(v[*n].what), "%.*s at %.6f s "
		    "(ftrun's clock)", (int)(q - name), name, t);
		(*n)++;
	}
	if (ferror(f))
		ft_die(FT_EXIT_TEMP, "--events '%s'", path);
	fclose(f);
	return v;
}

/*
 * The clock rank had at time ns, into *clock: 0, or -1 when it logged
 * nothing after (or nothing at all).
 */
static int
clock_at(const struct collect *c, uint32_t rank, uint64_t ns, uint64_t end,
    uint64_t *clock)
{
	const struct last *l = NULL;
	const struct stamp *a = NULL, *b = NULL;
	uint64_t bns, bclock;
	size_t i;

	for (i = 0; i < c->nlast; i++)
		if (c->last[i].rank == rank)
			l = &c->last[i];
	if (l == NULL || l->count == 0)
		return -1;
	for (i = 0; i < c->nst; i++) {
		if (c->st[i].rank != rank || !c->st[i].has_clock)
			continue;
		if (c->st[i].ns <= ns)
			a = &c->st[i];
		else if (b == NULL)
			b = &c->st[i];
	}
	if (a == NULL) {
		/* Before its first stamp: its first determinant. */
		*clock = 0;
		return 0;
	}
	if (b != NULL) {
		bns = b->ns;
		bclock = b->clock;
	} else if (end > a->ns) {
		/* After the last stamp: up to the rank's last exit. */
		bns = end;
		bclock = l->clock;
	} else
		return -1;
	if (ns >= bns)
		return b != NULL ? (*clock = bclock, 0) : -1;
	*clock = a->clock + (uint64_t)((long double)(ns - a->ns) *
	    (long double)(bclock - a->clock) / (long double)(bns - a->ns));
	ft_info("rank %u at %" PRIu64 " ns: between clock %" PRIu64 " at %"
	    PRIu64 " and %" PRIu64 " at %" PRIu64 ": %" PRIu64, rank, ns,
	    a->clock, a->ns, bclock, bns, *clock);
	return 0;
}

struct ft_replay_mark *
ft_replay_marks(const char *events, const char *dir, uint64_t job,
    size_t *nmarks)
{
	struct collect c;
	struct ft_replay_mark *m;
	struct ev *v;
	char why[FT_LOG_WHY];
	uint64_t end;
	size_t n, i, j, k = 0;

	memset(&c, 0, sizeof(c));
	v = read_events(events, &n);
	if (dir == NULL)
		ft_diex(FT_EXIT_USAGE, "--events needs the log directory (its "
		    "time stamps), not ftlog dump's output");
	if (ft_logdir_walk_stamps(dir, 0, job, 1, 0, on_det, on_stamp, on_rank,
	    &c, why, sizeof(why)) != 0)
		ft_diex(FT_EXIT_USAGE, "%s", why);
	if ((m = calloc(n + 1, sizeof(*m))) == NULL)
		ft_die(FT_EXIT_TEMP, "out of memory");
	for (i = 0; i < n; i++) {
		if (v[i].kind < 0)
			continue;
		/* The end of the rank's time: its last exit. */
		for (end = 0, j = 0; j < n; j++)
			if (v[j].kind < 0 && v[j].rank == v[i].rank &&
			    v[j].ns > end)
				end = v[j].ns;
		m[k].rank = v[i].rank;
		m[k].kind = v[i].kind;
		m[k].after = clock_at(&c, v[i].rank, v[i].ns, end,
		    &m[k].clock) != 0;
		snprintf(m[k].label, sizeof(m[k].label), "rank %u %s",
		    v[i].rank, v[i].what);
		k++;
	}
	free(v);
	free(c.st);
	free(c.last);
	*nmarks = k;
	return m;
}
