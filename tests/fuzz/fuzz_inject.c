/* SPDX-License-Identifier: ISC */
/*
 * Fuzz ft_inject_parse with arbitrary bytes, made a C string.  A
 * refusal must be EINVAL with a reason that is safe to print; an
 * accepted spec must format to a canonical spec that parses back to the
 * same struct and formats to the same string again.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "job/inject.h"

int	 LLVMFuzzerTestOneInput(const uint8_t *, size_t);

static int
same(const struct ft_inject *a, const struct ft_inject *b)
{
	return a->trigger == b->trigger && a->target == b->target &&
	    a->rank == b->rank && a->replica == b->replica &&
	    a->at_ns == b->at_ns && a->every_ns == b->every_ns &&
	    a->after_sends == b->after_sends && a->seed == b->seed &&
	    a->count == b->count && a->signo == b->signo;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ft_inject x, y;
	char *spec, out[FT_INJECT_SPEC_MAX + 1], out2[sizeof(out)], why[96];
	size_t i;
	int n;

	/* An exact-size heap copy lets ASan catch a read past the NUL. */
	if ((spec = malloc(size + 1)) == NULL)
		abort();
	memcpy(spec, data, size);
	spec[size] = '\0';
	why[0] = '\0';
	if (ft_inject_parse(spec, &x, why, sizeof(why)) != 0) {
		if (errno != EINVAL || why[0] == '\0')
			abort();
		for (i = 0; why[i] != '\0'; i++)
			if (why[i] < 0x20 || why[i] >= 0x7f)
				abort();
		free(spec);
		return 0;
	}
	free(spec);
	n = ft_inject_format(&x, out, sizeof(out));
	if (n < 0 || (size_t)n >= sizeof(out) || strlen(out) != (size_t)n)
		abort();
	if (ft_inject_parse(out, &y, why, sizeof(why)) != 0 || !same(&x, &y))
		abort();
	if (ft_inject_format(&y, out2, sizeof(out2)) != n ||
	    strcmp(out, out2) != 0)
		abort();
	return 0;
}
