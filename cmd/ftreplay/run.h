/* SPDX-License-Identifier: ISC */
/*
 * ftreplay's subcommands that live in their own file (main.c wires).
 */
#ifndef FTREPLAY_RUN_H
#define FTREPLAY_RUN_H

#include "../../lib/base/base.h"

/* Print the usage (the SYNOPSIS of ftreplay(1)) and exit 100. */
void	 ft_replay_usage(void) FT_NORETURN;
/* ftreplay run ARGS (argv[0] is "run"): see run.c.  Returns the exit. */
int	 ft_replay_run(int argc, char *argv[]);
/*
 * inspect --events FILE: the marks of FILE's failures, restarts and
 * checkpoints for job's diagram, placed by the time stamps of the log
 * directory dir (NULL: a dump, refused).  Exits on bad input.
 */
struct ft_replay_mark;
struct ft_replay_mark *ft_replay_marks(const char *events, const char *dir,
	    uint64_t job, size_t *nmarks);

#endif
