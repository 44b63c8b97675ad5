/* SPDX-License-Identifier: ISC */
/*
 * spew: usage: spew LINES LENGTH
 * Print LINES lines of exactly LENGTH bytes (newline excluded) as fast
 * as possible: "r<rank> l<n> ", a filler letter, " end".  stdout goes
 * through a stdio buffer larger than a pipe and of an odd size, so that
 * every write(2) fills the pipe and ends in the middle of a line.  Every
 * tenth line also goes to stderr, unbuffered, in two halves.  Needs no
 * MPI: the rank comes from FT_RANK.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char obuf[199999];

int
main(int argc, char *argv[])
{
	const char *r = getenv("FT_RANK");
	char *line;
	long n, len, i;
	int hlen;

	if (argc != 3 || r == NULL) {
		fprintf(stderr, "usage: spew LINES LENGTH (under ftrun)\n");
		return 100;
	}
	n = strtol(argv[1], NULL, 10);
	len = strtol(argv[2], NULL, 10);
	if (n < 1 || len < 64 || (line = malloc((size_t)len + 2)) == NULL)
		return 100;
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	for (i = 0; i < n; i++) {
		hlen = snprintf(line, (size_t)len + 1, "r%s l%ld ", r, i);
		memset(line + hlen, 'a' + (int)(i % 26), (size_t)(len - hlen));
		memcpy(line + len - 4, " end", 4);
		line[len] = '\n';
		line[len + 1] = '\0';
		fwrite(line, 1, (size_t)len + 1, stdout);
		if (i % 10 == 0) {
			(void)!write(STDERR_FILENO, line, (size_t)len / 2);
			(void)!write(STDERR_FILENO, line + len / 2,
			    (size_t)(len + 1 - len / 2));
		}
	}
	free(line);
	return fflush(stdout) == 0 ? 0 : 1;
}
