# SPDX-License-Identifier: ISC
# Sourced by the benchmarks (from the top of the tree, where they cd):
# stats reads numbers on stdin and prints their minimum and median,
# tab-separated, with two decimals ("-<TAB>-" for none).

stats() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-\t-"; exit }
		printf "%.2f\t%.2f\n", v[1], v[int((NR + 1) / 2)] }'
}
