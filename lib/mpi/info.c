/* SPDX-License-Identifier: ISC */
/*
 * Info objects: ordered lists of (key, value) strings.  ft takes no
 * hints, so calls that accept an info object only check it; these
 * calls exist so that programs which pass hints work unchanged.  Keys
 * keep the order in which they were first set (MPI_Info_get_nthkey).
 * MPI_INFO_ENV, filled by MPI_Init, describes how the program was
 * started; it cannot be changed or freed.
 */
#include <sys/utsname.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "mpi_impl.h"

#ifdef MPI_ERR_INFO
#define ERR_INFO		MPI_ERR_INFO
#else
#define ERR_INFO		MPI_ERR_ARG
#endif
#ifdef MPI_ERR_INFO_KEY
#define ERR_INFO_KEY		MPI_ERR_INFO_KEY
#else
#define ERR_INFO_KEY		MPI_ERR_ARG
#endif
#ifdef MPI_ERR_INFO_VALUE
#define ERR_INFO_VALUE		MPI_ERR_INFO_VALUE
#else
#define ERR_INFO_VALUE		MPI_ERR_ARG
#endif
#ifdef MPI_ERR_INFO_NOKEY
#define ERR_INFO_NOKEY		MPI_ERR_INFO_NOKEY
#else
#define ERR_INFO_NOKEY		MPI_ERR_ARG
#endif

struct ft_mpi_info {
	int	  n, cap;
	char	**keys, **vals;		/* n each, owned */
	int	  predefined;
};

struct ft_mpi_info ft_mpi_info_env;

/* The live info objects. */
static struct ft_mpi_hset infos;

int
ft__mpi_info_ok(MPI_Info info)
{
	return info != MPI_INFO_NULL && ft__mpi_hset_has(&infos, info);
}

static void
info_destroy(MPI_Info info)
{
	int i;

	for (i = 0; i < info->n; i++) {
		free(info->keys[i]);
		free(info->vals[i]);
	}
	free(info->keys);
	free(info->vals);
	if (info == MPI_INFO_ENV)
		memset(info, 0, sizeof(*info));
	else
		free(info);
}

void
ft__mpi_info_fini(void)
{
	size_t i;

	for (i = 0; i < infos.cap; i++)
		if (infos.slot[i] != NULL)
			info_destroy((MPI_Info)(uintptr_t)infos.slot[i]);
	ft__mpi_hset_release(&infos);
}

static int
err(int class, const char *call, const char *what)
{
	return ft__mpi_err(MPI_COMM_NULL, class, call, "%s", what);
}

/* Check the info handle and, when key is wanted, the key. */
static int
check(const char *call, MPI_Info info, const char *key, int want_key)
{
	size_t len;

	if (!ft__mpi_info_ok(info))
		return err(ERR_INFO, call, "invalid info object");
	if (!want_key)
		return MPI_SUCCESS;
	if (key == NULL)
		return err(MPI_ERR_ARG, call, "NULL key");
	/*
	 * Programs size key buffers MPI_MAX_INFO_KEY, the NUL included,
	 * so keys are shorter than that.
	 */
	len = strlen(key);
	if (len == 0 || len >= MPI_MAX_INFO_KEY)
		return ft__mpi_err(MPI_COMM_NULL, ERR_INFO_KEY, call,
		    "a key of %zu characters (1 to %d allowed)", len,
		    MPI_MAX_INFO_KEY - 1);
	return MPI_SUCCESS;
}

static int
find(MPI_Info info, const char *key)
{
	int i;

	for (i = 0; i < info->n; i++)
		if (strcmp(info->keys[i], key) == 0)
			return i;
	return -1;
}

int
PMPI_Info_create(MPI_Info *info)
{
	struct ft_mpi_info *in;

	FT_MPI_CHECK_INIT("MPI_Info_create");
	if (info == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_create", "NULL argument");
	if ((in = calloc(1, sizeof(*in))) == NULL ||
	    ft__mpi_hset_add(&infos, in) != 0) {
		free(in);
		return err(MPI_ERR_NO_MEM, "MPI_Info_create", "out of memory");
	}
	*info = in;
	return MPI_SUCCESS;
}

int
PMPI_Info_set(MPI_Info info, const char *key, const char *value)
{
	char *k = NULL, *v;
	size_t len;
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Info_set");
	if ((rc = check("MPI_Info_set", info, key, 1)) != MPI_SUCCESS)
		return rc;
	if (info->predefined)
		return err(ERR_INFO, "MPI_Info_set", "MPI_INFO_ENV cannot "
		    "be changed");
	if (value == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_set", "NULL value");
	if ((len = strlen(value)) >= MPI_MAX_INFO_VAL)
		return ft__mpi_err(MPI_COMM_NULL, ERR_INFO_VALUE,
		    "MPI_Info_set", "a value of %zu characters (at most %d "
		    "allowed)", len, MPI_MAX_INFO_VAL - 1);
	if ((v = strdup(value)) == NULL)
		return err(MPI_ERR_NO_MEM, "MPI_Info_set", "out of memory");
	if ((i = find(info, key)) >= 0) {
		free(info->vals[i]);
		info->vals[i] = v;
		return MPI_SUCCESS;
	}
	if (info->n == info->cap) {
		int cap = info->cap == 0 ? 8 : info->cap * 2;
		char **nk, **nv;

		nk = reallocarray(info->keys, (size_t)cap, sizeof(*nk));
		if (nk != NULL)
			info->keys = nk;
		nv = reallocarray(info->vals, (size_t)cap, sizeof(*nv));
		if (nv != NULL)
			info->vals = nv;
		if (nk == NULL || nv == NULL) {
			free(v);
			return err(MPI_ERR_NO_MEM, "MPI_Info_set",
			    "out of memory");
		}
		info->cap = cap;
	}
	if ((k = strdup(key)) == NULL) {
		free(v);
		return err(MPI_ERR_NO_MEM, "MPI_Info_set", "out of memory");
	}
	info->keys[info->n] = k;
	info->vals[info->n++] = v;
	return MPI_SUCCESS;
}

int
PMPI_Info_get(MPI_Info info, const char *key, int valuelen, char *value,
    int *flag)
{
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Info_get");
	if ((rc = check("MPI_Info_get", info, key, 1)) != MPI_SUCCESS)
		return rc;
	if (flag == NULL || value == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_get", "NULL argument");
	if (valuelen < 0)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Info_get",
		    "negative valuelen %d", valuelen);
	if ((i = find(info, key)) < 0) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	/* value holds valuelen characters and the NUL; longer is cut. */
	snprintf(value, (size_t)valuelen + 1, "%s", info->vals[i]);
	*flag = 1;
	return MPI_SUCCESS;
}

int
PMPI_Info_get_valuelen(MPI_Info info, const char *key, int *valuelen,
    int *flag)
{
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Info_get_valuelen");
	if ((rc = check("MPI_Info_get_valuelen", info, key, 1)) !=
	    MPI_SUCCESS)
		return rc;
	if (valuelen == NULL || flag == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_get_valuelen",
		    "NULL argument");
	if ((i = find(info, key)) < 0) {
		*flag = 0;
		return MPI_SUCCESS;
	}
	*valuelen = (int)strlen(info->vals[i]);
	*flag = 1;
	return MPI_SUCCESS;
}

int
PMPI_Info_get_nkeys(MPI_Info info, int *nkeys)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Info_get_nkeys");
	if ((rc = check("MPI_Info_get_nkeys", info, NULL, 0)) != MPI_SUCCESS)
		return rc;
	if (nkeys == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_get_nkeys", "NULL argument");
	*nkeys = info->n;
	return MPI_SUCCESS;
}

int
PMPI_Info_get_nthkey(MPI_Info info, int n, char *key)
{
	int rc;

	FT_MPI_CHECK_INIT("MPI_Info_get_nthkey");
	if ((rc = check("MPI_Info_get_nthkey", info, NULL, 0)) !=
	    MPI_SUCCESS)
		return rc;
	if (key == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_get_nthkey", "NULL key");
	if (n < 0 || n >= info->n)
		return ft__mpi_err(MPI_COMM_NULL, MPI_ERR_ARG,
		    "MPI_Info_get_nthkey", "key %d of an object with %d keys",
		    n, info->n);
	snprintf(key, MPI_MAX_INFO_KEY, "%s", info->keys[n]);
	return MPI_SUCCESS;
}

int
PMPI_Info_delete(MPI_Info info, const char *key)
{
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Info_delete");
	if ((rc = check("MPI_Info_delete", info, key, 1)) != MPI_SUCCESS)
		return rc;
	if (info->predefined)
		return err(ERR_INFO, "MPI_Info_delete", "MPI_INFO_ENV cannot "
		    "be changed");
	if ((i = find(info, key)) < 0)
		return ft__mpi_err(MPI_COMM_NULL, ERR_INFO_NOKEY,
		    "MPI_Info_delete", "no key '%s'", key);
	free(info->keys[i]);
	free(info->vals[i]);
	/* Keep the order of the others for MPI_Info_get_nthkey. */
	memmove(&info->keys[i], &info->keys[i + 1],
	    (size_t)(info->n - i - 1) * sizeof(*info->keys));
	memmove(&info->vals[i], &info->vals[i + 1],
	    (size_t)(info->n - i - 1) * sizeof(*info->vals));
	info->n--;
	return MPI_SUCCESS;
}

int
PMPI_Info_dup(MPI_Info info, MPI_Info *newinfo)
{
	MPI_Info n;
	int i, rc;

	FT_MPI_CHECK_INIT("MPI_Info_dup");
	if ((rc = check("MPI_Info_dup", info, NULL, 0)) != MPI_SUCCESS)
		return rc;
	if (newinfo == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_dup", "NULL argument");
	if ((rc = MPI_Info_create(&n)) != MPI_SUCCESS)
		return rc;
	for (i = 0; i < info->n; i++)
		if ((rc = MPI_Info_set(n, info->keys[i], info->vals[i])) !=
		    MPI_SUCCESS) {
			(void)MPI_Info_free(&n);
			return rc;
		}
	*newinfo = n;
	return MPI_SUCCESS;
}

int
PMPI_Info_free(MPI_Info *info)
{
	FT_MPI_CHECK_INIT("MPI_Info_free");
	if (info == NULL)
		return err(MPI_ERR_ARG, "MPI_Info_free", "NULL argument");
	if (!ft__mpi_info_ok(*info))
		return err(ERR_INFO, "MPI_Info_free", "invalid info object");
	if ((*info)->predefined)
		return err(ERR_INFO, "MPI_Info_free", "MPI_INFO_ENV cannot "
		    "be freed");
	ft__mpi_hset_del(&infos, *info);
	ft__mpi_fint_forget(FT_FINT_INFO, *info);
	info_destroy(*info);
	*info = MPI_INFO_NULL;
	return MPI_SUCCESS;
}

/*
 * The command and its arguments, from argv when MPI_Init got it, else
 * as the process was started (/proc/self/cmdline), into cmd and args
 * (space separated), each cut to MPI_MAX_INFO_VAL - 1 characters.
 */
static void
command_line(int *argc, char ***argv, char *cmd, char *args)
{
	char buf[4096], *p, *end;
	size_t len = 0;
	ssize_t got;
	int fd, i;

	cmd[0] = args[0] = '\0';
	if (argc != NULL && argv != NULL && *argv != NULL && *argc > 0) {
		snprintf(cmd, MPI_MAX_INFO_VAL, "%s", (*argv)[0]);
		for (i = 1; i < *argc && len + 1 < MPI_MAX_INFO_VAL; i++)
			len += (size_t)snprintf(args + len,
			    MPI_MAX_INFO_VAL - len, "%s%s", i > 1 ? " " : "",
			    (*argv)[i]);
		return;
	}
	if ((fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC)) < 0)
		return;
	got = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (got <= 0)
		return;
	buf[got] = '\0';
	end = buf + got;
	snprintf(cmd, MPI_MAX_INFO_VAL, "%.*s", MPI_MAX_INFO_VAL - 1, buf);
	for (p = buf + strlen(buf) + 1; p < end && len + 1 < MPI_MAX_INFO_VAL;
	    p += strlen(p) + 1)
		len += (size_t)snprintf(args + len, MPI_MAX_INFO_VAL - len,
		    "%s%s", len > 0 ? " " : "", p);
}

int
ft__mpi_info_env_init(int *argc, char ***argv, int required)
{
	static const char *const level[] = {
		[MPI_THREAD_SINGLE] = "MPI_THREAD_SINGLE",
		[MPI_THREAD_FUNNELED] = "MPI_THREAD_FUNNELED",
		[MPI_THREAD_SERIALIZED] = "MPI_THREAD_SERIALIZED",
		[MPI_THREAD_MULTIPLE] = "MPI_THREAD_MULTIPLE",
	};
	char cmd[MPI_MAX_INFO_VAL], args[MPI_MAX_INFO_VAL];
	char val[MPI_MAX_INFO_VAL];
	MPI_Info e = MPI_INFO_ENV;
	struct utsname u;
	int rc = MPI_SUCCESS;

	if (ft__mpi_hset_add(&infos, e) != 0)
		return err(MPI_ERR_NO_MEM, "MPI_Init", "out of memory");
	command_line(argc, argv, cmd, args);
	if (cmd[0] != '\0')
		rc = MPI_Info_set(e, "command", cmd);
	if (rc == MPI_SUCCESS && args[0] != '\0')
		rc = MPI_Info_set(e, "argv", args);
	snprintf(val, sizeof(val), "%u", ft__mpi.env.size);
	if (rc == MPI_SUCCESS)
		rc = MPI_Info_set(e, "maxprocs", val);
	if (rc == MPI_SUCCESS && gethostname(val, sizeof(val)) == 0) {
		val[sizeof(val) - 1] = '\0';
		rc = MPI_Info_set(e, "host", val);
	}
	if (rc == MPI_SUCCESS && uname(&u) == 0)
		rc = MPI_Info_set(e, "arch", u.machine);
	if (rc == MPI_SUCCESS && getcwd(val, sizeof(val)) != NULL)
		rc = MPI_Info_set(e, "wdir", val);
	if (rc == MPI_SUCCESS && required >= MPI_THREAD_SINGLE &&
	    required <= MPI_THREAD_MULTIPLE)
		rc = MPI_Info_set(e, "thread_level", level[required]);
	/* MPI-4.0: the handler the predefined communicators start with
	 * (ftrun --initial-errhandler). */
	if (rc == MPI_SUCCESS)
		rc = MPI_Info_set(e, "mpi_initial_errhandler",
		    ft_mpi_comm_world.errh == MPI_ERRORS_RETURN ?
		    "mpi_errors_return" :
		    ft_mpi_comm_world.errh == MPI_ERRORS_ABORT ?
		    "mpi_errors_abort" : "mpi_errors_are_fatal");
	e->predefined = 1;
	return rc;
}

/* The profiling interface: MPI_X is a weak alias of PMPI_X. */
#pragma weak MPI_Info_create = PMPI_Info_create
#pragma weak MPI_Info_set = PMPI_Info_set
#pragma weak MPI_Info_get = PMPI_Info_get
#pragma weak MPI_Info_get_valuelen = PMPI_Info_get_valuelen
#pragma weak MPI_Info_get_nkeys = PMPI_Info_get_nkeys
#pragma weak MPI_Info_get_nthkey = PMPI_Info_get_nthkey
#pragma weak MPI_Info_delete = PMPI_Info_delete
#pragma weak MPI_Info_dup = PMPI_Info_dup
#pragma weak MPI_Info_free = PMPI_Info_free
