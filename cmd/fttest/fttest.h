/* SPDX-License-Identifier: ISC */
/*
 * The subcommands of fttest that live in files of their own.
 */
#ifndef FTTEST_H
#define FTTEST_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/wire/wire.h"

/*
 * fttest relay: listen on listen (an ft_net address), forward every
 * connection to to, each direction delayed by delay ns.  Prints the
 * bound address on stdout once listening.  Never returns: runs until
 * killed; exits 100 for a malformed address, 111 if it cannot listen.
 */
int	 relay_run(const char *listen, const char *to, uint64_t delay)
	    __attribute__((noreturn));

/*
 * fttest log (log.c): the event logger's client against "ftlog serve".
 * fttest_log_det gives the determinant of rank (of ranks) and seq that
 * it appends, a function of those alone.
 */
int	 log_main(int argc, char *argv[]);

/* fttest ckpt (ckpt.c): make images, cut an upload, time writes. */
int	 ckpt_main(int argc, char *argv[]);

struct ft_det;
void	 fttest_log_det(uint32_t rank, uint32_t ranks, uint64_t seq,
	    struct ft_det *);

/*
 * The determinants of a job that could have run (jobgen.c), rank by
 * rank: fttest_jobgen_det gives the one of seq (from 1; going back
 * starts over).  fttest_jobgen_print prints count a rank for ranks
 * ranks as ftlog dump does: an exit code.
 */
#define FTTEST_ROUND_MAX	8
struct fttest_jobgen {
	uint32_t	 rank, ranks;
	uint64_t	 round, next_seq;
	size_t		 i, n;
	struct ft_det	 buf[FTTEST_ROUND_MAX];
};

void	 fttest_jobgen_init(struct fttest_jobgen *, uint32_t rank,
	    uint32_t ranks);
void	 fttest_jobgen_det(struct fttest_jobgen *, uint64_t seq,
	    struct ft_det *);
int	 fttest_jobgen_print(uint64_t job, uint32_t ranks, uint64_t count,
	    int json);

#endif
