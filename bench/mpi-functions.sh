#!/usr/bin/env bash
# SPDX-License-Identifier: ISC
#
# Count the MPI-3.1 C bindings that ft's <mpi.h> declares, by chapter of
# the standard, at two commits (default: d94c234, before issue 14, and
# the working tree), and list those still missing.
#
# The standard's list is bench/mpi-3.1-functions.txt, one "<chapter>
# <name>" a line.  It was made from Open MPI 4.1's mpi.h (an MPI-3.1
# library) with --regen: every MPI_X that header declares, and the two
# macros MPI_Aint_add and MPI_Aint_diff, less the ten MPI-1 functions
# that MPI-3.0 removed (MPI_Address, MPI_Type_extent, ...; ft declares
# them deprecated, but they are not MPI-3.1 bindings), each put in its
# chapter by the rules of classify() below.
#
# What counts: chapters 3 to 12, 15 (deprecated) and 17 (language
# bindings); one-sided communication (chapter 11: MPI_Win_*, MPI_Put,
# MPI_Get, ...) holds the window attribute, error handler and handle
# conversion calls that chapters 6, 8 and 17 define.  Not counted: I/O
# (chapter 13: MPI_File_*, MPI_Register_datarep), and the tool
# information interface (chapter 14.3, MPI_T_*), which is for tools
# rather than programs: its count is printed on a line of its own.
# MPI_Pcontrol (14.2, profiling) counts.
#
# usage: bench/mpi-functions.sh [BEFORE [AFTER]]
#        bench/mpi-functions.sh --regen [OMPI_MPI_H]
# BEFORE and AFTER are git revisions; AFTER "." (default) is the working
# tree.  Exit status: 0, 100 for a usage error.

set -euo pipefail
cd "$(dirname "$0")/.."
ref=bench/mpi-3.1-functions.txt

classify() {	# name -> chapter number (13 and T: not counted)
	case $1 in
	MPI_Win_* | MPI_Put | MPI_Get | MPI_Accumulate | MPI_Get_accumulate | \
	    MPI_Fetch_and_op | MPI_Compare_and_swap | MPI_Rput | MPI_Rget | \
	    MPI_Raccumulate | MPI_Rget_accumulate) echo 11 ;;
	MPI_File_* | MPI_Register_datarep) echo 13 ;;
	MPI_T_*) echo T ;;
	MPI_Pcontrol) echo 14 ;;
	MPI_Attr_* | MPI_Keyval_*) echo 15 ;;
	*_c2f | *_f2c | MPI_Type_create_f90_*) echo 17 ;;
	MPI_Comm_spawn* | MPI_Comm_get_parent | MPI_Open_port | \
	    MPI_Close_port | MPI_Comm_accept | MPI_Comm_connect | \
	    MPI_*publish_name | MPI_Lookup_name | MPI_Comm_disconnect | \
	    MPI_Comm_join) echo 10 ;;
	MPI_Info_*) echo 9 ;;
	MPI_Init_thread | MPI_Query_thread | MPI_Is_thread_main | \
	    MPI_Grequest_* | MPI_Status_set_*) echo 12 ;;
	MPI_Init | MPI_Finalize | MPI_Initialized | MPI_Finalized | \
	    MPI_Abort | MPI_Wtime | MPI_Wtick | MPI_Get_processor_name | \
	    MPI_Get_version | MPI_Get_library_version | MPI_Alloc_mem | \
	    MPI_Free_mem | MPI_*errhandler* | MPI_Errhandler_* | \
	    MPI_Error_* | MPI_Add_error_*) echo 8 ;;
	MPI_Cart* | MPI_Graph* | MPI_Dims_create | MPI_Dist_graph_* | \
	    MPI_Topo_test | MPI_Neighbor_* | MPI_Ineighbor_*) echo 7 ;;
	MPI_Comm_* | MPI_Group_* | MPI_Intercomm_* | MPI_Type_*_keyval | \
	    MPI_Type_*_attr | MPI_Type_set_name | MPI_Type_get_name) echo 6 ;;
	MPI_Barrier | MPI_Bcast | MPI_*gather* | MPI_*scatter* | \
	    MPI_*Scatter* | MPI_*alltoall* | MPI_*reduce* | MPI_*Reduce* | \
	    MPI_Op_* | MPI_Scan | MPI_Exscan | MPI_Ibarrier | MPI_Ibcast | \
	    MPI_Iscan | MPI_Iexscan | MPI_Allgather* | MPI_Allreduce | \
	    MPI_Alltoall*) echo 5 ;;
	MPI_Type_* | MPI_Get_address | MPI_Get_elements* | MPI_Pack* | \
	    MPI_Unpack* | MPI_Aint_*) echo 4 ;;
	*) echo 3 ;;
	esac
}

title() {
	case $1 in
	3) echo "point-to-point" ;;
	4) echo "datatypes" ;;
	5) echo "collective communication" ;;
	6) echo "groups, contexts, communicators, caching" ;;
	7) echo "process topologies" ;;
	8) echo "MPI environmental management" ;;
	9) echo "the info object" ;;
	10) echo "process creation and management" ;;
	11) echo "one-sided communication" ;;
	12) echo "external interfaces" ;;
	14) echo "tool support: profiling" ;;
	15) echo "deprecated functions" ;;
	17) echo "language bindings (handles, Fortran types)" ;;
	esac
}

if [ "${1:-}" = --regen ]; then
	h=${2:-/usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h}
	[ -r "$h" ] || { echo "mpi-functions: no header '$h'" >&2; exit 100; }
	{
		tr '\n' ' ' <"$h" |
		    grep -oE 'OMPI_DECLSPEC +[A-Za-z_ *]+ +MPI_[A-Za-z0-9_]+ *\(' |
		    grep -oE 'MPI_[A-Za-z0-9_]+ *\($' | tr -d ' ('
		grep -oE '^#define MPI_Aint_(add|diff)' "$h" | cut -d' ' -f2
	} | sort -u | grep -vxE 'MPI_(Address|Errhandler_(create|get|set)|Type_(extent|hindexed|hvector|lb|struct|ub))' |
	    while read -r f; do echo "$(classify "$f") $f"; done >"$ref"
	wc -l <"$ref"
	exit 0
fi

before=${1:-d94c234}
after=${2:-.}
header() {	# rev -> ft's mpi.h on stdout
	if [ "$1" = . ]; then
		cat lib/include/mpi.h
	else
		git show "$1:lib/include/mpi.h"
	fi
}
declared() {	# rev -> the MPI_X functions its mpi.h declares, sorted
	header "$1" | tr '\n' ' ' | grep -oE 'FT_MPI_API[^;]*' |
	    grep -oE '\bMPI_[A-Z][a-z][A-Za-z0-9_]*[ 	]*\(' | tr -d ' 	(' |
	    sort -u
}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
declared "$before" >"$tmp/before"
declared "$after" >"$tmp/after"
printf "MPI-3.1 C bindings in ft's <mpi.h>: %s (before) and %s (after)\n" \
    "$before" "$( [ "$after" = . ] && echo "working tree" || echo "$after")"
printf "%-5s %-44s %6s %7s %6s\n" chap title before after total
tb=0 ta=0 tt=0
for ch in 3 4 5 6 7 8 9 10 11 12 14 15 17; do
	awk -v c="$ch" '$1 == c { print $2 }' "$ref" | sort >"$tmp/ref.$ch"
	n=$(wc -l <"$tmp/ref.$ch")
	b=$(comm -12 "$tmp/ref.$ch" "$tmp/before" | wc -l)
	a=$(comm -12 "$tmp/ref.$ch" "$tmp/after" | wc -l)
	printf "%-5s %-44s %6d %7d %6d\n" "$ch" "$(title "$ch")" "$b" "$a" "$n"
	tb=$((tb + b)) ta=$((ta + a)) tt=$((tt + n))
done
printf "%-5s %-44s %6d %7d %6d\n" "" "all counted" "$tb" "$ta" "$tt"
awk '$1 == "T" { print $2 }' "$ref" | sort >"$tmp/ref.T"
printf "%-5s %-44s %6d %7d %6d\n" "14.3" "MPI_T tool interface (not counted)" \
    "$(comm -12 "$tmp/ref.T" "$tmp/before" | wc -l)" \
    "$(comm -12 "$tmp/ref.T" "$tmp/after" | wc -l)" "$(wc -l <"$tmp/ref.T")"
echo
echo "Still missing (after), by chapter:"
for ch in 3 4 5 6 7 8 9 10 11 12 14 15 17; do
	miss=$(comm -23 "$tmp/ref.$ch" "$tmp/after" | tr '\n' ' ')
	[ -n "$miss" ] && printf "  %s %s: %s\n" "$ch" "$(title "$ch")" "$miss"
done
echo "Added since $before:"
comm -13 "$tmp/before" "$tmp/after" | sort >"$tmp/added"
awk '{ print $2 }' "$ref" | sort >"$tmp/ref.all"
printf "  %s\n" "$(comm -12 "$tmp/added" "$tmp/ref.all" | tr '\n' ' ')"
