/* SPDX-License-Identifier: ISC */
/*
 * Inside lib/job: adding processes to a running job.  launch.c runs
 * the job and exports to spawn.c the few calls below, which add
 * processes, send them frames and ask what became of them; spawn.c
 * keeps the dynamic processes' own state (worlds, the links between
 * them made by spawns and ports, port and service names) and answers
 * the ranks' SPAWN and PORT frames.  FT-MPI's REBUILD and ULFM's
 * respawn will start processes through ft__launch_add too.
 */
#ifndef FT_JOB_SPAWN_H
#define FT_JOB_SPAWN_H

#include "job.h"

struct launcher;
struct ft_spawner;

/* One process to add to a running job. */
struct ft_launch_proc {
	char		 *prog;		/* the program's path, found */
	char		**argv;		/* program and arguments, NULL-ended */
	char		**env;		/* more "VAR=VALUE", NULL-ended */
	char		 *wdir;		/* its working directory, or NULL */
	uint32_t	  rank, size;	/* FT_RANK and FT_SIZE: in its world */
	char		  label[24];	/* "W:R", in output tags and messages */
};

/*
 * Start n processes (whose specs must stay valid until the job ends) as
 * the next process ids, *first on.  When one cannot be started (fork,
 * or exec failed: errno), those started before it are cancelled, and
 * -1 is returned with *failed its index.  Returns 0 or -1.
 */
int	 ft__launch_add(struct launcher *, const struct ft_launch_proc *,
	    uint32_t n, uint32_t *first, uint32_t *failed);
/*
 * Process id ends without counting: its exit is not a failure, nor in
 * the job's status; with kill, it is sent SIGKILL.
 */
void	 ft__launch_cancel(struct launcher *, uint32_t id, int kill);
/* Queue a frame to process id, when it is connected. */
void	 ft__launch_send(struct launcher *, uint32_t id, const struct ft_wbuf *);

/* What the launcher knows of process id. */
#define FT_LS_REGISTERED	0x1u
#define FT_LS_FINALIZED		0x2u
#define FT_LS_EXITED		0x4u	/* or failed, or cancelled */
#define FT_LS_TABLED		0x8u	/* the initial TABLE went out */
unsigned int ft__launch_state(const struct launcher *, uint32_t id);
/* Its address (pid 0 until it registered). */
const struct ft_rank_addr *ft__launch_addr(const struct launcher *,
	    uint32_t id);
/* Processes in the job so far, and R (replicas a rank). */
uint32_t ft__launch_nprocs(const struct launcher *);
uint32_t ft__launch_nrep(const struct launcher *);
const struct ft_launch *ft__launch_conf(const struct launcher *);
/* s as the body of a JSON string. */
void	 ft__launch_json(const char *s, char *out, size_t outsize);
/* One JSON event line (see ftrun(1), --events). */
void	 ft__launch_event(struct launcher *, const char *fmt, ...)
	    FT_PRINTF(2, 3);

/*
 * spawn.c, called by launch.c.  new returns NULL when out of memory;
 * frame handles SPAWN and PORT frames of process id (-1: drop its
 * connection); registered is told of every REGISTER of a process that
 * ft__launch_add started; exited of every exit, and returns 1 when the
 * exit belongs to a spawn that had not finished (the spawn fails, the
 * exit is no failure of the job); worlds says whether any process was
 * ever spawned, and then finalize releases the processes whose every
 * connected process has finalized.
 */
struct ft_spawner *ft__spawn_new(struct launcher *, uint32_t n0,
	    uint32_t universe);
void	 ft__spawn_free(struct ft_spawner *);
int	 ft__spawn_frame(struct ft_spawner *, uint32_t id, const struct ft_hdr *,
	    const uint8_t *body);
void	 ft__spawn_registered(struct ft_spawner *, uint32_t id);
int	 ft__spawn_exited(struct ft_spawner *, uint32_t id);
int	 ft__spawn_worlds(const struct ft_spawner *);
void	 ft__spawn_finalize(struct ft_spawner *);

#endif
