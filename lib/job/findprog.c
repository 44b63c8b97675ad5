/* SPDX-License-Identifier: ISC */
/*
 * ft_find_program (job.h): a program found as execvp(3) would, for the
 * launcher, the agents and the detector's helpers.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "job.h"

int
ft_find_program(const char *prog, const char *path, char *out,
    size_t outsize)
{
	const char *p, *colon;
	int found_noexec = 0;
	struct stat sb;
	size_t dlen;

	if (strchr(prog, '/') != NULL) {
		/* stat's errno says why: ENOENT, ELOOP, ENOTDIR... */
		if (stat(prog, &sb) != 0)
			return -1;
		if (S_ISDIR(sb.st_mode)) {
			errno = EISDIR;
			return -1;
		}
		if (access(prog, X_OK) != 0) {
			errno = EACCES;
			return -1;
		}
		snprintf(out, outsize, "%s", prog);
		return 0;
	}
	if (path == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = colon + 1) {
		colon = strchr(p, ':');
		dlen = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if ((int)snprintf(out, outsize, "%.*s%s%s", (int)dlen, p,
		    dlen > 0 ? "/" : "", prog) < (int)outsize &&
		    stat(out, &sb) == 0 && !S_ISDIR(sb.st_mode)) {
			if (access(out, X_OK) == 0)
				return 0;
			found_noexec = 1;
		}
		if (colon == NULL)
			break;
	}
	errno = found_noexec ? EACCES : ENOENT;
	return -1;
}
