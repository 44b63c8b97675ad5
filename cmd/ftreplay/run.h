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

#endif
