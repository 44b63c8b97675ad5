/* SPDX-License-Identifier: ISC */
/*
 * The base layer: diagnostics, exit codes, monotonic time, growable write
 * buffers and bounded read cursors, CRC32C.  Every other layer builds on
 * these; nothing here knows about sockets or MPI.
 */
#ifndef FT_BASE_H
#define FT_BASE_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FT_EXIT_OK	0
#define FT_EXIT_NO	1	/* a definite "no" */
#define FT_EXIT_TIMEOUT	99
#define FT_EXIT_USAGE	100	/* permanent: do not retry */
#define FT_EXIT_TEMP	111	/* transient: a retry may help */

#define FT_NORETURN	__attribute__((noreturn))
#define FT_PRINTF(a, b)	__attribute__((format(printf, a, b)))
#define FT_EXPORT	__attribute__((visibility("default")))

#define FT_BUG()	ft__bug(__FILE__, __LINE__)
#define FT_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/*
 * Diagnostics: one line on stderr each, "prog[role]: level: msg".  The sink
 * (program name, role, verbosity) is the one mutable global ft allows.
 * ft_die appends strerror(errno); ft_diex does not.  Both exit with code.
 */
void	 ft_diag_init(const char *argv0);
void	 ft_diag_setrole(const char *role);
void	 ft_diag_setlevel(int verbose);
/*
 * Send every diagnostic line (newline included) to sink instead of
 * stderr; NULL restores stderr.  A replicated rank's replicas print
 * through their launcher, so a warning one of them alone sees does not
 * upset the launcher's matching of their outputs.
 */
void	 ft_diag_setsink(void (*sink)(const char *, size_t));
int	 ft_diag_level(void);
const char *ft_diag_prog(void);
/*
 * A diagnostic line at level ("warning", "error"), with strerror(errnum)
 * appended unless errnum is 0; errno is kept.  Called through:
 *   ft_warn, ft_warnx	  "warning:", what the program absorbs;
 *   ft_error, ft_errorx  "error:", a failure that does not end the
 *			  program at once but changes its outcome (it
 *			  ends the job, or the exit status);
 * the first of each pair appends strerror(errno), the second does not.
 */
void	 ft__diag(const char *level, int errnum, const char *, ...)
	    FT_PRINTF(3, 4);
#define ft_warn(...)	ft__diag("warning", errno, __VA_ARGS__)
#define ft_warnx(...)	ft__diag("warning", 0, __VA_ARGS__)
#define ft_error(...)	ft__diag("error", errno, __VA_ARGS__)
#define ft_errorx(...)	ft__diag("error", 0, __VA_ARGS__)
void	 ft_info(const char *, ...) FT_PRINTF(1, 2);
void	 ft_debug(const char *, ...) FT_PRINTF(1, 2);
void	 ft_die(int, const char *, ...) FT_PRINTF(2, 3) FT_NORETURN;
void	 ft_diex(int, const char *, ...) FT_PRINTF(2, 3) FT_NORETURN;
void	 ft__bug(const char *, int) FT_NORETURN;

/*
 * A limit on the warnings that others can cause (STYLE: "warnings
 * caused by a peer are rate-limited"), such as one line for every
 * connection a stranger opens: at most burst lines in an interval,
 * which starts with the first line after the previous one is over.
 * Lines beyond are held back and counted, and one line
 * "N more WHAT suppressed" reports them: before the next line that goes
 * out, or from ft_ratelim_flush.  The caller owns the struct; what must
 * outlive it.
 *
 * ft_ratelim_allow and ft_ratelim_due take the time (ft_now_ns) from
 * the caller and print nothing.  ft_ratelim_allow returns 1 if the
 * event at now may have its line, 0 if the line is held back; *report
 * gets the lines held back before it that the caller is to report
 * first (0: none).  ft_ratelim_due returns, and forgets, the lines held
 * back if their interval is over or force is set, else 0.
 *
 * ft_warnx_limited is ft_warnx through the limit, and ft_ratelim_flush
 * prints the summary that ft_ratelim_due gives; both read the clock.
 */
struct ft_ratelim {
	const char	*what;		/* "refused connections" */
	uint64_t	 interval_ns;
	uint64_t	 start;		/* of the current interval */
	uint32_t	 burst;		/* lines an interval */
	uint32_t	 used;		/* lines in the current interval */
	uint64_t	 held;		/* held back, not yet reported */
};

void	 ft_ratelim_init(struct ft_ratelim *, const char *what,
	    uint32_t burst, uint64_t interval_ns);
int	 ft_ratelim_allow(struct ft_ratelim *, uint64_t now,
	    uint64_t *report);
uint64_t ft_ratelim_due(struct ft_ratelim *, uint64_t now, int force);
void	 ft_warnx_limited(struct ft_ratelim *, const char *, ...)
	    FT_PRINTF(2, 3);
void	 ft_ratelim_flush(struct ft_ratelim *, int force);

/* Flush stdout; returns code, or FT_EXIT_TEMP with a message if it fails. */
int	 ft_exit(int code);

/* Monotonic clock (CLOCK_MONOTONIC) in nanoseconds and seconds. */
uint64_t ft_now_ns(void);
double	 ft_now(void);

/*
 * Parse a duration: decimal digits, an optional "." and more digits,
 * then a unit: ns, us, ms, s, m or min, h, or none for seconds ("2.5s",
 * "100ms", "1m", "90").  The value is read exactly, in integers, so that
 * "0.1s" is 100000000 ns on every host; no blank, sign, exponent,
 * hexadecimal, "inf" or "nan".  Returns 0 and *ns, or -1 with errno
 * EINVAL (not a duration), ERANGE (more than UINT64_MAX ns, about 584
 * years) or EDOM (a fraction of a nanosecond); *ns is then unchanged.
 */
int	 ft_parse_duration(const char *, uint64_t *ns);
/*
 * Append to the string buf of size bytes, at *off; what does not fit is
 * dropped (the string stays terminated, *off stops at the end).
 */
void	 ft_appendf(char *buf, size_t size, size_t *off, const char *fmt, ...)
	    FT_PRINTF(4, 5);
/* "250ms", "1.5s", "10s", "600s": a duration for messages.  Returns buf. */
const char *ft_fmt_duration(uint64_t ns, char *buf, size_t size);

/*
 * Copy the string src into dst (dstsize bytes, NUL-terminated; cut, never
 * in the middle of an escape, if it does not fit) with every control
 * character, a byte below 0x20 or 0x7f, written as \xHH: text that a
 * peer sent then cannot move the cursor or reprogram a terminal.  Other
 * bytes, UTF-8 included, are copied as they are.  Returns dst.
 */
char	*ft_vis(char *dst, size_t dstsize, const char *src);

/* CRC32C (Castagnoli), as iSCSI and ext4 use it; crc is 0 to start. */
uint32_t ft_crc32c(uint32_t crc, const void *, size_t);
/* The same, always by table: what a CPU without SSE4.2 computes (tests). */
uint32_t ft__crc32c_table(uint32_t crc, const void *, size_t);

/*
 * Growable write buffer.  ft_wbuf_init gives an empty buffer; putters
 * record ENOMEM in err (sticky) instead of failing one by one, so a
 * caller checks err once after a run of puts.  ft_wbuf_release frees.
 */
struct ft_wbuf {
	uint8_t	*p;
	size_t	 len, cap;
	int	 err;
};

/*
 * Short-lived message copies.  ft_buf_get returns a buffer of at least len
 * bytes and sets *pooled; give it back with ft_buf_put and that flag.
 */
#define FT_BUF_POOLED	((64u << 10) + 64)	/* largest pooled copy */
void	*ft_buf_get(size_t len, int *pooled);
void	 ft_buf_put(void *, int pooled);

/*
 * Make room for one more element in a growable array: arr holds n
 * elements of size bytes in room for *cap.  When full, the room doubles
 * (first 16).  Returns the array, perhaps moved, or NULL with ENOMEM
 * (arr and *cap are then as they were).
 */
void	*ft_grow(void *arr, size_t *cap, size_t n, size_t size);

void	 ft_wbuf_init(struct ft_wbuf *);
void	 ft_wbuf_release(struct ft_wbuf *);
void	 ft_wbuf_reset(struct ft_wbuf *);
int	 ft_wbuf_reserve(struct ft_wbuf *, size_t);
void	 ft_put8(struct ft_wbuf *, uint8_t);
void	 ft_put16(struct ft_wbuf *, uint16_t);
void	 ft_put32(struct ft_wbuf *, uint32_t);
void	 ft_put64(struct ft_wbuf *, uint64_t);
void	 ft_putbytes(struct ft_wbuf *, const void *, size_t);
/* A string as a 16-bit big-endian length and its bytes, no NUL. */
void	 ft_putstr(struct ft_wbuf *, const char *);
/* Overwrite 4 bytes at off (for lengths known only at the end). */
void	 ft_wbuf_set32(struct ft_wbuf *, size_t off, uint32_t);

/*
 * Bounded read cursor over bytes the caller owns.  A get past the end
 * sets err to EPROTO (sticky) and returns 0; check err once at the end.
 */
struct ft_rbuf {
	const uint8_t	*p;
	size_t		 len, off;
	int		 err;
};

static inline void
ft_rbuf_init(struct ft_rbuf *b, const void *p, size_t len)
{
	b->p = p;
	b->len = len;
	b->off = 0;
	b->err = 0;
}

static inline size_t
ft_rbuf_left(const struct ft_rbuf *b)
{
	return b->err != 0 ? 0 : b->len - b->off;
}

static inline uint8_t
ft_get8(struct ft_rbuf *b)
{
	if (b->err != 0 || b->len - b->off < 1) {
		b->err = EPROTO;
		return 0;
	}
	return b->p[b->off++];
}

static inline uint16_t
ft_get16(struct ft_rbuf *b)
{
	const uint8_t *q;

	if (b->err != 0 || b->len - b->off < 2) {
		b->err = EPROTO;
		return 0;
	}
	q = b->p + b->off;
	b->off += 2;
	return (uint16_t)(q[0] << 8 | q[1]);
}

static inline uint32_t
ft_get32(struct ft_rbuf *b)
{
	const uint8_t *q;

	if (b->err != 0 || b->len - b->off < 4) {
		b->err = EPROTO;	/* sticky: later gets return 0 */
		return 0;
	}
	q = b->p + b->off;
	b->off += 4;
	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
	    (uint32_t)q[2] << 8 | q[3];
}

static inline uint64_t
ft_get64(struct ft_rbuf *b)
{
	uint64_t hi = ft_get32(b);

	return hi << 32 | ft_get32(b);
}

/* Copy n bytes out; on a short buffer fill dst with zeros and set err. */
void	 ft_getbytes(struct ft_rbuf *, void *dst, size_t n);
/*
 * Read a 16-bit length-prefixed string into dst (size dstsize, always
 * NUL-terminated).  A string that does not fit, or that holds a NUL
 * byte, sets err to EPROTO.
 */
void	 ft_getstr(struct ft_rbuf *, char *dst, size_t dstsize);

/* Big-endian stores into a plain array, for fixed headers. */
static inline void
ft_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static inline void
ft_be64(uint8_t *p, uint64_t v)
{
	ft_be32(p, (uint32_t)(v >> 32));
	ft_be32(p + 4, (uint32_t)v);
}

static inline uint32_t
ft_rd32(const uint8_t *q)
{
	return (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 |
	    (uint32_t)q[2] << 8 | q[3];
}

static inline uint64_t
ft_rd64(const uint8_t *q)
{
	return (uint64_t)ft_rd32(q) << 32 | ft_rd32(q + 4);
}

/* Hex encoding of binary keys for the environment and files. */
int	 ft_hex_decode(const char *, uint8_t *out, size_t outlen);
void	 ft_hex_encode(const uint8_t *, size_t, char *out);

#include "banned.h"

#endif
