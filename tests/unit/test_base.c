/* SPDX-License-Identifier: ISC */
/*
 * Unit tests of the base layer: CRC32C against published vectors, write
 * buffers and read cursors (round trips, big-endian layout, sticky
 * errors), length-prefixed strings, duration parsing, hex, the escaping
 * of control characters, and the limit on warnings.
 */
#include <stdint.h>
#include <stdlib.h>

#include "base/base.h"
#include "tap.h"

/*
 * The instruction path (on x86-64) against the table, at every start
 * alignment and lengths around its 8-byte steps, and chained.
 */
/*
 * Three streams at once, joined (blocks of 3 x 256 and 3 x 8192 bytes):
 * against the table around each block's edges, at odd alignments, and
 * chained across blocks.
 */
static void
test_crc32c_streams(void)
{
	static const size_t lens[] = { 767, 768, 769, 1535, 1536, 1600, 2311,
	    24575, 24576, 24577, 25344, 49152, 49999, 100000, 1u << 20 };
	uint8_t *big;
	size_t i, off, bad = 0, n = (1u << 20) + 8;
	uint32_t a, b, x = 2463534242u;

	if ((big = malloc(n)) == NULL)
		abort();
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		big[i] = (uint8_t)x;
	}
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
		for (off = 0; off < 8; off += 3) {
			a = ft_crc32c(0xdeadbeefu, big + off, lens[i]);
			b = ft__crc32c_table(0xdeadbeefu, big + off, lens[i]);
			bad += a != b;
		}
	T_EQ_UINT(bad, 0, "crc32c: three streams joined equal the table, "
	    "at each block's edges (up to 1 MiB)");
	a = ft_crc32c(ft_crc32c(7, big + 1, 30000), big + 30001, 70001);
	T_EQ_UINT(a, ft__crc32c_table(7, big + 1, 100001),
	    "crc32c of streams in two pieces equals the table in one");
	free(big);
}

static void
test_crc32c_paths(void)
{
	uint8_t big[1024 + 8];
	size_t off, len, bad = 0;
	uint32_t a, b;

	for (off = 0; off < sizeof(big); off++)
		big[off] = (uint8_t)(off * 131 + (off >> 3));
	for (off = 0; off < 8; off++)
		for (len = 0; len <= 1024; len += len < 40 ? 1 : 61) {
			a = ft_crc32c(0x1234u, big + off, len);
			b = ft__crc32c_table(0x1234u, big + off, len);
			bad += a != b;
		}
	T_EQ_UINT(bad, 0, "crc32c: the fast path equals the table at every "
	    "alignment and length");
	a = ft_crc32c(ft_crc32c(0, big + 3, 500), big + 503, 521);
	T_EQ_UINT(a, ft__crc32c_table(0, big + 3, 1021),
	    "crc32c in two pieces equals the table in one");
	test_crc32c_streams();
}

static void
test_crc32c(void)
{
	uint8_t buf[32];
	size_t i;

	T_EQ_UINT(ft_crc32c(0, "123456789", 9), 0xe3069283u,
	    "crc32c(\"123456789\") is the check value 0xe3069283");
	T_EQ_UINT(ft_crc32c(0, "", 0), 0, "crc32c of nothing is 0");
	T_EQ_UINT(ft_crc32c(ft_crc32c(0, "1234", 4), "56789", 5),
	    0xe3069283u, "crc32c can be computed in pieces");
	/* RFC 3720, appendix B.4. */
	memset(buf, 0, sizeof(buf));
	T_EQ_UINT(ft_crc32c(0, buf, sizeof(buf)), 0x8a9136aau,
	    "crc32c of 32 zero bytes (RFC 3720)");
	memset(buf, 0xff, sizeof(buf));
	T_EQ_UINT(ft_crc32c(0, buf, sizeof(buf)), 0x62a8ab43u,
	    "crc32c of 32 0xff bytes (RFC 3720)");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	T_EQ_UINT(ft_crc32c(0, buf, sizeof(buf)), 0x46dd794eu,
	    "crc32c of 00..1f (RFC 3720)");
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)(31 - i);
	T_EQ_UINT(ft_crc32c(0, buf, sizeof(buf)), 0x113fdb5cu,
	    "crc32c of 1f..00 (RFC 3720)");
	test_crc32c_paths();
}

/*
 * A cursor over no bytes at all, as a decoder of an empty body gets.
 * Every get must fail cleanly; computing NULL + 0 before the length
 * check is undefined behaviour, which UBSan reports.
 */
static int
empty_cursor(void *arg)
{
	struct ft_rbuf r;
	uint8_t one;

	ft_rbuf_init(&r, NULL, 0);
	if (ft_get8(&r) != 0 || r.err != EPROTO)
		return 1;
	ft_rbuf_init(&r, NULL, 0);
	if (ft_get16(&r) != 0 || r.err != EPROTO)
		return 1;
	ft_rbuf_init(&r, NULL, 0);
	if (ft_get32(&r) != 0 || r.err != EPROTO)
		return 1;
	ft_rbuf_init(&r, NULL, 0);
	if (ft_get64(&r) != 0 || r.err != EPROTO)
		return 1;
	ft_rbuf_init(&r, NULL, 0);
	ft_getbytes(&r, &one, 1);
	return r.err == EPROTO && one == 0 ? 0 : 1;
}

static void
test_wbuf_rbuf(void)
{
	static const uint8_t want[] = {
		0xab,
		0xbe, 0xef,
		0xde, 0xad, 0xbe, 0xef,
		0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef,
		'x', 'y', 'z',
		0x00, 0x02, 'h', 'i',
		0x00, 0x00,
	};
	struct ft_wbuf b;
	struct ft_rbuf r;
	uint8_t three[3], big[5000];
	char s[8];
	size_t i;

	ft_wbuf_init(&b);
	T_OK(b.p == NULL && b.len == 0 && b.err == 0, "wbuf_init is empty");
	ft_put8(&b, 0xab);
	ft_put16(&b, 0xbeef);
	ft_put32(&b, 0xdeadbeefu);
	ft_put64(&b, 0x0123456789abcdefull);
	ft_putbytes(&b, "xyz", 3);
	ft_putstr(&b, "hi");
	ft_putstr(&b, NULL);
	T_EQ_INT(b.err, 0, "puts leave err at 0");
	T_OK(b.len == sizeof(want) && memcmp(b.p, want, sizeof(want)) == 0,
	    "puts are big-endian and strings are 16-bit length prefixed");

	ft_rbuf_init(&r, b.p, b.len);
	T_EQ_UINT(ft_get8(&r), 0xab, "get8");
	T_EQ_UINT(ft_get16(&r), 0xbeef, "get16");
	T_EQ_UINT(ft_get32(&r), 0xdeadbeefu, "get32");
	T_EQ_UINT(ft_get64(&r), 0x0123456789abcdefull, "get64");
	ft_getbytes(&r, three, 3);
	T_OK(memcmp(three, "xyz", 3) == 0, "getbytes");
	ft_getstr(&r, s, sizeof(s));
	T_EQ_STR(s, "hi", "getstr");
	ft_getstr(&r, s, sizeof(s));
	T_EQ_STR(s, "", "getstr of an empty string");
	T_OK(r.err == 0 && ft_rbuf_left(&r) == 0, "the cursor is at the end");

	/* Read cursor: errors are sticky. */
	T_EQ_UINT(ft_get8(&r), 0, "get8 past the end returns 0");
	T_EQ_INT(r.err, EPROTO, "and sets err to EPROTO");
	ft_rbuf_init(&r, b.p, b.len);
	T_EQ_UINT(ft_get64(&r), 0xabbeefdeadbeef01ull, "get64 reads 8 bytes");
	r.off = b.len - 3;
	T_EQ_UINT(ft_get32(&r), 0, "get32 with 3 bytes left returns 0");
	T_OK(r.err == EPROTO && r.off == b.len - 3,
	    "a short get neither moves the cursor nor clears err");
	T_EQ_UINT(ft_get8(&r), 0, "after an error get8 returns 0 though a "
	    "byte is left");
	T_EQ_UINT(ft_rbuf_left(&r), 0, "rbuf_left is 0 after an error");
	memset(three, 0x55, sizeof(three));
	ft_getbytes(&r, three, 3);
	T_OK(three[0] == 0 && three[1] == 0 && three[2] == 0,
	    "getbytes after an error zero-fills");
	ft_rbuf_init(&r, b.p, 1);
	T_EQ_UINT(ft_get16(&r), 0, "get16 of a 1-byte buffer fails");
	T_EQ_INT(r.err, EPROTO, "with EPROTO");
	T_OK(t_child(empty_cursor, NULL), "gets on an empty cursor over NULL "
	    "fail with EPROTO without pointer arithmetic on NULL (UBSan)");

	/* Write buffer: set32, reset, growth, sticky errors. */
	ft_wbuf_set32(&b, 3, 0x11223344u);
	T_OK(b.p[3] == 0x11 && b.p[6] == 0x44, "wbuf_set32 overwrites");
	i = b.len;
	ft_wbuf_set32(&b, b.len - 3, 0);
	T_OK(b.len == i && b.p[b.len - 1] == 0x00 && b.p[b.len - 3] == 'i',
	    "wbuf_set32 past the end does nothing");
	ft_wbuf_reset(&b);
	T_OK(b.len == 0 && b.err == 0 && b.p != NULL,
	    "wbuf_reset keeps the memory");
	for (i = 0; i < sizeof(big); i++)
		big[i] = (uint8_t)(i * 7);
	ft_putbytes(&b, big, sizeof(big));
	ft_putbytes(&b, big, sizeof(big));
	T_OK(b.err == 0 && b.len == 2 * sizeof(big) && b.cap >= b.len &&
	    memcmp(b.p + sizeof(big), big, sizeof(big)) == 0,
	    "the buffer grows");
	b.err = ENOMEM;
	i = b.len;
	ft_put32(&b, 1);
	ft_putstr(&b, "abc");
	T_OK(b.len == i && b.err == ENOMEM, "puts after an error do nothing");
	T_EQ_INT(ft_wbuf_reserve(&b, 1), -1, "reserve after an error fails");
	ft_wbuf_reset(&b);
	T_EQ_INT(ft_wbuf_reserve(&b, SIZE_MAX - 8), -1,
	    "reserving nearly SIZE_MAX fails");
	T_EQ_INT(b.err, ENOMEM, "with ENOMEM");
	ft_wbuf_release(&b);
	T_OK(b.p == NULL && b.len == 0 && b.cap == 0 && b.err == 0,
	    "wbuf_release empties");
}

static void
test_strings(void)
{
	struct ft_wbuf b;
	struct ft_rbuf r;
	char dst[8], *longstr;
	uint8_t raw[16];

	ft_wbuf_init(&b);
	ft_putstr(&b, "1234567");
	ft_rbuf_init(&r, b.p, b.len);
	ft_getstr(&r, dst, sizeof(dst));
	T_OK(r.err == 0 && strcmp(dst, "1234567") == 0,
	    "getstr: dstsize - 1 bytes fit");

	ft_wbuf_reset(&b);
	ft_putstr(&b, "12345678");
	ft_rbuf_init(&r, b.p, b.len);
	memset(dst, 'x', sizeof(dst));
	ft_getstr(&r, dst, sizeof(dst));
	T_EQ_INT(r.err, EPROTO, "getstr: dstsize bytes do not fit");
	T_EQ_INT(dst[0], '\0', "and dst is left empty");

	ft_getstr(&r, dst, 1);
	T_EQ_INT(r.err, EPROTO, "getstr after an error keeps EPROTO");

	ft_rbuf_init(&r, b.p, b.len);
	ft_getstr(&r, dst, 1);
	T_EQ_INT(r.err, EPROTO, "getstr: a 1-byte dst holds only \"\"");

	/* A string with a NUL byte inside. */
	memcpy(raw, "\x00\x03" "a\0b", 5);
	ft_rbuf_init(&r, raw, 5);
	ft_getstr(&r, dst, sizeof(dst));
	T_EQ_INT(r.err, EPROTO, "getstr: an embedded NUL is rejected");
	memcpy(raw, "\x00\x02" "ab\0", 5);
	ft_rbuf_init(&r, raw, 5);
	ft_getstr(&r, dst, sizeof(dst));
	T_OK(r.err == 0 && strcmp(dst, "ab") == 0 && r.off == 4,
	    "getstr: a NUL after the string is not part of it");
	memcpy(raw, "\x00\x03" "\0ab", 5);
	ft_rbuf_init(&r, raw, 5);
	ft_getstr(&r, dst, sizeof(dst));
	T_EQ_INT(r.err, EPROTO, "getstr: a leading NUL is rejected");

	/* The length says more than the buffer has. */
	memcpy(raw, "\x00\x05" "abc", 5);
	ft_rbuf_init(&r, raw, 5);
	ft_getstr(&r, dst, sizeof(dst));
	T_OK(r.err == EPROTO && dst[0] == '\0',
	    "getstr: a length past the end is rejected");
	memcpy(raw, "\xff\xff" "abc", 5);
	ft_rbuf_init(&r, raw, 5);
	ft_getstr(&r, dst, sizeof(dst));
	T_EQ_INT(r.err, EPROTO, "getstr: length 65535 with 3 bytes");
	ft_rbuf_init(&r, raw, 1);
	ft_getstr(&r, dst, sizeof(dst));
	T_EQ_INT(r.err, EPROTO, "getstr: half a length");

	/* The longest string a 16-bit length holds, and one more. */
	if ((longstr = malloc(UINT16_MAX + 2)) == NULL)
		abort();
	memset(longstr, 'a', UINT16_MAX + 1);
	longstr[UINT16_MAX] = '\0';
	ft_wbuf_reset(&b);
	ft_putstr(&b, longstr);
	T_OK(b.err == 0 && b.len == 2 + UINT16_MAX && b.p[0] == 0xff &&
	    b.p[1] == 0xff, "putstr of 65535 bytes");
	longstr[UINT16_MAX] = 'a';
	longstr[UINT16_MAX + 1] = '\0';
	ft_wbuf_reset(&b);
	ft_putstr(&b, longstr);
	T_OK(b.err == EMSGSIZE && b.len == 0,
	    "putstr of 65536 bytes fails with EMSGSIZE");
	free(longstr);
	ft_wbuf_release(&b);
}

static void
test_duration(void)
{
	static const struct {
		const char	*s;
		uint64_t	 ns;
	} good[] = {
		{ "100ms", 100000000ull },
		{ "2.5s", 2500000000ull },
		{ "1m", 60000000000ull },
		{ "500us", 500000ull },
		{ "3", 3000000000ull },
		{ "0", 0 },
		{ "0.5", 500000000ull },
		{ "7ns", 7 },
		{ "2min", 120000000000ull },
		{ "1h", 3600000000000ull },
		{ "1.001ms", 1001000ull },
		{ "1.003s", 1003000000ull },
		/* Read exactly, in integers, up to 2^64-1 ns. */
		{ "0.1s", 100000000ull },
		{ "0.3", 300000000ull },
		{ "1.0ns", 1 },
		{ "007s", 7000000000ull },
		{ "0.0000000001m", 6 },
		{ "18446744073.709551615s", UINT64_MAX },
		{ "18446744073709551615ns", UINT64_MAX },
		{ "5124095h", 18446742000000000000ull },
	};
	static const char *bad[] = {
		"", "x", "-1", "5q", "ms", "1 s", "5ss", "nan", "inf",
		"-0.5s", "1e10",
	};
	uint64_t ns;
	size_t i;
	int rc;

	for (i = 0; i < FT_NELEM(good); i++) {
		ns = 12345;
		rc = ft_parse_duration(good[i].s, &ns);
		T_OK(rc == 0 && ns == good[i].ns, "duration \"%s\" is %" PRIu64
		    " ns", good[i].s, good[i].ns);
		if (rc != 0 || ns != good[i].ns)
			t_diag("got rc %d, %" PRIu64 " ns", rc, ns);
	}
	for (i = 0; i < FT_NELEM(bad); i++) {
		ns = 12345;
		errno = 0;
		rc = ft_parse_duration(bad[i], &ns);
		T_OK(rc == -1 && errno == EINVAL && ns == 12345,
		    "duration \"%s\" is rejected with EINVAL", bad[i]);
	}
	T_FAILS(ft_parse_duration(NULL, &ns), EINVAL,
	    "duration NULL is rejected with EINVAL");
}

/*
 * A number of minutes or hours within the number check but whose
 * nanoseconds do not fit in 64 bits: the conversion of the product is
 * undefined behaviour (UBSan aborts on it) and gives garbage otherwise.
 */
static int
duration_overflow(void *arg)
{
	const char *s = arg;
	uint64_t ns = 0;

	if (ft_parse_duration(s, &ns) == 0) {
		t_diag("\"%s\" parsed as %" PRIu64 " ns", s, ns);
		return 1;
	}
	return errno == ERANGE ? 0 : 1;
}

static void
test_duration_overflow(void)
{
	T_OK(t_child(duration_overflow, "1000000000h"),
	    "duration \"1000000000h\" (3.6e21 ns) is rejected, no overflow");
	T_OK(t_child(duration_overflow, "400000000m"),
	    "duration \"400000000m\" (2.4e19 ns) is rejected, no overflow");
}

/*
 * Durations are decimal, whoever parses them (ftrun's options, --inject,
 * ftgossip): what strtod would also take is refused, and a value too
 * long or too fine says so in errno.
 */
static void
test_duration_strict(void)
{
	static const char *notdur[] = {
		"0x10", "0X10", "0x1p4", "1e3", "1E3", "1e-3s", "inf",
		"infinity", "INF", "nan", "+1", " 1", "1 ", "\t1", "1.",
		".5", "1..5", "1s\n", "١",
	};
	static const struct {
		const char	*s;
		int		 err;
	} refused[] = {
		{ "18446744073709551616ns", ERANGE },
		{ "18446744073.709551616s", ERANGE },
		{ "600000000h", ERANGE },
		{ "5124096h", ERANGE },
		{ "99999999999999999999999", ERANGE },
		{ "0.5ns", EDOM },
		{ "0.0000000001s", EDOM },
		{ "1.00000000001ms", EDOM },
	};
	char shown[64];
	uint64_t ns;
	size_t i;
	int rc;

	for (i = 0; i < FT_NELEM(notdur); i++) {
		ns = 12345;
		errno = 0;
		rc = ft_parse_duration(notdur[i], &ns);
		T_OK(rc == -1 && errno == EINVAL && ns == 12345,
		    "duration \"%s\" is not a duration (EINVAL)",
		    ft_vis(shown, sizeof(shown), notdur[i]));
	}
	for (i = 0; i < FT_NELEM(refused); i++) {
		ns = 12345;
		errno = 0;
		rc = ft_parse_duration(refused[i].s, &ns);
		T_OK(rc == -1 && errno == refused[i].err && ns == 12345,
		    "duration \"%s\" is refused with %s", refused[i].s,
		    refused[i].err == ERANGE ? "ERANGE" : "EDOM");
		if (rc != -1 || errno != refused[i].err)
			t_diag("got rc %d, errno %d, %" PRIu64 " ns", rc, errno,
			    ns);
	}
}

static void
test_vis(void)
{
	char out[64];

	T_EQ_STR(ft_vis(out, sizeof(out), "plain text, caf\xc3\xa9 \\ ok"),
	    "plain text, caf\xc3\xa9 \\ ok",
	    "ft_vis copies printable ASCII, UTF-8 and backslashes as they are");
	T_EQ_STR(ft_vis(out, sizeof(out), "a\033[2Jb\r\n\x7f\x01"),
	    "a\\x1b[2Jb\\x0d\\x0a\\x7f\\x01",
	    "ft_vis writes control characters and DEL as \\xHH");
	T_EQ_STR(ft_vis(out, 8, "abcdefghij"), "abcdefg",
	    "ft_vis cuts a string that does not fit, NUL-terminated");
	T_EQ_STR(ft_vis(out, 8, "abcd\033x"), "abcd",
	    "ft_vis never cuts an escape in half");
	T_EQ_STR(ft_vis(out, 1, "abc"), "", "ft_vis into one byte is empty");
}

static void
test_hex(void)
{
	static const uint8_t bin[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xff };
	uint8_t out[sizeof(bin)], all[256], all2[256];
	char hex[2 * 256 + 1];
	size_t i;

	ft_hex_encode(bin, sizeof(bin), hex);
	T_EQ_STR(hex, "00017f80abff", "hex_encode, lowercase");
	memset(out, 0, sizeof(out));
	T_OK(ft_hex_decode(hex, out, sizeof(out)) == 0 &&
	    memcmp(out, bin, sizeof(bin)) == 0, "hex_decode reverses it");
	ft_hex_encode(bin, 0, hex);
	T_EQ_STR(hex, "", "hex_encode of nothing is \"\"");
	T_EQ_INT(ft_hex_decode("", out, 0), 0, "hex_decode of \"\" into 0 "
	    "bytes");
	for (i = 0; i < sizeof(all); i++)
		all[i] = (uint8_t)i;
	ft_hex_encode(all, sizeof(all), hex);
	T_OK(ft_hex_decode(hex, all2, sizeof(all2)) == 0 &&
	    memcmp(all, all2, sizeof(all)) == 0,
	    "every byte value round-trips");

	T_FAILS(ft_hex_decode("00017f80abf", out, sizeof(out)), EINVAL,
	    "hex_decode: one digit short");
	T_FAILS(ft_hex_decode("00017f80abff00", out, sizeof(out)), EINVAL,
	    "hex_decode: one byte too many");
	T_FAILS(ft_hex_decode("0g017f80abff", out, sizeof(out)), EINVAL,
	    "hex_decode: not a hex digit");
	T_FAILS(ft_hex_decode("00017f80ab f", out, sizeof(out)), EINVAL,
	    "hex_decode: a space");
	T_FAILS(ft_hex_decode("", out, 1), EINVAL,
	    "hex_decode: empty string for 1 byte");
}

static void
test_grow(void)
{
	uint32_t *a = NULL, *b;
	size_t cap = 0, n, i;
	int ok = 1;

	for (n = 0; n < 100; n++) {
		if ((b = ft_grow(a, &cap, n, sizeof(*a))) == NULL) {
			ok = 0;
			break;
		}
		a = b;
		a[n] = (uint32_t)(n * 7 + 1);
		if (cap < n + 1 || (n < 16 && cap != 16))
			ok = 0;
	}
	for (i = 0; ok && i < n; i++)
		ok = a[i] == (uint32_t)(i * 7 + 1);
	T_OK(ok && cap == 128, "grow: 100 elements, room 16 then doubled to "
	    "128, every element kept");
	b = ft_grow(a, &cap, 50, sizeof(*a));
	T_OK(b == a && cap == 128, "grow: with room left, the same array");
	/* Rooms whose double, or whose size in bytes, overflows. */
	for (i = 0; i < 2; i++) {
		size_t big = i == 0 ? SIZE_MAX / 4 + 1 : SIZE_MAX / 2 + 1;

		n = big;
		errno = 0;
		T_OK(ft_grow(a, &big, big, sizeof(*a)) == NULL &&
		    errno == ENOMEM && big == n, "grow: room %s overflows: "
		    "ENOMEM, the room as it was", i == 0 ? "SIZE_MAX / 4 + 1" :
		    "SIZE_MAX / 2 + 1");
	}
	free(a);
}

static void
test_ratelim(void)
{
	struct ft_ratelim rl;
	uint64_t report, t;
	int allowed = 0, i, ok;

	ft_ratelim_init(&rl, "events", 3, 100);
	ok = 1;
	for (i = 0; i < 10; i++) {
		allowed += ft_ratelim_allow(&rl, 10 + (uint64_t)i, &report);
		ok = ok && report == 0;
	}
	T_OK(allowed == 3 && ok && rl.held == 7, "ratelim: 3 of 10 events "
	    "in one interval have a line, 7 are held, nothing reported");
	T_EQ_UINT(ft_ratelim_due(&rl, 109, 0), 0,
	    "ratelim: nothing due before the interval is over");
	T_OK(ft_ratelim_allow(&rl, 110, &report) == 1 && report == 7 &&
	    rl.held == 0, "ratelim: the first event of the next interval "
	    "has its line, and the 7 held back are to be reported first");
	for (i = 0; i < 5; i++)
		(void)ft_ratelim_allow(&rl, 111, &report);
	T_OK(rl.held == 3 && ft_ratelim_due(&rl, 150, 0) == 0 &&
	    ft_ratelim_due(&rl, 210, 0) == 3 && ft_ratelim_due(&rl, 211, 0) ==
	    0, "ratelim: held lines are due once their interval is over, "
	    "once");
	for (i = 0; i < 4; i++)
		(void)ft_ratelim_allow(&rl, 300, &report);
	T_OK(ft_ratelim_due(&rl, 301, 1) == 1 && rl.held == 0,
	    "ratelim: force reports what is held at once");
	/* A steady flood: at most burst + 1 lines an interval. */
	ft_ratelim_init(&rl, "events", 3, 100);
	allowed = 0;
	ok = 1;
	for (t = 0; t < 1000; t++) {
		allowed += ft_ratelim_allow(&rl, t, &report);
		ok = ok && report <= 100;
		if (report > 0)
			allowed++;
	}
	T_OK(ok && allowed <= 10 * (3 + 1) && allowed >= 10 * 3,
	    "ratelim: 1000 events over 10 intervals give %d lines", allowed);
	ft_ratelim_init(&rl, "zero", 0, 100);
	T_OK(ft_ratelim_allow(&rl, 5, &report) == 0 && report == 0 &&
	    ft_ratelim_allow(&rl, 6, &report) == 0 && rl.held == 2,
	    "ratelim: a burst of 0 lets no line out");

	/* The printing side, with an interval no test outlasts. */
	ft_diag_init("test_base");
	ft_diag_setsink(t_sink);
	t_sunk.n = 0;
	ft_ratelim_init(&rl, "refused connections", 5,
	    3600ull * 1000000000u);
	for (i = 0; i < 20; i++)
		ft_warnx_limited(&rl, "refused a connection: %d", i);
	T_OK(t_sunk.n == 5 && strcmp(t_sunk.line[0], "test_base: warning: "
	    "refused a connection: 0\n") == 0 && strcmp(t_sunk.line[4],
	    "test_base: warning: refused a connection: 4\n") == 0,
	    "ft_warnx_limited: 20 warnings in an interval print 5 lines");
	ft_ratelim_flush(&rl, 0);
	T_EQ_INT(t_sunk.n, 5, "ft_ratelim_flush: nothing before the interval "
	    "is over");
	ft_ratelim_flush(&rl, 1);
	T_OK(t_sunk.n == 6 && strcmp(t_sunk.line[5], "test_base: warning: "
	    "15 more refused connections suppressed\n") == 0,
	    "ft_ratelim_flush: one line reports the 15 held back");
	ft_ratelim_flush(&rl, 1);
	T_EQ_INT(t_sunk.n, 6, "ft_ratelim_flush: reported once");
	ft_diag_setsink(NULL);
}

int
main(void)
{
	test_crc32c();
	test_wbuf_rbuf();
	test_strings();
	test_duration();
	test_duration_overflow();
	test_duration_strict();
	test_vis();
	test_hex();
	test_grow();
	test_ratelim();
	return t_done();
}
