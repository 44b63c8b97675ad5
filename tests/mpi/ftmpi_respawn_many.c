/* SPDX-License-Identifier: ISC */
/*
 * ftmpi_respawn_many: ulfm_respawn_many under ftrun --ft ftmpi, where
 * its MPI_Comm_dup of the world each round is FT-MPI's recovery (with no
 * failure), drawing its context ids from the newest process's block; 16
 * rounds, past a universe of 8 at 4 ranks.
 */
#define NAME "ftmpi_respawn_many"
#define ROUNDS	16
#include "ulfm_respawn_many.c"
