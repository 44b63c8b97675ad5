/* SPDX-License-Identifier: ISC */
/*
 * fint: handles to Fortran integers and back (MPI_X_c2f, MPI_X_f2c)
 * for every kind of handle, and statuses to arrays of integers and
 * back (MPI_Status_c2f, _f2c).
 *
 * For each kind: the null handle converts to the same integer every
 * time, and back; every predefined handle converts to an integer of
 * its own, the same on every rank, which converts back to it; a handle
 * the program made converts to an integer that stays while it lives,
 * and the handle converted back works (the program uses it); once the
 * handle is freed (or the request completes, or the message is
 * received), its integer converts to the null handle, even after a
 * new handle took its place.  Integers that no handle ever had
 * convert to the null handle.  Hundreds of handles at once stay
 * apart.  Under ft, a freed or garbage handle converts to the null
 * integer with an error under MPI_ERRORS_RETURN, and the predefined
 * integers are small.  Statuses keep source, tag, error, count
 * (including one of more than 2^32 bytes) and cancellation.
 */

#define NAME	"fint"
#include "mtest.h"

#include <limits.h>
#include <stdint.h>

#define NMANY	300
#define TAG	5

/* Integers no handle of any kind has been given here. */
static const MPI_Fint	bogus[] = { -1, -77, INT_MIN, INT_MAX, 123456789,
			    (1 << 21) + 1, 1000000 };

/*
 * Each kind's checks, through the same helpers: the conversions go
 * through void pointers, so one set of checks serves every kind.
 */
struct kind {
	const char	*name;
	MPI_Fint	(*c2f)(const void *);
	void		*(*f2c)(MPI_Fint);
	const void	*null;
};

#define KIND(X, T, nul)							\
static MPI_Fint								\
X##_c2f(const void *h)							\
{									\
	return MPI_##X##_c2f((T)(uintptr_t)h);				\
}									\
									\
static void *								\
X##_f2c(MPI_Fint f)							\
{									\
	return (void *)(uintptr_t)MPI_##X##_f2c(f);			\
}									\
									\
static const struct kind k_##X = { #X, X##_c2f, X##_f2c,		\
    (const void *)(uintptr_t)(nul) };

KIND(Comm, MPI_Comm, MPI_COMM_NULL)
KIND(Errhandler, MPI_Errhandler, MPI_ERRHANDLER_NULL)
KIND(Group, MPI_Group, MPI_GROUP_NULL)
KIND(Info, MPI_Info, MPI_INFO_NULL)
KIND(Message, MPI_Message, MPI_MESSAGE_NULL)
KIND(Op, MPI_Op, MPI_OP_NULL)
KIND(Request, MPI_Request, MPI_REQUEST_NULL)
KIND(Type, MPI_Datatype, MPI_DATATYPE_NULL)

#define H(h)	((const void *)(uintptr_t)(h))

/* The null handle and integers nobody was given. */
static void
check_null(const struct kind *k)
{
	MPI_Fint	f = k->c2f(k->null), g = k->c2f(k->null);
	size_t		i;

	if (f != g)
		fail("%s: null converts to %d, then %d", k->name, f, g);
	if (k->f2c(f) != k->null)
		fail("%s: the null integer %d converts to %p", k->name, f,
		    k->f2c(f));
	if (is_ft() && f != 0)
		fail("%s: null converts to %d, not 0", k->name, f);
	for (i = 0; i < sizeof(bogus) / sizeof(bogus[0]); i++)
		if (bogus[i] != f && k->f2c(bogus[i]) != k->null)
			fail("%s: integer %d converts to %p, not null", k->name,
			    bogus[i], k->f2c(bogus[i]));
}

/*
 * n predefined handles: each its own integer, stable, not the null's,
 * converting back, and the same as rank 0's.
 */
static void
check_predef(const struct kind *k, const void *const *h, int n)
{
	MPI_Fint	f[80], root[80], nul = k->c2f(k->null);
	int		i, j;

	if (n > 80)
		n = 80;
	for (i = 0; i < n; i++) {
		f[i] = k->c2f(h[i]);
		if (k->c2f(h[i]) != f[i])
			fail("%s: predefined %d converts to two integers",
			    k->name, i);
		if (f[i] == nul)
			fail("%s: predefined %d converts to the null integer",
			    k->name, i);
		if (k->f2c(f[i]) != h[i])
			fail("%s: predefined %d: integer %d converts back to "
			    "%p, not %p", k->name, i, f[i], k->f2c(f[i]), h[i]);
		if (is_ft() && (f[i] <= 0 || f[i] > 100))
			fail("%s: predefined %d has integer %d, not a small "
			    "one", k->name, i, f[i]);
		for (j = 0; j < i; j++)
			if (f[j] == f[i] && h[j] != h[i])
				fail("%s: predefined %d and %d share integer %d",
				    k->name, j, i, f[i]);
	}
	memcpy(root, f, (size_t)n * sizeof(f[0]));
	MPI_Bcast(root, n, MPI_INT, 0, MPI_COMM_WORLD);
	for (i = 0; i < n; i++)
		if (root[i] != f[i])
			fail("%s: predefined %d is %d here, %d on rank 0",
			    k->name, i, f[i], root[i]);
}

/* A live handle h the program made: its integer, checked. */
static MPI_Fint
check_live(const struct kind *k, const void *h, const char *what)
{
	MPI_Fint	f = k->c2f(h);

	if (f == k->c2f(k->null))
		fail("%s %s: converts to the null integer %d", k->name, what,
		    f);
	if (k->c2f(h) != f)
		fail("%s %s: converts to %d, then %d", k->name, what, f,
		    k->c2f(h));
	if (k->f2c(f) != h)
		fail("%s %s: %d converts back to %p, not %p", k->name, what,
		    f, k->f2c(f), h);
	return f;
}

/* The integer f of a handle no longer valid. */
static void
check_stale(const struct kind *k, MPI_Fint f, const char *what)
{
	if (k->f2c(f) != k->null)
		fail("%s %s: stale integer %d converts to %p, not null",
		    k->name, what, f, k->f2c(f));
}

static void
predefined(void)
{
	static const void *const comms[] = { H(MPI_COMM_WORLD),
	    H(MPI_COMM_SELF) };
	static const void *const errhs[] = { H(MPI_ERRORS_ARE_FATAL),
	    H(MPI_ERRORS_RETURN) };
	static const void *const groups[] = { H(MPI_GROUP_EMPTY) };
	static const void *const infos[] = { H(MPI_INFO_ENV) };
	static const void *const msgs[] = { H(MPI_MESSAGE_NO_PROC) };
	static const void *const ops[] = { H(MPI_MAX), H(MPI_MIN),
	    H(MPI_SUM), H(MPI_PROD), H(MPI_LAND), H(MPI_BAND), H(MPI_LOR),
	    H(MPI_BOR), H(MPI_LXOR), H(MPI_BXOR), H(MPI_MAXLOC),
	    H(MPI_MINLOC), H(MPI_REPLACE), H(MPI_NO_OP) };
	static const void *const types[] = { H(MPI_CHAR), H(MPI_SIGNED_CHAR),
	    H(MPI_UNSIGNED_CHAR), H(MPI_BYTE), H(MPI_WCHAR), H(MPI_SHORT),
	    H(MPI_UNSIGNED_SHORT), H(MPI_INT), H(MPI_UNSIGNED), H(MPI_LONG),
	    H(MPI_UNSIGNED_LONG), H(MPI_LONG_LONG), H(MPI_FLOAT),
	    H(MPI_DOUBLE), H(MPI_LONG_DOUBLE), H(MPI_C_BOOL), H(MPI_INT8_T),
	    H(MPI_INT64_T), H(MPI_UINT32_T), H(MPI_C_DOUBLE_COMPLEX),
	    H(MPI_AINT), H(MPI_OFFSET), H(MPI_COUNT), H(MPI_PACKED),
	    H(MPI_2INT), H(MPI_DOUBLE_INT), H(MPI_LONG_DOUBLE_INT),
	    H(MPI_CHARACTER), H(MPI_LOGICAL), H(MPI_INTEGER), H(MPI_REAL),
	    H(MPI_DOUBLE_PRECISION), H(MPI_COMPLEX), H(MPI_DOUBLE_COMPLEX),
	    H(MPI_INTEGER8), H(MPI_REAL16), H(MPI_COMPLEX32),
	    H(MPI_2DOUBLE_PRECISION) };

	check_predef(&k_Comm, comms, 2);
	check_predef(&k_Errhandler, errhs, 2);
	check_predef(&k_Group, groups, 1);
	check_predef(&k_Info, infos, 1);
	check_predef(&k_Message, msgs, 1);
	check_predef(&k_Op, ops, (int)(sizeof(ops) / sizeof(ops[0])));
	check_predef(&k_Type, types, (int)(sizeof(types) / sizeof(types[0])));
	if (MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_WORLD)) != MPI_COMM_WORLD)
		fail("MPI_COMM_WORLD does not come back");
}

static void
comms(void)
{
	MPI_Comm	c, d;
	MPI_Fint	f, g;
	int		size = -1;

	ok(MPI_Comm_dup(MPI_COMM_WORLD, &c), "MPI_Comm_dup");
	f = check_live(&k_Comm, H(c), "dup");
	/* The handle converted back is the communicator. */
	MPI_Comm_size(MPI_Comm_f2c(f), &size);
	if (size != nprocs)
		fail("size of the converted communicator %d, not %d", size,
		    nprocs);
	ok(MPI_Barrier(MPI_Comm_f2c(f)), "MPI_Barrier on f2c");
	d = MPI_Comm_f2c(f);
	ok(MPI_Comm_free(&d), "MPI_Comm_free of f2c");
	check_stale(&k_Comm, f, "freed");
	ok(MPI_Comm_split(MPI_COMM_WORLD, myrank % 2, 0, &c),
	    "MPI_Comm_split");
	g = check_live(&k_Comm, H(c), "split");
	if (g == f)
		fail("a new communicator took the freed one's integer %d", f);
	check_stale(&k_Comm, f, "freed, after a new one");
	ok(MPI_Comm_free(&c), "MPI_Comm_free");
	check_stale(&k_Comm, g, "split, freed");
}

static void
groups(void)
{
	MPI_Group	g;
	MPI_Fint	f;
	int		size = -1;

	ok(MPI_Comm_group(MPI_COMM_WORLD, &g), "MPI_Comm_group");
	f = check_live(&k_Group, H(g), "of MPI_COMM_WORLD");
	MPI_Group_size(MPI_Group_f2c(f), &size);
	if (size != nprocs)
		fail("size of the converted group %d", size);
	ok(MPI_Group_free(&g), "MPI_Group_free");
	check_stale(&k_Group, f, "freed");
}

static void
infos(void)
{
	MPI_Info	in, in2;
	MPI_Fint	f, f2;
	char		v[16];
	int		flag = 0;

	ok(MPI_Info_create(&in), "MPI_Info_create");
	ok(MPI_Info_set(in, "key", "val"), "MPI_Info_set");
	f = check_live(&k_Info, H(in), "created");
	MPI_Info_get(MPI_Info_f2c(f), "key", sizeof(v) - 1, v, &flag);
	if (!flag || strcmp(v, "val") != 0)
		fail("the converted info object lost its key");
	ok(MPI_Info_dup(in, &in2), "MPI_Info_dup");
	f2 = check_live(&k_Info, H(in2), "dup");
	if (f2 == f)
		fail("two info objects share integer %d", f);
	ok(MPI_Info_free(&in), "MPI_Info_free");
	check_stale(&k_Info, f, "freed");
	if (MPI_Info_f2c(f2) != in2)
		fail("freeing one info object lost the other's integer");
	ok(MPI_Info_free(&in2), "MPI_Info_free");
	check_stale(&k_Info, f2, "freed");
}

static void
my_errh(MPI_Comm *c, int *code, ...)
{
	(void)c;
	(void)code;
}

static void
errhs(void)
{
	MPI_Errhandler	e, e2;
	MPI_Fint	f;

	ok(MPI_Comm_create_errhandler(my_errh, &e),
	    "MPI_Comm_create_errhandler");
	f = check_live(&k_Errhandler, H(e), "created");
	ok(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_Errhandler_f2c(f)),
	    "MPI_Comm_set_errhandler of f2c");
	/* A second handle to the same handler: the integer stays. */
	ok(MPI_Comm_get_errhandler(MPI_COMM_SELF, &e2),
	    "MPI_Comm_get_errhandler");
	if (MPI_Errhandler_c2f(e2) != f)
		fail("the handler got back converts to %d, not %d",
		    MPI_Errhandler_c2f(e2), f);
	ok(MPI_Errhandler_free(&e), "MPI_Errhandler_free");
	if (MPI_Errhandler_f2c(f) != e2)
		fail("the integer went with the first of two handles");
	ok(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN),
	    "MPI_Comm_set_errhandler");
	ok(MPI_Errhandler_free(&e2), "MPI_Errhandler_free");
	check_stale(&k_Errhandler, f, "freed");
}

static void
sum_fn(void *in, void *inout, int *len, MPI_Datatype *t)
{
	int	i;

	(void)t;
	for (i = 0; i < *len; i++)
		((int *)inout)[i] += ((int *)in)[i];
}

static void
ops(void)
{
	MPI_Op		op, o;
	MPI_Fint	f;
	int		in = myrank + 1, out = 0;

	ok(MPI_Op_create(sum_fn, 1, &op), "MPI_Op_create");
	f = check_live(&k_Op, H(op), "created");
	ok(MPI_Allreduce(&in, &out, 1, MPI_INT, MPI_Op_f2c(f),
	    MPI_COMM_WORLD), "MPI_Allreduce with f2c");
	if (out != nprocs * (nprocs + 1) / 2)
		fail("user op through f2c: %d, not %d", out,
		    nprocs * (nprocs + 1) / 2);
	o = MPI_Op_f2c(f);
	ok(MPI_Op_free(&o), "MPI_Op_free of f2c");
	check_stale(&k_Op, f, "freed");
}

static void
types(void)
{
	MPI_Datatype	t, u, many[NMANY];
	MPI_Fint	f, fu, fm[NMANY];
	int		i, j, buf[4] = { 1, 2, 3, 4 }, got[4], size = -1;

	/* Uncommitted types are handles too. */
	ok(MPI_Type_contiguous(4, MPI_INT, &t), "MPI_Type_contiguous");
	f = check_live(&k_Type, H(t), "uncommitted");
	u = MPI_Type_f2c(f);
	ok(MPI_Type_commit(&u), "MPI_Type_commit of f2c");
	if (MPI_Type_c2f(u) != f)
		fail("committing changed the type's integer");
	MPI_Type_size(MPI_Type_f2c(f), &size);
	if (size != 16)
		fail("size of the converted type %d", size);
	memset(got, 0, sizeof(got));
	ok(MPI_Sendrecv(buf, 1, MPI_Type_f2c(f), myrank, TAG, got, 4, MPI_INT,
	    myrank, TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
	    "MPI_Sendrecv with f2c type");
	if (memcmp(buf, got, sizeof(buf)) != 0)
		fail("data sent with the converted type differ");
	ok(MPI_Type_dup(t, &u), "MPI_Type_dup");
	fu = check_live(&k_Type, H(u), "dup");
	if (fu == f)
		fail("a type and its duplicate share integer %d", f);
	ok(MPI_Type_free(&t), "MPI_Type_free");
	check_stale(&k_Type, f, "freed");
	if (MPI_Type_f2c(fu) != u)
		fail("the duplicate lost its integer");
	ok(MPI_Type_free(&u), "MPI_Type_free");
	check_stale(&k_Type, fu, "dup, freed");

	/* Many at once, then all freed, then as many again. */
	for (j = 0; j < 2; j++) {
		for (i = 0; i < NMANY; i++) {
			ok(MPI_Type_contiguous(i + 1, MPI_BYTE, &many[i]),
			    "MPI_Type_contiguous");
			fm[i] = check_live(&k_Type, H(many[i]), "one of many");
		}
		for (i = 0; i < NMANY; i++)
			if (MPI_Type_f2c(fm[i]) != many[i])
				fail("type %d of many: integer %d lost", i,
				    fm[i]);
		/* Free every other one first, then the rest. */
		for (i = 0; i < NMANY; i += 2)
			ok(MPI_Type_free(&many[i]), "MPI_Type_free");
		for (i = 0; i < NMANY; i++)
			if (i % 2 == 0)
				check_stale(&k_Type, fm[i], "one of many");
			else if (MPI_Type_f2c(fm[i]) != many[i])
				fail("type %d of many: lost when others went",
				    i);
		for (i = 1; i < NMANY; i += 2) {
			ok(MPI_Type_free(&many[i]), "MPI_Type_free");
			check_stale(&k_Type, fm[i], "one of many");
		}
	}
}

static void
requests(void)
{
	MPI_Request	r, p;
	MPI_Fint	f, fp;
	MPI_Status	st;
	int		in = -1, out = myrank + 100, round;

	ok(MPI_Irecv(&in, 1, MPI_INT, myrank, TAG, MPI_COMM_WORLD, &r),
	    "MPI_Irecv");
	f = check_live(&k_Request, H(r), "irecv");
	ok(MPI_Send(&out, 1, MPI_INT, myrank, TAG, MPI_COMM_WORLD),
	    "MPI_Send");
	r = MPI_Request_f2c(f);
	ok(MPI_Wait(&r, &st), "MPI_Wait of f2c");
	if (in != out || st.MPI_SOURCE != myrank)
		fail("receive through a converted request: %d from %d", in,
		    st.MPI_SOURCE);
	if (r != MPI_REQUEST_NULL)
		fail("MPI_Wait left the request");
	check_stale(&k_Request, f, "completed");

	/* A persistent request keeps its integer until freed. */
	ok(MPI_Send_init(&out, 1, MPI_INT, myrank, TAG, MPI_COMM_WORLD, &p),
	    "MPI_Send_init");
	fp = check_live(&k_Request, H(p), "persistent");
	for (round = 0; round < 3; round++) {
		ok(MPI_Irecv(&in, 1, MPI_INT, myrank, TAG, MPI_COMM_WORLD, &r),
		    "MPI_Irecv");
		f = MPI_Request_c2f(r);
		if (f == fp)
			fail("two live requests share integer %d", f);
		p = MPI_Request_f2c(fp);
		ok(MPI_Start(&p), "MPI_Start of f2c");
		ok(MPI_Wait(&p, MPI_STATUS_IGNORE), "MPI_Wait");
		ok(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
		check_stale(&k_Request, f, "completed");
		if (MPI_Request_f2c(fp) != p)
			fail("round %d: the persistent request lost its "
			    "integer", round);
	}
	ok(MPI_Request_free(&p), "MPI_Request_free");
	check_stale(&k_Request, fp, "freed");
}

static void
messages(void)
{
	MPI_Message	m;
	MPI_Fint	f;
	MPI_Request	r;
	int		in = -1, out = myrank + 7;

	ok(MPI_Isend(&out, 1, MPI_INT, myrank, TAG, MPI_COMM_WORLD, &r),
	    "MPI_Isend");
	ok(MPI_Mprobe(myrank, TAG, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE),
	    "MPI_Mprobe");
	f = check_live(&k_Message, H(m), "probed");
	m = MPI_Message_f2c(f);
	ok(MPI_Mrecv(&in, 1, MPI_INT, &m, MPI_STATUS_IGNORE),
	    "MPI_Mrecv of f2c");
	if (in != out)
		fail("received %d through a converted message, not %d", in,
		    out);
	check_stale(&k_Message, f, "received");
	ok(MPI_Wait(&r, MPI_STATUS_IGNORE), "MPI_Wait");
}

/* ft's own guarantee: no crash, an error and the null integer. */
static void
invalid(void)
{
	MPI_Comm	c, stale;
	MPI_Datatype	t, tstale;
	int		junk[8];

	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	ok(MPI_Comm_dup(MPI_COMM_SELF, &c), "MPI_Comm_dup");
	stale = c;
	ok(MPI_Comm_free(&c), "MPI_Comm_free");
	if (MPI_Comm_c2f(stale) != 0)
		fail("a freed communicator converts to %d",
		    MPI_Comm_c2f(stale));
	if (MPI_Comm_c2f((MPI_Comm)(void *)junk) != 0)
		fail("garbage converts to a communicator integer");
	if (MPI_Group_c2f((MPI_Group)(void *)junk) != 0)
		fail("garbage converts to a group integer");
	if (MPI_Info_c2f((MPI_Info)(void *)junk) != 0)
		fail("garbage converts to an info integer");
	if (MPI_Op_c2f((MPI_Op)(void *)junk) != 0)
		fail("garbage converts to an op integer");
	if (MPI_Errhandler_c2f((MPI_Errhandler)(void *)junk) != 0)
		fail("garbage converts to an error handler integer");
	if (MPI_Message_c2f((MPI_Message)(void *)junk) != 0)
		fail("garbage converts to a message integer");
	ok(MPI_Type_contiguous(2, MPI_INT, &t), "MPI_Type_contiguous");
	tstale = t;
	ok(MPI_Type_free(&t), "MPI_Type_free");
	if (MPI_Type_c2f(tstale) != 0)
		fail("a freed type converts to %d", MPI_Type_c2f(tstale));
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

static void
statuses(void)
{
	MPI_Fint	f[MPI_STATUS_SIZE];
	const MPI_Fint	*ign = MPI_F_STATUS_IGNORE, *igns = MPI_F_STATUSES_IGNORE;
	MPI_Status	st, back;
	MPI_Count	n = -1;
	int		buf[3] = { 1, 2, 3 }, got[5], count = -1, flag = -1;

	if (ign == NULL || igns == NULL || ign == igns)
		fail("MPI_F_STATUS_IGNORE and MPI_F_STATUSES_IGNORE are not "
		    "two objects");
	ok(MPI_Sendrecv(buf, 3, MPI_INT, myrank, TAG + 1, got, 5, MPI_INT,
	    myrank, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Sendrecv");
	st.MPI_ERROR = MPI_ERR_TRUNCATE;	/* to see it carried */
	memset(f, 0x5a, sizeof(f));
	ok(MPI_Status_c2f(&st, f), "MPI_Status_c2f");
	if (f[MPI_F_SOURCE] != myrank || f[MPI_F_TAG] != TAG + 1 ||
	    f[MPI_F_ERROR] != MPI_ERR_TRUNCATE)
		fail("Fortran status: source %d tag %d error %d",
		    f[MPI_F_SOURCE], f[MPI_F_TAG], f[MPI_F_ERROR]);
	memset(&back, 0x5a, sizeof(back));
	ok(MPI_Status_f2c(f, &back), "MPI_Status_f2c");
	MPI_Get_count(&back, MPI_INT, &count);
	MPI_Test_cancelled(&back, &flag);
	if (back.MPI_SOURCE != myrank || back.MPI_TAG != TAG + 1 ||
	    back.MPI_ERROR != MPI_ERR_TRUNCATE || count != 3 || flag != 0)
		fail("status back: source %d tag %d error %d count %d "
		    "cancelled %d", back.MPI_SOURCE, back.MPI_TAG,
		    back.MPI_ERROR, count, flag);

	/* Counts beyond 32 bits, and cancellation. */
	ok(MPI_Status_set_elements_x(&st, MPI_DOUBLE, 3000000000LL),
	    "MPI_Status_set_elements_x");
	ok(MPI_Status_set_cancelled(&st, 1), "MPI_Status_set_cancelled");
	ok(MPI_Status_c2f(&st, f), "MPI_Status_c2f");
	ok(MPI_Status_f2c(f, &back), "MPI_Status_f2c");
	MPI_Get_elements_x(&back, MPI_DOUBLE, &n);
	MPI_Test_cancelled(&back, &flag);
	if (n != 3000000000LL || flag != 1)
		fail("large status back: %lld elements, cancelled %d",
		    (long long)n, flag);

	/* Nothing to convert, or nowhere to put it. */
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	expect(MPI_Status_c2f(MPI_STATUS_IGNORE, f), MPI_ERR_ARG,
	    "MPI_Status_c2f of MPI_STATUS_IGNORE");
	expect(MPI_Status_c2f(&st, MPI_F_STATUS_IGNORE), MPI_ERR_ARG,
	    "MPI_Status_c2f to MPI_F_STATUS_IGNORE");
	expect(MPI_Status_f2c(MPI_F_STATUSES_IGNORE, &back), MPI_ERR_ARG,
	    "MPI_Status_f2c of MPI_F_STATUSES_IGNORE");
	expect(MPI_Status_f2c(f, MPI_STATUS_IGNORE), MPI_ERR_ARG,
	    "MPI_Status_f2c to MPI_STATUS_IGNORE");
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
}

int
main(int argc, char **argv)
{
	const struct kind *const all[] = { &k_Comm, &k_Errhandler, &k_Group,
	    &k_Info, &k_Message, &k_Op, &k_Request, &k_Type };
	size_t	i;

	init(&argc, &argv);
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		check_null(all[i]);
	predefined();
	comms();
	groups();
	infos();
	errhs();
	ops();
	types();
	requests();
	messages();
	if (is_ft())
		invalid();
	statuses();
	/* Integers nobody was given still convert to nothing. */
	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		check_null(all[i]);
	return finish();
}
