/* SPDX-License-Identifier: ISC */
/*
 * The names of FT-MPI's communicator and message modes (ft-ftmpi(3)),
 * shared by ftrun's options, the environment a rank gets, and the
 * info keys of MPI_Comm_set_info.  FT-MPI's own spellings are taken
 * too, so that a user can paste them from its documentation.
 */
#include <stddef.h>
#include <strings.h>

#include "job.h"

struct mode {
	const char	*name;
	int		 val;
};

static const struct mode comm_modes[] = {
	{ "shrink", FT_FTMPI_SHRINK },
	{ "blank", FT_FTMPI_BLANK },
	{ "rebuild", FT_FTMPI_REBUILD },
	{ "abort", FT_FTMPI_ABORT },
};

static const struct mode msg_modes[] = {
	{ "cont", FT_FTMPI_CONT },
	{ "continue", FT_FTMPI_CONT },
	{ "nop", FT_FTMPI_NOP },
};

/* FT-MPI wrote FTMPI_COMM_MODE_SHRINK, FT_MODE_NOP and the like. */
static const char *const prefixes[] = {
	"ftmpi_comm_mode_", "ftmpi_msg_mode_", "ft_mode_", "",
};

static int
lookup(const struct mode *t, size_t n, const char *name)
{
	size_t i, k, len;

	if (name == NULL)
		return -1;
	for (k = 0; k < FT_NELEM(prefixes); k++) {
		len = strlen(prefixes[k]);
		if (strncasecmp(name, prefixes[k], len) != 0)
			continue;
		for (i = 0; i < n; i++)
			if (strcasecmp(name + len, t[i].name) == 0)
				return t[i].val;
	}
	return -1;
}

int
ft_ftmpi_comm_parse(const char *name)
{
	return lookup(comm_modes, FT_NELEM(comm_modes), name);
}

int
ft_ftmpi_msg_parse(const char *name)
{
	return lookup(msg_modes, FT_NELEM(msg_modes), name);
}

static const char *
name_of(const struct mode *t, size_t n, int mode)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (t[i].val == mode)
			return t[i].name;
	return "?";
}

const char *
ft_ftmpi_comm_name(int mode)
{
	return name_of(comm_modes, FT_NELEM(comm_modes), mode);
}

const char *
ft_ftmpi_msg_name(int mode)
{
	return name_of(msg_modes, FT_NELEM(msg_modes), mode);
}
