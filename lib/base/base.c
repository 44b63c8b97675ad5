/* SPDX-License-Identifier: ISC */
/*
 * Diagnostics sink, time, buffers, CRC32C and hex: the small things every
 * layer of ft needs.  The diagnostics sink is the one mutable global.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"

static struct {
	char	prog[64];
	char	role[32];
	int	level;
	void	(*sink)(const char *, size_t);
} diag = { "ft", "", 0, NULL };

void
ft_diag_setsink(void (*sink)(const char *, size_t))
{
	diag.sink = sink;
}

void
ft_diag_init(const char *argv0)
{
	const char *slash;

	if (argv0 == NULL)
		return;
	slash = strrchr(argv0, '/');
	snprintf(diag.prog, sizeof(diag.prog), "%s",
	    slash != NULL ? slash + 1 : argv0);
}

void
ft_diag_setrole(const char *role)
{
	snprintf(diag.role, sizeof(diag.role), "%s", role != NULL ? role : "");
}

void
ft_diag_setlevel(int level)
{
	diag.level = level;
}

int
ft_diag_level(void)
{
	return diag.level;
}

const char *
ft_diag_prog(void)
{
	return diag.prog;
}

static void
vdiag(const char *level, int errnum, const char *fmt, va_list ap)
{
	char line[1024];
	int n;

	if (diag.role[0] != '\0')
		n = snprintf(line, sizeof(line), "%s[%s]: %s: ", diag.prog,
		    diag.role, level);
	else
		n = snprintf(line, sizeof(line), "%s: %s: ", diag.prog, level);
	if (n < 0 || (size_t)n >= sizeof(line))
		n = 0;
	vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
	n = (int)strlen(line);
	if (errnum != 0)
		snprintf(line + n, sizeof(line) - (size_t)n, ": %s",
		    strerror(errnum));
	n = (int)strlen(line);
	if ((size_t)n + 1 >= sizeof(line))
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (diag.sink != NULL) {
		diag.sink(line, (size_t)n);
		return;
	}
	/* One write so concurrent processes never interleave within a line. */
	(void)!write(STDERR_FILENO, line, (size_t)n);
}

void
ft__diag(const char *level, int errnum, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vdiag(level, errnum, fmt, ap);
	va_end(ap);
	errno = saved;
}

void
ft_info(const char *fmt, ...)
{
	va_list ap;

	if (diag.level < 1)
		return;
	va_start(ap, fmt);
	vdiag("info", 0, fmt, ap);
	va_end(ap);
}

void
ft_debug(const char *fmt, ...)
{
	va_list ap;

	if (diag.level < 2)
		return;
	va_start(ap, fmt);
	vdiag("debug", 0, fmt, ap);
	va_end(ap);
}

void
ft_die(int code, const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	vdiag("fatal", saved, fmt, ap);
	va_end(ap);
	exit(code);
}

void
ft_diex(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdiag("fatal", 0, fmt, ap);
	va_end(ap);
	exit(code);
}

void
ft_ratelim_init(struct ft_ratelim *rl, const char *what, uint32_t burst,
    uint64_t interval_ns)
{
	memset(rl, 0, sizeof(*rl));
	rl->what = what;
	rl->burst = burst;
	rl->interval_ns = interval_ns;
}

int
ft_ratelim_allow(struct ft_ratelim *rl, uint64_t now, uint64_t *report)
{
	*report = 0;
	if ((rl->used == 0 && rl->held == 0) ||
	    now - rl->start >= rl->interval_ns) {
		/* A new interval: what the last one held back is due. */
		*report = rl->held;
		rl->held = 0;
		rl->start = now;
		rl->used = 0;
	}
	if (rl->used < rl->burst) {
		rl->used++;
		return 1;
	}
	rl->held++;
	return 0;
}

uint64_t
ft_ratelim_due(struct ft_ratelim *rl, uint64_t now, int force)
{
	uint64_t n = rl->held;

	if (n == 0 || (!force && now - rl->start < rl->interval_ns))
		return 0;
	rl->held = 0;
	return n;
}

static void
ratelim_report(const struct ft_ratelim *rl, uint64_t n)
{
	if (n > 0)
		ft_warnx("%llu more %s suppressed", (unsigned long long)n,
		    rl->what);
}

void
ft_warnx_limited(struct ft_ratelim *rl, const char *fmt, ...)
{
	uint64_t report;
	va_list ap;
	int allow;

	allow = ft_ratelim_allow(rl, ft_now_ns(), &report);
	ratelim_report(rl, report);
	if (!allow)
		return;
	va_start(ap, fmt);
	vdiag("warning", 0, fmt, ap);
	va_end(ap);
}

void
ft_ratelim_flush(struct ft_ratelim *rl, int force)
{
	ratelim_report(rl, ft_ratelim_due(rl, ft_now_ns(), force));
}

void
ft__bug(const char *file, int line)
{
	char msg[256];
	int n;

	n = snprintf(msg, sizeof(msg), "%s: bug at %s:%d\n", diag.prog, file,
	    line);
	if (n > 0)
		(void)!write(STDERR_FILENO, msg, (size_t)n);
	abort();
}

int
ft_exit(int code)
{
	if (fflush(stdout) != 0) {
		ft_warn("unable to write to standard output");
		return FT_EXIT_TEMP;
	}
	/* An earlier write failed: its errno is long gone. */
	if (ferror(stdout)) {
		ft_warnx("unable to write to standard output");
		return FT_EXIT_TEMP;
	}
	return code;
}

uint64_t
ft_now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0)
		FT_BUG();
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

double
ft_now(void)
{
	return (double)ft_now_ns() / 1e9;
}

/*
 * Units of a duration, as value * b * 10^a nanoseconds: keeping the
 * power of ten apart lets the parser move the decimal point instead of
 * multiplying a fraction, so that no rounding ever happens.
 */
static const struct unit {
	const char	*name;
	unsigned int	 a;
	uint64_t	 b;
} units[] = {
	{ "ns", 0, 1 },
	{ "us", 3, 1 },
	{ "ms", 6, 1 },
	{ "s", 9, 1 },
	{ "", 9, 1 },
	{ "m", 10, 6 },
	{ "min", 10, 6 },
	{ "h", 11, 36 },
};

/* *v = *v * mul + add, or 0 when that does not fit in 64 bits. */
static int
fits(uint64_t *v, uint64_t mul, uint64_t add)
{
	return !__builtin_mul_overflow(*v, mul, v) &&
	    !__builtin_add_overflow(*v, add, v);
}

int
ft_parse_duration(const char *s, uint64_t *ns)
{
	const struct unit *u;
	const char *frac = "";
	size_t nint, nfrac = 0, i;
	uint64_t v = 0;
	int err = EINVAL;

	/* Plain decimal digits: strtod would take blanks, a sign, an
	 * exponent, hexadecimal, "inf" and "nan". */
	if (s == NULL || (nint = strspn(s, "0123456789")) == 0)
		goto bad;
	if (s[nint] == '.') {
		frac = s + nint + 1;
		if ((nfrac = strspn(frac, "0123456789")) == 0)
			goto bad;
	}
	for (u = units; u < units + FT_NELEM(units); u++)
		if (strcmp(s + nint + (nfrac > 0 ? 1 + nfrac : 0),
		    u->name) == 0)
			break;
	if (u == units + FT_NELEM(units))
		goto bad;
	err = ERANGE;
	for (i = 0; i < nint; i++)
		if (!fits(&v, 10, (uint64_t)(s[i] - '0')))
			goto bad;
	for (i = 0; i < u->a; i++)
		if (!fits(&v, 10, i < nfrac ? (uint64_t)(frac[i] - '0') : 0))
			goto bad;
	if (!fits(&v, u->b, 0))
		goto bad;
	/* Checked last: an overlong number is too long before it is too
	 * fine. */
	for (; i < nfrac; i++)
		if (frac[i] != '0') {
			err = EDOM;
			goto bad;
		}
	*ns = v;
	return 0;
bad:
	errno = err;
	return -1;
}

char *
ft_vis(char *dst, size_t dstsize, const char *src)
{
	const unsigned char *p = (const unsigned char *)src;
	size_t o = 0;

	if (dstsize == 0)
		FT_BUG();
	for (; *p != '\0'; p++) {
		if (*p >= 0x20 && *p != 0x7f) {
			if (o + 1 >= dstsize)
				break;
			dst[o++] = (char)*p;
		} else {
			if (o + 4 >= dstsize)
				break;
			o += (size_t)snprintf(dst + o, dstsize - o, "\\x%02x",
			    *p);
		}
	}
	dst[o] = '\0';
	return dst;
}

/*
 * CRC32C, reflected polynomial 0x82f63b78.  Every record, frame digest
 * and image block goes through here, so on x86-64 the SSE4.2 crc32
 * instruction does it, 8 bytes at a time (about 20 times the table's
 * speed); elsewhere, or on a CPU without it, a table a byte at a time.
 */
static uint32_t crc32c_table[256];
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;
static int crc32c_hw_ok;

#if defined(__x86_64__)
/*
 * The instruction has a latency of 3 cycles and a throughput of 1: three
 * streams of a block at once, each from register 0 but the first, then
 * joined (Mark Adler's crc32c.c): the first's register times x^(8 n)
 * (n zero bytes after it), plus the second's, and so on.  The shift by
 * a fixed n is linear in the register's 32 bits: 4 tables of 256.
 */
#define CRC_LONG	8192		/* bytes a stream, long blocks */
#define CRC_SHORT	256		/* and short ones */

static uint32_t crc32c_long[4][256], crc32c_short[4][256];

/* a times b modulo the polynomial, both reflected (bit 31 is x^0). */
static uint32_t
crc32c_mult(uint32_t a, uint32_t b)
{
	uint32_t m = 1u << 31, p = 0;

	for (;;) {
		if (a & m) {
			p ^= b;
			if ((a & (m - 1)) == 0)
				break;
		}
		m >>= 1;
		b = (b & 1) ? (b >> 1) ^ 0x82f63b78u : b >> 1;
	}
	return p;
}

/* The tables that shift a register by n zero bytes. */
static void
crc32c_shift_init(uint32_t t[4][256], size_t n)
{
	uint32_t x = 1u << 30, xn = 1u << 31;	/* x^1, and x^0 */
	size_t bits = n * 8;
	int k, b;

	/* xn = x^(8 n), by squaring. */
	for (; bits > 0; bits >>= 1) {
		if (bits & 1)
			xn = crc32c_mult(x, xn);
		x = crc32c_mult(x, x);
	}
	for (k = 0; k < 4; k++)
		for (b = 0; b < 256; b++)
			t[k][b] = (uint32_t)b << (8 * k) == 0 ? 0 :
			    crc32c_mult(xn, (uint32_t)b << (8 * k));
}

static uint32_t
crc32c_shift(uint32_t t[4][256], uint32_t c)
{
	return t[0][c & 0xff] ^ t[1][(c >> 8) & 0xff] ^
	    t[2][(c >> 16) & 0xff] ^ t[3][c >> 24];
}

/* One block of 3 n bytes at p, from register c (n: a multiple of 8). */
__attribute__((target("sse4.2"))) static inline uint64_t
crc32c_block(uint64_t c, const uint8_t *p, size_t n, uint32_t t[4][256])
{
	uint64_t c1 = 0, c2 = 0, w, w1, w2;
	const uint8_t *end;

	for (end = p + n; p < end; p += 8) {
		memcpy(&w, p, sizeof(w));
		memcpy(&w1, p + n, sizeof(w1));
		memcpy(&w2, p + 2 * n, sizeof(w2));
		c = __builtin_ia32_crc32di(c, w);
		c1 = __builtin_ia32_crc32di(c1, w1);
		c2 = __builtin_ia32_crc32di(c2, w2);
	}
	c = crc32c_shift(t, (uint32_t)c) ^ c1;
	return crc32c_shift(t, (uint32_t)c) ^ c2;
}

__attribute__((target("sse4.2"))) static uint32_t
crc32c_hw(uint32_t crc, const uint8_t *p, size_t len)
{
	uint64_t c = crc, w;

	for (; len > 0 && ((uintptr_t)p & 7) != 0; len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	for (; len >= 3 * CRC_LONG; len -= 3 * CRC_LONG, p += 3 * CRC_LONG)
		c = crc32c_block(c, p, CRC_LONG, crc32c_long);
	for (; len >= 3 * CRC_SHORT; len -= 3 * CRC_SHORT, p += 3 * CRC_SHORT)
		c = crc32c_block(c, p, CRC_SHORT, crc32c_short);
	for (; len >= 8; len -= 8, p += 8) {
		memcpy(&w, p, sizeof(w));
		c = __builtin_ia32_crc32di(c, w);
	}
	for (; len > 0; len--)
		c = __builtin_ia32_crc32qi((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

static void
crc32c_init(void)
{
	uint32_t c;
	int i, k;

	for (i = 0; i < 256; i++) {
		c = (uint32_t)i;
		for (k = 0; k < 8; k++)
			c = (c & 1) ? (c >> 1) ^ 0x82f63b78u : c >> 1;
		crc32c_table[i] = c;
	}
#if defined(__x86_64__)
	crc32c_hw_ok = __builtin_cpu_supports("sse4.2");
	if (crc32c_hw_ok) {
		crc32c_shift_init(crc32c_long, CRC_LONG);
		crc32c_shift_init(crc32c_short, CRC_SHORT);
	}
#endif
}

uint32_t
ft__crc32c_table(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	(void)pthread_once(&crc32c_once, crc32c_init);
	crc = ~crc;
	while (len-- > 0)
		crc = crc32c_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

uint32_t
ft_crc32c(uint32_t crc, const void *buf, size_t len)
{
	(void)pthread_once(&crc32c_once, crc32c_init);
#if defined(__x86_64__)
	if (crc32c_hw_ok)
		return ~crc32c_hw(~crc, buf, len);
#endif
	return ft__crc32c_table(crc, buf, len);
}

void
ft_wbuf_init(struct ft_wbuf *b)
{
	b->p = NULL;
	b->len = b->cap = 0;
	b->err = 0;
}

void
ft_wbuf_release(struct ft_wbuf *b)
{
	free(b->p);
	ft_wbuf_init(b);
}

void
ft_wbuf_reset(struct ft_wbuf *b)
{
	b->len = 0;
	b->err = 0;
}

int
ft_wbuf_reserve(struct ft_wbuf *b, size_t n)
{
	size_t ncap;
	uint8_t *np;

	if (b->err != 0)
		return -1;
	if (b->cap - b->len >= n)
		return 0;
	if (n > SIZE_MAX / 2 - b->len) {
		b->err = ENOMEM;
		return -1;
	}
	ncap = b->cap < 256 ? 256 : b->cap;
	while (ncap - b->len < n)
		ncap *= 2;
	if ((np = realloc(b->p, ncap)) == NULL) {
		b->err = ENOMEM;
		return -1;
	}
	b->p = np;
	b->cap = ncap;
	return 0;
}

void
ft_putbytes(struct ft_wbuf *b, const void *p, size_t n)
{
	if (n == 0 || ft_wbuf_reserve(b, n) != 0)
		return;
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

void
ft_put8(struct ft_wbuf *b, uint8_t v)
{
	ft_putbytes(b, &v, 1);
}

void
ft_put16(struct ft_wbuf *b, uint16_t v)
{
	uint8_t q[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	ft_putbytes(b, q, 2);
}

void
ft_put32(struct ft_wbuf *b, uint32_t v)
{
	uint8_t q[4];

	ft_be32(q, v);
	ft_putbytes(b, q, 4);
}

void
ft_put64(struct ft_wbuf *b, uint64_t v)
{
	uint8_t q[8];

	ft_be64(q, v);
	ft_putbytes(b, q, 8);
}

void
ft_putstr(struct ft_wbuf *b, const char *s)
{
	size_t n = s != NULL ? strlen(s) : 0;

	if (n > UINT16_MAX) {
		b->err = EMSGSIZE;
		return;
	}
	ft_put16(b, (uint16_t)n);
	ft_putbytes(b, s, n);
}

void
ft_wbuf_set32(struct ft_wbuf *b, size_t off, uint32_t v)
{
	if (b->err != 0 || off + 4 > b->len)
		return;
	ft_be32(b->p + off, v);
}

void
ft_getbytes(struct ft_rbuf *b, void *dst, size_t n)
{
	if (b->err != 0 || b->len - b->off < n) {
		b->err = EPROTO;
		memset(dst, 0, n);
		return;
	}
	memcpy(dst, b->p + b->off, n);
	b->off += n;
}

void
ft_getstr(struct ft_rbuf *b, char *dst, size_t dstsize)
{
	uint16_t n = ft_get16(b);

	if (dstsize == 0)
		FT_BUG();
	dst[0] = '\0';
	if (b->err != 0)
		return;
	if ((size_t)n >= dstsize || b->len - b->off < n ||
	    memchr(b->p + b->off, '\0', n) != NULL) {
		b->err = EPROTO;
		return;
	}
	memcpy(dst, b->p + b->off, n);
	dst[n] = '\0';
	b->off += n;
}

int
ft_hex_decode(const char *s, uint8_t *out, size_t outlen)
{
	size_t i;
	int hi, lo;

	if (strlen(s) != outlen * 2)
		goto bad;
	for (i = 0; i < outlen; i++) {
		hi = s[2 * i];
		lo = s[2 * i + 1];
#define HEXVAL(c) ((c) >= '0' && (c) <= '9' ? (c) - '0' : \
	(c) >= 'a' && (c) <= 'f' ? (c) - 'a' + 10 : -1)
		hi = HEXVAL(hi);
		lo = HEXVAL(lo);
#undef HEXVAL
		if (hi < 0 || lo < 0)
			goto bad;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
bad:
	errno = EINVAL;
	return -1;
}

void
ft_hex_encode(const uint8_t *p, size_t n, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = digits[p[i] >> 4];
		out[2 * i + 1] = digits[p[i] & 15];
	}
	out[2 * n] = '\0';
}

/*
 * Message copies: when a sender outruns its receiver, every eager message
 * is copied into the send queue, and again into the receiver's unexpected
 * queue, and freed soon after: thousands a second of 64 KiB buffers, which
 * malloc hands back to the kernel and faults in again each time (a
 * streaming benchmark lost 90% of its bandwidth to that).  Copies of
 * QBUF_MIN to FT_BUF_POOLED bytes come from a free list instead, which
 * keeps at most QPOOL_MAX buffers (8 MiB) between bursts.  One thread uses
 * the library (MPI_THREAD_FUNNELED at most), so the list needs no lock.
 */
#define QBUF_MIN	(4u << 10)
#define QPOOL_MAX	128

static void	*qpool[QPOOL_MAX];
static int	 qpool_n;

void *
ft_buf_get(size_t len, int *pooled)
{
	*pooled = len >= QBUF_MIN && len <= FT_BUF_POOLED;
	if (!*pooled)
		return malloc(len);
	if (qpool_n > 0)
		return qpool[--qpool_n];
	return malloc(FT_BUF_POOLED);
}

void *
ft_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void *np;
	size_t ncap;

	if (n < *cap)
		return arr;
	/* Checked here, not left to reallocarray: sanitizers abort on an
	 * overflowing count instead of returning NULL. */
	if (*cap > SIZE_MAX / 2 / (size > 0 ? size : 1)) {
		errno = ENOMEM;
		return NULL;
	}
	ncap = *cap == 0 ? 16 : *cap * 2;
	if ((np = reallocarray(arr, ncap, size)) == NULL)
		return NULL;
	*cap = ncap;
	return np;
}

void
ft_buf_put(void *p, int pooled)
{
	if (pooled && p != NULL && qpool_n < QPOOL_MAX)
		qpool[qpool_n++] = p;
	else
		free(p);
}

const char *
ft_fmt_duration(uint64_t ns, char *buf, size_t size)
{
	unsigned long long tenths = (ns + 50000000u) / 100000000u;

	if (ns < 1000000000u)
		snprintf(buf, size, "%llums", (unsigned long long)(ns / 1000000));
	else if (tenths % 10 != 0 && tenths < 1000)
		snprintf(buf, size, "%llu.%llus", tenths / 10, tenths % 10);
	else
		snprintf(buf, size, "%llus", (tenths + 5) / 10);
	return buf;
}

void
ft_appendf(char *buf, size_t size, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(buf + *off, size - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		buf[*off] = '\0';
	else
		*off = *off + (size_t)n < size ? *off + (size_t)n : size - 1;
}
