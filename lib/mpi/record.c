/* SPDX-License-Identifier: ISC */
/*
 * The MPI layer's part of record and replay (issue 16, ft-record(5)):
 * it reads the variables ftrun --record and ftreplay run set, loads the
 * record a replayed rank follows, and says how a replay stops.  The
 * recording and the replaying themselves are behind the protocol seam
 * (lib/proto/tap.c, replay.c).
 *
 *	FT_RECORD_DIR=DIR	record this process into DIR/rank-R.ftr
 *	FT_REPLAY=DIR		re-execute a rank alone from DIR's record
 *	FT_REPLAY_RANK=R	... the rank (default 0)
 *	FT_REPLAY_FD=N		... write the verdict line there
 *	FT_REPLAY_TRAP=1	... raise SIGTRAP where it stops (--gdb)
 */
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpi_impl.h"
#include "../store/store.h"

static struct ft_rec	 record;

/* The verdict pipe of ftreplay run (FT_REPLAY_FD), or -1. */
static int
verdict_fd(void)
{
	const char *s = getenv("FT_REPLAY_FD");
	char *end;
	long fd;

	if (s == NULL)
		return -1;
	fd = strtol(s, &end, 10);
	return *s != '\0' && *end == '\0' && fd >= 0 && fd <= 65535 ?
	    (int)fd : -1;
}

void
ft__mpi_replay_say(const char *word)
{
	char line[32];
	int fd;

	if (!ft__mpi.replay || (fd = verdict_fd()) == -1)
		return;
	snprintf(line, sizeof(line), "%s\n", word);
	(void)write(fd, line, strlen(line));
}

/* Where the replay stops: tell ftreplay, stop a debugger, and end. */
static void
replay_notify(void *arg, uint32_t kind, const char *text)
{
	const char *s;
	char line[640];
	int fd = verdict_fd(), n;

	(void)arg;
	if (kind != FT_NOTE_DIVERGE && kind != FT_NOTE_REPLAYED) {
		ft_warnx("%s", text);
		return;
	}
	n = snprintf(line, sizeof(line), "%s %s\n", kind == FT_NOTE_DIVERGE ?
	    "diverged" : "end", text);
	if (fd < 0 || n < 0 || write(fd, line, strlen(line)) < 0)
		fprintf(stderr, "ftreplay: %s\n", text);
	if ((s = getenv("FT_REPLAY_TRAP")) != NULL && strcmp(s, "1") == 0)
		(void)raise(SIGTRAP);
	_exit(1);
}

int
ft__mpi_record_setup(struct ft_pt_conf *pc)
{
	char path[4096], why[512];
	const char *dir, *s;
	char *end;
	unsigned long r = 0;

	if ((dir = getenv("FT_REPLAY")) != NULL && dir[0] != '\0') {
		if ((s = getenv("FT_REPLAY_RANK")) != NULL) {
			r = strtoul(s, &end, 10);
			if (*s == '\0' || *end != '\0' || r > UINT32_MAX) {
				ft_warnx("FT_REPLAY_RANK '%s' is not a rank", s);
				_exit(FT_EXIT_USAGE);
			}
		}
		if (ft_rec_path(path, sizeof(path), dir, (uint32_t)r) != 0 ||
		    ft_rec_open(&record, path, why, sizeof(why)) != 0) {
			ft_warnx("MPI_Init: %s", errno == ENAMETOOLONG ?
			    "the record's path is too long" : why);
			_exit(FT_EXIT_USAGE);
		}
		if (record.h.rank != r) {
			ft_warnx("MPI_Init: record '%s' is rank %" PRIu32
			    "'s, not rank %lu's", path, record.h.rank, r);
			_exit(FT_EXIT_USAGE);
		}
		ft__mpi.replay = 1;
		ft__mpi.singleton = 1;
		ft__mpi.env.rank = record.h.rank;
		ft__mpi.env.size = record.h.size;
		ft__mpi.env.nrep = 1;
		ft__mpi.env.replica = 0;
		ft__mpi.env.base = 0;
		/* Context ids of MPI_Comm_idup, MPI_UNIVERSE_SIZE. */
		ft__mpi.env.universe = record.h.universe;
		pc->rank = record.h.rank;
		pc->size = record.h.size;
		pc->ppr = 1;
		pc->index = 0;
		pc->proto = &ft__proto_replay;
		pc->record = &record;
		return 0;
	}
	if ((dir = getenv("FT_RECORD_DIR")) != NULL && dir[0] != '\0' &&
	    !ft__mpi.singleton) {
		/* A spawned world's ranks would take its parents' names. */
		if (ft__mpi.env.spawned || ft__mpi.env.base > 0)
			ft_warnx("ftrun --record: a spawned world is not "
			    "recorded");
		else {
			pc->record_dir = dir;
			pc->universe = ft__mpi.env.universe;
		}
	}
	return 0;
}

int
ft__mpi_record_table(struct ft_pt *pt, const struct ft_rank_addr *self)
{
	struct ft_rank_addr *t;
	uint32_t i;
	int rc;

	/* Every rank at our own address: nothing is ever sent to them. */
	if ((t = calloc(record.h.size, sizeof(*t))) == NULL)
		return -1;
	for (i = 0; i < record.h.size; i++)
		t[i] = *self;
	rc = ft_pt_set_table(pt, t, record.h.size);
	free(t);
	if (rc == 0) {
		ft_pt_set_notify(pt, replay_notify, NULL);
		ft__mpi_replay_say("started");
	}
	return rc;
}

void
ft__mpi_replay_refuse(const char *call)
{
	char why[256];

	if (!ft__mpi.replay)
		return;
	snprintf(why, sizeof(why), "%s cannot be replayed: ftreplay run "
	    "re-executes one rank alone, and other processes are not "
	    "recorded", call);
	ft__mpi_abort(FT_EXIT_USAGE, why);
}
