/* SPDX-License-Identifier: ISC */
/*
 * ftrun: run an MPI job, the mpirun of ft.  Options and wiring only;
 * the launcher lives in lib/job.
 */
#include <bsd/stdlib.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../../lib/detect/detect.h"
#include "../../lib/job/job.h"
#include "../../lib/proto/proto.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: ftrun [-n N] [--tag-output] [--timeout SECONDS] "
	    "[-x VAR[=VALUE]]\n"
	    "             [--events FILE] [--ft PROTOCOL] [--tcp] [--grace D]\n"
	    "             [--detector random|rr|brr|dbrr] [--gossip-period D] "
	    "[--] PROGRAM [ARGS ...]\n");
	exit(FT_EXIT_USAGE);
}

enum {
	OPT_TAG = 256,
	OPT_TIMEOUT,
	OPT_EVENTS,
	OPT_FT,
	OPT_TCP,
	OPT_GRACE,
	OPT_DETECTOR,
	OPT_GOSSIP_PERIOD,
	OPT_HELP,
};

static const struct option longopts[] = {
	{ "np", required_argument, NULL, 'n' },
	{ "tag-output", no_argument, NULL, OPT_TAG },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "events", required_argument, NULL, OPT_EVENTS },
	{ "ft", required_argument, NULL, OPT_FT },
	{ "tcp", no_argument, NULL, OPT_TCP },
	{ "grace", required_argument, NULL, OPT_GRACE },
	{ "detector", required_argument, NULL, OPT_DETECTOR },
	{ "gossip-period", required_argument, NULL, OPT_GOSSIP_PERIOD },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* -x VAR takes VAR's value from our own environment, as mpirun does. */
static char *
export_var(const char *arg)
{
	const char *val;
	char *s;

	if (*arg == '=' || *arg == '\0')
		ft_diex(FT_EXIT_USAGE, "-x '%s' names no variable", arg);
	if (strchr(arg, '=') != NULL)
		return strdup(arg);
	if ((val = getenv(arg)) == NULL)
		ft_diex(FT_EXIT_USAGE, "-x '%s': no such variable in the "
		    "environment", arg);
	if (asprintf(&s, "%s=%s", arg, val) < 0)
		ft_die(FT_EXIT_TEMP, "asprintf");
	return s;
}

int
main(int argc, char *argv[])
{
	struct ft_launch cf;
	enum ft_gossip_proto detector;
	const char *errstr, *events = NULL;
	uint64_t ns;
	char **nenv;
	int ch, status;

	ft_diag_init(argv[0]);
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) == -1)
			(void)open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
	memset(&cf, 0, sizeof(cf));
	cf.nranks = 1;
	cf.grace_ns = 3000000000u;
	cf.proto = "none";
	cf.detector = "dbrr";
	cf.gossip_period_ns = 50000000u;
	/* Stop at the program name: its options are its own. */
	while ((ch = getopt_long(argc, argv, "+n:x:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			cf.nranks = (uint32_t)strtonum(optarg, 1, 4096,
			    &errstr);
			if (errstr != NULL)
				ft_diex(FT_EXIT_USAGE, "-n '%s' is %s", optarg,
				    errstr);
			break;
		case 'x':
			nenv = reallocarray(cf.setenv, cf.nsetenv + 1,
			    sizeof(*nenv));
			if (nenv == NULL)
				ft_die(FT_EXIT_TEMP, "reallocarray");
			cf.setenv = nenv;
			if ((cf.setenv[cf.nsetenv++] = export_var(optarg)) ==
			    NULL)
				ft_die(FT_EXIT_TEMP, "strdup");
			break;
		case OPT_TAG:
			cf.tag_output = 1;
			break;
		case OPT_TIMEOUT:
			if (ft_parse_duration(optarg, &ns) != 0 || ns == 0)
				ft_diex(FT_EXIT_USAGE, "--timeout '%s' is not "
				    "a positive duration", optarg);
			cf.timeout_ns = ns;
			break;
		case OPT_GRACE:
			if (ft_parse_duration(optarg, &ns) != 0)
				ft_diex(FT_EXIT_USAGE, "--grace '%s' is not a "
				    "duration", optarg);
			cf.grace_ns = ns;
			break;
		case OPT_EVENTS:
			events = optarg;
			break;
		case OPT_FT:
			if (ft_proto_find(optarg) == NULL)
				ft_diex(FT_EXIT_USAGE, "unknown protocol '%s' "
				    "(valid: %s)", optarg, ft_proto_names());
			cf.proto = optarg;
			break;
		case OPT_TCP:
			cf.force_tcp = 1;
			break;
		case OPT_DETECTOR:
			if (ft_gossip_proto_parse(optarg, &detector) != 0)
				ft_diex(FT_EXIT_USAGE, "unknown detector '%s' "
				    "(valid: random, rr, brr, dbrr)", optarg);
			cf.detector = ft_gossip_proto_name(detector);
			break;
		case OPT_GOSSIP_PERIOD:
			if (ft_parse_duration(optarg, &ns) != 0 || ns == 0)
				ft_diex(FT_EXIT_USAGE, "--gossip-period '%s' is "
				    "not a positive duration", optarg);
			cf.gossip_period_ns = ns;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc == 0)
		usage();
	cf.argv = argv;
	cf.tmpdir = getenv("TMPDIR");
	cf.path = getenv("PATH");
	if (events != NULL) {
		if (strcmp(events, "-") == 0)
			cf.events = stdout;
		else if ((cf.events = fopen(events, "w")) == NULL)
			ft_die(FT_EXIT_USAGE, "unable to open '%s'", events);
	}
	status = ft_launch_run(&cf);
	if (cf.events != NULL && cf.events != stdout &&
	    fclose(cf.events) != 0)
		ft_warn("unable to write '%s'", events);
	return ft_exit(status);
}
