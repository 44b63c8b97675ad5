# SPDX-License-Identifier: ISC
# ftcc, the compiler wrapper: -show, compile-only, FTCC_CC, and a
# program it builds that ftrun then runs.

load common
bats_require_minimum_version 1.5.0

@test "ftcc -show prints the compile and link command" {
	run -0 --separate-stderr ftcc -show
	[[ $output == "cc -I$FT_ROOT/lib/include "* ]]
	[[ $output == *" -L$FT_ROOT/lib "* ]]
	[[ $output == *" -lft" ]]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$stderr" ]
}

@test "ftcc -show keeps the arguments in order" {
	run -0 --separate-stderr ftcc -show -O2 -o prog prog.c -lm
	[[ $output == "cc -I$FT_ROOT/lib/include -O2 -o prog prog.c -lm "*"-lft" ]]
	[ -z "$stderr" ]
}

@test "ftcc -c adds no link flags" {
	run -0 --separate-stderr ftcc -show -c x.c
	[ "$output" = "cc -I$FT_ROOT/lib/include -c x.c" ]
	[ -z "$stderr" ]
}

@test "ftcc builds an MPI program that ftrun runs" {
	cp "$FT_ROOT/tests/progs/hello.c" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftcc -Wall -Werror -o hello hello.c
	[ -z "$output" ]
	[ -z "$stderr" ]
	[ -x hello ]
	run -0 --separate-stderr ftrun -n 2 ./hello
	[[ $output == *"hello from rank 0 of 2"* ]]
	[[ $output == *"hello from rank 1 of 2"* ]]
	[[ $output == *"No Errors"* ]]
	[ -z "$stderr" ]
}

@test "ftcc -c then ftcc links the object" {
	cp "$FT_ROOT/tests/progs/hello.c" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftcc -c hello.c
	[ -z "$stderr" ]
	[ -f hello.o ]
	run -0 --separate-stderr ftcc -o hello hello.o
	[ -z "$stderr" ]
	run -0 --separate-stderr ftrun -n 2 ./hello
	[[ $output == *"No Errors"* ]]
}

@test "a program built by ftcc runs from anywhere, alone as rank 0 of 1" {
	cp "$FT_ROOT/tests/progs/hello.c" "$BATS_TEST_TMPDIR/"
	cd "$BATS_TEST_TMPDIR"
	run -0 --separate-stderr ftcc -o hello hello.c
	cd /
	# The rpath finds libft without LD_LIBRARY_PATH.
	LD_LIBRARY_PATH='' run -0 --separate-stderr "$BATS_TEST_TMPDIR/hello"
	[ "$output" = "$(printf 'hello from rank 0 of 1\nNo Errors')" ]
	[ -z "$stderr" ]
}

@test "FTCC_CC picks the compiler" {
	FTCC_CC=clang run -0 --separate-stderr ftcc -show -c x.c
	[ "$output" = "clang -I$FT_ROOT/lib/include -c x.c" ]
	FTCC_CC="cc -DFT_TEST=1" run -0 --separate-stderr ftcc -show -c x.c
	[ "$output" = "cc -DFT_TEST=1 -I$FT_ROOT/lib/include -c x.c" ]
}

@test "FTCC_CC=clang builds a program that ftrun runs" {
	command -v clang >/dev/null || skip "clang is not installed"
	cd "$BATS_TEST_TMPDIR"
	FTCC_CC=clang run -0 --separate-stderr ftcc -o hello \
	    "$FT_ROOT/tests/progs/hello.c"
	[ -z "$stderr" ]
	run -0 readelf -p .comment hello
	[[ $output == *clang* ]]
	run -0 --separate-stderr ftrun -n 2 ./hello
	[[ $output == *"No Errors"* ]]
}

@test "FTCC_CC=false makes ftcc fail" {
	cd "$BATS_TEST_TMPDIR"
	FTCC_CC=false run -1 --separate-stderr ftcc -o hello \
	    "$FT_ROOT/tests/progs/hello.c"
	[ ! -e hello ]
}

@test "ftcc with a compiler that does not exist exits 127" {
	FTCC_CC=ft-no-such-cc run -127 --separate-stderr ftcc -c x.c
	[ "$stderr" = "ftcc: fatal: unable to run 'ft-no-such-cc': No such file or directory" ]
}

@test "ftcc passes on the compiler's error for a syntax error" {
	cd "$BATS_TEST_TMPDIR"
	printf '#include <mpi.h>\nint main(void) { return 0 }\n' >bad.c
	run -1 --separate-stderr ftcc -o bad bad.c
	[[ $stderr == *"bad.c:2:"*"error"* ]]
	[ ! -e bad ]
}

@test "ftcc without arguments exits 100 with the usage" {
	run -100 --separate-stderr ftcc
	[ -z "$output" ]
	[[ $stderr == "usage: ftcc "* ]]
}
