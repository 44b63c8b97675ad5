# SPDX-License-Identifier: ISC
# Sourced by the benchmarks that measure several builds of ft side by side
# (cpu.sh, replicate.sh).  builds_parse turns the -t name=bindir options,
# given as arguments, into:
#   names	the builds, in the order given
#   bindir	name -> its bin directory (ftcc, ftrun), absolute
#   pfx		name -> the prefix of its columns ("name/")
# Without -t, FTBIN (or ./bin) is the one build "ft", whose columns have
# no prefix.  Errors go through the caller's die.

builds_parse() {	# name=bindir ...
	local t name dir
	names=()
	declare -gA bindir=() pfx=()
	if (($# == 0)); then
		dir=${FTBIN:-$PWD/bin}
		[[ -x $dir/ftcc && -x $dir/ftrun ]] ||
			die 100 "'$dir' has no ftcc and ftrun; build ft first or set FTBIN"
		names=(ft)
		bindir[ft]=$(cd "$dir" && pwd)
		pfx[ft]=
	fi
	for t; do
		name=${t%%=*}
		dir=${t#*=}
		[[ $t == *=* && -n $dir ]] || die 100 "build '$t' is not name=bindir"
		[[ $name =~ ^[A-Za-z0-9_.-]+$ ]] ||
			die 100 "build name '$name' is invalid (letters, digits, _ . -)"
		[[ -z ${bindir[$name]:-} ]] || die 100 "build name '$name' given twice"
		[[ -x $dir/ftcc && -x $dir/ftrun ]] ||
			die 100 "'$dir' has no ftcc and ftrun; build ft first"
		bindir[$name]=$(cd "$dir" && pwd)
		pfx[$name]=$name/
		names+=("$name")
	done
}
