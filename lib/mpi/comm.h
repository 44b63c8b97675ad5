/* SPDX-License-Identifier: ISC */
/*
 * Communicators, groups, attributes, topologies and info
 * objects inside the MPI layer.  Each communicator owns a pair of
 * context ids: ctx for point-to-point, ctx + 1 for collectives, so the
 * two never match each other's messages.  Context ids are agreed when a
 * communicator is made (the maximum of every member's next free id) and
 * never reused, so no process ever holds two communicators with the
 * same id.  Handles of every kind are checked against registries of
 * live objects, never dereferenced first, so a freed or garbage handle
 * is an error and not a crash.
 */
#ifndef FT_MPI_COMM_H
#define FT_MPI_COMM_H

#include "../include/mpi.h"
#include "../job/job.h"

/*
 * Tags at or above this on a communicator's collective context
 * (ctx + 1) belong to comm.c's own agreement traffic; collectives use
 * tags below it.
 */
#define FT_MPI_COMM_TAG_BASE	0x40000000

/*
 * A set of object addresses, for handle checks: open addressing.  A set
 * filled by ft__mpi_hset_put is a map, with a value for each address.
 */
struct ft_mpi_hset {
	const void	**slot;
	uint32_t	 *val;		/* NULL for a plain set */
	size_t		  n, cap;	/* cap is 0 or a power of two */
};

/* One attribute cached on a communicator. */
struct ft_mpi_attr {
	struct ft_mpi_attr	*next;
	int			 keyval;
	void			*val;
};

/*
 * A process topology.  MPI_CART: the grid and the caller's coordinates.
 * MPI_GRAPH: the whole graph as MPI_Graph_create takes it, and whether
 * every edge has as many edges back (neighbourhood collectives need
 * that).  MPI_DIST_GRAPH: the caller's own edges only, sources in and
 * destinations out, with their weights when weighted.  Arrays that a
 * kind does not use are NULL.
 */
struct ft_mpi_topo {
	int	 kind;		/* MPI_CART, MPI_GRAPH or MPI_DIST_GRAPH */
	int	 ndims;
	int	*dims, *periods, *coords;	/* ndims each */
	int	 nnodes, nedges, symmetric;
	int	*index, *edges;			/* nnodes, nedges */
	int	 indegree, outdegree, weighted;
	int	*sources, *sourceweights;	/* indegree each */
	int	*destinations, *destweights;	/* outdegree each */
};

/*
 * Context ids from here up belong to MPI_Comm_idup (misc.c) and
 * MPIX_Comm_ishrink (ulfm.c), which derive them from one member's own
 * count of calls instead of agreeing on them; the ids agreed in comm.c
 * stay below.  ft__mpi_ctx_own counts a call and returns the index idx
 * (the id is FT_MPI_CTX_IDUP + 2 idx) that no other call of any
 * process gets, or FT_MPI_CTX_OWN_NONE when none is left.  Process q
 * below the universe size U draws v U + q on its v-th call, below
 * FT_MPI_CTX_OWN_SPLIT; process U + b draws from its block, the b-th
 * of FT_MPI_CTX_OWN_BLOCK indices from the split on.
 */
#define FT_MPI_CTX_IDUP		0x80000000u
#define FT_MPI_CTX_OWN_LIMIT	0x3fffffffu
#define FT_MPI_CTX_OWN_SPLIT	0x20000000u
#define FT_MPI_CTX_OWN_BLOCK	0x8000u
#define FT_MPI_CTX_OWN_NONE	UINT32_MAX

_Static_assert((uint64_t)FT_MPI_CTX_OWN_SPLIT + (uint64_t)FT_MPI_CTX_OWN_BLOCK *
    FT_JOB_IDS_PAST_UNIVERSE <= FT_MPI_CTX_OWN_LIMIT,
    "every process id past the universe has a block of context ids");

uint32_t ft__mpi_ctx_own(void);
/* The index the process that drew idx draws n calls after it, or
 * FT_MPI_CTX_OWN_NONE if it has none left by then: the same at every
 * process. */
uint32_t ft__mpi_ctx_after(uint32_t idx, uint32_t n);
/* Count calls so that the next index ft__mpi_ctx_own gives is above
 * idx (a replacement process of FT-MPI's REBUILD, whose dead
 * incarnation drew indices up to there); an index of another
 * process's block moves nothing. */
void	 ft__mpi_ctx_own_above(uint32_t idx);

/*
 * ULFM's state of a communicator (ulfm.c), made on first use: its
 * failed members (world ranks) in the order this process learnt of
 * them, the first nacked of them acknowledged, the agreements so far.
 */
struct ft_mpi_ulfm {
	int		 revoked;
	uint32_t	 seen;		/* of the protocol's list of dead */
	uint32_t	*failed;
	int		 nfailed, capfailed, nacked;
	uint32_t	 seq;
};

struct ft_mpi_comm {
	uint32_t		 ctx;		/* point-to-point context */
	int			 rank, size;
	uint32_t		*world;		/* comm rank -> world rank */
	MPI_Errhandler		 errh;
	char			 name[MPI_MAX_OBJECT_NAME];
	int			 predefined;
	struct ft_mpi_attr	*attrs;		/* newest first */
	struct ft_mpi_topo	*topo;		/* or NULL */
	int			 holds;		/* ft__mpi_comm_hold */
	/*
	 * Intercommunicators (rworld not NULL): rank, size and world
	 * are the local group, point-to-point names the ranks of the
	 * remote group (rsize of them, rworld), and local is the local
	 * group's own intracommunicator, hidden from the application,
	 * on which collectives run their steps within the group.  The
	 * intercommunicator owns it.
	 */
	int			 rsize;
	uint32_t		*rworld;
	MPI_Comm		 local;
	struct ft_mpi_ulfm	*ulfm;		/* or NULL */
	/*
	 * FT-MPI (ftmpi.c, ft-ftmpi(3)): this communicator's modes
	 * (enum ft_ftmpi_comm, _msg; 0: the job's), inherited by the
	 * communicators made from it.  A BLANK communicator with holes
	 * runs its collectives on live, a hidden one of its live members
	 * that it owns.
	 */
	int			 ftmpi_comm, ftmpi_msg;
	MPI_Comm		 live;
	uint32_t		 ulfm_born;	/* failures known when made */
};

/* Is c (a live communicator) an intercommunicator? */
#define FT_MPI_INTER(c)		((c)->rworld != NULL)

/*
 * The ranks point-to-point on c may name: the remote group of an
 * intercommunicator, else c's own group.
 */
static inline int
ft__mpi_comm_peers(MPI_Comm c)
{
	return FT_MPI_INTER(c) ? c->rsize : c->size;
}

/* The world rank of rank r (below ft__mpi_comm_peers) on c. */
static inline uint32_t
ft__mpi_comm_peer(MPI_Comm c, int r)
{
	return FT_MPI_INTER(c) ? c->rworld[r] : c->world[r];
}

struct ft_mpi_group {
	int			 size;
	int			 rank;		/* ours, or MPI_UNDEFINED */
	uint32_t		*world;		/* group rank -> world rank */
	int			 predefined;
};

/*
 * Is comm a live communicator?  Never dereferences a bad handle.  The
 * hidden local communicators of intercommunicators count, so that the
 * collectives may run steps on them.
 */
int	 ft__mpi_comm_ok(MPI_Comm);
/*
 * Is comm a live intracommunicator?  Returns MPI_SUCCESS, else reports
 * MPI_ERR_COMM as call (saying whether comm is not a communicator or
 * is an intercommunicator) and returns it.
 */
int	 ft__mpi_comm_intra(MPI_Comm, const char *call);
/* Is group a live group (MPI_GROUP_EMPTY included)? */
int	 ft__mpi_group_ok(MPI_Group);
/* Is info a live info object (not MPI_INFO_NULL)? */
int	 ft__mpi_info_ok(MPI_Info);

/*
 * Keep comm's memory (ctx, rank, size, world) alive for an operation
 * that outlives the call that started it, such as a nonblocking
 * collective: MPI_Comm_free may come first, and then the handle is no
 * longer valid but the memory stays until the last release.  Each hold
 * needs one release.  Predefined communicators are never freed, and
 * both calls are no-ops for them.
 */
void	 ft__mpi_comm_hold(MPI_Comm);
void	 ft__mpi_comm_release(MPI_Comm);

/*
 * Make a communicator on context ctx from n world ranks (copied), with
 * the caller at index rank, inheriting parent's error handler, and
 * register it.  Returns NULL when out of memory.  MPI_Comm_free (or
 * MPI_Finalize) frees it.
 */
MPI_Comm ft__mpi_comm_new(MPI_Comm parent, uint32_t ctx, const uint32_t *world,
	    int n, int rank);
/*
 * FT-MPI (ftmpi.c).  comm_finish ends a duplicate c of comm as
 * MPI_Comm_dup does (topology, attributes copied; c destroyed on
 * failure) and sets *newcomm; an MPI class, already reported.
 * comm_hide makes c one the application cannot name (a BLANK
 * communicator's live one), and comm_drop_hidden frees such a one.
 */
int	 ft__mpi_comm_finish(const char *call, MPI_Comm comm, MPI_Comm c,
	    MPI_Comm *newcomm);
void	 ft__mpi_comm_hide(MPI_Comm c);
/* Call fn on MPI_COMM_WORLD and on every communicator the application
 * holds. */
void	 ft__mpi_comm_each(void (*fn)(MPI_Comm));
void	 ft__mpi_comm_drop_hidden(MPI_Comm c);

/*
 * The local half of MPI_Comm_dup on an intracommunicator (used by
 * MPI_Comm_idup, which refuses intercommunicators): a communicator on
 * context ctx with comm's ranks, error handler and topology, and
 * comm's attributes copied through their copy functions.  Returns an MPI error class,
 * already reported on comm as call; *newcomm is set only on success.
 */
int	 ft__mpi_comm_dup_local(const char *call, MPI_Comm, uint32_t ctx,
	    MPI_Comm *newcomm);

/*
 * Make an intercommunicator on contexts ctx and ctx + 1, whose local
 * group is n world ranks with the caller at index rank, and whose
 * remote group is rn world ranks (both copied), with its hidden local
 * intracommunicator on ctx + 2 and ctx + 3; it inherits parent's error
 * handler.  Returns NULL when out of memory.  (MPIX_Comm_shrink of an
 * intercommunicator, ulfm.c, moves the hidden one's ids elsewhere.)
 */
MPI_Comm ft__mpi_comm_new_inter(MPI_Comm parent, uint32_t ctx,
	    const uint32_t *world, int n, int rank, const uint32_t *rworld,
	    int rn);

/*
 * Context ids: the next one free here, and taking the n ids from ctx
 * on (ctx at least the next free one), which every member of a new
 * communicator does with the same ctx.  ctx_take returns 0, or -1 when
 * the ids would run out (and takes none).
 */
uint32_t ft__mpi_ctx_next(void);
int	 ft__mpi_ctx_take(uint32_t ctx, uint32_t n);

/*
 * All-gather n words from each of the m members of comm, for the
 * calls that make communicators: members[i] is the comm rank of member
 * i (NULL: comm rank i), me is the caller's member index.  Travels on
 * comm's collective context with tags gtag and btag, at or above
 * FT_MPI_COMM_TAG_BASE.  On success *out is the table (member i's
 * words at i * n), which the caller frees.  Returns an MPI error
 * class, already reported on comm.
 */
int	 ft__mpi_comm_allgather(MPI_Comm, const char *call, const int *members,
	    int m, int me, const uint32_t *mine, int n, int gtag, int btag,
	    uint32_t **out);
/*
 * Give up on nr requests after a failure: cancel the receives not yet
 * matched, and free the requests (an array from calloc) and buf only
 * when the engine no longer refers to them; else leave them behind.
 */
void	 ft__mpi_reqs_abandon(struct ft_mpi_req *, int nr, void *buf);

/*
 * inter.c: MPI_Comm_dup, MPI_Comm_split and MPI_Comm_create on an
 * intercommunicator, collective over both groups.  err and why are
 * the caller's argument error, agreed with every other member, as for
 * ft__mpi_comm_split.  Return an MPI error class, already reported on
 * comm; on success *newcomm is set (MPI_COMM_NULL where the standard
 * says so).
 */
int	 ft__mpi_inter_dup(MPI_Comm, const char *call, int err,
	    const char *why, MPI_Comm *newcomm);
int	 ft__mpi_inter_split(MPI_Comm, int color, int key, int err,
	    const char *why, const char *call, MPI_Comm *newcomm);
int	 ft__mpi_inter_create(MPI_Comm, MPI_Group, int err, const char *why,
	    MPI_Comm *newcomm);

/*
 * A new group of the n world ranks, into *group (not NULL: else
 * MPI_ERR_ARG), for call on comm.  Returns an MPI error class, already
 * reported on comm.
 */
int	 ft__mpi_comm_group_of(MPI_Comm, const char *call,
	    const uint32_t *world, int n, MPI_Group *group);

/*
 * MPI_Comm_split's order: by key, ties by rank in the parent; a
 * comparison function for qsort(3).
 */
struct ft_mpi_slot {
	int	key, rank;
};
int	 ft__mpi_slot_cmp(const void *, const void *);

/*
 * The core of MPI_Comm_split, for topo.c: collective over comm.  err is
 * the caller's argument error (an MPI error class, or 0, with why
 * saying what is wrong), agreed with the other ranks so that every rank
 * fails together; call names the MPI call for messages.  On success
 * *newcomm is the caller's new communicator or MPI_COMM_NULL (color
 * MPI_UNDEFINED); on failure *newcomm is untouched.  Returns an MPI
 * error class, already reported on comm.  On an intercommunicator it
 * is ft__mpi_inter_split.
 */
int	 ft__mpi_comm_split(MPI_Comm, int color, int key, int err,
	    const char *why, const char *call, MPI_Comm *newcomm);

/*
 * Compare two lists of n world ranks: MPI_IDENT if equal, MPI_SIMILAR
 * if equal as sets, else MPI_UNEQUAL; -1 when out of memory.
 */
int	 ft__mpi_ranks_compare(const uint32_t *, const uint32_t *, int n);

/*
 * A group of n world ranks (copied); NULL when out of memory.  n == 0
 * gives MPI_GROUP_EMPTY.  MPI_Group_free frees it.
 */
MPI_Group ft__mpi_group_new(const uint32_t *world, int n);

/* Copy a topology; NULL when out of memory.  topo_free frees. */
struct ft_mpi_topo *ft__mpi_topo_dup(const struct ft_mpi_topo *);
void	 ft__mpi_topo_free(struct ft_mpi_topo *);

/*
 * The address sets behind the handle checks.  add returns 0, or -1
 * when out of memory; release frees the set's storage, not the
 * objects.
 */
int	 ft__mpi_hset_add(struct ft_mpi_hset *, const void *);
void	 ft__mpi_hset_del(struct ft_mpi_hset *, const void *);
int	 ft__mpi_hset_has(const struct ft_mpi_hset *, const void *);
void	 ft__mpi_hset_release(struct ft_mpi_hset *);
/*
 * The same sets as maps (use put on an empty set, never add): put adds
 * p with value v or sets its value, returning 0, or -1 when out of
 * memory; get says whether p is there, and sets *v if so.
 */
int	 ft__mpi_hset_put(struct ft_mpi_hset *, const void *, uint32_t v);
int	 ft__mpi_hset_get(const struct ft_mpi_hset *, const void *,
	    uint32_t *v);

/*
 * MPI_Finalize's steps: comm_fini_begin runs first, while MPI still
 * works, and deletes MPI_COMM_SELF's attributes (calling their delete
 * functions, newest first, as the standard asks); comm_fini_end runs
 * last and frees every communicator, group, info object and keyval
 * still held, without calling anything.
 */
void	 ft__mpi_comm_fini_begin(void);
void	 ft__mpi_comm_fini_end(void);
void	 ft__mpi_group_fini(void);
void	 ft__mpi_info_fini(void);

#endif
