/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the datatype engine (lib/mpi/type.c): the compacted
 * description of common types (one block, one strided run, a loop over
 * a struct), bounds and extents against the values Open MPI gives, the
 * unit view reductions use, and MPI_Pack, MPI_Unpack, truncated
 * unpacking and MPI_Get_elements of thousands of random nested types
 * against a naive reference that walks the type map one basic element
 * at a time.  Then the extras of lib/mpi/typex.c: random types made
 * again from MPI_Type_get_contents have the same type map; subarray and
 * darray types against the standard's definition, element by element;
 * "external32" bytes of known values, and random types through
 * MPI_Pack_external and back.  Runs MPI in singleton mode (no
 * launcher).
 */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <wchar.h>

#include "mpi/mpi_impl.h"
#include "tap.h"

/* A deterministic generator, so a failure names a reproducible seed. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;

static uint32_t
rnd(uint32_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 32) % n;
}

static int
rnd_range(int lo, int hi)
{
	return lo + (int)rnd((uint32_t)(hi - lo + 1));
}

/* The reference: a type map, one (displacement, size) per basic element. */
struct tmap {
	MPI_Aint	*disp;
	size_t		*len;
	size_t		 n, cap;
};

static void
tmap_put(struct tmap *m, MPI_Aint disp, size_t len)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->disp = realloc(m->disp, m->cap * sizeof(*m->disp));
		m->len = realloc(m->len, m->cap * sizeof(*m->len));
		if (m->disp == NULL || m->len == NULL)
			abort();
	}
	m->disp[m->n] = disp;
	m->len[m->n] = len;
	m->n++;
}

/* Walk the constructor tree, as the standard defines the type map. */
static void
tmap_walk(MPI_Datatype t, MPI_Aint at, struct tmap *m)
{
	MPI_Datatype c;
	MPI_Aint d;
	size_t i, k, bl;

	if (t->comb == FT_TC_NAMED) {
		tmap_put(m, at, t->size);
		return;
	}
	for (i = 0; i < t->nblk; i++) {
		c = t->types != NULL ? t->types[i] : t->old;
		bl = t->blens != NULL ? (size_t)t->blens[i] : t->blen;
		d = t->disps != NULL ? t->disps[i] : (MPI_Aint)i * t->stride;
		for (k = 0; k < bl; k++)
			tmap_walk(c, at + d + (MPI_Aint)k * c->extent, m);
	}
}

static void
tmap_of(MPI_Datatype t, int count, struct tmap *m)
{
	int i;

	m->n = 0;
	for (i = 0; i < count; i++)
		tmap_walk(t, (MPI_Aint)i * t->extent, m);
}

static void
ref_pack(const struct tmap *m, const uint8_t *base, uint8_t *out)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		memcpy(out, base + m->disp[i], m->len[i]);
		out += m->len[i];
	}
}

/* Unpack the first bytes packed bytes, as a truncated message would. */
static void
ref_unpack(const struct tmap *m, const uint8_t *in, size_t bytes,
    uint8_t *base)
{
	size_t i, n;

	for (i = 0; i < m->n && bytes > 0; i++) {
		n = m->len[i] < bytes ? m->len[i] : bytes;
		memcpy(base + m->disp[i], in, n);
		in += n;
		bytes -= n;
	}
}

/* Basic elements wholly in the first bytes, or -1 if one is cut. */
static long long
ref_elements(const struct tmap *m, size_t bytes)
{
	size_t i;

	for (i = 0; i < m->n && bytes > 0; i++) {
		if (bytes < m->len[i])
			return -1;
		bytes -= m->len[i];
	}
	return bytes > 0 ? -1 : (long long)i;
}

static MPI_Datatype
rand_basic(void)
{
	static MPI_Datatype const basics[] = {
		MPI_CHAR, MPI_SHORT, MPI_INT, MPI_DOUBLE, MPI_FLOAT,
		MPI_LONG_DOUBLE, MPI_DOUBLE_INT, MPI_SHORT_INT, MPI_2INT,
		MPI_LONG_DOUBLE_INT, MPI_BYTE,
	};

	return basics[rnd(sizeof(basics) / sizeof(basics[0]))];
}

/* The arguments of a random subarray or darray of up to 3 dimensions. */
struct arr {
	int	ndims, order, size, rank;
	int	gs[3], sub[3], st[3], dist[3], darg[3], ps[3];
};

static void
rand_arr(struct arr *a, int darray)
{
	int d;

	a->ndims = rnd_range(1, 3);
	a->order = rnd(2) ? MPI_ORDER_C : MPI_ORDER_FORTRAN;
	a->size = 1;
	for (d = 0; d < a->ndims; d++) {
		a->gs[d] = rnd_range(1, 6);
		a->sub[d] = rnd_range(1, a->gs[d]);
		a->st[d] = rnd_range(0, a->gs[d] - a->sub[d]);
		a->ps[d] = darray ? rnd_range(1, 3) : 1;
		a->dist[d] = a->ps[d] == 1 && rnd(3) == 0 ?
		    MPI_DISTRIBUTE_NONE : rnd(2) ? MPI_DISTRIBUTE_BLOCK :
		    MPI_DISTRIBUTE_CYCLIC;
		a->darg[d] = rnd(2) ? MPI_DISTRIBUTE_DFLT_DARG :
		    a->dist[d] == MPI_DISTRIBUTE_BLOCK ?
		    (a->gs[d] + a->ps[d] - 1) / a->ps[d] + rnd_range(0, 2) :
		    rnd_range(1, 3);
		a->size *= a->ps[d];
	}
	a->rank = rnd_range(0, a->size - 1);
}

static int
make_arr(const struct arr *a, int darray, MPI_Datatype old,
    MPI_Datatype *t)
{
	if (!darray)
		return MPI_Type_create_subarray(a->ndims, a->gs, a->sub, a->st,
		    a->order, old, t);
	return MPI_Type_create_darray(a->size, a->rank, a->ndims, a->gs,
	    a->dist, a->darg, a->ps, a->order, old, t);
}

static int
rand_array(MPI_Datatype old, int darray, MPI_Datatype *t)
{
	struct arr a;

	rand_arr(&a, darray);
	return make_arr(&a, darray, old, t);
}

/*
 * A random type of nesting depth at most depth, made with every
 * constructor; the parts are freed at once, so the new type must keep
 * them alive.  Counts and displacements are small, and may be zero or
 * negative, where the standard allows.
 */
static MPI_Datatype
rand_type(int depth)
{
	MPI_Datatype c, t = MPI_DATATYPE_NULL, ts[4];
	MPI_Aint ad[4];
	int bl[4], id[4], i, n, rc = MPI_SUCCESS;

	if (depth == 0 || rnd(5) == 0)
		return rand_basic();
	c = rand_type(depth - 1);
	n = rnd_range(0, 4);
	for (i = 0; i < 4; i++) {
		bl[i] = rnd_range(0, 3);
		id[i] = rnd_range(-3, 8);
		ad[i] = rnd_range(-48, 96);
	}
	switch (rnd(13)) {
	case 0:
		rc = MPI_Type_contiguous(rnd_range(0, 4), c, &t);
		break;
	case 1:
		rc = MPI_Type_vector(n, bl[0], rnd_range(-4, 6), c, &t);
		break;
	case 2:
		rc = MPI_Type_create_hvector(n, bl[0], rnd_range(-64, 96), c,
		    &t);
		break;
	case 3:
		rc = MPI_Type_indexed(n, bl, id, c, &t);
		break;
	case 4:
		rc = MPI_Type_create_hindexed(n, bl, ad, c, &t);
		break;
	case 5:
		rc = MPI_Type_create_indexed_block(n, bl[0], id, c, &t);
		break;
	case 6:
		rc = MPI_Type_create_hindexed_block(n, bl[0], ad, c, &t);
		break;
	case 7:
		ts[0] = c;
		for (i = 1; i < 4; i++)
			ts[i] = rand_type(depth - 1);
		rc = MPI_Type_create_struct(n, bl, ad, ts, &t);
		for (i = 1; i < 4; i++)
			if (!ts[i]->predefined)
				MPI_Type_free(&ts[i]);
		break;
	case 8:
		rc = MPI_Type_create_resized(c, rnd_range(-16, 16),
		    rnd_range(0, 48), &t);
		break;
	case 9:
		rc = MPI_Type_dup(c, &t);
		break;
	case 10:
		rc = rand_array(c, 0, &t);
		break;
	case 11:
		rc = rand_array(c, 1, &t);
		break;
	default:
		/* A vector with touching blocks: must compact to one. */
		rc = MPI_Type_vector(n, bl[0], bl[0], c, &t);
		break;
	}
	if (rc != MPI_SUCCESS)
		abort();
	if (!c->predefined)
		MPI_Type_free(&c);
	return t;
}

struct stats {
	int	 types, bad_size, bad_true, bad_pack, bad_unpack, bad_trunc;
	int	 bad_elems, bad_dense, dense, bad_bounds;
	size_t	 segs, entries;
};

/* Check one type with count elements against the reference. */
static void
check_type(MPI_Datatype t, int count, struct stats *s)
{
	struct tmap m = { NULL, NULL, 0, 0 };
	MPI_Aint lo = 0, hi = 0, tlo = 0, thi = 0, off;
	uint8_t *buf, *ref, *packed, *rpacked, *base, *rbase;
	size_t i, total, span, cut;
	MPI_Status st;
	MPI_Count n;
	long long want;
	int pos, have = 0;

	s->types++;
	s->segs += t->nsegs;
	tmap_of(t, 1, &m);
	s->entries += m.n;
	total = 0;
	for (i = 0; i < m.n; i++) {
		total += m.len[i];
		if (!have || m.disp[i] < tlo)
			tlo = m.disp[i];
		if (!have || m.disp[i] + (MPI_Aint)m.len[i] > thi)
			thi = m.disp[i] + (MPI_Aint)m.len[i];
		have = 1;
	}
	if (total != t->size)
		s->bad_size++;
	if (have && (tlo != t->true_lb || thi != t->true_ub))
		s->bad_true++;
	if (have && (t->lb > tlo || t->lb + t->extent < thi) &&
	    !t->sticky_lb && !t->sticky_ub)
		s->bad_bounds++;

	tmap_of(t, count, &m);
	have = 0;
	for (i = 0; i < m.n; i++) {
		if (!have || m.disp[i] < lo)
			lo = m.disp[i];
		if (!have || m.disp[i] + (MPI_Aint)m.len[i] > hi)
			hi = m.disp[i] + (MPI_Aint)m.len[i];
		have = 1;
	}
	span = (size_t)(hi - lo) + 32;
	total = t->size * (size_t)count;
	buf = malloc(span);
	ref = malloc(span);
	packed = malloc(total + 16);
	rpacked = malloc(total + 16);
	if (buf == NULL || ref == NULL || packed == NULL || rpacked == NULL)
		abort();
	for (i = 0; i < span; i++)
		buf[i] = (uint8_t)rnd(256);
	base = buf + 16 - lo;
	rbase = ref + 16 - lo;

	/* Pack. */
	memset(packed, 0xa5, total + 16);
	memset(rpacked, 0xa5, total + 16);
	pos = 0;
	if (MPI_Pack(base, count, t, packed, (int)total + 16, &pos,
	    MPI_COMM_SELF) != MPI_SUCCESS || pos != (int)total)
		s->bad_pack++;
	ref_pack(&m, base, rpacked);
	if (memcmp(packed, rpacked, total + 16) != 0)
		s->bad_pack++;

	/* Unpack into a copy of the buffer: untouched bytes must stay. */
	for (i = 0; i < total; i++)
		rpacked[i] = (uint8_t)rnd(256);
	memcpy(ref, buf, span);
	pos = 0;
	if (MPI_Unpack(rpacked, (int)total, &pos, base, count, t,
	    MPI_COMM_SELF) != MPI_SUCCESS || pos != (int)total)
		s->bad_unpack++;
	ref_unpack(&m, rpacked, total, rbase);
	if (memcmp(buf, ref, span) != 0)
		s->bad_unpack++;

	/* A truncated message, as point-to-point unpacks it. */
	cut = total > 0 ? rnd((uint32_t)total + 1) : 0;
	for (i = 0; i < total; i++)
		rpacked[i] = (uint8_t)rnd(256);
	ft__mpi_unpack(rpacked, cut, base, count, t);
	ref_unpack(&m, rpacked, cut, rbase);
	if (memcmp(buf, ref, span) != 0)
		s->bad_trunc++;

	/* Basic elements in the truncated message. */
	memset(&st, 0, sizeof(st));
	st.ft_bytes = cut;
	want = ref_elements(&m, cut);
	if (MPI_Get_elements_x(&st, t, &n) != MPI_SUCCESS ||
	    n != (want < 0 ? MPI_UNDEFINED : want))
		s->bad_elems++;

	/* A dense type must be exactly its bytes, in order. */
	if (ft__mpi_type_dense(t, count, &off)) {
		MPI_Aint at = off;

		s->dense++;
		for (i = 0; i < m.n; i++) {
			if (m.disp[i] != at)
				break;
			at += (MPI_Aint)m.len[i];
		}
		if (i != m.n)
			s->bad_dense++;
	}
	free(buf);
	free(ref);
	free(packed);
	free(rpacked);
	free(m.disp);
	free(m.len);
}

static void
test_random(void)
{
	struct stats s;
	MPI_Datatype t;
	int i, depth;

	for (depth = 1; depth <= 4; depth++) {
		memset(&s, 0, sizeof(s));
		for (i = 0; i < 4000; i++) {
			t = rand_type(depth);
			if (!t->predefined &&
			    MPI_Type_commit(&t) != MPI_SUCCESS)
				abort();
			check_type(t, rnd_range(0, 3), &s);
			if (!t->predefined)
				MPI_Type_free(&t);
		}
		t_diag("depth %d: %d types, %zu basic elements, %zu segments, "
		    "%d dense", depth, s.types, s.entries, s.segs, s.dense);
		T_EQ_INT(s.bad_size, 0, "random types: size is the sum of "
		    "the type map");
		T_EQ_INT(s.bad_true, 0, "random types: true extent covers "
		    "exactly the data");
		T_EQ_INT(s.bad_bounds, 0, "random types: lb and ub contain "
		    "the data");
		T_EQ_INT(s.bad_pack, 0, "random types: MPI_Pack matches the "
		    "reference");
		T_EQ_INT(s.bad_unpack, 0, "random types: MPI_Unpack matches "
		    "the reference and writes nothing else");
		T_EQ_INT(s.bad_trunc, 0, "random types: truncated unpack "
		    "matches the reference");
		T_EQ_INT(s.bad_elems, 0, "random types: MPI_Get_elements of "
		    "a truncated message");
		T_EQ_INT(s.bad_dense, 0, "random types: dense means one "
		    "block in order");
	}
}

static int
seg_is(MPI_Datatype t, size_t i, MPI_Aint off, size_t len, size_t count,
    MPI_Aint stride)
{
	const struct ft_type_seg *g;

	if (i >= t->nsegs)
		return 0;
	g = &t->segs[i];
	return g->off == off && g->len == len && g->count == count &&
	    (count == 1 || g->stride == stride);
}

static void
test_compaction(void)
{
	struct { int i; double d; } sd[2];
	MPI_Datatype t, u, v, ts[2];
	MPI_Aint disps[2], off;
	int bl[2] = { 1, 1 }, idx[4] = { 0, 3, 6, 9 };

	MPI_Type_vector(1 << 20, 1, 2, MPI_DOUBLE, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 8, 1 << 20, 16),
	    "vector(1M, 1, 2, MPI_DOUBLE) is one strided run of 8 bytes");
	T_OK(!ft__mpi_type_dense(t, 1, &off), "and it is not dense");
	MPI_Type_free(&t);

	MPI_Type_contiguous(10, MPI_INT, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 40, 1, 0),
	    "contiguous(10, MPI_INT) is one block of 40 bytes");
	T_OK(ft__mpi_type_dense(t, 5, &off) && off == 0,
	    "and 5 of them are dense");
	MPI_Type_free(&t);

	MPI_Type_vector(4, 3, 3, MPI_INT, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 48, 1, 0),
	    "vector with stride == blocklength is one block");
	T_OK(ft__mpi_type_dense(t, 2, &off), "and dense for any count");
	MPI_Type_free(&t);

	MPI_Type_create_hvector(3, 1, -8, MPI_DOUBLE, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 8, 3, -8),
	    "hvector with negative stride is one run in type map order");
	T_OK(!ft__mpi_type_dense(t, 1, &off),
	    "and is not dense (its order is backwards)");
	MPI_Type_free(&t);

	MPI_Type_create_indexed_block(4, 1, idx, MPI_INT, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 4, 4, 12),
	    "indexed_block at regular displacements is one run");
	MPI_Type_free(&t);

	/* A struct with a hole, as the C compiler lays it out. */
	MPI_Get_address(&sd[0].i, &disps[0]);
	MPI_Get_address(&sd[0].d, &disps[1]);
	disps[1] -= disps[0];
	disps[0] = 0;
	ts[0] = MPI_INT;
	ts[1] = MPI_DOUBLE;
	MPI_Type_create_struct(2, bl, disps, ts, &u);
	T_EQ_INT(u->extent, (MPI_Aint)sizeof(sd[0]),
	    "struct { int; double; } has the extent of the C struct");
	MPI_Type_contiguous(1000, u, &v);
	MPI_Type_commit(&v);
	T_OK(v->nsegs == 3 && v->segs[0].len == 0 &&
	    v->segs[0].count == 1000 && v->segs[0].span == 2,
	    "1000 such structs are one loop over two blocks");
	T_EQ_INT(ft__mpi_type_dense(v, 1, &off), 0, "which is not dense");
	MPI_Type_free(&u);
	MPI_Type_free(&v);

	MPI_Type_contiguous(3, MPI_2INT, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 24, 1, 0) &&
	    ft__mpi_type_dense(t, 2, &off),
	    "contiguous(3, MPI_2INT) is one dense block");
	MPI_Type_free(&t);

	MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
	MPI_Type_commit(&t);
	T_OK(t->nsegs == 1 && seg_is(t, 0, 0, 12, 3, 16),
	    "contiguous(3, MPI_DOUBLE_INT) is one run of 12 bytes every 16");
	MPI_Type_free(&t);

	MPI_Type_contiguous(2, MPI_INT, &u);
	MPI_Type_create_resized(u, -4, 12, &t);
	MPI_Type_commit(&t);
	T_OK(ft__mpi_type_dense(t, 1, &off) && off == 0 &&
	    !ft__mpi_type_dense(t, 2, &off),
	    "resized: one element is dense at its true lb, two are not");
	MPI_Type_free(&t);
	MPI_Type_free(&u);
}

static void
test_bounds(void)
{
	MPI_Datatype t, r, ts[2];
	MPI_Aint lb, ext, d[2];
	int bl[3] = { 1, 0, 1 }, id[3] = { 2, -5, 4 }, sz;

	/* Every expected value below is what Open MPI 4 reports. */
	MPI_Type_get_extent(MPI_DOUBLE_INT, &lb, &ext);
	MPI_Type_size(MPI_DOUBLE_INT, &sz);
	T_OK(lb == 0 && ext == 16 && sz == 12,
	    "MPI_DOUBLE_INT: size 12, extent 16");
	MPI_Type_get_extent(MPI_SHORT_INT, &lb, &ext);
	MPI_Type_size(MPI_SHORT_INT, &sz);
	T_OK(ext == 8 && sz == 6, "MPI_SHORT_INT: size 6, extent 8");
	MPI_Type_get_extent(MPI_LONG_DOUBLE_INT, &lb, &ext);
	MPI_Type_size(MPI_LONG_DOUBLE_INT, &sz);
	T_OK(ext == 32 && sz == 20,
	    "MPI_LONG_DOUBLE_INT: size 20, extent 32");

	MPI_Type_vector(3, 1, -2, MPI_INT, &t);
	MPI_Type_get_extent(t, &lb, &ext);
	T_OK(lb == -16 && ext == 20, "vector with negative stride: lb -16, "
	    "extent 20");
	MPI_Type_free(&t);

	MPI_Type_indexed(3, bl, id, MPI_INT, &t);
	MPI_Type_get_extent(t, &lb, &ext);
	T_OK(lb == 8 && ext == 12, "indexed: blocks of length 0 do not "
	    "count for the bounds");
	MPI_Type_free(&t);

	d[0] = 0;
	d[1] = 6;
	bl[1] = 1;
	MPI_Type_create_hindexed(2, bl, d, MPI_INT, &t);
	MPI_Type_get_extent(t, &lb, &ext);
	T_EQ_INT(ext, 12, "hindexed ints at 0 and 6: extent padded to 12");
	MPI_Type_free(&t);

	MPI_Type_create_resized(MPI_INT, -4, 16, &r);
	ts[0] = r;
	ts[1] = MPI_DOUBLE;
	d[0] = 100;
	d[1] = 0;
	MPI_Type_create_struct(2, bl, d, ts, &t);
	MPI_Type_get_extent(t, &lb, &ext);
	T_OK(lb == 96 && ext == 16, "struct: explicit bounds of a resized "
	    "part win over the data");
	MPI_Type_get_true_extent(t, &lb, &ext);
	T_OK(lb == 0 && ext == 104, "struct: true extent covers the data");
	MPI_Type_free(&t);
	MPI_Type_free(&r);

	MPI_Type_contiguous(0, MPI_INT, &t);
	MPI_Type_get_extent(t, &lb, &ext);
	T_OK(lb == 0 && ext == 0, "an empty type has extent 0");
	MPI_Type_free(&t);
}

static void
test_basic_view(void)
{
	MPI_Datatype t, u;
	enum ft_type_kind k;
	size_t n;

	T_OK(ft__mpi_type_basic(MPI_INT, &k, &n) && k == FT_TK_INT && n == 1,
	    "MPI_INT is one FT_TK_INT");
	T_OK(ft__mpi_type_basic(MPI_DOUBLE_INT, &k, &n) &&
	    k == FT_TK_DOUBLE_INT && n == 1,
	    "MPI_DOUBLE_INT is one unit of its own kind");
	MPI_Type_contiguous(3, MPI_DOUBLE_INT, &t);
	T_OK(ft__mpi_type_basic(t, &k, &n) && k == FT_TK_DOUBLE_INT && n == 3,
	    "contiguous(3, MPI_DOUBLE_INT) is 3 of them");
	MPI_Type_vector(2, 3, 3, t, &u);
	T_OK(ft__mpi_type_basic(u, &k, &n) && k == FT_TK_DOUBLE_INT &&
	    n == 18, "a dense vector of those is 18");
	MPI_Type_free(&u);
	MPI_Type_free(&t);
	MPI_Type_vector(2, 1, 2, MPI_FLOAT, &t);
	T_OK(!ft__mpi_type_basic(t, &k, &n), "a strided vector is not dense");
	MPI_Type_free(&t);
	MPI_Type_dup(MPI_LONG, &t);
	T_OK(ft__mpi_type_basic(t, &k, &n) && k == FT_TK_LONG && n == 1,
	    "a duplicate of MPI_LONG is one FT_TK_LONG");
	T_EQ_INT(t->kind, FT_TK_DERIVED, "but its own kind is derived");
	MPI_Type_free(&t);
	MPI_Type_create_resized(MPI_INT, 0, 8, &t);
	T_OK(!ft__mpi_type_basic(t, &k, &n), "an int resized to 8 bytes is "
	    "not dense");
	MPI_Type_free(&t);
	T_EQ_INT(MPI_LONG_LONG_INT->kind, FT_TK_LONG_LONG,
	    "MPI_LONG_LONG_INT is FT_TK_LONG_LONG");
	T_EQ_INT(MPI_PACKED->kind, FT_TK_PACKED, "MPI_PACKED has its kind");
}

/* Types freed while a parent still uses them live on in the parent. */
static void
test_refs(void)
{
	MPI_Datatype a, b, c;
	int in[8] = { 1, 2, 3, 4, 5, 6, 7, 8 }, out[4], pos = 0;

	MPI_Type_vector(2, 1, 2, MPI_INT, &a);
	MPI_Type_contiguous(2, a, &b);
	MPI_Type_free(&a);
	T_OK(a == MPI_DATATYPE_NULL, "MPI_Type_free sets the handle to null");
	MPI_Type_dup(b, &c);
	MPI_Type_free(&b);
	MPI_Type_commit(&c);
	MPI_Pack(in, 1, c, out, sizeof(out), &pos, MPI_COMM_SELF);
	/* The vector's extent is 3 ints, so the second starts at in[3]. */
	T_OK(pos == 16 && out[0] == 1 && out[1] == 3 && out[2] == 4 &&
	    out[3] == 6, "a type built from freed types still packs");
	MPI_Type_free(&c);
}


/* typex.c ------------------------------------------------------------ */

/*
 * A new type made again, with the constructors MPI_Type_get_envelope
 * names, from what MPI_Type_get_contents returns of t (recursively);
 * the handles it returns are freed.  A predefined type is itself.
 */
static MPI_Datatype
rebuild(MPI_Datatype t)
{
	MPI_Datatype r = MPI_DATATYPE_NULL, *dt, *rt;
	MPI_Aint *ad;
	int ni, na, nd, comb, *in, i, n;

	if (MPI_Type_get_envelope(t, &ni, &na, &nd, &comb) != MPI_SUCCESS)
		abort();
	if (comb == MPI_COMBINER_NAMED)
		return t;
	in = calloc((size_t)ni + 1, sizeof(*in));
	ad = calloc((size_t)na + 1, sizeof(*ad));
	dt = calloc((size_t)nd + 1, sizeof(*dt));
	rt = calloc((size_t)nd + 1, sizeof(*rt));
	if (in == NULL || ad == NULL || dt == NULL || rt == NULL ||
	    MPI_Type_get_contents(t, ni, na, nd, in, ad, dt) != MPI_SUCCESS)
		abort();
	for (i = 0; i < nd; i++)
		rt[i] = rebuild(dt[i]);
	n = in[0];
	switch (comb) {
	case MPI_COMBINER_DUP:
		MPI_Type_dup(rt[0], &r);
		break;
	case MPI_COMBINER_CONTIGUOUS:
		MPI_Type_contiguous(n, rt[0], &r);
		break;
	case MPI_COMBINER_VECTOR:
		MPI_Type_vector(n, in[1], in[2], rt[0], &r);
		break;
	case MPI_COMBINER_HVECTOR:
		MPI_Type_create_hvector(n, in[1], ad[0], rt[0], &r);
		break;
	case MPI_COMBINER_INDEXED:
		MPI_Type_indexed(n, in + 1, in + 1 + n, rt[0], &r);
		break;
	case MPI_COMBINER_HINDEXED:
		MPI_Type_create_hindexed(n, in + 1, ad, rt[0], &r);
		break;
	case MPI_COMBINER_INDEXED_BLOCK:
		MPI_Type_create_indexed_block(n, in[1], in + 2, rt[0], &r);
		break;
	case MPI_COMBINER_HINDEXED_BLOCK:
		MPI_Type_create_hindexed_block(n, in[1], ad, rt[0], &r);
		break;
	case MPI_COMBINER_STRUCT:
		MPI_Type_create_struct(n, in + 1, ad, rt, &r);
		break;
	case MPI_COMBINER_RESIZED:
		MPI_Type_create_resized(rt[0], ad[0], ad[1], &r);
		break;
	case MPI_COMBINER_SUBARRAY:
		MPI_Type_create_subarray(n, in + 1, in + 1 + n, in + 1 + 2 * n,
		    in[1 + 3 * n], rt[0], &r);
		break;
	case MPI_COMBINER_DARRAY:
		n = in[2];
		MPI_Type_create_darray(in[0], in[1], n, in + 3, in + 3 + n,
		    in + 3 + 2 * n, in + 3 + 3 * n, in[3 + 4 * n], rt[0], &r);
		break;
	}
	for (i = 0; i < nd; i++) {
		if (rt[i] != dt[i])
			MPI_Type_free(&rt[i]);
		if (!dt[i]->predefined)
			MPI_Type_free(&dt[i]);
	}
	free(in);
	free(ad);
	free(dt);
	free(rt);
	if (r == MPI_DATATYPE_NULL)
		abort();
	return r;
}

static int
same_map(MPI_Datatype a, MPI_Datatype b)
{
	struct tmap ma = { NULL, NULL, 0, 0 }, mb = { NULL, NULL, 0, 0 };
	int same;

	tmap_of(a, 1, &ma);
	tmap_of(b, 1, &mb);
	same = ma.n == mb.n && a->lb == b->lb && a->extent == b->extent &&
	    (ma.n == 0 || (memcmp(ma.disp, mb.disp, ma.n *
	    sizeof(*ma.disp)) == 0 && memcmp(ma.len, mb.len, ma.n *
	    sizeof(*ma.len)) == 0));
	free(ma.disp);
	free(ma.len);
	free(mb.disp);
	free(mb.len);
	return same;
}

static void
test_decode(void)
{
	MPI_Datatype t, r, a, b, got[2];
	MPI_Aint ad[2];
	int i, bad = 0, badcomb = 0, ni, na, nd, comb, in[4], n = 0;
	int bl[2] = { 1, 2 };

	for (i = 0; i < 3000; i++) {
		t = rand_type(1 + i % 3);
		if (t->predefined)
			continue;
		n++;
		r = rebuild(t);
		MPI_Type_get_envelope(t, &ni, &na, &nd, &comb);
		if (!same_map(t, r))
			bad++;
		MPI_Type_get_envelope(r, &ni, &na, &nd, &in[0]);
		if (in[0] != comb)
			badcomb++;
		MPI_Type_free(&t);
		MPI_Type_free(&r);
	}
	t_diag("%d random types made again from their contents", n);
	T_EQ_INT(bad, 0, "decode: the type made again from MPI_Type_get_"
	    "contents has the same type map and bounds");
	T_EQ_INT(badcomb, 0, "decode: and the same combiner");

	T_OK(MPI_Type_get_envelope(MPI_INT, &ni, &na, &nd, &comb) ==
	    MPI_SUCCESS && ni == 0 && na == 0 && nd == 0 &&
	    comb == MPI_COMBINER_NAMED, "decode: MPI_INT is named");
	T_EQ_INT(MPI_Type_get_contents(MPI_INT, 4, 2, 2, in, ad, got),
	    MPI_ERR_TYPE, "decode: a named type has no contents");

	/* The parts handed out are handles of their own. */
	MPI_Type_vector(2, 1, 3, MPI_INT, &a);
	ad[0] = 0;
	ad[1] = 16;
	got[0] = a;
	got[1] = MPI_DOUBLE;
	MPI_Type_create_struct(2, bl, ad, got, &b);
	MPI_Type_free(&a);
	T_EQ_INT(MPI_Type_get_contents(b, 2, 2, 2, in, ad, got), MPI_ERR_ARG,
	    "decode: arrays smaller than the envelope says");
	T_OK(MPI_Type_get_contents(b, 3, 2, 2, in, ad, got) == MPI_SUCCESS &&
	    in[0] == 2 && in[1] == 1 && in[2] == 2 && ad[1] == 16 &&
	    got[1] == MPI_DOUBLE, "decode: a struct's contents");
	MPI_Type_get_envelope(got[0], &ni, &na, &nd, &comb);
	T_OK(comb == MPI_COMBINER_VECTOR && ni == 3 && nd == 1,
	    "decode: its part, freed by the application, is a vector again");
	T_EQ_INT(MPI_Type_free(&got[0]), MPI_SUCCESS,
	    "decode: and its handle can be freed");
	T_OK(MPI_Type_commit(&b) == MPI_SUCCESS && b->size == 2 * 4 + 2 * 8,
	    "decode: the struct still stands");
	MPI_Type_free(&b);
}

/* Does process coordinate c of p own index x of g in a darray? */
static int
owns(int dist, int darg, int g, int p, int c, int x)
{
	int b;

	switch (dist) {
	case MPI_DISTRIBUTE_BLOCK:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? (g + p - 1) / p : darg;
		return x / b == c;
	case MPI_DISTRIBUTE_CYCLIC:
		b = darg == MPI_DISTRIBUTE_DFLT_DARG ? 1 : darg;
		return x / b % p == c;
	default:
		return 1;
	}
}

/*
 * The standard's definition, one element at a time: walk the whole
 * array in its order and keep the elements this process has, by their
 * index in the array.  Returns how many, into out.
 */
static size_t
ref_array(const struct arr *a, int darray, MPI_Aint *out)
{
	int idx[3] = { 0, 0, 0 }, c[3], d, k, r, grid, in;
	size_t n = 0, total = 1, i;
	MPI_Aint lin;

	for (d = 0, r = a->rank, grid = a->size; d < a->ndims; d++) {
		grid /= a->ps[d];
		c[d] = r / grid;
		r %= grid;
		total *= (size_t)a->gs[d];
	}
	for (i = 0; i < total; i++) {
		/* idx: i in array order (the fastest dimension last in C). */
		for (k = 0, lin = (MPI_Aint)i; k < a->ndims; k++) {
			d = a->order == MPI_ORDER_C ? a->ndims - 1 - k : k;
			idx[d] = (int)(lin % a->gs[d]);
			lin /= a->gs[d];
		}
		for (d = 0, in = 1; d < a->ndims; d++)
			in &= darray ? owns(a->dist[d], a->darg[d], a->gs[d],
			    a->ps[d], c[d], idx[d]) : idx[d] >= a->st[d] &&
			    idx[d] < a->st[d] + a->sub[d];
		if (in)
			out[n++] = (MPI_Aint)i;
	}
	return n;
}

static void
test_arrays(void)
{
	struct tmap m = { NULL, NULL, 0, 0 };
	MPI_Aint want[216];
	MPI_Datatype t;
	struct arr a;
	size_t n, i, total;
	int k, darray, bad = 0, badcover = 0, r, d, cover;
	int count[216];

	for (k = 0; k < 2000; k++) {
		darray = k % 2;
		rand_arr(&a, darray);
		for (d = 0, total = 1; d < a.ndims; d++)
			total *= (size_t)a.gs[d];
		memset(count, 0, sizeof(count));
		/* Every process of a darray, to see them cover the array. */
		for (r = darray ? 0 : a.rank; r < (darray ? a.size :
		    a.rank + 1); r++) {
			a.rank = r;
			if (make_arr(&a, darray, MPI_INT, &t) != MPI_SUCCESS)
				abort();
			n = ref_array(&a, darray, want);
			tmap_of(t, 1, &m);
			if (m.n != n || t->lb != 0 ||
			    t->extent != (MPI_Aint)(4 * total))
				bad++;
			else
				for (i = 0; i < n; i++) {
					if (m.disp[i] != 4 * want[i])
						bad++;
					count[want[i]]++;
				}
			MPI_Type_free(&t);
		}
		for (i = 0, cover = 1; darray && i < total; i++)
			cover &= count[i] == 1;
		badcover += !cover;
	}
	free(m.disp);
	free(m.len);
	T_EQ_INT(bad, 0, "arrays: subarray and darray types are the "
	    "standard's type maps, lb 0, extent the whole array");
	T_EQ_INT(badcover, 0, "arrays: the processes of a darray have each "
	    "element once");

	a.ndims = 2;
	a.gs[0] = 4;
	a.gs[1] = 4;
	a.sub[0] = 3;
	a.sub[1] = 1;
	a.st[0] = 2;
	a.st[1] = 0;
	T_EQ_INT(MPI_Type_create_subarray(2, a.gs, a.sub, a.st,
	    MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
	    "arrays: a subarray past the end of the array");
	a.ps[0] = 2;
	a.ps[1] = 1;
	a.dist[0] = MPI_DISTRIBUTE_BLOCK;
	a.dist[1] = MPI_DISTRIBUTE_NONE;
	a.darg[0] = 1;
	a.darg[1] = MPI_DISTRIBUTE_DFLT_DARG;
	T_EQ_INT(MPI_Type_create_darray(2, 0, 2, a.gs, a.dist, a.darg, a.ps,
	    MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
	    "arrays: blocks of 1 cannot cover 4 elements over 2 processes");
	a.darg[0] = 2;
	T_EQ_INT(MPI_Type_create_darray(3, 0, 2, a.gs, a.dist, a.darg, a.ps,
	    MPI_ORDER_C, MPI_INT, &t), MPI_ERR_ARG,
	    "arrays: a grid of 2 processes is not a group of 3");
	T_EQ_INT(MPI_Type_create_darray(2, 2, 2, a.gs, a.dist, a.darg, a.ps,
	    MPI_ORDER_C, MPI_INT, &t), MPI_ERR_RANK,
	    "arrays: rank 2 of 2");
	T_EQ_INT(MPI_Type_create_darray(2, 0, 0, a.gs, a.dist, a.darg, a.ps,
	    MPI_ORDER_C, MPI_INT, &t), MPI_ERR_DIMS, "arrays: 0 dimensions");
	T_EQ_INT(MPI_Type_create_subarray(2, a.gs, a.sub, a.st, 99, MPI_INT,
	    &t), MPI_ERR_ARG, "arrays: an unknown order");
}

/* Pack one value of type with MPI_Pack_external; 1 if bytes match. */
static int
x32_is(const void *v, MPI_Datatype type, const char *hex)
{
	uint8_t got[64], want[64];
	MPI_Aint pos = 0, size;
	size_t n = strlen(hex) / 2, i;
	unsigned int b;

	for (i = 0; i < n; i++) {
		if (sscanf(hex + 2 * i, "%2x", &b) != 1)
			abort();
		want[i] = (uint8_t)b;
	}
	memset(got, 0x5a, sizeof(got));
	if (MPI_Pack_external("external32", v, 1, type, got, sizeof(got),
	    &pos) != MPI_SUCCESS || (size_t)pos != n ||
	    MPI_Pack_external_size("external32", 1, type, &size) !=
	    MPI_SUCCESS || (size_t)size != n)
		return 0;
	return memcmp(got, want, n) == 0 && got[n] == 0x5a;
}

/*
 * A value of kind k for a random-type buffer, one external32 keeps
 * (random displacements may leave it unaligned).
 */
static int
x32_fill(void *arg, enum ft_type_kind k, void *addr)
{
	int32_t v = (int32_t)rnd(INT32_MAX) - INT32_MAX / 2;
	long double ld = (long double)v / 11;
	double d = (double)v / 3;
	float f = (float)v / 7;
	short sh = (short)v;
	uint8_t b = (uint8_t)v;

	(void)arg;
	switch (k) {
	case FT_TK_FLOAT:
		memcpy(addr, &f, sizeof(f));
		break;
	case FT_TK_DOUBLE:
		memcpy(addr, &d, sizeof(d));
		break;
	case FT_TK_LONG_DOUBLE:
		memset(addr, 0, sizeof(long double));
		memcpy(addr, &ld, 10);
		break;
	case FT_TK_CHAR:
	case FT_TK_BYTE:
		memcpy(addr, &b, 1);
		break;
	case FT_TK_SHORT:
		memcpy(addr, &sh, sizeof(sh));
		break;
	case FT_TK_INT:
		memcpy(addr, &v, sizeof(v));
		break;
	default:
		abort();
	}
	return 0;
}

static int
cmp_aint(const void *a, const void *b)
{
	MPI_Aint x = *(const MPI_Aint *)a, y = *(const MPI_Aint *)b;

	return x < y ? -1 : x > y;
}

/*
 * Do two basic elements of the type map m overlap?  Then an unpack
 * writes over what another wrote, and an x87 long double partly
 * overwritten is no valid number to convert.
 */
static int
tmap_overlaps(const struct tmap *m)
{
	MPI_Aint *d;
	size_t i, j;
	int over = 0;

	if (m->n < 2)
		return 0;
	if ((d = malloc(m->n * sizeof(*d))) == NULL)
		abort();
	memcpy(d, m->disp, m->n * sizeof(*d));
	qsort(d, m->n, sizeof(*d), cmp_aint);
	/* Does an element starting at d[i - 1] reach past d[i]? */
	for (i = 1; i < m->n && !over; i++)
		for (j = 0; j < m->n; j++)
			if (m->disp[j] == d[i - 1] &&
			    d[i - 1] + (MPI_Aint)m->len[j] > d[i]) {
				over = 1;
				break;
			}
	free(d);
	return over;
}

/* Record the offsets and kinds of the basic elements. */
struct elems {
	MPI_Aint		 off[4096];
	enum ft_type_kind	 kind[4096];
	size_t			 n;
	const uint8_t		*base;
};

static int
x32_list(void *arg, enum ft_type_kind k, void *addr)
{
	struct elems *e = arg;

	if (e->n == 4096)
		return -1;
	e->off[e->n] = (const uint8_t *)addr - e->base;
	e->kind[e->n++] = k;
	return 0;
}

static void
test_external(void)
{
	struct { double v; int i; } di = { 1.5, 7 };
	struct { float v, i; } fr = { 1.0f, 2.0f };
	double z[2] = { 1.0, 2.0 };	/* as double _Complex */
	long double lds[] = { 0.0L, -0.0L, 1.0L, -0.5L, 3.0L, 1.0L / 3,
	    LDBL_MAX, LDBL_MIN, LDBL_MIN / 1024, LDBL_TRUE_MIN, -LDBL_MAX,
	    INFINITY, -INFINITY, 1e-4000L, 1e4000L };
	long double ld = 1.0L, back;
	unsigned long ul = 0x1234567890UL;
	long l = -3, lback;
	short sh = -2;
	int i32 = 0x01020304, lg = 5, bad, k, j, rc, ntested = 0;
	wchar_t wc = 0xe9;
	_Bool bo = 1;
	uint8_t buf[64], *b1, *b2, *b3, *packed;
	struct tmap m = { NULL, NULL, 0, 0 };
	static struct elems e;
	MPI_Datatype t;
	MPI_Aint pos, size, lo, hi;
	size_t i, span;

	T_OK(x32_is(&i32, MPI_INT, "01020304"), "external32: MPI_INT is "
	    "4 bytes, big-endian");
	T_OK(x32_is(&sh, MPI_SHORT, "fffe"), "external32: MPI_SHORT -2");
	T_OK(x32_is(&l, MPI_LONG, "fffffffd"), "external32: MPI_LONG is 4 "
	    "bytes");
	T_OK(x32_is(&ul, MPI_UNSIGNED_LONG, "34567890"),
	    "external32: an unsigned long keeps its low 4 bytes");
	T_OK(x32_is(&(long long){ 1 }, MPI_LONG_LONG, "0000000000000001"),
	    "external32: MPI_LONG_LONG is 8 bytes");
	T_OK(x32_is(&(float){ 1.0f }, MPI_FLOAT, "3f800000"),
	    "external32: MPI_FLOAT 1.0");
	T_OK(x32_is(&(double){ -2.0 }, MPI_DOUBLE, "c000000000000000"),
	    "external32: MPI_DOUBLE -2.0");
	T_OK(x32_is(&ld, MPI_LONG_DOUBLE, "3fff0000000000000000000000000000"),
	    "external32: MPI_LONG_DOUBLE 1.0 is IEEE binary128");
	ld = -3.0L;
	T_OK(x32_is(&ld, MPI_LONG_DOUBLE, "c0008000000000000000000000000000"),
	    "external32: MPI_LONG_DOUBLE -3.0");
	T_OK(x32_is(&bo, MPI_C_BOOL, "01"), "external32: MPI_C_BOOL");
	T_OK(x32_is(&lg, MPI_LOGICAL, "00000001"),
	    "external32: MPI_LOGICAL true is 4 bytes");
	T_OK(x32_is(&wc, MPI_WCHAR, "00e9"), "external32: MPI_WCHAR is 2 "
	    "bytes");
	T_OK(x32_is(z, MPI_C_DOUBLE_COMPLEX,
	    "3ff00000000000004000000000000000"),
	    "external32: a complex is its two parts");
	T_OK(x32_is(&di, MPI_DOUBLE_INT, "3ff800000000000000000007"),
	    "external32: MPI_DOUBLE_INT is 12 bytes, no padding");
	T_OK(x32_is(&fr, MPI_2REAL, "3f80000040000000"),
	    "external32: MPI_2REAL");
	T_OK(x32_is("x", MPI_CHARACTER, "78"), "external32: MPI_CHARACTER");
#ifdef FT_HAVE_QUAD
	{
		ft_quad q = 1;

		T_OK(x32_is(&q, MPI_REAL16,
		    "3fff0000000000000000000000000000"),
		    "external32: MPI_REAL16 1.0");
	}
#endif

	/* Back: sign extension, and long double special values. */
	memcpy(buf, "\xff\xff\xff\xfd", 4);
	pos = 0;
	T_OK(MPI_Unpack_external("external32", buf, 4, &pos, &lback, 1,
	    MPI_LONG) == MPI_SUCCESS && lback == -3 && pos == 4,
	    "external32: 4 bytes back into a long, sign-extended");
	pos = 0;
	MPI_Unpack_external("external32", buf, 4, &pos, &ul, 1,
	    MPI_UNSIGNED_LONG);
	T_EQ_UINT(ul, 0xfffffffdUL, "external32: and into an unsigned long");
	bad = 0;
	for (i = 0; i < sizeof(lds) / sizeof(lds[0]); i++) {
		pos = 0;
		MPI_Pack_external("external32", &lds[i], 1, MPI_LONG_DOUBLE,
		    buf, sizeof(buf), &pos);
		pos = 0;
		MPI_Unpack_external("external32", buf, 16, &pos, &back, 1,
		    MPI_LONG_DOUBLE);
		if (back != lds[i] || signbit(back) != signbit(lds[i]))
			bad++;
	}
	ld = NAN;
	pos = 0;
	MPI_Pack_external("external32", &ld, 1, MPI_LONG_DOUBLE, buf,
	    sizeof(buf), &pos);
	pos = 0;
	MPI_Unpack_external("external32", buf, 16, &pos, &back, 1,
	    MPI_LONG_DOUBLE);
	T_OK(bad == 0 && isnan(back), "external32: long doubles (zeros, "
	    "extremes, subnormals, infinities, NaN) come back the same");

	/* Errors. */
	pos = 0;
	T_EQ_INT(MPI_Pack_external("native", &i32, 1, MPI_INT, buf,
	    sizeof(buf), &pos), MPI_ERR_ARG, "external32: another data "
	    "representation");
	pos = 62;
	T_OK(MPI_Pack_external("external32", &i32, 1, MPI_INT, buf, 64,
	    &pos) == MPI_ERR_TRUNCATE && pos == 62, "external32: no room, "
	    "and the position stays");
	pos = 0;
	T_EQ_INT(MPI_Unpack_external("external32", buf, 3, &pos, &i32, 1,
	    MPI_INT), MPI_ERR_TRUNCATE, "external32: too few bytes to "
	    "unpack");

	/*
	 * Random types there and back, against MPI_Pack and MPI_Unpack
	 * (elements may overlap: the last one written wins in both).
	 */
	for (k = bad = 0; k < 1000; k++) {
		t = rand_type(1 + k % 3);
		if (!t->predefined)
			MPI_Type_commit(&t);
		tmap_of(t, 2, &m);
		if (m.n > sizeof(e.off) / sizeof(e.off[0]) ||
		    tmap_overlaps(&m)) {
			if (!t->predefined)
				MPI_Type_free(&t);
			continue;
		}
		ntested++;
		for (i = 0, lo = hi = 0; i < m.n; i++) {
			lo = m.disp[i] < lo ? m.disp[i] : lo;
			hi = m.disp[i] + 16 > hi ? m.disp[i] + 16 : hi;
		}
		span = (size_t)(hi - lo) + 64;
		rc = MPI_Pack_external_size("external32", 2, t, &size);
		b1 = calloc(span, 1);
		b2 = malloc(span);
		b3 = malloc(span);
		packed = malloc((size_t)size + 16 * m.n + 1);
		if (rc != MPI_SUCCESS || b1 == NULL || b2 == NULL ||
		    b3 == NULL || packed == NULL)
			abort();
		memset(b2, 0xee, span);
		memset(b3, 0xee, span);
		e.n = 0;
		e.base = b1 + 32 - lo;
		if (ft__mpi_type_walk(t, e.base, 2, x32_fill, NULL) != 0 ||
		    ft__mpi_type_walk(t, e.base, 2, x32_list, &e) != 0)
			abort();
		pos = 0;
		if (MPI_Pack_external("external32", e.base, 2, t, packed,
		    size, &pos) != MPI_SUCCESS || pos != size)
			bad++;
		pos = 0;
		if (MPI_Unpack_external("external32", packed, size, &pos,
		    b2 + 32 - lo, 2, t) != MPI_SUCCESS || pos != size)
			bad++;
		j = 0;
		MPI_Pack(e.base, 2, t, packed, (int)size + 16 * (int)m.n, &j,
		    MPI_COMM_SELF);
		j = 0;
		MPI_Unpack(packed, (int)size + 16 * (int)m.n, &j, b3 + 32 - lo,
		    2, t, MPI_COMM_SELF);
		for (i = 0; i < e.n; i++) {
			j = e.kind[i] == FT_TK_LONG_DOUBLE ? 10 :
			    e.kind[i] == FT_TK_CHAR ||
			    e.kind[i] == FT_TK_BYTE ? 1 :
			    e.kind[i] == FT_TK_SHORT ? 2 :
			    e.kind[i] == FT_TK_DOUBLE ? 8 : 4;
			if (memcmp(b2 + 32 - lo + e.off[i], b3 + 32 - lo +
			    e.off[i], (size_t)j) != 0) {
				bad++;
				break;
			}
		}
		free(b1);
		free(b2);
		free(b3);
		free(packed);
		if (!t->predefined)
			MPI_Type_free(&t);
	}
	free(m.disp);
	free(m.len);
	t_diag("%d random types with no overlapping elements", ntested);
	T_EQ_INT(bad, 0, "external32: random types, two elements each, "
	    "packed and unpacked come back the same");
}

int
main(int argc, char *argv[])
{
	MPI_Init(&argc, &argv);
	MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
	test_compaction();
	test_bounds();
	test_basic_view();
	test_refs();
	test_random();
	test_decode();
	test_arrays();
	test_external();
	MPI_Finalize();
	return t_done();
}
