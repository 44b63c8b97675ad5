/* SPDX-License-Identifier: ISC */
/*
 * Intercommunicators: MPI_Intercomm_create, MPI_Intercomm_merge, the
 * accessors of the remote group, and MPI_Comm_dup, MPI_Comm_split and
 * MPI_Comm_create on an intercommunicator, which comm.c hands over.
 *
 * Each call that makes a communicator here agrees in three steps.  The
 * members of each group all-gather a row each within their group: the
 * error class of their own arguments, their next free context id,
 * their world rank, the leader they name, and the call's own words.
 * The two leaders trade their groups' tables.  Each leader spreads
 * the other group's table over its group.  Then every member of both
 * groups holds both tables: all fail together if any one passed a bad
 * argument, and all take the same context ids, past the largest next
 * free id of any member.  An intercommunicator takes four ids: ctx and
 * ctx + 1 for itself, ctx + 2 and ctx + 3 for its hidden local
 * intracommunicator (comm.h).
 *
 * The leaders of MPI_Intercomm_create meet on the peer communicator;
 * the calls on an intercommunicator use the intercommunicator itself,
 * with rank 0 of each group as leader, and its local intracommunicator.
 * All of it travels on collective contexts, with tags at or above
 * FT_MPI_COMM_TAG_BASE that comm.c does not use, so it never meets the
 * application's messages nor a collective's.
 */
#include <stdlib.h>

#include "mpi_impl.h"

/* Tags on the collective contexts (comm.c uses BASE + 0 and + 1). */
#define TAG_GATHER	(FT_MPI_COMM_TAG_BASE + 2)	/* the rows */
#define TAG_BCAST	(FT_MPI_COMM_TAG_BASE + 3)
#define TAG_SPREAD	(FT_MPI_COMM_TAG_BASE + 4)	/* leader to group */
#define TAG_LEADERS	(FT_MPI_COMM_TAG_BASE + 5)	/* leader to leader */
/*
 * Leaders on the peer communicator of MPI_Intercomm_create: the
 * application's tag in the low bits, so that pairs of leaders that
 * meet there at the same time are told apart (comm.c's
 * MPI_Comm_create_group takes the ranges 0x10000000 and 0x20000000).
 */
#define TAG_PEER	(FT_MPI_COMM_TAG_BASE + 0x30000000)
#define TAG_PEER_MASK	0x0fffffff

/* Words of a row; the call's own words follow. */
enum {
	ROW_ERR,
	ROW_CTX,
	ROW_WORLD,
	ROW_LEADER,
	ROW_EXTRA,
};
#define EXTRA_MAX	2

/* One group's rows. */
struct table {
	int		 n;
	uint32_t	*rows;		/* n rows of w words */
};

#define ROW(t, w, i)	((t)->rows + (size_t)(i) * (size_t)(w))

/* An agreement between the two groups of an intercommunicator to be. */
struct agreement {
	const char	*call;
	MPI_Comm	 report;	/* the communicator errors go to */
	MPI_Comm	 local;		/* the caller's group */
	int		 leader;	/* its leader's rank there */
	/* At the leader only: where it meets the other leader. */
	MPI_Comm	 peer;		/* or MPI_COMM_NULL */
	int		 rleader, tag;
	int		 w;		/* words a row */
	/* What the agreement gives. */
	struct table	 mine, theirs;
	uint32_t	 ctx;		/* the largest next free id of all */
};

/*
 * Send sn words to the other leader and receive rn into rbuf (from
 * malloc).  On failure rbuf is freed, or left behind to a receive the
 * engine still holds.  Returns an MPI error class, already reported.
 */
static int
sendrecv(const struct agreement *a, const uint32_t *sbuf, int sn,
    uint32_t *rbuf, int rn)
{
	struct ft_mpi_req *r;
	MPI_Comm p = a->peer;
	int nr = 0, rc;

	if ((r = calloc(2, sizeof(*r))) == NULL) {
		free(rbuf);
		return ft__mpi_err(a->report, MPI_ERR_NO_MEM, a->call,
		    "out of memory");
	}
	ft__mpi_req_init(&r[0], FT_MPI_REQ_RECV, p);
	if ((rc = ft__mpi_irecv_ctx(a->call, rbuf, rn, MPI_UINT32_T,
	    a->rleader, a->tag, p, p->ctx + 1, &r[0])) != MPI_SUCCESS)
		goto fail;
	nr = 1;
	ft__mpi_req_init(&r[1], FT_MPI_REQ_SEND, p);
	if ((rc = ft__mpi_isend_ctx(a->call, sbuf, sn, MPI_UINT32_T,
	    a->rleader, a->tag, p, p->ctx + 1, &r[1])) != MPI_SUCCESS)
		goto fail;
	nr = 2;
	ft__mpi_wait_reqs(r, nr);
	if (r[0].pt.st.error != 0 || r[0].pt.st.bytes !=
	    (size_t)rn * sizeof(*rbuf)) {
		rc = ft__mpi_err(a->report, MPI_ERR_INTERN, a->call,
		    "the remote leader sent %zu bytes, expected %zu",
		    r[0].pt.st.bytes, (size_t)rn * sizeof(*rbuf));
		goto fail;
	}
	ft__mpi_req_cleanup(&r[0]);
	ft__mpi_req_cleanup(&r[1]);
	free(r);
	return MPI_SUCCESS;
fail:
	ft__mpi_reqs_abandon(r, nr, rbuf);
	return rc;
}

/*
 * The leaders trade their groups' error class and size, then, if
 * neither group failed, their tables.  Sets *rerr to the other group's
 * error class, and a->theirs.  Returns an MPI error class, already
 * reported.
 */
static int
trade(struct agreement *a, int lerr, int *rerr)
{
	uint32_t hdr[2], *got;
	int rc;

	hdr[0] = (uint32_t)lerr;
	hdr[1] = (uint32_t)a->mine.n;
	if ((got = calloc(2, sizeof(*got))) == NULL)
		return ft__mpi_err(a->report, MPI_ERR_NO_MEM, a->call,
		    "out of memory");
	if ((rc = sendrecv(a, hdr, 2, got, 2)) != MPI_SUCCESS)
		return rc;
	*rerr = (int)got[0];
	a->theirs.n = (int)got[1];
	free(got);
	if (lerr != 0 || *rerr != 0)
		return MPI_SUCCESS;
	if (a->theirs.n < 1 || a->theirs.n > INT32_MAX / a->w)
		return ft__mpi_err(a->report, MPI_ERR_INTERN, a->call,
		    "the remote leader sent a group of %d", a->theirs.n);
	if ((got = calloc((size_t)a->theirs.n * (size_t)a->w,
	    sizeof(*got))) == NULL)
		return ft__mpi_err(a->report, MPI_ERR_NO_MEM, a->call,
		    "out of memory");
	if ((rc = sendrecv(a, a->mine.rows, a->mine.n * a->w, got,
	    a->theirs.n * a->w)) != MPI_SUCCESS)
		return rc;
	a->theirs.rows = got;
	return MPI_SUCCESS;
}

/*
 * The leader sends the n words at *buf to every other member of the
 * group, which receive them into a new buffer at *buf.  On failure
 * *buf is NULL: freed, or left behind to requests the engine still
 * holds.  Returns an MPI error class, already reported.
 */
static int
spread(const struct agreement *a, uint32_t **buf, int n)
{
	MPI_Comm lc = a->local;
	struct ft_mpi_req *r;
	int i, nr = 0, rc, lead = lc->rank == a->leader;

	if (lc->size == 1)
		return MPI_SUCCESS;
	r = calloc((size_t)lc->size, sizeof(*r));
	if (!lead)
		*buf = calloc(n > 0 ? (size_t)n : 1, sizeof(**buf));
	if (r == NULL || *buf == NULL) {
		free(r);
		free(*buf);
		*buf = NULL;
		return ft__mpi_err(a->report, MPI_ERR_NO_MEM, a->call,
		    "out of memory");
	}
	for (i = 0; lead && i < lc->size; i++) {
		if (i == lc->rank)
			continue;
		ft__mpi_req_init(&r[nr], FT_MPI_REQ_SEND, lc);
		if ((rc = ft__mpi_isend_ctx(a->call, *buf, n, MPI_UINT32_T, i,
		    TAG_SPREAD, lc, lc->ctx + 1, &r[nr])) != MPI_SUCCESS)
			goto fail;
		nr++;
	}
	if (!lead) {
		ft__mpi_req_init(&r[0], FT_MPI_REQ_RECV, lc);
		if ((rc = ft__mpi_irecv_ctx(a->call, *buf, n, MPI_UINT32_T,
		    a->leader, TAG_SPREAD, lc, lc->ctx + 1, &r[0])) !=
		    MPI_SUCCESS)
			goto fail;
		nr = 1;
	}
	ft__mpi_wait_reqs(r, nr);
	if (!lead && (r[0].pt.st.error != 0 || r[0].pt.st.bytes !=
	    (size_t)n * sizeof(**buf))) {
		rc = ft__mpi_err(a->report, MPI_ERR_INTERN, a->call,
		    "the leader sent %zu bytes, expected %zu",
		    r[0].pt.st.bytes, (size_t)n * sizeof(**buf));
		goto fail;
	}
	for (i = 0; i < nr; i++)
		ft__mpi_req_cleanup(&r[i]);
	free(r);
	return MPI_SUCCESS;
fail:
	ft__mpi_reqs_abandon(r, nr, *buf);
	*buf = NULL;
	return rc;
}

static void
agreement_release(struct agreement *a)
{
	free(a->mine.rows);
	free(a->theirs.rows);
	a->mine.rows = a->theirs.rows = NULL;
}

/*
 * Agree (see the top of this file): err and why are the caller's
 * argument error, extra the call's own a->w - ROW_EXTRA words.  check,
 * when not NULL, looks at the caller's group's table and returns an
 * error class (with *why) when the group's arguments do not fit
 * together.  On success a->mine, a->theirs and a->ctx are set, and
 * agreement_release frees the tables.  Returns an MPI error class,
 * already reported on a->report: every member of both groups fails if
 * one does, but for the failures that leave the leaders unable to
 * meet (a bad peer communicator, or ranks that name different
 * leaders), where the other group waits.
 */
static int
agree(struct agreement *a, int err, const char *why, const uint32_t *extra,
    int (*check)(const struct agreement *, const char **))
{
	MPI_Comm lc = a->local;
	uint32_t row[ROW_EXTRA + EXTRA_MAX], *hdr = NULL;
	const char *cwhy = "";
	int i, bad = -1, lerr = 0, rerr = 0, same = 1, status = 0, rc;

	if (a->w > ROW_EXTRA + EXTRA_MAX)
		FT_BUG();
	row[ROW_ERR] = (uint32_t)err;
	row[ROW_CTX] = ft__mpi_ctx_next();
	row[ROW_WORLD] = lc->world[lc->rank];
	row[ROW_LEADER] = (uint32_t)a->leader;
	if (a->w > ROW_EXTRA)
		memcpy(row + ROW_EXTRA, extra, (size_t)(a->w - ROW_EXTRA) *
		    sizeof(*extra));
	if ((rc = ft__mpi_comm_allgather(lc, a->call, NULL, lc->size,
	    lc->rank, row, a->w, TAG_GATHER, TAG_BCAST, &a->mine.rows)) !=
	    MPI_SUCCESS)
		return rc;
	a->mine.n = lc->size;
	for (i = 0; i < lc->size; i++) {
		if (ROW(&a->mine, a->w, i)[ROW_ERR] != 0 && bad < 0)
			bad = i;
		if (ROW(&a->mine, a->w, i)[ROW_LEADER] != (uint32_t)a->leader)
			same = 0;
	}
	if (bad >= 0)
		lerr = (int)ROW(&a->mine, a->w, bad)[ROW_ERR];
	else if (!same)
		lerr = MPI_ERR_RANK;
	else if (check != NULL)
		lerr = check(a, &cwhy);
	/* Leaders meet only when all their members named them. */
	if (same && lc->rank == a->leader && a->peer != MPI_COMM_NULL)
		status = trade(a, lerr, &rerr);
	if (err != 0)
		rc = ft__mpi_err(a->report, err, a->call, "%s", why);
	else if (bad >= 0)
		rc = ft__mpi_err(a->report, lerr, a->call, "rank %d passed an "
		    "invalid argument", bad);
	else if (!same)
		rc = ft__mpi_err(a->report, lerr, a->call,
		    "the ranks name different leaders");
	else if (lerr != 0)
		rc = ft__mpi_err(a->report, lerr, a->call, "%s", cwhy);
	if (lerr != 0)
		goto fail;
	/* The leader's news: its own failure, the other group's, its size. */
	if (lc->rank == a->leader) {
		if ((hdr = calloc(3, sizeof(*hdr))) == NULL) {
			rc = ft__mpi_err(a->report, MPI_ERR_NO_MEM, a->call,
			    "out of memory");
			goto fail;
		}
		hdr[0] = (uint32_t)status;
		hdr[1] = (uint32_t)rerr;
		hdr[2] = (uint32_t)a->theirs.n;
	}
	if ((rc = spread(a, &hdr, 3)) != MPI_SUCCESS)
		goto fail;
	status = (int)hdr[0];
	rerr = (int)hdr[1];
	a->theirs.n = (int)hdr[2];
	free(hdr);
	if (status != 0) {
		rc = lc->rank == a->leader ? status : ft__mpi_err(a->report,
		    status, a->call, "the leaders failed to agree");
		goto fail;
	}
	if (rerr != 0) {
		rc = ft__mpi_err(a->report, rerr, a->call, "a rank of the "
		    "remote group passed an invalid argument");
		goto fail;
	}
	if (a->theirs.n < 1 || a->theirs.n > INT32_MAX / a->w) {
		rc = ft__mpi_err(a->report, MPI_ERR_INTERN, a->call,
		    "the leader sent a remote group of %d", a->theirs.n);
		goto fail;
	}
	if ((rc = spread(a, &a->theirs.rows, a->theirs.n * a->w)) !=
	    MPI_SUCCESS)
		goto fail;
	a->ctx = 0;
	for (i = 0; i < a->mine.n; i++)
		if (ROW(&a->mine, a->w, i)[ROW_CTX] > a->ctx)
			a->ctx = ROW(&a->mine, a->w, i)[ROW_CTX];
	for (i = 0; i < a->theirs.n; i++)
		if (ROW(&a->theirs, a->w, i)[ROW_CTX] > a->ctx)
			a->ctx = ROW(&a->theirs, a->w, i)[ROW_CTX];
	return MPI_SUCCESS;
fail:
	agreement_release(a);
	return rc;
}

/* Take n context ids from a->ctx on, as every member does. */
static int
take(const struct agreement *a, uint32_t n)
{
	if (ft__mpi_ctx_take(a->ctx, n) != 0)
		return ft__mpi_err(a->report, MPI_ERR_INTERN, a->call,
		    "no context id is left for a new communicator");
	return MPI_SUCCESS;
}

/* An agreement over the two groups of the intercommunicator c. */
static void
agreement_init(struct agreement *a, MPI_Comm c, const char *call, int nextra)
{
	memset(a, 0, sizeof(*a));
	a->call = call;
	a->report = c;
	a->local = c->local;
	a->leader = 0;
	if (c->rank == 0) {
		a->peer = c;
		a->rleader = 0;
		a->tag = TAG_LEADERS;
	}
	a->w = ROW_EXTRA + nextra;
}

/* Is comm a live intercommunicator?  Else report MPI_ERR_COMM. */
static int
check_inter(MPI_Comm comm, const char *call)
{
	if (!ft__mpi_comm_ok(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "invalid communicator");
	if (!FT_MPI_INTER(comm))
		return ft__mpi_err(comm, MPI_ERR_COMM, call,
		    "not an intercommunicator");
	return MPI_SUCCESS;
}

/* Is world rank w in comm's group? */
static int
in_group(MPI_Comm comm, uint32_t w)
{
	int i;

	for (i = 0; i < comm->size; i++)
		if (comm->world[i] == w)
			return 1;
	return 0;
}

int
PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader,
    MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm)
{
	static const char call[] = "MPI_Intercomm_create";
	struct agreement a;
	const char *why = "";
	uint32_t *rworld;
	int i, err = 0, rc;

	FT_MPI_CHECK_INIT(call);
	if ((rc = ft__mpi_comm_intra(local_comm, call)) != MPI_SUCCESS)
		return rc;
	/* FT-MPI's BLANK: the local group is the live members (ftmpi.c). */
	if ((rc = ft__mpi_ftmpi_local(&local_comm, &local_leader, call)) !=
	    MPI_SUCCESS)
		return rc;
	memset(&a, 0, sizeof(a));
	a.call = call;
	a.report = a.local = local_comm;
	a.leader = local_leader;
	a.w = ROW_EXTRA;
	/*
	 * The leader meets the other one whenever it can, so that the
	 * other group learns of any error here.
	 */
	if (local_comm->rank != local_leader)
		;	/* The rest matters at the leader only. */
	else if (!ft__mpi_comm_ok(peer_comm)) {
		err = MPI_ERR_COMM;
		why = "invalid peer_comm";
	} else if (remote_leader < 0 ||
	    remote_leader >= ft__mpi_comm_peers(peer_comm)) {
		err = MPI_ERR_RANK;
		why = "invalid remote_leader";
	} else if (tag < 0) {
		err = MPI_ERR_TAG;
		why = "invalid tag";
	} else if (in_group(local_comm, ft__mpi_comm_peer(peer_comm,
	    remote_leader))) {
		err = MPI_ERR_RANK;
		why = "the remote leader is in the local group";
	} else {
		a.peer = peer_comm;
		a.rleader = remote_leader;
		a.tag = TAG_PEER | (tag & TAG_PEER_MASK);
	}
	if (newintercomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newintercomm";
	} else if (local_leader < 0 || local_leader >= local_comm->size) {
		err = MPI_ERR_RANK;
		why = "invalid local_leader";
	}
	if ((rc = agree(&a, err, why, NULL, NULL)) != MPI_SUCCESS)
		return rc;
	if ((rworld = calloc((size_t)a.theirs.n, sizeof(*rworld))) == NULL) {
		agreement_release(&a);
		return ft__mpi_err(local_comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	/* Every member of both groups sees the same overlap, if any. */
	for (i = 0, rc = 0; i < a.theirs.n; i++) {
		rworld[i] = ROW(&a.theirs, a.w, i)[ROW_WORLD];
		rc |= in_group(local_comm, rworld[i]);
	}
	agreement_release(&a);
	if (rc) {
		free(rworld);
		return ft__mpi_err(local_comm, MPI_ERR_ARG, call,
		    "the local and remote groups overlap");
	}
	if ((rc = take(&a, 4)) != MPI_SUCCESS) {
		free(rworld);
		return rc;
	}
	*newintercomm = ft__mpi_comm_new_inter(local_comm, a.ctx,
	    local_comm->world, local_comm->size, local_comm->rank, rworld,
	    a.theirs.n);
	free(rworld);
	if (*newintercomm == MPI_COMM_NULL)
		return ft__mpi_err(local_comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	return MPI_SUCCESS;
}

/* Every member of the group passed the same high. */
static int
same_high(const struct agreement *a, const char **why)
{
	int i;

	for (i = 1; i < a->mine.n; i++)
		if ((ROW(&a->mine, a->w, i)[ROW_EXTRA] != 0) !=
		    (a->mine.rows[ROW_EXTRA] != 0)) {
			*why = "the ranks of a group passed different values "
			    "of high";
			return MPI_ERR_ARG;
		}
	return MPI_SUCCESS;
}

int
PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm *newintracomm)
{
	static const char call[] = "MPI_Intercomm_merge";
	struct agreement a;
	const char *why = "";
	uint32_t *world, extra[1];
	int lhigh, rhigh, first, n, me, err = 0, rc;

	FT_MPI_CHECK_INIT(call);
	if ((rc = check_inter(intercomm, call)) != MPI_SUCCESS)
		return rc;
	agreement_init(&a, intercomm, call, 1);
	if (newintracomm == NULL) {
		err = MPI_ERR_ARG;
		why = "NULL newintracomm";
	}
	extra[0] = high != 0;
	if ((rc = agree(&a, err, why, extra, same_high)) != MPI_SUCCESS)
		return rc;
	lhigh = a.mine.rows[ROW_EXTRA] != 0;
	rhigh = a.theirs.rows[ROW_EXTRA] != 0;
	agreement_release(&a);
	if ((rc = take(&a, 2)) != MPI_SUCCESS)
		return rc;
	/*
	 * The low group goes first; when both passed the same high, the
	 * group of the lower world rank at rank 0, which both groups see
	 * alike.
	 */
	first = lhigh != rhigh ? !lhigh :
	    intercomm->world[0] < intercomm->rworld[0];
	n = intercomm->size + intercomm->rsize;
	if ((world = calloc((size_t)n, sizeof(*world))) == NULL)
		return ft__mpi_err(intercomm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	memcpy(world + (first ? 0 : intercomm->rsize), intercomm->world,
	    (size_t)intercomm->size * sizeof(*world));
	memcpy(world + (first ? intercomm->size : 0), intercomm->rworld,
	    (size_t)intercomm->rsize * sizeof(*world));
	me = intercomm->rank + (first ? 0 : intercomm->rsize);
	*newintracomm = ft__mpi_comm_new(intercomm, a.ctx, world, n, me);
	free(world);
	if (*newintracomm == MPI_COMM_NULL)
		return ft__mpi_err(intercomm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	return MPI_SUCCESS;
}

int
PMPI_Comm_remote_size(MPI_Comm comm, int *size)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_remote_size");
	if ((rc = check_inter(comm, "MPI_Comm_remote_size")) != MPI_SUCCESS)
		return rc;
	if (size == NULL)
		return ft__mpi_err(comm, MPI_ERR_ARG, "MPI_Comm_remote_size",
		    "NULL argument");
	*size = comm->rsize;
	return MPI_SUCCESS;
}

int
PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group *group)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Comm_remote_group");
	if ((rc = check_inter(comm, "MPI_Comm_remote_group")) != MPI_SUCCESS)
		return rc;
	return ft__mpi_comm_group_of(comm, "MPI_Comm_remote_group",
	    comm->rworld, comm->rsize, group);
}

/* Make the caller's new intercommunicator, or say out of memory. */
static int
make(const struct agreement *a, MPI_Comm comm, const uint32_t *world,
    int n, int rank, const uint32_t *rworld, int rn, MPI_Comm *newcomm)
{
	if ((*newcomm = ft__mpi_comm_new_inter(comm, a->ctx, world, n, rank,
	    rworld, rn)) == MPI_COMM_NULL)
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, a->call,
		    "out of memory");
	return MPI_SUCCESS;
}

int
ft__mpi_inter_dup(MPI_Comm comm, const char *call, int err, const char *why,
    MPI_Comm *newcomm)
{
	struct agreement a;
	int rc;

	agreement_init(&a, comm, call, 0);
	if ((rc = agree(&a, err, why, NULL, NULL)) != MPI_SUCCESS)
		return rc;
	agreement_release(&a);
	if ((rc = take(&a, 4)) != MPI_SUCCESS)
		return rc;
	return make(&a, comm, comm->world, comm->size, comm->rank,
	    comm->rworld, comm->rsize, newcomm);
}

/*
 * The members of t (whose world ranks are world[]) of color (word
 * ROW_EXTRA), in MPI_Comm_split's order (key: word ROW_EXTRA + 1):
 * their world ranks into out; returns how many, and sets *me to the
 * index of member self (when not -1) among them.
 */
static int
pick(const struct table *t, int w, const uint32_t *world, int color,
    int self, uint32_t *out, struct ft_mpi_slot *s, int *me)
{
	int i, k = 0;

	for (i = 0; i < t->n; i++) {
		if ((int)ROW(t, w, i)[ROW_EXTRA] != color)
			continue;
		s[k].key = (int)ROW(t, w, i)[ROW_EXTRA + 1];
		s[k++].rank = i;
	}
	qsort(s, (size_t)k, sizeof(*s), ft__mpi_slot_cmp);
	for (i = 0; i < k; i++) {
		out[i] = world[s[i].rank];
		if (s[i].rank == self)
			*me = i;
	}
	return k;
}

int
ft__mpi_inter_split(MPI_Comm comm, int color, int key, int err,
    const char *why, const char *call, MPI_Comm *newcomm)
{
	struct agreement a;
	struct ft_mpi_slot *s;
	uint32_t extra[2], *world;
	int n, k, rk, me = -1, rc;

	agreement_init(&a, comm, call, 2);
	extra[0] = (uint32_t)color;
	extra[1] = (uint32_t)key;
	if ((rc = agree(&a, err, why, extra, NULL)) != MPI_SUCCESS)
		return rc;
	if ((rc = take(&a, 4)) != MPI_SUCCESS) {
		agreement_release(&a);
		return rc;
	}
	n = comm->size + comm->rsize;
	world = calloc((size_t)n, sizeof(*world));
	s = calloc((size_t)n, sizeof(*s));
	if (world == NULL || s == NULL) {
		agreement_release(&a);
		free(world);
		free(s);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	/* A color of one group only gives MPI_COMM_NULL, as undefined does. */
	k = pick(&a.mine, a.w, comm->world, color, comm->rank, world, s, &me);
	rk = pick(&a.theirs, a.w, comm->rworld, color, -1, world + k, s,
	    &me);
	agreement_release(&a);
	free(s);
	if (color == MPI_UNDEFINED || rk == 0) {
		*newcomm = MPI_COMM_NULL;
		rc = MPI_SUCCESS;
	} else
		rc = make(&a, comm, world, k, me, world + k, rk, newcomm);
	free(world);
	return rc;
}

/*
 * The ranks of a group passed the same group: their ranks in it (word
 * ROW_EXTRA, or MPI_UNDEFINED) are 0 to its size (word ROW_EXTRA + 1)
 * less one, once each.
 */
static int
same_group(const struct agreement *a, const char **why)
{
	int i, k = 0, n = (int)a->mine.rows[ROW_EXTRA + 1], r;
	char *seen;

	*why = "the ranks of a group passed different groups";
	if ((seen = calloc((size_t)n + 1, 1)) == NULL) {
		*why = "out of memory";
		return MPI_ERR_NO_MEM;
	}
	for (i = 0; i < a->mine.n; i++) {
		r = (int)ROW(&a->mine, a->w, i)[ROW_EXTRA];
		if ((int)ROW(&a->mine, a->w, i)[ROW_EXTRA + 1] != n)
			break;
		if (r == MPI_UNDEFINED)
			continue;
		if (r < 0 || r >= n || seen[r])
			break;
		seen[r] = 1;
		k++;
	}
	free(seen);
	return i == a->mine.n && k == n ? MPI_SUCCESS : MPI_ERR_GROUP;
}

/* The group members of t in group order: their world ranks into out. */
static int
members(const struct table *t, int w, const uint32_t *world, uint32_t *out)
{
	int i, r, n = 0;

	for (i = 0; i < t->n; i++)
		if ((r = (int)ROW(t, w, i)[ROW_EXTRA]) != MPI_UNDEFINED) {
			out[r] = world[i];
			n++;
		}
	return n;
}

int
ft__mpi_inter_create(MPI_Comm comm, MPI_Group group, int err,
    const char *why, MPI_Comm *newcomm)
{
	static const char call[] = "MPI_Comm_create";
	struct agreement a;
	uint32_t extra[2] = { (uint32_t)MPI_UNDEFINED, 0 }, *world;
	int k, rk, rc;

	if (err == 0) {
		extra[0] = (uint32_t)group->rank;
		extra[1] = (uint32_t)group->size;
	}
	agreement_init(&a, comm, call, 2);
	if ((rc = agree(&a, err, why, extra, same_group)) != MPI_SUCCESS)
		return rc;
	if ((rc = take(&a, 4)) != MPI_SUCCESS) {
		agreement_release(&a);
		return rc;
	}
	if ((world = calloc((size_t)comm->size + (size_t)comm->rsize,
	    sizeof(*world))) == NULL) {
		agreement_release(&a);
		return ft__mpi_err(comm, MPI_ERR_NO_MEM, call,
		    "out of memory");
	}
	k = members(&a.mine, a.w, comm->world, world);
	rk = members(&a.theirs, a.w, comm->rworld, world + k);
	agreement_release(&a);
	/* Empty on either side, or not in the group: MPI_COMM_NULL. */
	if (k == 0 || rk == 0 || group->rank == MPI_UNDEFINED) {
		*newcomm = MPI_COMM_NULL;
		rc = MPI_SUCCESS;
	} else
		rc = make(&a, comm, world, k, group->rank, world + k, rk,
		    newcomm);
	free(world);
	return rc;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Intercomm_create = PMPI_Intercomm_create
#pragma weak MPI_Intercomm_merge = PMPI_Intercomm_merge
#pragma weak MPI_Comm_remote_size = PMPI_Comm_remote_size
#pragma weak MPI_Comm_remote_group = PMPI_Comm_remote_group
