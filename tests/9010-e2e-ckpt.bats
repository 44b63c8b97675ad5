# SPDX-License-Identifier: ISC
# Whole-job restart from checkpoints: a Jacobi that protects its grid
# is killed after a checkpoint (the kill tied to its progress), then
# restarted with --restart from its images, to the same answer as the
# fault-free run.

load common
load ckpt

setup() {
	fc_setup
	ft_build ckjacobi
	J=$FT_PROGS/ckjacobi
}

@test "checkpoint: no --ckpt-dir, no checkpoint, the program runs" {
	run -0 --separate-stderr ftrun -n 4 "$J" 64 150
	[ "${lines[0]}" = "start 0" ]
	[[ ${lines[1]} == "checksum "* ]]
	[ -z "$stderr" ]
}

@test "checkpoint: killed at iteration 90, restarted from its last epoch, the same answer" {
	run -0 ftrun -n 4 "$J" 64 150
	want=${lines[1]}
	run -137 --separate-stderr ftrun -n 4 --ckpt-dir "$FC_DIR/c" \
	    --ckpt-interval 0 -x FT_TEST_DIE_AT=90 "$J" 64 150
	[[ $stderr == *"rank 3 "*"killed by signal 9"* ]]
	# Every rank wrote epoch 90 (iteration 89) before any decided on
	# 91; whether all finished 91 before ftrun stopped them varies.
	run -0 ftckpt ls "$FC_DIR/c"
	[ "$(grep -c ' epoch=90 state=ok nranks=4 ' <<<"$output")" -eq 4 ]
	[[ $output != *" epoch=92 "* ]]
	n91=$(grep -c ' epoch=91 state=ok ' <<<"$output" || true)
	rp=$((n91 == 4 ? 91 : 90))
	run -0 --separate-stderr ftrun -n 4 --ckpt-dir "$FC_DIR/c" --restart \
	    "$J" 64 150
	[ "${lines[0]}" = "start $rp" ]
	[ "${lines[1]}" = "$want" ]
}

@test "checkpoint: a corrupt newest image falls back to the previous epoch, and says so" {
	run -0 ftrun -n 4 "$J" 64 150
	want=${lines[1]}
	run -137 ftrun -n 4 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_TEST_DIE_AT=90 "$J" 64 150
	# Rank 2's newest image (91, or 90 if it was stopped writing 91).
	f=$(ls "$FC_DIR"/c/job-*/rank-2/*.ftc | tail -1)
	newest=$(basename "$f" .ftc)
	newest=$((10#$newest))
	printf 'XXXX' | dd of="$f" bs=1 seek=200 conv=notrunc 2>/dev/null
	run -0 --separate-stderr ftrun -n 4 --ckpt-dir "$FC_DIR/c" --restart \
	    "$J" 64 150
	[[ $stderr == *"image '$f': corrupt"*"falling back to an older image"* ]]
	[ "${lines[0]}" = "start $((newest - 1))" ]
	[ "${lines[1]}" = "$want" ]
}

@test "checkpoint: a rank's images newer than the others' are not used" {
	run -0 ftrun -n 2 "$J" 64 150
	want=${lines[1]}
	run -137 ftrun -n 2 --ckpt-dir "$FC_DIR/c" --ckpt-interval 0 \
	    -x FT_TEST_DIE_AT=60 "$J" 64 150
	# Rank 1 lost its epoch 61: rank 0's is part of no checkpoint.
	rm -f "$FC_DIR"/c/job-*/rank-1/00000000000000000061.ftc
	run -0 --separate-stderr ftrun -n 2 --ckpt-dir "$FC_DIR/c" --restart \
	    "$J" 64 150
	[ "${lines[0]}" = "start 60" ]
	[ "${lines[1]}" = "$want" ]
}

@test "checkpoint: pushed to the server in the background, restart of the last epoch" {
	fc_start "$FC_DIR/srv"
	run -0 ftrun -n 4 "$J" 64 400
	want=${lines[1]}
	run -137 --separate-stderr ftrun -n 4 --ckpt-dir "$FC_DIR/c" \
	    --ckpt-interval 1ms --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" \
	    -x FT_TEST_DIE_AT=300 "$J" 64 400
	run -0 --separate-stderr ftrun -n 4 --ckpt-dir "$FC_DIR/c" --restart \
	    --ckpt-server "$FC_ADDR" --key-file "$FC_KEY" "$J" 64 400
	[[ ${lines[0]} == "start "* ]]
	[ "${lines[0]}" != "start 0" ]
	[ "${lines[1]}" = "$want" ]
	# What ranks finished pushing before the end is on the server, whole.
	run -0 ftckpt verify --server "$FC_ADDR" --key-file "$FC_KEY"
	[ "${#lines[@]}" -ge 4 ]
	[[ $output != *"state=bad"* ]]
}

@test "checkpoint: --restart with nothing to restart from starts from the beginning" {
	run -0 --separate-stderr ftrun -n 2 --ckpt-dir "$FC_DIR/empty" --restart "$J" 64 50
	[ "${lines[0]}" = "start 0" ]
	[[ $stderr == *"--restart: no checkpoint in"* ]]
	run -100 --separate-stderr ftrun -n 2 --restart "$J" 64 50
	[[ $stderr == "ftrun: fatal: --ckpt-interval, --ckpt-server and --restart need --ckpt-dir" ]]
}
