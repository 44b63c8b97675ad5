#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
# Remove what earlier runs of tests/netns.bash left behind: the
# namespaces named ftns-PID-RAND-* (and the processes in them) whose
# shell PID no longer runs, as after a bats or bench that was killed.
# Runs whose shell still runs are someone's live tests and are kept,
# unless -a.  Deleting a namespace deletes its links.  The run's scratch
# directory, ${TMPDIR:-/tmp}/RUN.d outside bats, goes too.
#
# usage: tests/netns-clean.sh [-a] [-n]
#   -a	every ftns-* run, live or not
#   -n	only list what would be removed
# Exit status: 0, 1 if something could not be removed, 100 for a usage
# error, 111 if not root.

set -u
all=0 dry=0
while getopts an opt; do
	case $opt in
	a) all=1 ;;
	n) dry=1 ;;
	*)
		echo "usage: tests/netns-clean.sh [-a] [-n]" >&2
		exit 100
		;;
	esac
done
shift $((OPTIND - 1))
(($# == 0)) || { echo "usage: tests/netns-clean.sh [-a] [-n]" >&2; exit 100; }
[ "$(id -u)" = 0 ] || { echo "netns-clean: needs root" >&2; exit 111; }

# shellcheck source=tests/netns.bash
source "$(dirname "$0")/netns.bash"

rc=0
# The runs: ftns-PID-RAND, from names ftns-PID-RAND-h1, ...-br; the
# probes of netns_check (ftns-PID-probeN) are runs of their own.
runs=$(ip netns list | awk '{ print $1 }' |
	sed -n -E "s/^($NETNS_PREFIX-[0-9]+-[0-9a-z]+)(-.*)?\$/\\1/p" | sort -u)
for run in $runs; do
	pid=${run#"$NETNS_PREFIX"-}
	pid=${pid%%-*}
	if ((!all)) && kill -0 "$pid" 2>/dev/null; then
		echo "netns-clean: keeping $run: its shell $pid still runs"
		continue
	fi
	if ((dry)); then
		echo "netns-clean: would remove $run"
		continue
	fi
	# Outside bats, netns_up's scratch directory is here.
	rm -rf "${TMPDIR:-/tmp}/$run.d"
	if netns__purge "$run"; then
		echo "netns-clean: removed $run"
	else
		rc=1
	fi
done
exit $rc
