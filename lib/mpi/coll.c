/* SPDX-License-Identifier: ISC */
/*
 * Collective operations: argument checks with the right error class,
 * and the algorithms, written as schedules of point-to-point transfers
 * on the collective context (op.h, run by icoll.c), so that whatever
 * protects point-to-point protects them too.  The same builders serve
 * the blocking calls here and the nonblocking ones in icoll.c.
 *
 * Algorithms, for n ranks (any n, not only powers of two):
 *   barrier         dissemination, ceil(log2 n) rounds
 *   bcast           binomial tree; long messages to more than 8 ranks:
 *                   binomial scatter then ring allgather (van de Geijn),
 *                   which moves about 2M per rank instead of M log2 n
 *                   through the root.  With few ranks, or ranks sharing
 *                   cores, the tree wins: it moves (n - 1)M in all, in
 *                   fewer, larger messages (measured with bench/coll.sh).
 *   reduce          binomial tree; non-commutative operations use the
 *                   tree rooted at rank 0, whose subtrees are runs of
 *                   consecutive ranks combined in order, and rank 0
 *                   sends the result to the root
 *   allreduce       recursive doubling (order kept for non-commutative
 *                   operations); long vectors with commutative ones:
 *                   Rabenseifner's reduce-scatter by recursive halving
 *                   then allgather by recursive doubling.  Ranks beyond
 *                   the largest power of two fold into a neighbour.
 *   gather/scatter  binomial tree on packed bytes for short messages,
 *                   linear (straight into the user's buffers) for long
 *   allgather       recursive doubling (powers of two) or Bruck for
 *                   short messages, ring for long ones
 *   alltoall        all transfers at once for short messages, pairwise
 *                   exchange for long ones
 *   reduce_scatter  every rank sends each block to its owner, which
 *                   combines them in rank order
 *   scan, exscan    recursive doubling, in rank order
 * The v and w variants are linear (ring for allgatherv).
 *
 * FT-MPI's BLANK (ftmpi.c, ft-ftmpi(3)): on a communicator with holes
 * a schedule runs among its live members (s->comm), the algorithms
 * above at their number; the user's buffers, counts and displacements
 * keep one entry per rank of the communicator named (s->holes), and
 * blank_map says which is a live rank's, so a hole's block is never
 * read, sent or written.
 */
#include <limits.h>
#include <stdlib.h>

#include "op.h"

/* Tag ranges, one per collective. */
enum {
	T_BARRIER = 1,
	T_BCAST,
	T_REDUCE,
	T_ALLREDUCE,
	T_GATHER,
	T_GATHERV,
	T_SCATTER,
	T_SCATTERV,
	T_ALLGATHER,
	T_ALLGATHERV,
	T_ALLTOALL,
	T_ALLTOALLV,
	T_ALLTOALLW,
	T_REDSCAT,
	T_SCAN,
};

/* Switch-over points between algorithms, in bytes. */
#define BCAST_LONG	(512u << 10)	/* whole message */
#define BCAST_LONG_RANKS 8		/* and more ranks than this */
#define ALLREDUCE_LONG	(4u << 10)	/* whole vector */
#define GATHER_SHORT	(16u << 10)	/* all blocks together */
#define ALLGATHER_SHORT	(64u << 10)	/* all blocks together */
#define ALLTOALL_SHORT	(1u << 20)	/* everything one rank sends */

#define TAG(kind, step)	FT_COLL_TAG(kind, step)

/* Element i of a buffer of type t (buf may be MPI_BOTTOM). */
static char *
at(void *buf, MPI_Aint i, MPI_Datatype t)
{
	return ft__mpi_addr(buf, i * t->extent);
}

static const char *
cat(const void *buf, MPI_Aint i, MPI_Datatype t)
{
	return ft__mpi_addr(buf, i * t->extent);
}

static int
pof2_floor(int n)
{
	int p = 1;

	while (p <= n / 2)
		p <<= 1;
	return p;
}

static int
is_pof2(int n)
{
	return n > 0 && (n & (n - 1)) == 0;
}

/* Argument checks: they report on s->comm as s->call. */
static int
check_comm(struct ft_coll_sched *s)
{
	if (!ft__mpi_comm_ok(s->comm))
		return ft__mpi_err(s->comm, MPI_ERR_COMM, s->call,
		    "invalid communicator");
	return MPI_SUCCESS;
}

/*
 * FT-MPI's BLANK (ftmpi.c): a collective on a communicator with holes
 * runs on its live members (s->comm), so its root, a rank of the
 * communicator named (s->holes), becomes a rank among them.
 */
static int
check_root(struct ft_coll_sched *s, int *root)
{
	MPI_Comm named = s->holes != NULL ? s->holes : s->comm;
	int i, r;

	if (*root < 0 || *root >= named->size)
		return ft__mpi_err(s->comm, MPI_ERR_ROOT, s->call,
		    "invalid root %d in a communicator of size %d", *root,
		    named->size);
	if (s->holes == NULL)
		return MPI_SUCCESS;
	for (i = 0, r = -1; i < s->comm->size && r < 0; i++)
		if (s->comm->world[i] == named->world[*root])
			r = i;
	if (r < 0)
		return ft__mpi_err(s->comm, MPI_ERR_ROOT, s->call,
		    "root %d is a hole: its process failed and the "
		    "communicator was recovered in mode BLANK", *root);
	*root = r;
	return MPI_SUCCESS;
}

/*
 * BLANK: a collective that lays out a block per rank runs on the live
 * members (s->comm), but the user's buffers, counts and displacements
 * have one entry for every rank of the communicator named (s->holes),
 * holes too.  map[i] is the rank named of live rank i (the live members
 * keep their order), *size the size named.  A hole's block is neither
 * read nor written, nor sent.  Without holes *map is NULL, the
 * identity.
 */
static int
blank_map(struct ft_coll_sched *s, const int **map, int *size)
{
	MPI_Comm named = s->holes;
	int *m, i, j;

	*map = NULL;
	*size = s->comm->size;
	if (named == NULL)
		return MPI_SUCCESS;
	if ((m = ft__coll_tmp(s, (int)(s->comm->size * sizeof(*m)),
	    NULL)) == NULL)
		return ft__coll_built(s);
	for (i = 0, j = 0; i < s->comm->size; i++, j++) {
		while (j < named->size && named->world[j] != s->comm->world[i])
			j++;
		if (j == named->size)
			return ft__mpi_err(s->comm, MPI_ERR_INTERN, s->call,
			    "live member %d is not in the communicator", i);
		m[i] = j;
	}
	*map = m;
	*size = named->size;
	return MPI_SUCCESS;
}

/* The size and our rank in the communicator named. */
static int
named_size(const struct ft_coll_sched *s)
{
	return s->holes != NULL ? s->holes->size : s->comm->size;
}

static int
named_rank(const struct ft_coll_sched *s)
{
	return s->holes != NULL ? s->holes->rank : s->comm->rank;
}

/* The block, in the user's buffers, of live rank i. */
#define BLK(map, i)	((map) != NULL ? (map)[i] : (i))

/* A buffer of count elements of type; what names it in messages. */
static int
check_data(struct ft_coll_sched *s, const void *buf, int count,
    MPI_Datatype type, const char *what)
{
	if (count < 0)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "negative %s count %d", what, count);
	if (!ft__mpi_type_ok(type))
		return ft__mpi_err(s->comm, MPI_ERR_TYPE, s->call,
		    "invalid %s datatype", what);
	if (buf == MPI_IN_PLACE)
		return ft__mpi_err(s->comm, MPI_ERR_BUFFER, s->call,
		    "MPI_IN_PLACE is not allowed as the %s buffer", what);
	/* Derived types may address absolute memory from MPI_BOTTOM. */
	if (buf == NULL && count > 0 && type->predefined && type->size > 0)
		return ft__mpi_err(s->comm, MPI_ERR_BUFFER, s->call,
		    "NULL %s buffer with count %d", what, count);
	return MPI_SUCCESS;
}

/* A temporary of n blocks of count elements must be countable in an int. */
static int
check_total(struct ft_coll_sched *s, int n, int count)
{
	if (count > 0 && n > INT_MAX / count)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "%d ranks of %d elements are more than an int can count",
		    n, count);
	return MPI_SUCCESS;
}

/* Counts and displacements, for the v and w variants. */
static int
check_counts(struct ft_coll_sched *s, const int *counts, const int *displs,
    int n, const char *what)
{
	int i;

	if (counts == NULL || displs == NULL)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "NULL %s counts or displacements", what);
	for (i = 0; i < n; i++)
		if (counts[i] < 0)
			return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
			    "negative %s count %d for rank %d", what,
			    counts[i], i);
	return MPI_SUCCESS;
}

static int
check_op(struct ft_coll_sched *s, MPI_Op op, MPI_Datatype type)
{
	if (!ft__mpi_op_ok(op))
		return ft__mpi_err(s->comm, MPI_ERR_OP, s->call,
		    "invalid operation");
	if (ft__mpi_op_check(op, type) != MPI_SUCCESS)
		return ft__mpi_err(s->comm, MPI_ERR_OP, s->call,
		    "%s is not defined for %s", op->name,
		    type->name != NULL ? type->name : "this datatype");
	return MPI_SUCCESS;
}

static int
not_in_place(struct ft_coll_sched *s, const void *buf, const char *what)
{
	if (buf == MPI_IN_PLACE)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "MPI_IN_PLACE is not allowed as the %s buffer here", what);
	return MPI_SUCCESS;
}

/* What one rank sends must fit what the receiver expects of it. */
static int
check_fit(struct ft_coll_sched *s, int scount, MPI_Datatype stype,
    int rcount, MPI_Datatype rtype)
{
	if ((size_t)scount * stype->size > (size_t)rcount * rtype->size)
		return ft__mpi_err(s->comm, MPI_ERR_TRUNCATE, s->call,
		    "%zu bytes sent do not fit in %zu bytes",
		    (size_t)scount * stype->size,
		    (size_t)rcount * rtype->size);
	return MPI_SUCCESS;
}

int
ft__coll_check_data(struct ft_coll_sched *s, const void *buf, int count,
    MPI_Datatype type, const char *what)
{
	return check_data(s, buf, count, type, what);
}

int
ft__coll_check_total(struct ft_coll_sched *s, int n, int count)
{
	return check_total(s, n, count);
}

int
ft__coll_check_counts(struct ft_coll_sched *s, const int *counts,
    const int *displs, int n, const char *what)
{
	return check_counts(s, counts, displs, n, what);
}

int
ft__coll_check_op(struct ft_coll_sched *s, MPI_Op op, MPI_Datatype type)
{
	return check_op(s, op, type);
}

#define TRY(expr)	FT_COLL_TRY(expr)

/* An intercommunicator's collectives are intercoll.c's. */
#define INTER(s, expr)							\
	do {								\
		if (FT_MPI_INTER((s)->comm))				\
			return (expr);					\
	} while (0)

/* Barrier: in round k, rank r signals r + 2^k and hears from r - 2^k. */
int
ft__coll_barrier(struct ft_coll_sched *s)
{
	int n, r, k, step;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_barrier(s));
	n = s->comm->size;
	r = s->comm->rank;
	for (k = 1, step = 0; k < n; k <<= 1, step++) {
		ft__coll_send(s, NULL, 0, MPI_BYTE, (r + k) % n,
		    TAG(T_BARRIER, step));
		ft__coll_recv(s, NULL, 0, MPI_BYTE, (r - k + n) % n,
		    TAG(T_BARRIER, step));
		ft__coll_round(s);
	}
	return ft__coll_built(s);
}

/* Binomial broadcast of count elements of type over ranks from root. */
static void
bcast_binomial(struct ft_coll_sched *s, void *buf, int count,
    MPI_Datatype type, int root, int tag)
{
	int n = s->comm->size, v = (s->comm->rank - root + n) % n, mask;

	for (mask = 1; mask < n; mask <<= 1)
		if (v & mask) {
			ft__coll_recv(s, buf, count, type,
			    (v - mask + root) % n, tag);
			ft__coll_round(s);
			break;
		}
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n)
			ft__coll_send(s, buf, count, type,
			    (v + mask + root) % n, tag);
	ft__coll_round(s);
}

/*
 * Long broadcast (van de Geijn): the root scatters n chunks of the
 * message down a binomial tree, then a ring allgather assembles them
 * everywhere.  Each rank moves about twice the message, instead of
 * log2 n times.
 */
static void
bcast_long(struct ft_coll_sched *s, void *buf, int count, MPI_Datatype type,
    int root)
{
	int n = s->comm->size, r = s->comm->rank, v = (r - root + n) % n;
	size_t bytes = (size_t)count * type->size, chunk;
	int mask, m, sub, i, left, right;
	MPI_Aint off = 0;
	int dense;
	char *data;

#define CHUNK_OFF(c)							\
	((size_t)(c) * chunk < bytes ? (size_t)(c) * chunk : bytes)
#define CHUNK_LEN(c, k)	((int)(CHUNK_OFF((c) + (k)) - CHUNK_OFF(c)))
	if ((dense = ft__mpi_type_dense(type, count, &off)))
		data = ft__mpi_addr(buf, off);
	else {
		if ((data = ft__coll_tmp(s, (int)bytes, NULL)) == NULL)
			return;
		if (r == root)
			ft__coll_copy(s, buf, count, type, data, (int)bytes,
			    MPI_BYTE);
	}
	chunk = (bytes + (size_t)n - 1) / (size_t)n;

	/* Scatter: v receives the chunks of its subtree [v, v + sub). */
	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		;
	if (v != 0) {
		sub = mask < n - v ? mask : n - v;
		if (CHUNK_LEN(v, sub) > 0)
			ft__coll_recv(s, data + CHUNK_OFF(v), CHUNK_LEN(v, sub),
			    MPI_BYTE, (v - mask + root) % n, TAG(T_BCAST, 0));
		ft__coll_round(s);
	}
	for (m = mask >> 1; m > 0; m >>= 1) {
		if (v + m >= n)
			continue;
		sub = m < n - v - m ? m : n - v - m;
		if (CHUNK_LEN(v + m, sub) > 0)
			ft__coll_send(s, data + CHUNK_OFF(v + m),
			    CHUNK_LEN(v + m, sub), MPI_BYTE,
			    (v + m + root) % n, TAG(T_BCAST, 0));
	}
	ft__coll_round(s);

	/* Ring allgather of the chunks, in ranks relative to root. */
	left = (v - 1 + n) % n;
	right = (v + 1) % n;
	for (i = 0; i < n - 1; i++) {
		int sc = (v - i + n) % n, rc = (v - i - 1 + n) % n;

		if (CHUNK_LEN(sc, 1) > 0)
			ft__coll_send(s, data + CHUNK_OFF(sc), CHUNK_LEN(sc, 1),
			    MPI_BYTE, (right + root) % n, TAG(T_BCAST, 1 + i));
		if (CHUNK_LEN(rc, 1) > 0)
			ft__coll_recv(s, data + CHUNK_OFF(rc), CHUNK_LEN(rc, 1),
			    MPI_BYTE, (left + root) % n, TAG(T_BCAST, 1 + i));
		ft__coll_round(s);
	}
	if (!dense && r != root)
		ft__coll_copy(s, data, (int)bytes, MPI_BYTE, buf, count, type);
#undef CHUNK_OFF
#undef CHUNK_LEN
}

int
ft__coll_bcast(struct ft_coll_sched *s, void *buf, int count,
    MPI_Datatype type, int root)
{
	size_t bytes;
	int n;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_bcast(s, buf, count, type, root));
	TRY(check_root(s, &root));
	if (buf == MPI_IN_PLACE)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "MPI_IN_PLACE is not allowed");
	TRY(check_data(s, buf, count, type, "message"));
	n = s->comm->size;
	bytes = (size_t)count * type->size;
	if (n == 1 || bytes == 0)
		return ft__coll_built(s);
	if (bytes >= BCAST_LONG && n > BCAST_LONG_RANKS && bytes <= INT_MAX)
		bcast_long(s, buf, count, type, root);
	else
		bcast_binomial(s, buf, count, type, root, TAG(T_BCAST, 0));
	return ft__coll_built(s);
}

/*
 * Binomial reduction to root.  Commutative operations use the tree over
 * ranks relative to root.  The others use the tree rooted at rank 0:
 * the subtree of rank v is the run of ranks [v, v + 2^k), and v
 * combines its data with its children's from the nearest up, so the
 * order of ranks is kept; rank 0 then sends the result to root.
 */
static void
reduce_tree(struct ft_coll_sched *s, const void *sbuf, void *rbuf, int count,
    MPI_Datatype type, MPI_Op op, int root, int tag)
{
	int n = s->comm->size, r = s->comm->rank;
	int commute = op->commute, troot = commute ? root : 0;
	int v = (r - troot + n) % n, mask, nch = 0, ch[32], i;
	const void *own = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
	const void *acc = own;
	void *accw, *t[2];

	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		if (v + mask < n)
			ch[nch++] = (v + mask + troot) % n;
	if (nch > 0 && commute) {
		/* Combine into our own copy, as children's data arrives. */
		if (r == root)
			accw = rbuf;
		else if ((accw = ft__coll_tmp(s, count, type)) == NULL)
			return;
		ft__coll_copy(s, own, count, type, accw, count, type);
		t[0] = ft__coll_tmp(s, count, type);
		t[1] = nch > 1 ? ft__coll_tmp(s, count, type) : NULL;
		if (t[0] == NULL || (nch > 1 && t[1] == NULL))
			return;
		ft__coll_recv(s, t[0], count, type, ch[0], tag);
		ft__coll_round(s);
		for (i = 0; i < nch; i++) {
			if (i + 1 < nch)
				ft__coll_recv(s, t[(i + 1) & 1], count, type,
				    ch[i + 1], tag);
			ft__coll_reduce(s, t[i & 1], accw, count, type, op);
			if (i + 1 < nch)
				ft__coll_round(s);
		}
		acc = accw;
	} else if (nch > 0) {
		/* Each child's run follows ours: acc = acc op child. */
		for (i = 0; i < nch; i++) {
			if ((accw = ft__coll_tmp(s, count, type)) == NULL)
				return;
			ft__coll_recv(s, accw, count, type, ch[i], tag);
			ft__coll_round(s);
			ft__coll_reduce(s, acc, accw, count, type, op);
			acc = accw;
		}
	}
	if (v != 0)
		ft__coll_send(s, acc, count, type, (v - mask + troot) % n, tag);
	ft__coll_round(s);
	if (troot == root) {
		if (r == root)
			ft__coll_copy(s, acc, count, type, rbuf, count, type);
		return;
	}
	if (r == troot)
		ft__coll_send(s, acc, count, type, root, tag + 1);
	else if (r == root)
		ft__coll_recv(s, rbuf, count, type, troot, tag + 1);
	ft__coll_round(s);
}

int
ft__coll_reduce_build(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    int count, MPI_Datatype type, MPI_Op op, int root)
{
	TRY(check_comm(s));
	INTER(s, ft__coll_inter_reduce(s, sbuf, rbuf, count, type, op,
	    root));
	TRY(check_root(s, &root));
	if (s->comm->rank == root) {
		TRY(check_data(s, rbuf, count, type, "receive"));
		if (sbuf != MPI_IN_PLACE)
			TRY(check_data(s, sbuf, count, type, "send"));
	} else {
		TRY(not_in_place(s, sbuf, "send"));
		TRY(check_data(s, sbuf, count, type, "send"));
	}
	TRY(check_op(s, op, type));
	if (count == 0)
		return ft__coll_built(s);
	reduce_tree(s, sbuf, rbuf, count, type, op, root, TAG(T_REDUCE, 0));
	return ft__coll_built(s);
}

/*
 * The tag of the last step, which ranks that sat out reach after fewer
 * steps than the others.
 */
#define FOLD_BACK	0xfffff

/* The real rank of rank nr among the first pof2 after folding. */
static int
unfold(int nr, int rem)
{
	return nr < rem ? nr * 2 + 1 : nr + rem;
}

/*
 * Recursive doubling on rbuf, which holds our data.  With rem ranks
 * beyond the largest power of two pof2, each even rank below 2 * rem
 * first hands its data to the odd rank above it, sits out, and gets
 * the result back at the end.  Ranks keep their order throughout, and
 * the lower side's data always goes on the left.
 */
static void
allreduce_rd(struct ft_coll_sched *s, void *rbuf, int count,
    MPI_Datatype type, MPI_Op op)
{
	int n = s->comm->size, r = s->comm->rank;
	int pof2 = pof2_floor(n), rem = n - pof2, nr, mask, dst, step = 1;
	void *acc = rbuf, *other, *t;

	if ((other = ft__coll_tmp(s, count, type)) == NULL)
		return;
	if (r < 2 * rem) {
		if (r % 2 == 0) {
			ft__coll_send(s, acc, count, type, r + 1,
			    TAG(T_ALLREDUCE, 0));
			nr = -1;
		} else {
			ft__coll_recv(s, other, count, type, r - 1,
			    TAG(T_ALLREDUCE, 0));
			ft__coll_round(s);
			ft__coll_reduce(s, other, acc, count, type, op);
			nr = r / 2;
		}
		ft__coll_round(s);
	} else
		nr = r - rem;
	if (nr >= 0)
		for (mask = 1; mask < pof2; mask <<= 1, step++) {
			dst = unfold(nr ^ mask, rem);
			ft__coll_send(s, acc, count, type, dst,
			    TAG(T_ALLREDUCE, step));
			ft__coll_recv(s, other, count, type, dst,
			    TAG(T_ALLREDUCE, step));
			ft__coll_round(s);
			if (dst < r || op->commute)
				ft__coll_reduce(s, other, acc, count, type, op);
			else {
				ft__coll_reduce(s, acc, other, count, type, op);
				t = acc;
				acc = other;
				other = t;
			}
		}
	ft__coll_copy(s, acc, count, type, rbuf, count, type);
	if (r < 2 * rem) {
		if (r % 2)
			ft__coll_send(s, rbuf, count, type, r - 1,
			    TAG(T_ALLREDUCE, FOLD_BACK));
		else
			ft__coll_recv(s, rbuf, count, type, r + 1,
			    TAG(T_ALLREDUCE, FOLD_BACK));
	}
	ft__coll_round(s);
}

/*
 * Rabenseifner's allreduce, for commutative operations on long vectors
 * (count >= pof2): the vector is cut into pof2 blocks; a reduce-scatter
 * by recursive halving leaves each rank one reduced block, an allgather
 * by recursive doubling brings them all back.  Each rank sends and
 * receives about twice the vector, whatever n.  Folding as in
 * allreduce_rd.  The indices follow MPICH's formulation.
 */
static void
allreduce_rab(struct ft_coll_sched *s, void *rbuf, int count,
    MPI_Datatype type, MPI_Op op)
{
	int n = s->comm->size, r = s->comm->rank;
	int pof2 = pof2_floor(n), rem = n - pof2, nr, mask, dst, newdst;
	int send_idx, recv_idx, last_idx, scnt, rcnt, i, step = 1;
	int *cnts, *disps;
	void *tmp;

	if ((tmp = ft__coll_tmp(s, count, type)) == NULL)
		return;
	if ((cnts = calloc((size_t)pof2 * 2, sizeof(int))) == NULL) {
		s->err = MPI_ERR_NO_MEM;
		return;
	}
	disps = cnts + pof2;
	for (i = 0; i < pof2; i++) {
		cnts[i] = count / pof2 + (i < count % pof2);
		disps[i] = i == 0 ? 0 : disps[i - 1] + cnts[i - 1];
	}
	if (r < 2 * rem) {
		if (r % 2 == 0) {
			ft__coll_send(s, rbuf, count, type, r + 1,
			    TAG(T_ALLREDUCE, 0));
			nr = -1;
		} else {
			ft__coll_recv(s, tmp, count, type, r - 1,
			    TAG(T_ALLREDUCE, 0));
			ft__coll_round(s);
			ft__coll_reduce(s, tmp, rbuf, count, type, op);
			nr = r / 2;
		}
		ft__coll_round(s);
	} else
		nr = r - rem;
	if (nr >= 0) {
		/* Reduce-scatter by recursive halving. */
		send_idx = recv_idx = 0;
		last_idx = pof2;
		for (mask = 1; mask < pof2; step++) {
			newdst = nr ^ mask;
			dst = unfold(newdst, rem);
			scnt = rcnt = 0;
			if (nr < newdst) {
				send_idx = recv_idx + pof2 / (mask * 2);
				for (i = send_idx; i < last_idx; i++)
					scnt += cnts[i];
				for (i = recv_idx; i < send_idx; i++)
					rcnt += cnts[i];
			} else {
				recv_idx = send_idx + pof2 / (mask * 2);
				for (i = send_idx; i < recv_idx; i++)
					scnt += cnts[i];
				for (i = recv_idx; i < last_idx; i++)
					rcnt += cnts[i];
			}
			ft__coll_send(s, at(rbuf, disps[send_idx], type), scnt,
			    type, dst, TAG(T_ALLREDUCE, step));
			ft__coll_recv(s, at(tmp, disps[recv_idx], type), rcnt,
			    type, dst, TAG(T_ALLREDUCE, step));
			ft__coll_round(s);
			ft__coll_reduce(s, at(tmp, disps[recv_idx], type),
			    at(rbuf, disps[recv_idx], type), rcnt, type, op);
			send_idx = recv_idx;
			mask <<= 1;
			/* The last value is needed by the allgather. */
			if (mask < pof2)
				last_idx = recv_idx + pof2 / mask;
		}
		/* Allgather by recursive doubling. */
		for (mask >>= 1; mask > 0; mask >>= 1, step++) {
			newdst = nr ^ mask;
			dst = unfold(newdst, rem);
			scnt = rcnt = 0;
			if (nr < newdst) {
				if (mask != pof2 / 2)
					last_idx += pof2 / (mask * 2);
				recv_idx = send_idx + pof2 / (mask * 2);
				for (i = send_idx; i < recv_idx; i++)
					scnt += cnts[i];
				for (i = recv_idx; i < last_idx; i++)
					rcnt += cnts[i];
			} else {
				recv_idx = send_idx - pof2 / (mask * 2);
				for (i = send_idx; i < last_idx; i++)
					scnt += cnts[i];
				for (i = recv_idx; i < send_idx; i++)
					rcnt += cnts[i];
			}
			ft__coll_send(s, at(rbuf, disps[send_idx], type), scnt,
			    type, dst, TAG(T_ALLREDUCE, step));
			ft__coll_recv(s, at(rbuf, disps[recv_idx], type), rcnt,
			    type, dst, TAG(T_ALLREDUCE, step));
			ft__coll_round(s);
			if (nr > newdst)
				send_idx = recv_idx;
		}
	}
	if (r < 2 * rem) {
		if (r % 2)
			ft__coll_send(s, rbuf, count, type, r - 1,
			    TAG(T_ALLREDUCE, FOLD_BACK));
		else
			ft__coll_recv(s, rbuf, count, type, r + 1,
			    TAG(T_ALLREDUCE, FOLD_BACK));
		ft__coll_round(s);
	}
	free(cnts);
}

int
ft__coll_allreduce(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    int count, MPI_Datatype type, MPI_Op op)
{
	size_t bytes;
	int n;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_allreduce(s, sbuf, rbuf, count, type,
	    op));
	TRY(check_data(s, rbuf, count, type, "receive"));
	if (sbuf != MPI_IN_PLACE)
		TRY(check_data(s, sbuf, count, type, "send"));
	TRY(check_op(s, op, type));
	if (count == 0)
		return ft__coll_built(s);
	n = s->comm->size;
	if (sbuf != MPI_IN_PLACE)
		ft__coll_copy(s, sbuf, count, type, rbuf, count, type);
	bytes = (size_t)count * type->size;
	if (n == 1)
		;
	else if (op->commute && bytes >= ALLREDUCE_LONG &&
	    count >= pof2_floor(n))
		allreduce_rab(s, rbuf, count, type, op);
	else
		allreduce_rd(s, rbuf, count, type, op);
	return ft__coll_built(s);
}

/*
 * Binomial gather of blk bytes from every rank, packed: the subtree of
 * v (relative to root) is [v, v + sub), gathered in that order.
 */
static void
gather_binomial(struct ft_coll_sched *s, const void *own, int ocount,
    MPI_Datatype otype, void *rbuf, int rcount, MPI_Datatype rtype,
    int root, size_t blk, int inplace, const int *map)
{
	int n = s->comm->size, r = s->comm->rank, v = (r - root + n) % n;
	int mask, m, sub, j, i;
	char *t;

	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		;
	sub = v == 0 ? n : (mask < n - v ? mask : n - v);
	if (sub == 1) {
		ft__coll_send(s, own, ocount, otype, (v - mask + root) % n,
		    TAG(T_GATHER, 0));
		ft__coll_round(s);
		return;
	}
	if ((t = ft__coll_tmp(s, (int)(sub * blk), NULL)) == NULL)
		return;
	ft__coll_copy(s, own, ocount, otype, t, (int)blk, MPI_BYTE);
	for (m = 1; m < mask && v + m < n; m <<= 1)
		ft__coll_recv(s, t + m * blk,
		    (int)((m < n - v - m ? m : n - v - m) * blk), MPI_BYTE,
		    (v + m + root) % n, TAG(T_GATHER, 0));
	ft__coll_round(s);
	if (v != 0) {
		ft__coll_send(s, t, (int)(sub * blk), MPI_BYTE,
		    (v - mask + root) % n, TAG(T_GATHER, 0));
		ft__coll_round(s);
		return;
	}
	for (j = 0; j < n; j++) {
		i = (j + root) % n;
		if (i == r && inplace)
			continue;
		ft__coll_copy(s, t + j * blk, (int)blk, MPI_BYTE,
		    at(rbuf, (MPI_Aint)BLK(map, i) * rcount, rtype), rcount,
		    rtype);
	}
}

int
ft__coll_gather(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
	int n, r, i, N, inplace = sbuf == MPI_IN_PLACE;
	const int *map;
	const void *own;
	size_t blk;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_gather(s, sbuf, scount, stype, rbuf,
	    rcount, rtype, root));
	TRY(check_root(s, &root));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	if (r == root) {
		TRY(check_data(s, rbuf, rcount, rtype, "receive"));
		if (!inplace) {
			TRY(check_data(s, sbuf, scount, stype, "send"));
			TRY(check_fit(s, scount, stype, rcount, rtype));
		}
		blk = (size_t)rcount * rtype->size;
	} else {
		TRY(not_in_place(s, sbuf, "send"));
		TRY(check_data(s, sbuf, scount, stype, "send"));
		blk = (size_t)scount * stype->size;
	}
	if (r == root && inplace) {
		own = cat(rbuf, (MPI_Aint)BLK(map, r) * rcount, rtype);
		scount = rcount;
		stype = rtype;
	} else
		own = sbuf;
	if (n > 2 && blk * (size_t)n <= GATHER_SHORT) {
		gather_binomial(s, own, scount, stype, rbuf, rcount, rtype,
		    root, blk, inplace, map);
		return ft__coll_built(s);
	}
	if (r != root)
		ft__coll_send(s, sbuf, scount, stype, root, TAG(T_GATHER, 0));
	else
		for (i = 0; i < n; i++) {
			char *dst = at(rbuf, (MPI_Aint)BLK(map, i) * rcount,
			    rtype);

			if (i != r)
				ft__coll_recv(s, dst, rcount, rtype, i,
				    TAG(T_GATHER, 0));
			else if (!inplace)
				ft__coll_copy(s, sbuf, scount, stype, dst,
				    rcount, rtype);
		}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_gatherv(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
    MPI_Datatype rtype, int root)
{
	int n, r, i, b, N, inplace = sbuf == MPI_IN_PLACE;
	const int *map;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_gatherv(s, sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype, root));
	TRY(check_root(s, &root));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	if (r == root) {
		TRY(check_counts(s, rcounts, displs, N, "receive"));
		for (i = 0; i < N; i++)
			TRY(check_data(s, rbuf, rcounts[i], rtype, "receive"));
		if (!inplace) {
			TRY(check_data(s, sbuf, scount, stype, "send"));
			TRY(check_fit(s, scount, stype, rcounts[BLK(map, r)],
			    rtype));
		}
		for (i = 0; i < n; i++) {
			char *dst = at(rbuf, displs[b = BLK(map, i)], rtype);

			if (i != r)
				ft__coll_recv(s, dst, rcounts[b], rtype, i,
				    TAG(T_GATHERV, 0));
			else if (!inplace)
				ft__coll_copy(s, sbuf, scount, stype, dst,
				    rcounts[b], rtype);
		}
	} else {
		TRY(not_in_place(s, sbuf, "send"));
		TRY(check_data(s, sbuf, scount, stype, "send"));
		ft__coll_send(s, sbuf, scount, stype, root, TAG(T_GATHERV, 0));
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

/* Binomial scatter: the mirror of gather_binomial. */
static void
scatter_binomial(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype,
    int root, size_t blk, int inplace, const int *map)
{
	int n = s->comm->size, r = s->comm->rank, v = (r - root + n) % n;
	int mask, m, sub, j;
	char *t;

	for (mask = 1; mask < n && !(v & mask); mask <<= 1)
		;
	sub = v == 0 ? n : (mask < n - v ? mask : n - v);
	if (sub == 1) {
		ft__coll_recv(s, rbuf, rcount, rtype, (v - mask + root) % n,
		    TAG(T_SCATTER, 0));
		ft__coll_round(s);
		return;
	}
	if ((t = ft__coll_tmp(s, (int)(sub * blk), NULL)) == NULL)
		return;
	if (v == 0)
		for (j = 1; j < n; j++)
			ft__coll_copy(s, cat(sbuf,
			    (MPI_Aint)BLK(map, (j + root) % n) * scount,
			    stype), scount, stype, t + j * blk, (int)blk,
			    MPI_BYTE);
	else {
		ft__coll_recv(s, t, (int)(sub * blk), MPI_BYTE,
		    (v - mask + root) % n, TAG(T_SCATTER, 0));
		ft__coll_round(s);
	}
	for (m = mask >> 1; m > 0; m >>= 1)
		if (v + m < n)
			ft__coll_send(s, t + m * blk,
			    (int)((m < n - v - m ? m : n - v - m) * blk),
			    MPI_BYTE, (v + m + root) % n, TAG(T_SCATTER, 0));
	if (v == 0) {
		if (!inplace)
			ft__coll_copy(s, cat(sbuf, (MPI_Aint)BLK(map, r) *
			    scount, stype), scount, stype, rbuf, rcount,
			    rtype);
	} else
		ft__coll_copy(s, t, (int)blk, MPI_BYTE, rbuf, rcount, rtype);
	ft__coll_round(s);
}

int
ft__coll_scatter(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root)
{
	int n, r, i, N, inplace = rbuf == MPI_IN_PLACE;
	const int *map;
	size_t blk;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_scatter(s, sbuf, scount, stype, rbuf,
	    rcount, rtype, root));
	TRY(check_root(s, &root));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	if (r == root) {
		TRY(check_data(s, sbuf, scount, stype, "send"));
		if (!inplace) {
			TRY(check_data(s, rbuf, rcount, rtype, "receive"));
			TRY(check_fit(s, scount, stype, rcount, rtype));
		}
		blk = (size_t)scount * stype->size;
	} else {
		TRY(not_in_place(s, rbuf, "receive"));
		TRY(check_data(s, rbuf, rcount, rtype, "receive"));
		blk = (size_t)rcount * rtype->size;
	}
	if (n > 2 && blk * (size_t)n <= GATHER_SHORT) {
		scatter_binomial(s, sbuf, scount, stype, rbuf, rcount, rtype,
		    root, blk, inplace, map);
		return ft__coll_built(s);
	}
	if (r != root)
		ft__coll_recv(s, rbuf, rcount, rtype, root, TAG(T_SCATTER, 0));
	else
		for (i = 0; i < n; i++) {
			const char *src = cat(sbuf,
			    (MPI_Aint)BLK(map, i) * scount, stype);

			if (i != r)
				ft__coll_send(s, src, scount, stype, i,
				    TAG(T_SCATTER, 0));
			else if (!inplace)
				ft__coll_copy(s, src, scount, stype, rbuf,
				    rcount, rtype);
		}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_scatterv(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *displs, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root)
{
	int n, r, i, b, N, inplace = rbuf == MPI_IN_PLACE;
	const int *map;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_scatterv(s, sbuf, scounts, displs, stype,
	    rbuf, rcount, rtype, root));
	TRY(check_root(s, &root));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	if (r == root) {
		TRY(check_counts(s, scounts, displs, N, "send"));
		for (i = 0; i < N; i++)
			TRY(check_data(s, sbuf, scounts[i], stype, "send"));
		if (!inplace) {
			TRY(check_data(s, rbuf, rcount, rtype, "receive"));
			TRY(check_fit(s, scounts[BLK(map, r)], stype, rcount,
			    rtype));
		}
		for (i = 0; i < n; i++) {
			const char *src = cat(sbuf, displs[b = BLK(map, i)],
			    stype);

			if (i != r)
				ft__coll_send(s, src, scounts[b], stype, i,
				    TAG(T_SCATTERV, 0));
			else if (!inplace)
				ft__coll_copy(s, src, scounts[b], stype, rbuf,
				    rcount, rtype);
		}
	} else {
		TRY(not_in_place(s, rbuf, "receive"));
		TRY(check_data(s, rbuf, rcount, rtype, "receive"));
		ft__coll_recv(s, rbuf, rcount, rtype, root, TAG(T_SCATTERV, 0));
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

/* Ring allgather of typed blocks: block i is counts[i] at displs[i]. */
static void
allgather_ring(struct ft_coll_sched *s, void *rbuf, const int *counts,
    const int *displs, int count, MPI_Datatype type, int kind,
    const int *map)
{
	int n = s->comm->size, r = s->comm->rank, i, sb, rb;
	int left = (r - 1 + n) % n, right = (r + 1) % n;

	for (i = 0; i < n - 1; i++) {
		sb = BLK(map, (r - i + n) % n);
		rb = BLK(map, (r - i - 1 + n) % n);
		if (counts != NULL) {
			ft__coll_send(s, at(rbuf, displs[sb], type), counts[sb],
			    type, right, TAG(kind, i));
			ft__coll_recv(s, at(rbuf, displs[rb], type), counts[rb],
			    type, left, TAG(kind, i));
		} else {
			ft__coll_send(s, at(rbuf, (MPI_Aint)sb * count, type),
			    count, type, right, TAG(kind, i));
			ft__coll_recv(s, at(rbuf, (MPI_Aint)rb * count, type),
			    count, type, left, TAG(kind, i));
		}
		ft__coll_round(s);
	}
}

/*
 * Bruck's allgather of blk packed bytes per rank: after round k a rank
 * holds the blocks of ranks r .. r + 2^(k+1) - 1, then rotates them in
 * place.
 */
static void
allgather_bruck(struct ft_coll_sched *s, const void *own, int ocount,
    MPI_Datatype otype, void *rbuf, int rcount, MPI_Datatype rtype,
    size_t blk, const int *map)
{
	int n = s->comm->size, r = s->comm->rank, pw, cnt, step, j;
	char *t;

	if ((t = ft__coll_tmp(s, (int)(n * blk), NULL)) == NULL)
		return;
	ft__coll_copy(s, own, ocount, otype, t, (int)blk, MPI_BYTE);
	for (pw = 1, step = 0; pw < n; pw <<= 1, step++) {
		cnt = pw < n - pw ? pw : n - pw;
		ft__coll_send(s, t, (int)(cnt * blk), MPI_BYTE,
		    (r - pw + n) % n, TAG(T_ALLGATHER, step));
		ft__coll_recv(s, t + pw * blk, (int)(cnt * blk), MPI_BYTE,
		    (r + pw) % n, TAG(T_ALLGATHER, step));
		ft__coll_round(s);
	}
	for (j = 1; j < n; j++)
		ft__coll_copy(s, t + j * blk, (int)blk, MPI_BYTE,
		    at(rbuf, (MPI_Aint)BLK(map, (r + j) % n) * rcount, rtype),
		    rcount, rtype);
}

int
ft__coll_allgather(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
	int n, r, mask, step, N, inplace = sbuf == MPI_IN_PLACE;
	const int *map;
	size_t blk;
	char *mine;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_allgather(s, sbuf, scount, stype, rbuf,
	    rcount, rtype));
	TRY(blank_map(s, &map, &N));
	TRY(check_data(s, rbuf, rcount, rtype, "receive"));
	if (!inplace) {
		TRY(check_data(s, sbuf, scount, stype, "send"));
		TRY(check_fit(s, scount, stype, rcount, rtype));
	}
	n = s->comm->size;
	r = s->comm->rank;
	mine = at(rbuf, (MPI_Aint)BLK(map, r) * rcount, rtype);
	blk = (size_t)rcount * rtype->size;
	if (!inplace)
		ft__coll_copy(s, sbuf, scount, stype, mine, rcount, rtype);
	/* Recursive doubling needs the blocks of the live ranks in a row:
	 * with holes, Bruck (through a temporary) or the ring. */
	if (n > 1 && (!is_pof2(n) || map != NULL) &&
	    blk * (size_t)n <= ALLGATHER_SHORT)
		allgather_bruck(s, mine, rcount, rtype, rbuf, rcount, rtype,
		    blk, map);
	else if (n > 1 && blk * (size_t)n <= ALLGATHER_SHORT) {
		/* Recursive doubling: swap aligned runs of 2^k blocks. */
		for (mask = 1, step = 0; mask < n; mask <<= 1, step++) {
			int me = r & ~(mask - 1);
			int peer = (r ^ mask) & ~(mask - 1);

			ft__coll_send(s, at(rbuf, (MPI_Aint)me * rcount, rtype),
			    mask * rcount, rtype, r ^ mask,
			    TAG(T_ALLGATHER, step));
			ft__coll_recv(s, at(rbuf, (MPI_Aint)peer * rcount,
			    rtype), mask * rcount, rtype, r ^ mask,
			    TAG(T_ALLGATHER, step));
			ft__coll_round(s);
		}
	} else if (n > 1)
		allgather_ring(s, rbuf, NULL, NULL, rcount, rtype, T_ALLGATHER,
		    map);
	return ft__coll_built(s);
}

int
ft__coll_allgatherv(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *displs,
    MPI_Datatype rtype)
{
	int r, i, N;
	const int *map;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_allgatherv(s, sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype));
	TRY(blank_map(s, &map, &N));
	r = BLK(map, s->comm->rank);
	TRY(check_counts(s, rcounts, displs, N, "receive"));
	for (i = 0; i < N; i++)
		TRY(check_data(s, rbuf, rcounts[i], rtype, "receive"));
	if (sbuf != MPI_IN_PLACE) {
		TRY(check_data(s, sbuf, scount, stype, "send"));
		TRY(check_fit(s, scount, stype, rcounts[r], rtype));
		ft__coll_copy(s, sbuf, scount, stype, at(rbuf, displs[r],
		    rtype), rcounts[r], rtype);
	}
	allgather_ring(s, rbuf, rcounts, displs, 0, rtype, T_ALLGATHERV, map);
	return ft__coll_built(s);
}

int
ft__coll_alltoall(struct ft_coll_sched *s, const void *sbuf, int scount,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype)
{
	int n, r, i, to, from, pairwise, N;
	const int *map;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_alltoall(s, sbuf, scount, stype, rbuf,
	    rcount, rtype));
	TRY(check_data(s, rbuf, rcount, rtype, "receive"));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	if (sbuf == MPI_IN_PLACE) {
		/* Send from a copy, so receiving may overwrite rbuf. */
		void *copy;

		TRY(check_total(s, N, rcount));
		if ((copy = ft__coll_tmp(s, N * rcount, rtype)) == NULL)
			return ft__coll_built(s);
		ft__coll_copy(s, rbuf, N * rcount, rtype, copy, N * rcount,
		    rtype);
		sbuf = copy;
		scount = rcount;
		stype = rtype;
	} else {
		TRY(check_data(s, sbuf, scount, stype, "send"));
		TRY(check_fit(s, scount, stype, rcount, rtype));
	}
	ft__coll_copy(s, cat(sbuf, (MPI_Aint)BLK(map, r) * scount, stype),
	    scount, stype, at(rbuf, (MPI_Aint)BLK(map, r) * rcount, rtype),
	    rcount, rtype);
	pairwise = (size_t)scount * stype->size * (size_t)n > ALLTOALL_SHORT;
	for (i = 1; i < n; i++) {
		if (pairwise && is_pof2(n))
			to = from = r ^ i;
		else {
			to = (r + i) % n;
			from = (r - i + n) % n;
		}
		ft__coll_recv(s, at(rbuf, (MPI_Aint)BLK(map, from) * rcount,
		    rtype), rcount, rtype, from, TAG(T_ALLTOALL, 0));
		ft__coll_send(s, cat(sbuf, (MPI_Aint)BLK(map, to) * scount,
		    stype), scount, stype, to, TAG(T_ALLTOALL, 0));
		if (pairwise)
			ft__coll_round(s);
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_alltoallv(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *sdispls, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *rdispls, MPI_Datatype rtype)
{
	int n, r, i, to, from, span, N, me;
	const int *map;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_alltoallv(s, sbuf, scounts, sdispls,
	    stype, rbuf, rcounts, rdispls, rtype));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	me = BLK(map, r);
	TRY(check_counts(s, rcounts, rdispls, N, "receive"));
	for (i = 0; i < N; i++)
		TRY(check_data(s, rbuf, rcounts[i], rtype, "receive"));
	if (sbuf == MPI_IN_PLACE) {
		void *copy;

		for (i = 0, span = 0; i < N; i++)
			if (rcounts[i] > 0 && rdispls[i] + rcounts[i] > span)
				span = rdispls[i] + rcounts[i];
		if ((copy = ft__coll_tmp(s, span, rtype)) == NULL)
			return ft__coll_built(s);
		for (i = 0; i < N; i++)
			ft__coll_copy(s, at(rbuf, rdispls[i], rtype),
			    rcounts[i], rtype, at(copy, rdispls[i], rtype),
			    rcounts[i], rtype);
		sbuf = copy;
		scounts = rcounts;
		sdispls = rdispls;
		stype = rtype;
	} else {
		TRY(check_counts(s, scounts, sdispls, N, "send"));
		for (i = 0; i < N; i++)
			TRY(check_data(s, sbuf, scounts[i], stype, "send"));
		TRY(check_fit(s, scounts[me], stype, rcounts[me], rtype));
	}
	ft__coll_copy(s, cat(sbuf, sdispls[me], stype), scounts[me], stype,
	    at(rbuf, rdispls[me], rtype), rcounts[me], rtype);
	for (i = 1; i < n; i++) {
		to = BLK(map, (r + i) % n);
		from = BLK(map, (r - i + n) % n);
		ft__coll_recv(s, at(rbuf, rdispls[from], rtype), rcounts[from],
		    rtype, (r - i + n) % n, TAG(T_ALLTOALLV, 0));
		ft__coll_send(s, cat(sbuf, sdispls[to], stype), scounts[to],
		    stype, (r + i) % n, TAG(T_ALLTOALLV, 0));
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

int
ft__coll_alltoallw(struct ft_coll_sched *s, const void *sbuf,
    const int *scounts, const int *sdispls, const MPI_Datatype *stypes,
    void *rbuf, const int *rcounts, const int *rdispls,
    const MPI_Datatype *rtypes)
{
	int n, r, i, to, from, N, me, inplace = sbuf == MPI_IN_PLACE;
	const int *map;
	const void **src;

	TRY(check_comm(s));
	INTER(s, ft__coll_inter_alltoallw(s, sbuf, scounts, sdispls,
	    stypes, rbuf, rcounts, rdispls, rtypes));
	TRY(blank_map(s, &map, &N));
	n = s->comm->size;
	r = s->comm->rank;
	me = BLK(map, r);
	TRY(check_counts(s, rcounts, rdispls, N, "receive"));
	if (rtypes == NULL)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "NULL receive datatypes");
	for (i = 0; i < N; i++)
		TRY(check_data(s, rbuf, rcounts[i], rtypes[i], "receive"));
	if (!inplace) {
		TRY(check_counts(s, scounts, sdispls, N, "send"));
		if (stypes == NULL)
			return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
			    "NULL send datatypes");
		for (i = 0; i < N; i++)
			TRY(check_data(s, sbuf, scounts[i], stypes[i],
			    "send"));
		TRY(check_fit(s, scounts[me], stypes[me], rcounts[me],
		    rtypes[me]));
	}
	/*
	 * Where each block to send is (displacements are in bytes), by
	 * rank named: a hole's is never sent.
	 */
	if ((src = ft__coll_tmp(s, (int)(N * sizeof(*src)), NULL)) == NULL)
		return ft__coll_built(s);
	for (i = 0; i < N; i++) {
		if (!inplace) {
			src[i] = ft__mpi_addr(sbuf, sdispls[i]);
			continue;
		}
		if ((src[i] = ft__coll_tmp(s, rcounts[i], rtypes[i])) == NULL)
			return ft__coll_built(s);
		ft__coll_copy(s, ft__mpi_addr(rbuf, rdispls[i]), rcounts[i],
		    rtypes[i], (void *)(uintptr_t)src[i], rcounts[i],
		    rtypes[i]);
	}
	if (inplace) {
		scounts = rcounts;
		stypes = rtypes;
	}
	ft__coll_copy(s, src[me], scounts[me], stypes[me],
	    ft__mpi_addr(rbuf, rdispls[me]), rcounts[me], rtypes[me]);
	for (i = 1; i < n; i++) {
		to = BLK(map, (r + i) % n);
		from = BLK(map, (r - i + n) % n);
		ft__coll_recv(s, ft__mpi_addr(rbuf, rdispls[from]),
		    rcounts[from], rtypes[from], (r - i + n) % n,
		    TAG(T_ALLTOALLW, 0));
		ft__coll_send(s, src[to], scounts[to], stypes[to],
		    (r + i) % n, TAG(T_ALLTOALLW, 0));
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

/*
 * Reduce-scatter: rank j's block of every rank's vector goes to rank j
 * (counts[j] elements, or count each when counts is NULL), which
 * combines the n pieces in rank order, from the right: acc = x_j op acc.
 * Each rank sends and receives about one vector, whatever n.
 */
static int
reduce_scatter(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    const int *counts, int count, MPI_Datatype type, MPI_Op op)
{
	int n = s->comm->size, r = s->comm->rank, j, i, N, mine;
	const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
	const int *map;
	MPI_Aint off, myoff = 0;
	char *t;

#define CNT(j)	(counts != NULL ? counts[j] : count)
	TRY(blank_map(s, &map, &N));
	mine = CNT(BLK(map, r));
	/* The temporary holds n pieces of this rank's size. */
	TRY(check_total(s, n, mine));
	if ((t = ft__coll_tmp(s, n * mine, type)) == NULL)
		return ft__coll_built(s);
	/* j walks the ranks named, i the live ones: a hole's share of
	 * the vector goes nowhere. */
	for (j = 0, i = 0, off = 0; j < N; off += CNT(j), j++) {
		if (i >= n || BLK(map, i) != j)
			continue;
		if (i == r)
			myoff = off;
		else {
			ft__coll_recv(s, at(t, (MPI_Aint)i * mine, type), mine,
			    type, i, TAG(T_REDSCAT, 0));
			ft__coll_send(s, cat(in, off, type), CNT(j), type, i,
			    TAG(T_REDSCAT, 0));
		}
		i++;
	}
	ft__coll_copy(s, cat(in, myoff, type), mine, type,
	    at(t, (MPI_Aint)r * mine, type), mine, type);
	ft__coll_round(s);
	for (j = n - 2; j >= 0; j--)
		ft__coll_reduce(s, at(t, (MPI_Aint)j * mine, type),
		    at(t, (MPI_Aint)(n - 1) * mine, type), mine, type, op);
	ft__coll_copy(s, at(t, (MPI_Aint)(n - 1) * mine, type), mine, type,
	    rbuf, mine, type);
#undef CNT
	return ft__coll_built(s);
}

int
ft__coll_reduce_scatter(struct ft_coll_sched *s, const void *sbuf,
    void *rbuf, const int *rcounts, MPI_Datatype type, MPI_Op op)
{
	int n, i;
	long long total = 0;

	TRY(check_comm(s));
	n = named_size(s);
	if (rcounts == NULL)
		return ft__mpi_err(s->comm, MPI_ERR_ARG, s->call,
		    "NULL receive counts");
	for (i = 0; i < n; i++) {
		if (rcounts[i] < 0)
			return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
			    "negative receive count %d for rank %d",
			    rcounts[i], i);
		total += rcounts[i];
	}
	if (total > INT_MAX)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "%lld elements in all is too many", total);
	INTER(s, ft__coll_inter_reduce_scatter(s, sbuf, rbuf, rcounts,
	    (int)total, type, op));
	if (sbuf == MPI_IN_PLACE)
		TRY(check_data(s, rbuf, (int)total, type, "receive"));
	else {
		TRY(check_data(s, rbuf, rcounts[named_rank(s)], type,
		    "receive"));
		TRY(check_data(s, sbuf, (int)total, type, "send"));
	}
	TRY(check_op(s, op, type));
	return reduce_scatter(s, sbuf, rbuf, rcounts, 0, type, op);
}

int
ft__coll_reduce_scatter_block(struct ft_coll_sched *s, const void *sbuf,
    void *rbuf, int rcount, MPI_Datatype type, MPI_Op op)
{
	int n;

	TRY(check_comm(s));
	n = named_size(s);
	if (rcount < 0)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "negative receive count %d", rcount);
	if ((long long)rcount * n > INT_MAX)
		return ft__mpi_err(s->comm, MPI_ERR_COUNT, s->call,
		    "%lld elements in all is too many", (long long)rcount * n);
	INTER(s, ft__coll_inter_reduce_scatter_block(s, sbuf, rbuf,
	    rcount, type, op));
	if (sbuf == MPI_IN_PLACE)
		TRY(check_data(s, rbuf, rcount * n, type, "receive"));
	else {
		TRY(check_data(s, rbuf, rcount, type, "receive"));
		TRY(check_data(s, sbuf, rcount * n, type, "send"));
	}
	TRY(check_op(s, op, type));
	return reduce_scatter(s, sbuf, rbuf, NULL, rcount, type, op);
}

/*
 * Inclusive and exclusive prefix reductions by recursive doubling:
 * partial covers the aligned run of 2^k ranks around us, and what comes
 * from a lower partner goes on the left of both it and the result.
 */
int
ft__coll_scan(struct ft_coll_sched *s, const void *sbuf, void *rbuf,
    int count, MPI_Datatype type, MPI_Op op, int exclusive)
{
	int n, r, mask, dst, step, first = 1;
	const void *in = sbuf == MPI_IN_PLACE ? rbuf : sbuf;
	void *partial, *other, *t;

	TRY(ft__mpi_comm_intra(s->comm, s->call));
	TRY(check_data(s, rbuf, count, type, "receive"));
	if (sbuf != MPI_IN_PLACE)
		TRY(check_data(s, sbuf, count, type, "send"));
	TRY(check_op(s, op, type));
	n = s->comm->size;
	r = s->comm->rank;
	if (count == 0)
		return ft__coll_built(s);
	if (!exclusive)
		ft__coll_copy(s, in, count, type, rbuf, count, type);
	if (n == 1)
		return ft__coll_built(s);
	if ((partial = ft__coll_tmp(s, count, type)) == NULL ||
	    (other = ft__coll_tmp(s, count, type)) == NULL)
		return ft__coll_built(s);
	ft__coll_copy(s, in, count, type, partial, count, type);
	for (mask = 1, step = 0; mask < n; mask <<= 1, step++) {
		if ((dst = r ^ mask) >= n)
			continue;
		ft__coll_send(s, partial, count, type, dst, TAG(T_SCAN, step));
		ft__coll_recv(s, other, count, type, dst, TAG(T_SCAN, step));
		ft__coll_round(s);
		if (dst < r) {
			if (exclusive && first)
				ft__coll_copy(s, other, count, type, rbuf,
				    count, type);
			else
				ft__coll_reduce(s, other, rbuf, count, type,
				    op);
			first = 0;
			ft__coll_reduce(s, other, partial, count, type, op);
		} else if (op->commute)
			ft__coll_reduce(s, other, partial, count, type, op);
		else {
			ft__coll_reduce(s, partial, other, count, type, op);
			t = partial;
			partial = other;
			other = t;
		}
	}
	ft__coll_round(s);
	return ft__coll_built(s);
}

/* The blocking calls: build the schedule, run it, release it. */
static int
run(struct ft_coll_sched *s, int rc)
{
	if (rc == MPI_SUCCESS)
		rc = ft__coll_run(s);
	ft__coll_release(s);
	return rc;
}

#define BEGIN(callname)							\
	static const char call[] = callname;				\
	struct ft_coll_sched s;						\
									\
	FT_MPI_CHECK_INIT(call);					\
	ft__coll_init(&s, comm, call)

int
PMPI_Barrier(MPI_Comm comm)
{
	BEGIN("MPI_Barrier");
	return run(&s, ft__coll_barrier(&s));
}

int
PMPI_Bcast(void *buf, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
	BEGIN("MPI_Bcast");
	return run(&s, ft__coll_bcast(&s, buf, count, type, root));
}

int
PMPI_Reduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, int root, MPI_Comm comm)
{
	BEGIN("MPI_Reduce");
	return run(&s, ft__coll_reduce_build(&s, sbuf, rbuf, count, type, op,
	    root));
}

int
PMPI_Allreduce(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm)
{
	BEGIN("MPI_Allreduce");
	return run(&s, ft__coll_allreduce(&s, sbuf, rbuf, count, type, op));
}

int
PMPI_Gather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	BEGIN("MPI_Gather");
	return run(&s, ft__coll_gather(&s, sbuf, scount, stype, rbuf, rcount,
	    rtype, root));
}

int
PMPI_Gatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *displs, MPI_Datatype rtype, int root,
    MPI_Comm comm)
{
	BEGIN("MPI_Gatherv");
	return run(&s, ft__coll_gatherv(&s, sbuf, scount, stype, rbuf, rcounts,
	    displs, rtype, root));
}

int
PMPI_Scatter(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, int root, MPI_Comm comm)
{
	BEGIN("MPI_Scatter");
	return run(&s, ft__coll_scatter(&s, sbuf, scount, stype, rbuf, rcount,
	    rtype, root));
}

int
PMPI_Scatterv(const void *sbuf, const int *scounts, const int *displs,
    MPI_Datatype stype, void *rbuf, int rcount, MPI_Datatype rtype, int root,
    MPI_Comm comm)
{
	BEGIN("MPI_Scatterv");
	return run(&s, ft__coll_scatterv(&s, sbuf, scounts, displs, stype,
	    rbuf, rcount, rtype, root));
}

int
PMPI_Allgather(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	BEGIN("MPI_Allgather");
	return run(&s, ft__coll_allgather(&s, sbuf, scount, stype, rbuf,
	    rcount, rtype));
}

int
PMPI_Allgatherv(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    const int *rcounts, const int *displs, MPI_Datatype rtype, MPI_Comm comm)
{
	BEGIN("MPI_Allgatherv");
	return run(&s, ft__coll_allgatherv(&s, sbuf, scount, stype, rbuf,
	    rcounts, displs, rtype));
}

int
PMPI_Alltoall(const void *sbuf, int scount, MPI_Datatype stype, void *rbuf,
    int rcount, MPI_Datatype rtype, MPI_Comm comm)
{
	BEGIN("MPI_Alltoall");
	return run(&s, ft__coll_alltoall(&s, sbuf, scount, stype, rbuf, rcount,
	    rtype));
}

int
PMPI_Alltoallv(const void *sbuf, const int *scounts, const int *sdispls,
    MPI_Datatype stype, void *rbuf, const int *rcounts, const int *rdispls,
    MPI_Datatype rtype, MPI_Comm comm)
{
	BEGIN("MPI_Alltoallv");
	return run(&s, ft__coll_alltoallv(&s, sbuf, scounts, sdispls, stype,
	    rbuf, rcounts, rdispls, rtype));
}

int
PMPI_Alltoallw(const void *sbuf, const int *scounts, const int *sdispls,
    const MPI_Datatype *stypes, void *rbuf, const int *rcounts,
    const int *rdispls, const MPI_Datatype *rtypes, MPI_Comm comm)
{
	BEGIN("MPI_Alltoallw");
	return run(&s, ft__coll_alltoallw(&s, sbuf, scounts, sdispls, stypes,
	    rbuf, rcounts, rdispls, rtypes));
}

int
PMPI_Reduce_scatter(const void *sbuf, void *rbuf, const int *rcounts,
    MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	BEGIN("MPI_Reduce_scatter");
	return run(&s, ft__coll_reduce_scatter(&s, sbuf, rbuf, rcounts, type,
	    op));
}

int
PMPI_Reduce_scatter_block(const void *sbuf, void *rbuf, int rcount,
    MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
	BEGIN("MPI_Reduce_scatter_block");
	return run(&s, ft__coll_reduce_scatter_block(&s, sbuf, rbuf, rcount,
	    type, op));
}

int
PMPI_Scan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm)
{
	BEGIN("MPI_Scan");
	return run(&s, ft__coll_scan(&s, sbuf, rbuf, count, type, op, 0));
}

int
PMPI_Exscan(const void *sbuf, void *rbuf, int count, MPI_Datatype type,
    MPI_Op op, MPI_Comm comm)
{
	BEGIN("MPI_Exscan");
	return run(&s, ft__coll_scan(&s, sbuf, rbuf, count, type, op, 1));
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Barrier = PMPI_Barrier
#pragma weak MPI_Bcast = PMPI_Bcast
#pragma weak MPI_Reduce = PMPI_Reduce
#pragma weak MPI_Allreduce = PMPI_Allreduce
#pragma weak MPI_Gather = PMPI_Gather
#pragma weak MPI_Gatherv = PMPI_Gatherv
#pragma weak MPI_Scatter = PMPI_Scatter
#pragma weak MPI_Scatterv = PMPI_Scatterv
#pragma weak MPI_Allgather = PMPI_Allgather
#pragma weak MPI_Allgatherv = PMPI_Allgatherv
#pragma weak MPI_Alltoall = PMPI_Alltoall
#pragma weak MPI_Alltoallv = PMPI_Alltoallv
#pragma weak MPI_Alltoallw = PMPI_Alltoallw
#pragma weak MPI_Reduce_scatter = PMPI_Reduce_scatter
#pragma weak MPI_Reduce_scatter_block = PMPI_Reduce_scatter_block
#pragma weak MPI_Scan = PMPI_Scan
#pragma weak MPI_Exscan = PMPI_Exscan
