/* SPDX-License-Identifier: ISC */
/*
 * ft's own API, beside mpi.h: application-level checkpoints (ft(3)).
 *
 * A program protects the memory that holds its state, calls
 * ft_checkpoint() where that state is consistent (it saves only when a
 * checkpoint is due, so it can sit in every iteration), and after a
 * restart recovers it:
 *
 *	MPI_Init(&argc, &argv);
 *	ft_protect(0, &iter, sizeof(iter));
 *	ft_protect(1, grid, n * sizeof(double));
 *	if (ft_restarted())
 *		ft_recover();
 *	for (; iter < max; iter++) {
 *		step(grid);
 *		ft_checkpoint();
 *	}
 *
 * Checkpoints are taken only in a job run by ftrun with --ckpt-dir
 * (elsewhere ft_checkpoint() returns 0 and ft_restarted() 0), and
 * ft_checkpoint(), ft_restarted() and ft_recover() are collective over
 * MPI_COMM_WORLD: every rank calls them, in the same order.
 *
 * ft_restarted() has one meaning: this process starts over.  It is 1
 * too in a new process that FT-MPI's REBUILD started in a failed one's
 * place (ftrun --ft ftmpi --comm-mode rebuild, ft-ftmpi(3)); there it
 * is local, not collective, and its state comes from the survivors.
 */
#ifndef FT_H
#define FT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Protect size bytes at ptr as region id (>= 0): 0, or -1 (errno). */
int	ft_protect(int id, void *ptr, size_t size);
/* Forget region id: 0, or -1 if it is not protected. */
int	ft_unprotect(int id);
/* 1 when a checkpoint was saved, 0 when none was due, -1 on error. */
int	ft_checkpoint(void);
/* 1 in a process restarted from a checkpoint, or in a new process of
 * FT-MPI's REBUILD; else 0. */
int	ft_restarted(void);
/* Restore the protected regions from the checkpoint: 0, or -1. */
int	ft_recover(void);

/* What the last checkpoint cost (ft(3)). */
struct ft_ckpt_stat {
	uint64_t	epoch;		/* 0: none yet */
	uint64_t	raw;		/* bytes of regions and state */
	uint64_t	stored;		/* bytes of the image on disk */
	uint64_t	held_ns;	/* the application waited this long */
	uint64_t	durable_epoch;	/* the newest the server holds */
	uint64_t	durable_ns;	/* from its ft_checkpoint() to then */
};
int	ft_checkpoint_stat(struct ft_ckpt_stat *);

#ifdef __cplusplus
}
#endif

#endif
