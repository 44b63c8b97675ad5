/* SPDX-License-Identifier: ISC */
/*
 * The parser of ftlog dump lines (ftlog(1)): key=value fields separated
 * by spaces, or one flat JSON object, into a determinant.  Every value
 * is bounded before use; what is refused is said with the key and, in
 * quotes made printable, the text.
 */
#include <inttypes.h>
#include <stdio.h>

#include "replay.h"

enum {
	K_JOB, K_RANK, K_SEQ, K_CLOCK, K_KIND, K_SENDER, K_SCLOCK, K_PROBES,
	K_A, K_B, K_C, K_CSEQ, K_N
};

static const char *const keys[K_N] = {
	"job", "rank", "seq", "clock", "kind", "sender", "sclock", "probes",
	"a", "b", "c", "cseq",
};

struct pstate {
	struct ft_rrec	*r;
	unsigned int	 seen;
	char		*why;
	size_t		 whysize;
};

/* The text of a value, cut and made printable, for a message. */
static const char *
shown(const char *s, size_t n, char *buf, size_t size)
{
	char tmp[64];

	if (n >= sizeof(tmp))
		n = sizeof(tmp) - 1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return ft_vis(buf, size, tmp);
}

/* Decimal digits only, at most max: 0, or -1. */
static int
decimal(const char *s, size_t n, uint64_t max, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;

	if (n == 0 || n > 20)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (x > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
			return -1;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > max)
		return -1;
	*v = x;
	return 0;
}

static int
hexadecimal(const char *s, size_t n, uint64_t *v)
{
	uint64_t x = 0;
	size_t i;
	int c;

	if (n == 0 || n > 16)
		return -1;
	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c >= '0' && c <= '9')
			c -= '0';
		else if (c >= 'a' && c <= 'f')
			c -= 'a' - 10;
		else if (c >= 'A' && c <= 'F')
			c -= 'A' - 10;
		else
			return -1;
		x = x << 4 | (uint64_t)c;
	}
	*v = x;
	return 0;
}

/* One field: key k with its value; quoted says it was a JSON string. */
static int
field(struct pstate *p, int k, const char *v, size_t n, int quoted,
    int null)
{
	struct ft_det *d = &p->r->d;
	char sv[80];
	uint64_t x = 0;
	uint32_t i;

	if (p->seen & (1u << k))
		return ft__replay_say(p->why, p->whysize, EPROTO, "'%s' is given twice", keys[k]);
	p->seen |= 1u << k;
	if (null && k != K_SENDER)
		return ft__replay_say(p->why, p->whysize, EPROTO, "'%s' is null", keys[k]);
	if (quoted != (k == K_JOB || k == K_KIND) && !null && quoted >= 0)
		return ft__replay_say(p->why, p->whysize, EPROTO, "'%s' is %s", keys[k], quoted ? "a string" :
		    "not a string");
	switch (k) {
	case K_JOB:
		if (hexadecimal(v, n, &p->r->job) != 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "job '%s' is not a job id (up to 16 hex "
			    "digits)", shown(v, n, sv, sizeof(sv)));
		return 0;
	case K_KIND:
		for (i = 0; i <= FT_DET_KIND_MAX; i++)
			if (strlen(ft_det_kind_name(i)) == n &&
			    memcmp(ft_det_kind_name(i), v, n) == 0) {
				d->kind = i;
				return 0;
			}
		return ft__replay_say(p->why, p->whysize, EPROTO, "kind '%s' is not one of deliver, anysrc, "
		    "probe, flag, index, count, clock",
		    shown(v, n, sv, sizeof(sv)));
	case K_SENDER:
		if (null || (quoted < 0 && n == 4 &&
		    memcmp(v, "none", 4) == 0)) {
			d->sender = FT_DET_NOSENDER;
			return 0;
		}
		if (decimal(v, n, FT_WIRE_MAX_RANKS - 1, &x) != 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "sender '%s' is not a rank (0 to %u) nor "
			    "%s", shown(v, n, sv, sizeof(sv)),
			    FT_WIRE_MAX_RANKS - 1, quoted < 0 ? "none" : "null");
		d->sender = (uint32_t)x;
		return 0;
	case K_RANK:
		if (decimal(v, n, FT_WIRE_MAX_RANKS - 1, &x) != 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "rank '%s' is not a rank (0 to %u)",
			    shown(v, n, sv, sizeof(sv)), FT_WIRE_MAX_RANKS - 1);
		p->r->rank = (uint32_t)x;
		return 0;
	case K_PROBES:
		if (decimal(v, n, UINT32_MAX, &x) != 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "probes '%s' is not a count (0 to %u)",
			    shown(v, n, sv, sizeof(sv)), UINT32_MAX);
		d->probes = (uint32_t)x;
		return 0;
	default:
		if (decimal(v, n, UINT64_MAX, &x) != 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "%s '%s' is not a decimal number (0 to "
			    "%" PRIu64 ")", keys[k], shown(v, n, sv, sizeof(sv)),
			    UINT64_MAX);
		break;
	}
	switch (k) {
	case K_SEQ:
		if (x == 0)
			return ft__replay_say(p->why, p->whysize, EPROTO, "seq is 0 (seqs start at 1)");
		d->seq = x;
		break;
	case K_CLOCK:
		d->clock = x;
		break;
	case K_SCLOCK:
		d->sclock = x;
		break;
	case K_CSEQ:
		/* The message's number on its channel (vlog): names it in
		 * a replay; no rule needs it. */
		d->cseq = x;
		d->flags |= FT_DET_F_CSEQ;
		break;
	default:
		d->v[k - K_A] = x;
		break;
	}
	return 0;
}

static int
keyof(struct pstate *p, const char *s, size_t n)
{
	char sv[80];
	int k;

	for (k = 0; k < K_N; k++)
		if (strlen(keys[k]) == n && memcmp(keys[k], s, n) == 0)
			return k;
	return ft__replay_say(p->why, p->whysize, EPROTO, "unknown key '%s'", shown(s, n, sv, sizeof(sv)));
}

/* key=value key=value ... (quoted -1: no JSON types). */
static int
parse_kv(struct pstate *p, const char *s, size_t len)
{
	const char *end = s + len, *t, *eq;
	char sv[80];
	int k;

	while (s < end) {
		if (*s == ' ' || *s == '\t') {
			s++;
			continue;
		}
		for (t = s; t < end && *t != ' ' && *t != '\t'; t++)
			;
		if ((eq = memchr(s, '=', (size_t)(t - s))) == NULL)
			return ft__replay_say(p->why, p->whysize, EPROTO, "'%s' is not key=value",
			    shown(s, (size_t)(t - s), sv, sizeof(sv)));
		if ((k = keyof(p, s, (size_t)(eq - s))) < 0)
			return -1;
		if (field(p, k, eq + 1, (size_t)(t - eq - 1), -1, 0) != 0)
			return -1;
		s = t;
	}
	return 0;
}

static const char *
skipws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	return s;
}

/* A JSON string without escapes (every key and value ftlog writes). */
static const char *
jstring(struct pstate *p, const char *s, const char *end, const char **v,
    size_t *n)
{
	const char *t;

	if (s >= end || *s != '"') {
		ft__replay_say(p->why, p->whysize, EPROTO, "a quoted key is expected");
		return NULL;
	}
	for (t = s + 1; t < end && *t != '"'; t++)
		if (*t == '\\' || (unsigned char)*t < 0x20) {
			ft__replay_say(p->why, p->whysize, EPROTO, "a string holds an escape or a control "
			    "character");
			return NULL;
		}
	if (t >= end) {
		ft__replay_say(p->why, p->whysize, EPROTO, "a string is not closed");
		return NULL;
	}
	*v = s + 1;
	*n = (size_t)(t - s - 1);
	return t + 1;
}

static int
parse_json(struct pstate *p, const char *s, size_t len)
{
	const char *end = s + len, *kv, *vv;
	size_t kn, vn;
	int k, quoted, null;

	s = skipws(s + 1, end);
	if (s < end && *s == '}')
		return ft__replay_say(p->why, p->whysize, EPROTO, "the object is empty");
	for (;;) {
		s = skipws(s, end);
		if ((s = jstring(p, s, end, &kv, &kn)) == NULL)
			return -1;
		if ((k = keyof(p, kv, kn)) < 0)
			return -1;
		s = skipws(s, end);
		if (s >= end || *s != ':')
			return ft__replay_say(p->why, p->whysize, EPROTO, "':' is missing after '%s'", keys[k]);
		s = skipws(s + 1, end);
		quoted = null = 0;
		if (s < end && *s == '"') {
			if ((s = jstring(p, s, end, &vv, &vn)) == NULL)
				return -1;
			quoted = 1;
		} else if (end - s >= 4 && memcmp(s, "null", 4) == 0) {
			vv = s;
			vn = 4;
			s += 4;
			null = 1;
		} else {
			for (vv = s; s < end && *s != ',' && *s != '}' &&
			    *s != ' ' && *s != '\t'; s++)
				;
			vn = (size_t)(s - vv);
		}
		if (field(p, k, vv, vn, quoted, null) != 0)
			return -1;
		s = skipws(s, end);
		if (s < end && *s == ',') {
			s++;
			continue;
		}
		if (s < end && *s == '}')
			break;
		return ft__replay_say(p->why, p->whysize, EPROTO, "',' or '}' is expected after '%s'", keys[k]);
	}
	if (skipws(s + 1, end) != end)
		return ft__replay_say(p->why, p->whysize, EPROTO, "text follows the object");
	return 0;
}

int
ft_replay_parse(const char *s, size_t len, struct ft_rrec *r, char *why,
    size_t whysize)
{
	static const unsigned int need = 1u << K_RANK | 1u << K_SEQ |
	    1u << K_CLOCK | 1u << K_KIND | 1u << K_SENDER | 1u << K_SCLOCK |
	    1u << K_PROBES;
	static const unsigned int vals = 1u << K_A | 1u << K_B | 1u << K_C;
	struct pstate p;
	const char *t;
	int k, rc;

	memset(r, 0, sizeof(*r));
	p.r = r;
	p.seen = 0;
	p.why = why;
	p.whysize = whysize;
	if (memchr(s, '\0', len) != NULL)
		return ft__replay_say(p.why, p.whysize, EPROTO, "a NUL byte");
	t = skipws(s, s + len);
	if (t < s + len && *t == '{')
		rc = parse_json(&p, t, len - (size_t)(t - s));
	else
		rc = parse_kv(&p, s, len);
	if (rc != 0)
		return -1;
	for (k = 0; k < K_N; k++)
		if ((need & (1u << k)) && !(p.seen & (1u << k)))
			return ft__replay_say(p.why, p.whysize, EPROTO, "'%s' is missing", keys[k]);
	if (r->d.kind != FT_DET_DELIVERY && (p.seen & vals) != vals)
		return ft__replay_say(p.why, p.whysize, EPROTO, "a %s event needs a, b and c",
		    ft_det_kind_name(r->d.kind));
	if (r->d.kind == FT_DET_DELIVERY && (p.seen & vals) != 0)
		return ft__replay_say(p.why, p.whysize, EPROTO, "a delivery has no a, b or c");
	if (r->d.kind == FT_DET_DELIVERY && r->d.sender == FT_DET_NOSENDER)
		return ft__replay_say(p.why, p.whysize, EPROTO, "a delivery needs a sender");
	return 0;
}
