/* SPDX-License-Identifier: ISC */
/*
 * ftreplay inspect: a job's log summed up per rank, its message matrix,
 * and its space-time diagram as SVG, aggregated so that a million
 * messages between 64 ranks stay a picture: time in columns, one arrow
 * a (sender, receiver, send column, receive column) with its count.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "../proto/proto.h"
#include "replay.h"

#define SVG_BINS	200
#define SVG_ARROWS	20000
#define SVG_WIDTH	1200
#define SVG_LEFT	70
#define SVG_TOP		40
#define SVG_MINCOLS	25

/* Index of rank in the sorted array ranks of n, or -1. */
static ssize_t
find_rank(const uint32_t *ranks, size_t n, uint32_t rank)
{
	size_t lo = 0, hi = n, i;

	while (lo < hi) {
		i = lo + (hi - lo) / 2;
		if (ranks[i] == rank)
			return (ssize_t)i;
		if (ranks[i] < rank)
			lo = i + 1;
		else
			hi = i;
	}
	return -1;
}

static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The ranks of job: those with a log and those named as senders,
 * sorted, in *out (heap).  0, or -1 with errno.
 */
static int
job_ranks(struct ft_replay *l, uint64_t job, uint32_t **out, size_t *nout,
    char *why, size_t whysize)
{
	const struct ft__rchunk *ch;
	struct ft__rcur c;
	struct ft_rrec r;
	uint32_t *v = NULL, *nv;
	size_t n = 0, cap = 0, i, k, nch;
	int rc = 0;

	if (ft__replay_ranks(l, job, &ch, &nch, why, whysize) != 0)
		return -1;
	for (i = 0; i < nch && rc == 0; i++) {
		if ((nv = ft_grow(v, &cap, n, sizeof(*v))) == NULL)
			goto nomem;
		v = nv;
		v[n++] = ch[i].rank;
		if (ft__rcur_open(&c, l, &ch[i], 64u << 10) != 0)
			goto nomem;
		while ((rc = ft__rcur_next(&c, &r)) == 1) {
			if (r.d.sender == FT_DET_NOSENDER ||
			    find_rank(v, n, r.d.sender) >= 0)
				continue;
			/* Senders without a log are few: keep v sorted. */
			if ((nv = ft_grow(v, &cap, n, sizeof(*v))) == NULL) {
				ft__rcur_release(&c);
				goto nomem;
			}
			v = nv;
			v[n++] = r.d.sender;
			qsort(v, n, sizeof(*v), cmp_u32);
		}
		ft__rcur_release(&c);
		qsort(v, n, sizeof(*v), cmp_u32);
	}
	if (rc < 0) {
		free(v);
		return ft__replay_say(why, whysize, errno, "reading the scratch file");
	}
	/* Remove what a sender and a log both added. */
	for (i = k = 0; i < n; i++)
		if (k == 0 || v[k - 1] != v[i])
			v[k++] = v[i];
	*out = v;
	*nout = k;
	return 0;
nomem:
	free(v);
	return ft__replay_say(why, whysize, ENOMEM, "out of memory");
}

static int
cmp_cell(const void *a, const void *b)
{
	const struct ft_replay_cell *x = a, *y = b;

	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return x->to < y->to ? -1 : x->to > y->to;
}

int
ft_replay_summarize(struct ft_replay *l, uint64_t job,
    struct ft_replay_summary *s, char *why, size_t whysize)
{
	const struct ft__rchunk *ch;
	struct ft_replay_rank *rk;
	struct ft_replay_cell *nc;
	struct ft__rcur c;
	struct ft_rrec r;
	uint32_t *ranks = NULL;
	uint64_t *from = NULL;
	size_t nranks, nch, capcells = 0, i, k;
	ssize_t j;
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->job = job;
	if (job_ranks(l, job, &ranks, &nranks, why, whysize) != 0 ||
	    ft__replay_ranks(l, job, &ch, &nch, why, whysize) != 0) {
		free(ranks);
		return -1;
	}
	if ((s->ranks = calloc(nranks + 1, sizeof(*s->ranks))) == NULL ||
	    (from = calloc(nranks + 1, sizeof(*from))) == NULL)
		goto nomem;
	s->nranks = nranks;
	for (i = 0; i < nranks; i++)
		s->ranks[i].rank = ranks[i];
	for (i = 0; i < nch && rc == 0; i++) {
		rk = &s->ranks[find_rank(ranks, nranks, ch[i].rank)];
		memset(from, 0, nranks * sizeof(*from));
		if (ft__rcur_open(&c, l, &ch[i], 64u << 10) != 0)
			goto nomem;
		while ((rc = ft__rcur_next(&c, &r)) == 1) {
			if (rk->dets++ == 0)
				rk->first_clock = r.d.clock;
			rk->last_clock = r.d.clock;
			if (r.d.kind <= FT_DET_KIND_MAX)
				rk->kinds[r.d.kind]++;
			if (r.d.kind == FT_ND_PROBE && r.d.v[0] == 0)
				rk->probes++;
			if (r.d.kind != FT_DET_DELIVERY)
				continue;
			rk->recv++;
			j = find_rank(ranks, nranks, r.d.sender);
			s->ranks[j].sent++;
			from[j]++;
		}
		ft__rcur_release(&c);
		for (k = 0; k < nranks; k++) {
			if (from[k] == 0)
				continue;
			if ((nc = ft_grow(s->cells, &capcells, s->ncells,
			    sizeof(*nc))) == NULL)
				goto nomem;
			s->cells = nc;
			nc[s->ncells].from = ranks[k];
			nc[s->ncells].to = ch[i].rank;
			nc[s->ncells++].messages = from[k];
		}
	}
	free(ranks);
	free(from);
	if (rc < 0) {
		ft_replay_summary_release(s);
		return ft__replay_say(why, whysize, EIO, "reading the scratch file");
	}
	qsort(s->cells, s->ncells, sizeof(*s->cells), cmp_cell);
	return 0;
nomem:
	free(ranks);
	free(from);
	ft_replay_summary_release(s);
	return ft__replay_say(why, whysize, ENOMEM, "out of memory");
}

void
ft_replay_summary_release(struct ft_replay_summary *s)
{
	free(s->ranks);
	free(s->cells);
	s->ranks = NULL;
	s->cells = NULL;
	s->nranks = s->ncells = 0;
}

/* An arrow of the diagram: messages of (from, to, send col, recv col). */
struct arrow {
	uint32_t	 from, to;	/* rows */
	uint32_t	 bs, br;
	uint64_t	 count;		/* 0: a free slot */
};

struct svgctx {
	uint32_t	*ranks;
	size_t		 nranks;
	uint64_t	 tmax, events, messages;
	uint32_t	 bins, shift;	/* columns: bins >> shift */
	uint32_t	 gshift;	/* rows in groups of 1 << gshift */
	uint64_t	*act;		/* nranks x bins events */
	struct arrow	*a;
	size_t		 cap, n, max;
	int		 pass, nomem;
	/* Marks: the seq and Lamport time each is drawn at (seq 0: end). */
	const struct ft_replay_mark *marks;
	size_t		 nmarks;
	uint64_t	*mseq, *mt;
};

/* The column of Lamport time t, before merging columns. */
static uint32_t
basecol(const struct svgctx *g, uint64_t t)
{
	long double x = (long double)t * g->bins / ((long double)g->tmax + 1);

	return (uint32_t)x < g->bins ? (uint32_t)x : g->bins - 1;
}

static size_t
ahash(uint32_t from, uint32_t to, uint32_t bs, uint32_t br, size_t cap)
{
	uint64_t x = ((uint64_t)from << 32 | to) * 0x9e3779b97f4a7c15ull ^
	    ((uint64_t)bs << 32 | br) * 0xbf58476d1ce4e5b9ull;

	return (size_t)(x ^ x >> 29) & (cap - 1);
}

static int
arrow_add(struct svgctx *g, uint32_t from, uint32_t to, uint32_t bs,
    uint32_t br, uint64_t count)
{
	struct arrow *e;
	size_t i;

	for (i = ahash(from, to, bs, br, g->cap);; i = (i + 1) & (g->cap - 1)) {
		e = &g->a[i];
		if (e->count == 0)
			break;
		if (e->from == from && e->to == to && e->bs == bs &&
		    e->br == br) {
			e->count += count;
			return 0;
		}
	}
	e->from = from;
	e->to = to;
	e->bs = bs;
	e->br = br;
	e->count = count;
	g->n++;
	return 0;
}

/*
 * Too many arrows: merge columns two by two down to SVG_MINCOLS, then
 * ranks into groups of 2, 4, ... (arrows join the groups' bands),
 * until they fit.
 */
static int
coarsen(struct svgctx *g)
{
	struct arrow *old = g->a;
	size_t i, oldcap = g->cap;
	int bycol;

	while (g->n > g->max) {
		if ((g->a = calloc(g->cap, sizeof(*g->a))) == NULL) {
			g->a = old;
			return -1;
		}
		bycol = (g->bins >> g->shift) > SVG_MINCOLS ||
		    ((size_t)1 << g->gshift) >= g->nranks;
		if (bycol)
			g->shift++;
		else
			g->gshift++;
		g->n = 0;
		for (i = 0; i < oldcap; i++)
			if (old[i].count != 0)
				arrow_add(g, old[i].from >> !bycol,
				    old[i].to >> !bycol, old[i].bs >> bycol,
				    old[i].br >> bycol, old[i].count);
		free(old);
		old = g->a;
	}
	return 0;
}

static int
svg_event(void *arg, const struct ft_rrec *r, uint64_t t, uint64_t tsend)
{
	struct svgctx *g = arg;
	ssize_t row, srow;
	size_t i;

	if (g->pass == 0) {
		if (t > g->tmax)
			g->tmax = t;
		g->events++;
		/* A mark's rank's first determinant from its clock on. */
		for (i = 0; i < g->nmarks; i++)
			if (g->marks[i].rank == r->rank && !g->marks[i].after &&
			    r->d.clock >= g->marks[i].clock &&
			    (g->mseq[i] == 0 || r->d.seq < g->mseq[i])) {
				g->mseq[i] = r->d.seq;
				g->mt[i] = t;
			}
		return 0;
	}
	g->events++;
	row = find_rank(g->ranks, g->nranks, r->rank);
	if (row < 0)
		return 0;
	g->act[(size_t)row * g->bins + basecol(g, t)]++;
	if (r->d.kind != FT_DET_DELIVERY || tsend == UINT64_MAX ||
	    (srow = find_rank(g->ranks, g->nranks, r->d.sender)) < 0)
		return 0;
	g->messages++;
	arrow_add(g, (uint32_t)srow >> g->gshift, (uint32_t)row >> g->gshift,
	    basecol(g, tsend) >> g->shift, basecol(g, t) >> g->shift, 1);
	if (g->n > g->max && coarsen(g) != 0) {
		g->nomem = 1;
		return -1;
	}
	return 0;
}

static void
xml_text(FILE *f, const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
}

/* The middle of group k's band, in rows. */
static double
band(const struct svgctx *g, uint32_t k)
{
	size_t lo = (size_t)k << g->gshift, hi = lo + ((size_t)1 << g->gshift);

	if (hi > g->nranks)
		hi = g->nranks;
	return ((double)lo + (double)hi) / 2;
}

static void
group_name(const struct svgctx *g, uint32_t k, FILE *f)
{
	size_t lo = (size_t)k << g->gshift, hi = lo + ((size_t)1 << g->gshift);

	if (hi > g->nranks)
		hi = g->nranks;
	if (hi - lo <= 1)
		fprintf(f, "rank %u", g->ranks[lo]);
	else
		fprintf(f, "ranks %u-%u", g->ranks[lo], g->ranks[hi - 1]);
}

/* One mark's symbol, centred at (x, y), s across. */
static void
mark_symbol(FILE *f, int kind, double x, double y, double s)
{
	if (kind == FT_MARK_FAILED)
		fprintf(f, "<path d=\"M%.1f,%.1fL%.1f,%.1fM%.1f,%.1fL%.1f,%.1f\" "
		    "stroke=\"#d00000\" stroke-width=\"2.5\" fill=\"none\">",
		    x - s / 2, y - s / 2, x + s / 2, y + s / 2, x - s / 2,
		    y + s / 2, x + s / 2, y - s / 2);
	else if (kind == FT_MARK_RESTART)
		fprintf(f, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" "
		    "stroke=\"#008000\" stroke-width=\"2\" fill=\"none\">",
		    x, y, s / 2);
	else
		fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		    "height=\"%.1f\" stroke=\"#0050d0\" stroke-width=\"2\" "
		    "fill=\"none\">", x - s / 2, y - s / 2, s, s);
}

static const char *const mark_tag[] = { "path", "circle", "rect" };

/* The marks of the events file, and their legend. */
static void
svg_marks(struct svgctx *g, const struct ft_replay_svg *so, double rowh,
    double colw, FILE *f)
{
	double x, y, s = rowh * 0.7 < 12 ? rowh * 0.7 : 12;
	ssize_t row;
	size_t i;

	if (s < 4)
		s = 4;
	fprintf(f, "<g class=\"marks\">\n");
	for (i = 0; i < g->nmarks; i++) {
		row = find_rank(g->ranks, g->nranks, g->marks[i].rank);
		if (row < 0)
			continue;
		x = g->mseq[i] != 0 ? SVG_LEFT + ((basecol(g, g->mt[i]) >>
		    g->shift) + 0.5) * colw : SVG_LEFT + SVG_WIDTH - s / 2;
		y = SVG_TOP + ((double)row + 0.5) * rowh;
		mark_symbol(f, g->marks[i].kind, x, y, s);
		fprintf(f, "<title>");
		xml_text(f, g->marks[i].label);
		if (g->mseq[i] != 0)
			fprintf(f, " (drawn at its determinant seq %" PRIu64
			    ", Lamport time %" PRIu64 ")", g->mseq[i],
			    g->mt[i]);
		else
			fprintf(f, " (drawn at the end: the rank logged "
			    "nothing after it)");
		fprintf(f, "</title></%s>\n", mark_tag[g->marks[i].kind]);
	}
	fprintf(f, "</g>\n");
	(void)so;
}

static void
svg_write(struct svgctx *g, const struct ft_replay_svg *so, uint64_t job,
    uint64_t stuck, FILE *f)
{
	uint32_t ncols = g->bins >> g->shift, b;
	double rowh, colw, x1, y1, x2, y2, w, op;
	uint64_t amax = 1, v, per;
	size_t i, k;
	int height;

	if (ncols == 0)
		ncols = 1;
	rowh = g->nranks > 0 ? 900.0 / (double)g->nranks : 20;
	if (rowh > 24)
		rowh = 24;
	if (rowh < 4)
		rowh = 4;
	colw = (double)SVG_WIDTH / ncols;
	height = SVG_TOP + (int)(rowh * (double)g->nranks) + 40;
	per = (g->tmax + 1 + ncols - 1) / ncols;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" "
	    "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "font-family=\"sans-serif\" font-size=\"11\">\n",
	    SVG_LEFT + SVG_WIDTH + 20, height, SVG_LEFT + SVG_WIDTH + 20,
	    height);
	fprintf(f, "<title>");
	xml_text(f, so->title != NULL ? so->title : "ftreplay inspect");
	fprintf(f, "</title>\n<defs><marker id=\"h\" viewBox=\"0 0 10 10\" "
	    "refX=\"10\" refY=\"5\" markerUnits=\"userSpaceOnUse\" "
	    "markerWidth=\"6\" markerHeight=\"6\" "
	    "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#b03030\"/>"
	    "</marker></defs>\n<rect width=\"100%%\" height=\"100%%\" "
	    "fill=\"white\"/>\n");
	fprintf(f, "<text x=\"%d\" y=\"16\">job %016" PRIx64 ": %zu ranks, "
	    "%" PRIu64 " events, %" PRIu64 " messages in %zu arrows "
	    "between %s; %u columns of %" PRIu64 " Lamport ticks; arrow "
	    "width grows with log2 of its messages; shade: events"
	    "</text>\n", SVG_LEFT, job, g->nranks, g->events, g->messages,
	    g->n, g->gshift == 0 ? "ranks" : "groups of ranks", ncols, per);
	if (so->events) {
		/* The legend: a symbol, then what it means. */
		mark_symbol(f, FT_MARK_FAILED, SVG_LEFT + 5, 26, 8);
		fprintf(f, "</path>\n");
		mark_symbol(f, FT_MARK_RESTART, SVG_LEFT + 75, 26, 8);
		fprintf(f, "</circle>\n");
		mark_symbol(f, FT_MARK_CKPT, SVG_LEFT + 150, 26, 8);
		fprintf(f, "</rect>\n<text x=\"%d\" y=\"30\" fill=\"#555\">"
		    "failed</text><text x=\"%d\" y=\"30\" fill=\"#555\">"
		    "restart</text><text x=\"%d\" y=\"30\" fill=\"#555\">"
		    "checkpoint; %zu marks from ftrun --events, each at its "
		    "rank's first determinant logged at or after it "
		    "(between the logger's time stamps, by interpolation), "
		    "at the line's end if none%s</text>\n", SVG_LEFT + 13,
		    SVG_LEFT + 83, SVG_LEFT + 158, g->nmarks, stuck > 0 ?
		    "; ranks blocked by a cycle of happened-before are cut "
		    "where it starts" : "");
	} else
		fprintf(f, "<text x=\"%d\" y=\"30\" fill=\"#555\">the log holds "
		    "no failure, restart or checkpoint records (ftreplay "
		    "inspect --events draws ftrun's)%s</text>\n", SVG_LEFT,
		    stuck > 0 ? "; ranks blocked by a cycle of happened-before "
		    "are cut where it starts" : "");
	/* Activity shades, then rank lines and labels. */
	for (i = 0; i < g->nranks; i++)
		for (b = 0; b < g->bins; b++)
			if (g->act[i * g->bins + b] > amax)
				amax = g->act[i * g->bins + b];
	fprintf(f, "<g fill=\"#3060b0\">\n");
	for (i = 0; i < g->nranks; i++)
		for (b = 0; b < ncols; b++) {
			v = 0;
			for (k = (size_t)b << g->shift; k < g->bins &&
			    k < ((size_t)b + 1) << g->shift; k++)
				v += g->act[i * g->bins + k];
			if (v == 0)
				continue;
			op = 0.05 + 0.3 * log2((double)v + 1) /
			    log2((double)amax * (1u << g->shift) + 1);
			fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			    "height=\"%.1f\" fill-opacity=\"%.2f\"/>\n",
			    SVG_LEFT + b * colw, SVG_TOP + i * rowh, colw,
			    rowh, op);
		}
	fprintf(f, "</g>\n<g stroke=\"#888\" stroke-width=\"0.5\">\n");
	for (i = 0; i < g->nranks; i++)
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" "
		    "y2=\"%.1f\"/>\n", SVG_LEFT, SVG_TOP + (i + 0.5) * rowh,
		    SVG_LEFT + SVG_WIDTH, SVG_TOP + (i + 0.5) * rowh);
	fprintf(f, "</g>\n<g font-size=\"%.0f\" text-anchor=\"end\">\n",
	    rowh < 11 ? (rowh < 6 ? 6 : rowh) : 11);
	for (i = 0; i < g->nranks; i++)
		if (g->nranks <= 64 || i % (g->nranks / 64 + 1) == 0)
			fprintf(f, "<text x=\"%d\" y=\"%.1f\">rank %u</text>\n",
			    SVG_LEFT - 4, SVG_TOP + (i + 0.8) * rowh,
			    g->ranks[i]);
	fprintf(f, "</g>\n<g stroke=\"#b03030\" stroke-opacity=\"0.55\" "
	    "marker-end=\"url(#h)\">\n");
	for (i = 0; i < g->cap; i++) {
		if (g->a[i].count == 0)
			continue;
		x1 = SVG_LEFT + (g->a[i].bs + 0.5) * colw;
		x2 = SVG_LEFT + (g->a[i].br + 0.5) * colw;
		y1 = SVG_TOP + band(g, g->a[i].from) * rowh;
		y2 = SVG_TOP + band(g, g->a[i].to) * rowh;
		w = 0.4 + 0.5 * log2((double)g->a[i].count);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke-width=\"%.2f\"><title>", x1, y1, x2,
		    y2, w);
		group_name(g, g->a[i].from, f);
		fprintf(f, " to ");
		group_name(g, g->a[i].to, f);
		fprintf(f, ": %" PRIu64 "</title></line>\n", g->a[i].count);
	}
	fprintf(f, "</g>\n");
	svg_marks(g, so, rowh, colw, f);
	fprintf(f, "<text x=\"%d\" y=\"%d\" fill=\"#555\">time "
	    "(Lamport) &#8594;</text>\n</svg>\n", SVG_LEFT, height - 12);
}

int
ft_replay_svg(struct ft_replay *l, uint64_t job,
    const struct ft_replay_opts *o, const struct ft_replay_svg *so, FILE *f,
    char *why, size_t whysize)
{
	struct svgctx g;
	uint64_t stuck;
	int rc = -1;

	memset(&g, 0, sizeof(g));
	g.bins = so->bins != 0 ? so->bins : SVG_BINS;
	g.max = so->max_arrows != 0 ? so->max_arrows : SVG_ARROWS;
	for (g.cap = 1024; g.cap < 2 * g.max; g.cap *= 2)
		;
	if (job_ranks(l, job, &g.ranks, &g.nranks, why, whysize) != 0)
		return -1;
	g.marks = so->marks;
	g.nmarks = so->nmarks;
	if ((g.act = calloc(g.nranks * g.bins + 1, sizeof(*g.act))) == NULL ||
	    (g.a = calloc(g.cap, sizeof(*g.a))) == NULL ||
	    (g.mseq = calloc(g.nmarks + 1, sizeof(*g.mseq))) == NULL ||
	    (g.mt = calloc(g.nmarks + 1, sizeof(*g.mt))) == NULL) {
		ft__replay_say(why, whysize, ENOMEM, "out of memory");
		goto out;
	}
	if (ft__replay_walk(l, job, o, svg_event, &g, &stuck, why,
	    whysize) != 0)
		goto out;
	g.pass = 1;
	g.events = 0;
	if (ft__replay_walk(l, job, o, svg_event, &g, &stuck, why,
	    whysize) != 0) {
		if (g.nomem)
			ft__replay_say(why, whysize, ENOMEM, "out of memory");
		goto out;
	}
	svg_write(&g, so, job, stuck, f);
	if (fflush(f) != 0 || ferror(f)) {
		ft__replay_say(why, whysize, errno, "writing the diagram");
		goto out;
	}
	rc = 0;
out:
	free(g.ranks);
	free(g.act);
	free(g.a);
	free(g.mseq);
	free(g.mt);
	return rc;
}
