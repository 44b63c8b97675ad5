# SPDX-License-Identifier: ISC
# Helpers of the ftckpt tests (load common, then load ckpt): a cluster
# key, checkpoint servers on loopback ports, stopped in teardown.
#
#   fc_setup			a cluster key in $FC_KEY, $FC_DIR the test's
#   fc_start DIR		start "ftckpt serve --dir DIR" with the key;
#				its address in $FC_ADDR, pid in $FC_PID,
#				stderr in DIR.err
#   fc_make DIR JOB RANK NRANKS EPOCH [SIZE]	an image, as a rank writes it

fc_setup() {
	ft_setup
	FC_DIR=$BATS_TEST_TMPDIR
	FC_KEY=$FC_DIR/cluster.key
	ftboot keygen --key-file "$FC_KEY" >/dev/null
}

fc_start() {
	local dir=$1
	rm -f "$dir.addr"
	ft_bg ftckpt serve --dir "$dir" --key-file "$FC_KEY" \
	    >"$dir.addr" 2>"$dir.err"
	FC_PID=$bgpid
	ft_await 30 "$dir.addr" "$FC_PID" "$dir.err" || return 1
	FC_ADDR=$(cat "$dir.addr")
}

fc_make() {
	mkdir -p "$1"
	fttest ckpt make "$1" --job "$2" --rank "$3" --nranks "$4" \
	    --epoch "$5" --size "${6:-4096}" --seed "$3$5" >/dev/null
}

# The number of images ftckpt ls shows.
fc_count() {
	ftckpt ls "$@" | wc -l
}
