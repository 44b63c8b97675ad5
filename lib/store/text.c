/* SPDX-License-Identifier: ISC */
/*
 * The text form of a determinant, as ftlog dump prints it and ftreplay
 * reads it (ftlog(1)): one line, fields in a fixed order, key=value or
 * JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "store.h"

static const char *const kinds[] = {
	"deliver", "anysrc", "probe", "flag", "index", "count", "clock",
};

_Static_assert(FT_NELEM(kinds) == FT_DET_KIND_MAX + 1, "a name a kind");

const char *
ft_det_kind_name(uint32_t kind)
{
	return kind <= FT_DET_KIND_MAX ? kinds[kind] : "unknown";
}

int
ft_log_job_parse(const char *s, uint64_t *job)
{
	char *end;

	errno = 0;
	*job = strtoull(s, &end, 16);
	if (errno != 0 || end == s || *end != '\0' || strlen(s) > 16 ||
	    s[0] == '-' || s[0] == '+' || s[0] == ' ' || s[0] == '\t') {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

int
ft_det_format(char *buf, size_t size, uint64_t job, uint32_t rank,
    const struct ft_det *d, int json)
{
	char sender[16];
	size_t off = 0;

	if (json) {
		if (d->sender == FT_DET_NOSENDER)
			snprintf(sender, sizeof(sender), "null");
		else
			snprintf(sender, sizeof(sender), "%u", d->sender);
		ft_appendf(buf, size, &off, "{\"job\":\"%016" PRIx64 "\","
		    "\"rank\":%u,\"seq\":%" PRIu64 ",\"clock\":%" PRIu64 ","
		    "\"kind\":\"%s\",\"sender\":%s,\"sclock\":%" PRIu64 ","
		    "\"probes\":%u", job, rank, d->seq, d->clock,
		    ft_det_kind_name(d->kind), sender, d->sclock, d->probes);
		if (d->kind != FT_DET_DELIVERY)
			ft_appendf(buf, size, &off, ",\"a\":%" PRIu64 ","
			    "\"b\":%" PRIu64 ",\"c\":%" PRIu64, d->v[0],
			    d->v[1], d->v[2]);
		if (d->flags & FT_DET_F_CSEQ)
			ft_appendf(buf, size, &off, ",\"cseq\":%" PRIu64,
			    d->cseq);
		ft_appendf(buf, size, &off, "}\n");
	} else {
		if (d->sender == FT_DET_NOSENDER)
			snprintf(sender, sizeof(sender), "none");
		else
			snprintf(sender, sizeof(sender), "%u", d->sender);
		ft_appendf(buf, size, &off, "job=%016" PRIx64 " rank=%u "
		    "seq=%" PRIu64 " clock=%" PRIu64 " kind=%s sender=%s "
		    "sclock=%" PRIu64 " probes=%u", job, rank, d->seq,
		    d->clock, ft_det_kind_name(d->kind), sender, d->sclock,
		    d->probes);
		if (d->kind != FT_DET_DELIVERY)
			ft_appendf(buf, size, &off, " a=%" PRIu64 " b=%" PRIu64
			    " c=%" PRIu64, d->v[0], d->v[1], d->v[2]);
		if (d->flags & FT_DET_F_CSEQ)
			ft_appendf(buf, size, &off, " cseq=%" PRIu64, d->cseq);
		ft_appendf(buf, size, &off, "\n");
	}
	if (off + 1 >= size)
		return -1;
	return (int)off;
}
