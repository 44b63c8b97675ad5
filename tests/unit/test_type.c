/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the datatype engine (lib/mpi/type.c): the compacted
 * description of common types (one block, one strided run, a loop over
 * a struct), bounds and extents against the values Open MPI gives, the
 * unit view reductions use, and MPI_Pack, MPI_Unpack, truncated
 * unpacking and MPI_Get_elements of thousands of random nested types
 * against a naive reference that walks the type map one basic element
 * at a time.  Runs MPI in singleton mode (no launcher).
 */
#include <stdint.h>
#include <stdlib.h>

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
	switch (rnd(11)) {
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
	MPI_Finalize();
	return t_done();
}
