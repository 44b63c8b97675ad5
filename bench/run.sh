#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Run ft's benchmarks side by side with Open MPI and print ratios: `make
# bench` calls this.  bench/pingpong.c is built with ftcc and with Open MPI's
# mpicc and run over ft, over Open MPI restricted to TCP and over Open MPI's
# default transports (shared memory); bench/unixpp.c gives the bare
# Unix-socket floor.  Each run prints the mean of one block of iterations;
# this script repeats whole runs and reports the best and the median.  Job
# start-up is timed with hyperfine.  Benchmarks measure; nothing here
# asserts a timing.
#
# usage: bench/run.sh [-r repeats] [--ompi-only]
#
# FTBIN is the directory holding ftcc and ftrun (default: $PWD/bin).  With
# --ompi-only the ft columns are left out, for use before ft is built.
# Exit status: 0, 1 if a run failed (its column is then incomplete), 100 for
# a usage or setup error, 111 if a build failed.

set -euo pipefail

prog=run.sh
repeats=5
ompi_only=0
runtimeout=60		# seconds for one benchmark run; a hung run is a failure
hftimeout=300		# seconds for one hyperfine invocation (12 job starts)

usage() {
	echo "usage: bench/run.sh [-r repeats] [--ompi-only]" >&2
	exit "${1:-100}"
}

die() {
	local code=$1
	shift
	echo "$prog: fatal: $*" >&2
	exit "$code"
}

warn() {
	echo "$prog: warning: $*" >&2
}

# Print a command the way a shell (or hyperfine) would take it back.
quote() {
	local w out=""

	for w in "$@"; do
		if [[ $w =~ ^[A-Za-z0-9_./,=:+@%-]+$ ]]; then
			out+="$w "
		else
			out+="$(printf '%q' "$w") "
		fi
	done
	echo "${out% }"
}

show() {
	echo "  \$ $(quote "$@")"
}

while (($# > 0)); do
	case $1 in
	-r)
		(($# >= 2)) || usage
		repeats=$2
		shift 2
		;;
	-r*)
		repeats=${1#-r}
		shift
		;;
	--ompi-only)
		ompi_only=1
		shift
		;;
	-h | --help)
		usage 0
		;;
	*)
		usage
		;;
	esac
done
if ! [[ $repeats =~ ^[1-9][0-9]*$ ]] || ((repeats > 1000)); then
	die 100 "repeats '$repeats' is invalid (1 to 1000)"
fi

for t in mpicc.openmpi mpirun.openmpi hyperfine; do
	command -v "$t" >/dev/null ||
		die 100 "'$t' not found; install openmpi-bin libopenmpi-dev hyperfine"
done
for t in cc python3 timeout; do
	command -v "$t" >/dev/null || die 100 "'$t' not found"
done

benchdir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FTBIN=${FTBIN:-$PWD/bin}
if ((!ompi_only)); then
	for t in ftcc ftrun; do
		[[ -x $FTBIN/$t ]] ||
			die 100 "'$FTBIN/$t' not found; build ft first, set FTBIN, or use --ompi-only"
	done
	FTBIN=$(cd "$FTBIN" && pwd)
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ftbench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

# The columns, in the order they run within one repeat.
ompi=(mpirun.openmpi --allow-run-as-root --oversubscribe)
tools=()
if ((!ompi_only)); then
	tools+=(ft)
	build_ft=("$FTBIN/ftcc" -O2 -o pp_ft "$benchdir/pingpong.c")
	run_ft=("$FTBIN/ftrun" -n 2 ./pp_ft)
fi
tools+=(ompi-tcp ompi-sm unix unix-spin)
build_ompi=(mpicc.openmpi -O2 -o pp_ompi "$benchdir/pingpong.c")
build_unix=(cc -O2 -o unixpp "$benchdir/unixpp.c")
# shellcheck disable=SC2054	# tcp,self is one word
run_ompi_tcp=("${ompi[@]}" -np 2 --mca btl tcp,self ./pp_ompi)
run_ompi_sm=("${ompi[@]}" -np 2 ./pp_ompi)
run_unix=(./unixpp)
run_unix_spin=(./unixpp -p)
startup_ns=(1 8 32)
tmo=(timeout -k 5 "$runtimeout")
hf=(timeout -k 5 "$hftimeout" hyperfine -N --warmup 2 --runs 10 --style none)

# runcmd TOOL: set the array cmd to the command that runs TOOL.
runcmd() {
	case $1 in
	ft) cmd=("${run_ft[@]}") ;;
	ompi-tcp) cmd=("${run_ompi_tcp[@]}") ;;
	ompi-sm) cmd=("${run_ompi_sm[@]}") ;;
	unix) cmd=("${run_unix[@]}") ;;
	unix-spin) cmd=("${run_unix_spin[@]}") ;;
	esac
}

# startcmd TOOL N: set cmd to the start-up command of TOOL for N ranks.
#
# From 32 local processes on (odls_base_cutoff), Open MPI 4.1's mpirun
# forks through a thread pool, and with children that exit at once, as
# true does, it then hangs in about half the runs.  Raising the cutoff keeps
# the plain fork loop it uses below 32, so every N is timed the same way.
startcmd() {
	case $1 in
	ft) cmd=("$FTBIN/ftrun" -n "$2" true) ;;
	ompi) cmd=("${ompi[@]}" --mca odls_base_cutoff 1000000 -np "$2" true) ;;
	esac
}

echo "ft benchmarks: $repeats repeats, $(date -u '+%Y-%m-%d %H:%M:%S') UTC," \
	"$(nproc) CPUs, $(uname -sr)"
echo "$(mpirun.openmpi --version 2>/dev/null | head -n 1), $(hyperfine --version)"
# Other work on the machine shows up as noise, not as a slower ft.
read -r load _ </proc/loadavg || load=0
if awk -v l="$load" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
	echo "note: load average $load on $(nproc) CPUs: figures will be noisy"
fi
echo "commands, run in a temporary directory:"
((ompi_only)) || show "${build_ft[@]}"
show "${build_ompi[@]}"
show "${build_unix[@]}"
for t in "${tools[@]}"; do
	runcmd "$t"
	show "${tmo[@]}" "${cmd[@]}"
done
starttools=(ompi)
((ompi_only)) || starttools=(ft ompi)
for n in "${startup_ns[@]}"; do
	for t in "${starttools[@]}"; do
		startcmd "$t" "$n"
		echo "  \$ $(quote "${hf[@]}") --export-json start-$t-$n.json" \
			"'$(quote "${cmd[@]}")'"
	done
done
echo

build() {
	if ! "$@" >build.log 2>&1; then
		cat build.log >&2
		die 111 "build failed: $*"
	fi
}
((ompi_only)) || build "${build_ft[@]}"
build "${build_ompi[@]}"
build "${build_unix[@]}"

failed=0
declare -A broken=()

# failrun TOOL WHAT STATUS ERRFILE: report a failed run and drop the column.
failrun() {
	local what=$2

	((failed = 1))
	broken[$1]=1
	if (($3 == 124)); then
		what+=" timed out after ${runtimeout}s"
	else
		what+=" failed with status $3"
	fi
	warn "$1: $what; its column is skipped from now on"
	tail -n 20 "$4" | sed 's/^/    /' >&2
}

# Open MPI's shared-memory transport is the one most likely to be refused
# by a container (small /dev/shm, no process_vm_readv), so try it first
# with a message big enough for its single-copy path.
st=0
"${tmo[@]}" "${run_ompi_sm[@]}" -i 20 -w 2 -s 8,1m \
	>probe.out 2>probe.err || st=$?
if ((st != 0)) || ! grep -q '^lat 1048576 ' probe.out; then
	echo "note: Open MPI's default transports (shared memory) do not work" \
		"here (status $st); the ompi-sm column is skipped"
	tail -n 20 probe.err | sed 's/^/    /'
	broken[ompi-sm]=1
fi

: >results
for ((rep = 1; rep <= repeats; rep++)); do
	printf '%s: repeat %d/%d:' "$prog" "$rep" "$repeats" >&2
	for t in "${tools[@]}"; do
		[[ -z ${broken[$t]:-} ]] || continue
		printf ' %s' "$t" >&2
		runcmd "$t"
		st=0
		"${tmo[@]}" "${cmd[@]}" >"$t.out" 2>"$t.err" ||
			st=$?
		if ((st != 0)); then
			echo >&2
			failrun "$t" "repeat $rep" "$st" "$t.err"
			printf '%s: repeat %d/%d, continued:' "$prog" "$rep" \
				"$repeats" >&2
			continue
		fi
		awk -v t="$t" '/^(lat|bw) [0-9]+ [0-9.]+$/ { print t, $0 }' \
			"$t.out" >>results
	done
	echo >&2
done

# Start-up: hyperfine needs every run to succeed, so one failing command
# costs only its own cell.
for n in "${startup_ns[@]}"; do
	for t in "${starttools[@]}"; do
		printf '%s: start-up %s -n %d\n' "$prog" "$t" "$n" >&2
		startcmd "$t" "$n"
		st=0
		"${hf[@]}" --export-json "start-$t-$n.json" \
			"$(quote "${cmd[@]}")" >hf.log 2>&1 || st=$?
		if ((st != 0)); then
			((failed = 1))
			rm -f "start-$t-$n.json"
			if ((st == 124)); then
				warn "start-up of $t with $n ranks timed out" \
					"after ${hftimeout}s"
			else
				warn "start-up of $t with $n ranks failed" \
					"with status $st"
			fi
			tail -n 20 hf.log | sed 's/^/    /' >&2
		fi
	done
done
echo

PYTHONPATH="$benchdir" python3 - "$repeats" "${startup_ns[*]}" "${tools[*]}" <<'EOF'
# Turn the results file ("tool kind bytes value" lines) and hyperfine's
# JSON into tables.  Ratios put ft over the other column: below 1 is better
# for ft in latency and start-up, above 1 is better for ft in bandwidth.
import json
import os
import statistics
import sys

from benchfmt import fmt, size_name

repeats = int(sys.argv[1])
ns = [int(n) for n in sys.argv[2].split()]
tools = sys.argv[3].split()
have_ft = "ft" in tools

data = {}
for line in open("results"):
    tool, kind, size, value = line.split()
    data.setdefault((kind, int(size), tool), []).append(float(value))




def stats(kind, size, tool):
    """Return the best value, the median and the number of runs."""
    vs = data.get((kind, size, tool))
    if not vs:
        return None, None, 0
    best = min(vs) if kind == "lat" else max(vs)
    return best, statistics.median(vs), len(vs)


def ratio(a, b):
    if a is None or b is None or a == 0 or b == 0:
        return None
    return a / b


def header(names, best):
    """Two header lines: a name over each pair of best and median columns.
    A pair is 20 characters wide, the last one a mark for missing runs."""
    print(("%-8s" % "" + "".join("%19s " % n for n in names)).rstrip())
    print(("%-8s" % "size" + ("%10s%9s " % (best, "median")) * len(names))
          .rstrip())


def table(kind, cols):
    sizes = sorted({s for (k, s, _) in data if k == kind})
    # A zero-byte stream moves no data: it has no bandwidth.
    if kind == "bw":
        sizes = [s for s in sizes if s > 0]
    cols = [t for t in cols if any((kind, s, t) in data for s in sizes)]
    if not sizes or not cols:
        print("  no results\n")
        return
    best = "min" if kind == "lat" else "max"
    header(cols, best)
    short = False
    for s in sizes:
        row = "%-8s" % size_name(s)
        for t in cols:
            b, m, n = stats(kind, s, t)
            mark = "*" if 0 < n < repeats else " "
            short = short or mark == "*"
            row += fmt(b, 10) + fmt(m) + mark
        print(row.rstrip())
    if short:
        print("* fewer than %d runs: a run failed" % repeats)
    if not have_ft:
        print()
        return
    others = [t for t in cols if t != "ft"]
    print()
    if "ft" not in cols:
        print("no ft results: no ratios\n")
        return
    header(["ft/" + t for t in others], best)
    for s in sizes:
        row = "%-8s" % size_name(s)
        fb, fm, _ = stats(kind, s, "ft")
        for t in others:
            b, m, _ = stats(kind, s, t)
            row += fmt(ratio(fb, b), 10) + fmt(ratio(fm, m)) + " "
        print(row.rstrip())
    print()


print("Latency: half round trip, usec, best and median of %d run(s)."
      % repeats)
print("ompi-tcp is Open MPI with --mca btl tcp,self, ompi-sm Open MPI with its")
print("default transports (shared memory), unix the bare Unix-socket ping-pong")
print("with blocking reads (its 0 B moves 1 byte), unix-spin the same with")
print("non-blocking sockets and spinning.")
if have_ft:
    print("Ratios are ft over the other column: below 1 means ft is faster.")
print()
table("lat", tools)

print("Bandwidth: streaming, MB/s (10^6 bytes), best and median of %d "
      "run(s)." % repeats)
if have_ft:
    print("Ratios are ft over the other column: above 1 means ft is faster.")
print()
table("bw", [t for t in tools if not t.startswith("unix")])

print("Job start-up: ms to run `true` on N ranks; hyperfine, 10 runs after")
print("2 warm-ups.")
if have_ft:
    print("Ratios are ft over ompi: below 1 means ft is faster.")
print()
starttools = ["ft", "ompi"] if have_ft else ["ompi"]
print("%-8s" % "" + "".join("%30s" % t for t in starttools)
      + ("%20s" % "ft/ompi" if have_ft else ""))
print("%-8s" % "ranks" + "%10s%10s%10s" % ("mean", "min", "median")
      * len(starttools) + ("%10s%10s" % ("mean", "median") if have_ft else ""))
for n in ns:
    row = "%-8d" % n
    got = {}
    for t in starttools:
        f = "start-%s-%d.json" % (t, n)
        if os.path.exists(f):
            r = json.load(open(f))["results"][0]
            got[t] = (r["mean"] * 1e3, r["min"] * 1e3, r["median"] * 1e3)
        row += "".join(fmt(v, 10) for v in got.get(t, (None,) * 3))
    if have_ft:
        f, o = got.get("ft"), got.get("ompi")
        row += "".join(fmt(ratio(f and f[i], o and o[i]), 10)
                       for i in (0, 2))
    print(row)
EOF

exit "$failed"
