/* SPDX-License-Identifier: ISC */
/*
 * What the launcher says: --events lines (JSON, one an object),
 * and how it names processes and their ends in messages.
 */
#include "launch_impl.h"

/* "rank R", or "rank R replica K" in a replicated job, for messages. */
const char *
ft__l_who(const struct launcher *l, uint32_t i, char *buf, size_t size)
{
	if (l->ranks[i].spec != NULL)
		snprintf(buf, size, "rank %s", l->ranks[i].spec->label);
	else if (l->nrep > 1)
		snprintf(buf, size, "rank %u replica %u", i / l->nrep,
		    i % l->nrep);
	else
		snprintf(buf, size, "rank %u", i);
	return buf;
}

/* An event's "replica":K, field in a replicated job, else "". */
const char *
ft__l_replica_field(const struct launcher *l, const struct lrank *r, char *buf,
    size_t size)
{
	buf[0] = '\0';
	if (l->nrep > 1)
		snprintf(buf, size, "\"replica\":%u,", r->replica);
	return buf;
}

/*
 * Flush the events written so far.  The first write error is reported,
 * once; the job goes on, and ftrun's exit status tells of the loss (the
 * error stays set on the stream).  errno is kept for the caller.
 */
void
ft__l_events_flush(struct launcher *l)
{
	const char *name = l->cf->events_name;
	int saved = errno;

	errno = 0;
	if ((fflush(l->cf->events) != 0 || ferror(l->cf->events)) &&
	    !l->events_failed) {
		l->events_failed = 1;
		if (errno == 0)
			errno = EIO;
		if (l->cf->events == stdout)
			ft_error("unable to write the events to standard "
			    "output");
		else
			ft_error("events file '%s'", name != NULL ? name :
			    "?");
	}
	errno = saved;
}

/* One JSON object per line: {"t":<monotonic s>,"event":...}. */
void
ft__l_event(struct launcher *l, const char *fmt, ...)
{
	va_list ap;

	if (l->cf->events == NULL)
		return;
	fprintf(l->cf->events, "{\"t\":%.6f,", ft_now());
	va_start(ap, fmt);
	vfprintf(l->cf->events, fmt, ap);
	va_end(ap);
	fputs("}\n", l->cf->events);
	ft__l_events_flush(l);
}

/* Write a JSON string body: the reason texts we emit are ours, but a
 * rank's MPI_Abort message is not. */
void
ft__l_json_quote(const char *s, char *out, size_t outsize)
{
	size_t o = 0;

	for (; *s != '\0' && o + 7 < outsize; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\') {
			out[o++] = '\\';
			out[o++] = (char)ch;
		} else if (ch < 0x20) {
			o += (size_t)snprintf(out + o, outsize - o, "\\u%04x",
			    ch);
		} else
			out[o++] = (char)ch;
	}
	out[o] = '\0';
}

void
ft__l_describe_status(int st, char *out, size_t outsize)
{
	if (WIFSIGNALED(st))
		snprintf(out, outsize, "was killed by signal %d (%s)",
		    WTERMSIG(st), strsignal(WTERMSIG(st)));
	else
		snprintf(out, outsize, "exited with status %d",
		    WEXITSTATUS(st));
}

void
ft__launch_event(struct launcher *l, const char *fmt, ...)
{
	char line[2 * FT_WIRE_TEXT_MAX + 512];
	va_list ap;

	if (l->cf->events == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	ft__l_event(l, "%s", line);
}

void
ft__launch_json(const char *s, char *out, size_t outsize)
{
	ft__l_json_quote(s, out, outsize);
}
