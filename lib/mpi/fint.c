/* SPDX-License-Identifier: ISC */
/*
 * Language interoperability (MPI-3.1 17.2): handles to and from
 * Fortran integers, and statuses to and from arrays of them.
 *
 * ft's handles are pointers, so each kind of handle keeps a table of
 * slots, and a handle's integer names its slot: slot 0 is the null
 * handle, slots 1 to npre the predefined handles in a fixed order, and
 * the handles the application made take the others on their first
 * conversion.  A map from handle to slot (ft_mpi_hset) makes c2f O(1),
 * and f2c reads the slot.  When a handle stops being valid, its kind's
 * code calls ft__mpi_fint_forget, which empties the slot and puts it at
 * the back of a queue of free slots.  The integer carries the slot's
 * generation in its high bits, counted up each time the slot is
 * emptied, so an integer kept after its handle was freed converts to
 * the null handle even once the slot holds another handle (until the
 * slot has been reused GEN_MAX times: the queue spreads reuses over
 * every free slot).  Predefined handles are never forgotten, and their
 * generation stays 0, so their integers are 1 to npre.
 *
 * A handle that is not valid (freed, or never made) converts to the
 * null integer, and is an error of its kind on MPI_COMM_WORLD's
 * handler; a request cannot be checked, and converts as given.
 */
#include <stdlib.h>

#include "op.h"
#include "win.h"

#define SLOT_BITS	21
#define SLOT_MAX	(1u << SLOT_BITS)
#define GEN_MAX		(1u << (31 - SLOT_BITS))

struct fslot {
	const void	*h;	/* the handle, NULL when free */
	uint32_t	 gen;
	uint32_t	 next;	/* the next free slot, 0: none */
};

struct ftab {
	struct fslot		*slot;
	uint32_t		 n, cap;	/* slots used so far, allocated */
	uint32_t		 npre;
	uint32_t		 head, tail;	/* queue of free slots */
	struct ft_mpi_hset	 map;		/* handle -> slot */
	int			 ready;
};

static struct ftab tabs[FT_FINT_NKINDS];

/* Each kind's name, for messages, and the class of its errors. */
static const struct {
	const char	*name;
	int		 class;
} kinds[FT_FINT_NKINDS] = {
	[FT_FINT_COMM] = { "communicator", MPI_ERR_COMM },
	[FT_FINT_ERRH] = { "error handler", MPI_ERR_ARG },
	[FT_FINT_GROUP] = { "group", MPI_ERR_GROUP },
	[FT_FINT_INFO] = { "info object", MPI_ERR_INFO },
	[FT_FINT_MESSAGE] = { "message", MPI_ERR_REQUEST },
	[FT_FINT_OP] = { "operation", MPI_ERR_OP },
	[FT_FINT_REQUEST] = { "request", MPI_ERR_REQUEST },
	[FT_FINT_TYPE] = { "datatype", MPI_ERR_TYPE },
	[FT_FINT_WIN] = { "window", MPI_ERR_WIN },
};

/* The i-th predefined handle of kind k; NULL past the last. */
static const void *
predef(enum ft_fint_kind k, size_t i)
{
	static const void *const comms[] = { MPI_COMM_WORLD, MPI_COMM_SELF };
	static const void *const errhs[] = { MPI_ERRORS_ARE_FATAL,
	    MPI_ERRORS_RETURN, MPI_ERRORS_ABORT };

	switch (k) {
	case FT_FINT_COMM:
		return i < 2 ? comms[i] : NULL;
	case FT_FINT_ERRH:
		return i < 3 ? errhs[i] : NULL;
	case FT_FINT_GROUP:
		return i == 0 ? MPI_GROUP_EMPTY : NULL;
	case FT_FINT_INFO:
		return i == 0 ? MPI_INFO_ENV : NULL;
	case FT_FINT_MESSAGE:
		return i == 0 ? MPI_MESSAGE_NO_PROC : NULL;
	case FT_FINT_OP:
		return ft__mpi_op_predef(i);
	case FT_FINT_TYPE:
		return ft__mpi_type_predef(i);
	default:
		return NULL;
	}
}

/* Is h (not NULL) a valid handle of kind k? */
static int
valid(enum ft_fint_kind k, const void *h)
{
	switch (k) {
	case FT_FINT_COMM:
		return ft__mpi_comm_ok((MPI_Comm)(uintptr_t)h);
	case FT_FINT_ERRH:
		return ft__mpi_errh_ok((MPI_Errhandler)(uintptr_t)h);
	case FT_FINT_GROUP:
		return ft__mpi_group_ok((MPI_Group)(uintptr_t)h);
	case FT_FINT_INFO:
		return ft__mpi_info_ok((MPI_Info)(uintptr_t)h);
	case FT_FINT_MESSAGE:
		return ft__mpi_message_ok((MPI_Message)(uintptr_t)h);
	case FT_FINT_OP:
		return ft__mpi_op_ok((MPI_Op)(uintptr_t)h);
	case FT_FINT_TYPE:
		return ft__mpi_type_valid((MPI_Datatype)(uintptr_t)h);
	case FT_FINT_WIN:
		return ft__mpi_win_ok((MPI_Win)(uintptr_t)h);
	default:
		return 1;	/* requests: nothing to check them against */
	}
}

/* Room for one more slot; 0, or -1 when out of memory. */
static int
tab_grow(struct ftab *t)
{
	struct fslot *ns;
	uint32_t cap;

	if (t->n < t->cap)
		return 0;
	cap = t->cap == 0 ? 64 : t->cap * 2;
	if (cap > SLOT_MAX)
		cap = SLOT_MAX;
	if ((ns = reallocarray(t->slot, cap, sizeof(*ns))) == NULL)
		return -1;
	t->slot = ns;
	t->cap = cap;
	return 0;
}

/* Slot n, next, holds h. */
static int
tab_append(struct ftab *t, const void *h)
{
	if (tab_grow(t) != 0 || (h != NULL &&
	    ft__mpi_hset_put(&t->map, h, t->n) != 0))
		return -1;
	t->slot[t->n].h = h;
	t->slot[t->n].gen = 0;
	t->slot[t->n].next = 0;
	t->n++;
	return 0;
}

/* Kind k's table, with its null and predefined handles; NULL: no memory. */
static struct ftab *
tab(enum ft_fint_kind k)
{
	struct ftab *t = &tabs[k];
	const void *h;
	size_t i;

	if (t->ready)
		return t;
	if (tab_append(t, NULL) != 0)
		return NULL;
	for (i = 0; (h = predef(k, i)) != NULL; i++)
		if (tab_append(t, h) != 0) {
			t->n = 0;
			ft__mpi_hset_release(&t->map);
			return NULL;
		}
	t->npre = (uint32_t)i;
	t->ready = 1;
	return t;
}

static MPI_Fint
fint_of(const struct ftab *t, uint32_t s)
{
	return (MPI_Fint)(t->slot[s].gen << SLOT_BITS | s);
}

static MPI_Fint
c2f(enum ft_fint_kind k, const char *call, const void *h)
{
	struct ftab *t;
	uint32_t s;

	if (h == NULL)
		return 0;
	if ((t = tab(k)) == NULL) {
		(void)ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
		    "out of memory");
		return 0;
	}
	if (ft__mpi_hset_get(&t->map, h, &s))
		return fint_of(t, s);
	if (!valid(k, h)) {
		(void)ft__mpi_err(MPI_COMM_NULL, kinds[k].class, call,
		    "invalid %s", kinds[k].name);
		return 0;
	}
	if (t->head != 0) {
		s = t->head;
		if (ft__mpi_hset_put(&t->map, h, s) != 0)
			goto nomem;
		t->head = t->slot[s].next;
		if (t->head == 0)
			t->tail = 0;
		t->slot[s].h = h;
		t->slot[s].next = 0;
		return fint_of(t, s);
	}
	if (t->n == SLOT_MAX) {
		(void)ft__mpi_err(MPI_COMM_NULL, MPI_ERR_INTERN, call,
		    "more than %u %ss converted at once", SLOT_MAX - 1,
		    kinds[k].name);
		return 0;
	}
	s = t->n;
	if (tab_append(t, h) != 0)
		goto nomem;
	return fint_of(t, s);
nomem:
	(void)ft__mpi_err(MPI_COMM_NULL, MPI_ERR_NO_MEM, call,
	    "out of memory");
	return 0;
}

static const void *
f2c(enum ft_fint_kind k, MPI_Fint f)
{
	struct ftab *t;
	uint32_t s;

	if (f <= 0 || (t = tab(k)) == NULL)
		return NULL;
	s = (uint32_t)f & (SLOT_MAX - 1);
	if (s >= t->n || t->slot[s].gen != (uint32_t)f >> SLOT_BITS)
		return NULL;
	return t->slot[s].h;
}

void
ft__mpi_fint_forget(enum ft_fint_kind k, const void *h)
{
	struct ftab *t = &tabs[k];
	uint32_t s;

	if (t->map.n == 0 || !ft__mpi_hset_get(&t->map, h, &s) ||
	    s <= t->npre)
		return;
	ft__mpi_hset_del(&t->map, h);
	t->slot[s].h = NULL;
	t->slot[s].gen = (t->slot[s].gen + 1) % GEN_MAX;
	t->slot[s].next = 0;
	if (t->tail != 0)
		t->slot[t->tail].next = s;
	else
		t->head = s;
	t->tail = s;
}

void
ft__mpi_fint_fini(void)
{
	int k;

	for (k = 0; k < FT_FINT_NKINDS; k++) {
		free(tabs[k].slot);
		ft__mpi_hset_release(&tabs[k].map);
		memset(&tabs[k], 0, sizeof(tabs[k]));
	}
}

/* MPI_X_c2f and MPI_X_f2c for handles of type T, kind k. */
#define FINT_PAIR(X, T, k)						\
MPI_Fint								\
PMPI_##X##_c2f(T h)							\
{									\
	return c2f((k), "MPI_" #X "_c2f", h);				\
}									\
									\
T									\
PMPI_##X##_f2c(MPI_Fint f)						\
{									\
	return (T)(uintptr_t)f2c((k), f);				\
}

FINT_PAIR(Comm, MPI_Comm, FT_FINT_COMM)
FINT_PAIR(Errhandler, MPI_Errhandler, FT_FINT_ERRH)
FINT_PAIR(Group, MPI_Group, FT_FINT_GROUP)
FINT_PAIR(Info, MPI_Info, FT_FINT_INFO)
FINT_PAIR(Message, MPI_Message, FT_FINT_MESSAGE)
FINT_PAIR(Op, MPI_Op, FT_FINT_OP)
FINT_PAIR(Request, MPI_Request, FT_FINT_REQUEST)
FINT_PAIR(Type, MPI_Datatype, FT_FINT_TYPE)
FINT_PAIR(Win, MPI_Win, FT_FINT_WIN)

/* Statuses ----------------------------------------------------------- */

MPI_Fint ft_mpi_f_status_ignore[MPI_STATUS_SIZE];
MPI_Fint ft_mpi_f_statuses_ignore[MPI_STATUS_SIZE];

enum { F_CANCELLED = 3, F_BYTES_LO, F_BYTES_HI };
_Static_assert(F_BYTES_HI + 1 == MPI_STATUS_SIZE, "MPI_STATUS_SIZE");
_Static_assert(sizeof(size_t) <= 8, "a byte count fits two integers");

static int
f_ignored(const MPI_Fint *f)
{
	return f == NULL || f == MPI_F_STATUS_IGNORE ||
	    f == MPI_F_STATUSES_IGNORE;
}

/*
 * MPI_STATUS_IGNORE, MPI_F_STATUS_IGNORE and the like are not statuses:
 * MPI_ERR_ARG.
 */
int
PMPI_Status_c2f(const MPI_Status *c, MPI_Fint *f)
{
	uint64_t bytes;

	if (c == MPI_STATUS_IGNORE || f_ignored(f))
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Status_c2f", "no status to convert, or to fill");
	bytes = c->ft_bytes;
	f[MPI_F_SOURCE] = c->MPI_SOURCE;
	f[MPI_F_TAG] = c->MPI_TAG;
	f[MPI_F_ERROR] = c->MPI_ERROR;
	f[F_CANCELLED] = c->ft_cancelled;
	f[F_BYTES_LO] = (MPI_Fint)(uint32_t)bytes;
	f[F_BYTES_HI] = (MPI_Fint)(uint32_t)(bytes >> 32);
	return MPI_SUCCESS;
}

int
PMPI_Status_f2c(const MPI_Fint *f, MPI_Status *c)
{
	uint64_t bytes;

	if (f_ignored(f) || c == MPI_STATUS_IGNORE)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Status_f2c", "no status to convert, or to fill");
	bytes = (uint64_t)(uint32_t)f[F_BYTES_HI] << 32 |
	    (uint32_t)f[F_BYTES_LO];
	if (bytes > SIZE_MAX)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Status_f2c", "byte count out of range");
	memset(c, 0, sizeof(*c));
	c->MPI_SOURCE = f[MPI_F_SOURCE];
	c->MPI_TAG = f[MPI_F_TAG];
	c->MPI_ERROR = f[MPI_F_ERROR];
	c->ft_cancelled = f[F_CANCELLED] != 0;
	c->ft_bytes = (size_t)bytes;
	return MPI_SUCCESS;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Comm_c2f = PMPI_Comm_c2f
#pragma weak MPI_Comm_f2c = PMPI_Comm_f2c
#pragma weak MPI_Errhandler_c2f = PMPI_Errhandler_c2f
#pragma weak MPI_Errhandler_f2c = PMPI_Errhandler_f2c
#pragma weak MPI_Group_c2f = PMPI_Group_c2f
#pragma weak MPI_Group_f2c = PMPI_Group_f2c
#pragma weak MPI_Info_c2f = PMPI_Info_c2f
#pragma weak MPI_Info_f2c = PMPI_Info_f2c
#pragma weak MPI_Message_c2f = PMPI_Message_c2f
#pragma weak MPI_Message_f2c = PMPI_Message_f2c
#pragma weak MPI_Op_c2f = PMPI_Op_c2f
#pragma weak MPI_Op_f2c = PMPI_Op_f2c
#pragma weak MPI_Request_c2f = PMPI_Request_c2f
#pragma weak MPI_Request_f2c = PMPI_Request_f2c
#pragma weak MPI_Type_c2f = PMPI_Type_c2f
#pragma weak MPI_Type_f2c = PMPI_Type_f2c
#pragma weak MPI_Win_c2f = PMPI_Win_c2f
#pragma weak MPI_Win_f2c = PMPI_Win_f2c
#pragma weak MPI_Status_c2f = PMPI_Status_c2f
#pragma weak MPI_Status_f2c = PMPI_Status_f2c
