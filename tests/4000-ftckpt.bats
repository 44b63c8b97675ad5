# SPDX-License-Identifier: ISC
# ftckpt on a directory and through ftckpt serve: ls, put, get,
# verify, rm, prune (keep, age, dry run, the newest and the restart
# point kept, leases), refusals of corrupt and truncated images, wrong
# keys and garbage clients, an upload cut off midway, prune racing a
# writer.

load common
load ckpt

setup() {
	fc_setup
}

@test "ftckpt ls and verify: every image of a directory, by job and rank" {
	for e in 1 2 3; do
		fc_make "$FC_DIR/s" 7 0 2 $e
		fc_make "$FC_DIR/s" 7 1 2 $e
	done
	fc_make "$FC_DIR/s" 8 0 1 1
	run -0 --separate-stderr ftckpt ls "$FC_DIR/s"
	[ "${#lines[@]}" -eq 7 ]
	[[ ${lines[0]} == "job=0000000000000007 rank=0 epoch=1 state=ok nranks=2 raw=4096 "* ]]
	[[ ${lines[6]} == "job=0000000000000008 rank=0 epoch=1 state=ok nranks=1 "* ]]
	run -0 --separate-stderr ftckpt ls --job 7 --rank 1 "$FC_DIR/s"
	[ "${#lines[@]}" -eq 3 ]
	run -0 --separate-stderr ftckpt verify "$FC_DIR/s"
	[ "${#lines[@]}" -eq 7 ]
	[ -z "$stderr" ]
}

@test "ftckpt verify: a truncated, a corrupt and a foreign image exit 1 and are named" {
	f=$(fttest ckpt make "$FC_DIR/s" --job 1 --rank 0 --nranks 1 --epoch 1 --size 100000)
	cp "$f" "$FC_DIR/t.ftc"
	truncate -s -1 "$FC_DIR/t.ftc"
	run -1 --separate-stderr ftckpt verify "$FC_DIR/t.ftc"
	[[ $stderr == "ftckpt: error: image '$FC_DIR/t.ftc': truncated"* ]]
	cp "$f" "$FC_DIR/c.ftc"
	printf 'X' | dd of="$FC_DIR/c.ftc" bs=1 seek=500 conv=notrunc 2>/dev/null
	run -1 --separate-stderr ftckpt verify "$FC_DIR/c.ftc"
	[[ $stderr == "ftckpt: error: image '$FC_DIR/c.ftc': corrupt"* ]]
	echo "not an image at all, just some text long enough" >"$FC_DIR/x.ftc"
	run -1 --separate-stderr ftckpt verify "$FC_DIR/x.ftc"
	[[ $stderr == "ftckpt: error: image '$FC_DIR/x.ftc': not a checkpoint image" ]]
	run -0 --separate-stderr ftckpt verify "$f"
	[ "$output" = "$f: ok" ]
	# In a store, the corrupt one is listed as bad.
	cp "$FC_DIR/c.ftc" "$f"
	run -1 --separate-stderr ftckpt verify "$FC_DIR/s"
	[[ $output == *"state=bad"* ]]
	[[ $stderr == *"00000000000000000001.ftc': corrupt"* ]]
}

@test "ftckpt put, get, rm: on a directory" {
	f=$(fttest ckpt make "$FC_DIR/a" --job 3 --rank 2 --nranks 4 --epoch 5)
	run -0 --separate-stderr ftckpt put --dir "$FC_DIR/b" "$f"
	[ "$output" = "job=0000000000000003 rank=2 epoch=5 stored" ]
	cmp "$f" "$FC_DIR/b/job-0000000000000003/rank-2/00000000000000000005.ftc"
	run -0 --separate-stderr ftckpt get --job 3 --rank 2 -o "$FC_DIR/got.ftc" "$FC_DIR/b"
	cmp "$f" "$FC_DIR/got.ftc"
	run -1 --separate-stderr ftckpt get --job 3 --rank 9 -o "$FC_DIR/no.ftc" "$FC_DIR/b"
	[[ $stderr == "ftckpt: fatal: no complete image of job 0000000000000003 rank 9 in '$FC_DIR/b'" ]]
	[ ! -e "$FC_DIR/no.ftc" ]
	run -0 ftckpt rm --job 3 --rank 2 --epoch 5 "$FC_DIR/b"
	[ "$(fc_count "$FC_DIR/b")" -eq 0 ]
	run -1 --separate-stderr ftckpt rm --job 3 --rank 2 --epoch 5 "$FC_DIR/b"
	[[ $stderr == *"No such file or directory" ]]
}

@test "ftckpt prune: keeps the newest of each rank and the restart point" {
	# Rank 0 has epochs 1-4, rank 1 only 1-2: the restart point is 2.
	for e in 1 2 3 4; do fc_make "$FC_DIR/s" 7 0 2 $e; done
	for e in 1 2; do fc_make "$FC_DIR/s" 7 1 2 $e; done
	run -0 --separate-stderr ftckpt prune --keep 1 --dry-run "$FC_DIR/s"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} == "job=0000000000000007 rank=0 epoch=1 state=would-remove"* ]]
	[[ ${lines[1]} == "job=0000000000000007 rank=0 epoch=3 state=would-remove"* ]]
	[[ ${lines[2]} == "job=0000000000000007 rank=1 epoch=1 state=would-remove"* ]]
	[ "$(fc_count "$FC_DIR/s")" -eq 6 ]
	run -0 --separate-stderr ftckpt prune --keep 1 "$FC_DIR/s"
	[ "${#lines[@]}" -eq 3 ]
	run -0 ftckpt ls "$FC_DIR/s"
	[ "${#lines[@]}" -eq 3 ]
	[[ ${lines[0]} == *"rank=0 epoch=2 "* ]]
	[[ ${lines[1]} == *"rank=0 epoch=4 "* ]]
	[[ ${lines[2]} == *"rank=1 epoch=2 "* ]]
	# --older-than: these are seconds old, so a day keeps them all.
	run -0 ftckpt prune --older-than 24h "$FC_DIR/s"
	[ -z "$output" ]
	run -100 --separate-stderr ftckpt prune "$FC_DIR/s"
	[[ $stderr == "ftckpt: fatal: prune needs --keep or --older-than" ]]
}

@test "ftckpt prune: a rank whose lease a running job holds keeps what it pins" {
	for e in 1 2 3 4; do fc_make "$FC_DIR/s" 9 0 1 $e; done
	# A job holds the lease and pins epoch 2 (flock, as ranks do).
	printf 'pin=2\n' >"$FC_DIR/s/job-0000000000000009/rank-0/lease"
	ft_bg flock -s -o "$FC_DIR/s/job-0000000000000009/rank-0/lease" \
	    sh -c 'echo held >"$0"; exec sleep 60' "$FC_DIR/held"
	ft_poll 10 test -s "$FC_DIR/held"
	run -0 --separate-stderr ftckpt prune --keep 1 "$FC_DIR/s"
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == *"epoch=1 state=removed"* ]]
	kill "$bgpid"
	wait "$bgpid" || true
	run -0 --separate-stderr ftckpt prune --keep 1 "$FC_DIR/s"
	[ "${#lines[@]}" -eq 2 ]
	run -0 ftckpt ls "$FC_DIR/s"
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == *"epoch=4 "* ]]
}

@test "ftckpt serve: put, ls, get, verify, rm, prune through the server" {
	fc_start "$FC_DIR/srv"
	[[ $FC_ADDR =~ ^tcp:127\.0\.0\.1:[0-9]+$ ]]
	for e in 1 2 3; do fc_make "$FC_DIR/l" 5 0 1 $e 200000; done
	run -0 --separate-stderr ftckpt put --server "$FC_ADDR" --key-file "$FC_KEY" "$FC_DIR"/l/job-*/rank-0/*.ftc
	[ "${#lines[@]}" -eq 3 ]
	run -0 --separate-stderr ftckpt ls --server "$FC_ADDR" --key-file "$FC_KEY"
	[ "${#lines[@]}" -eq 3 ]
	run -0 --separate-stderr ftckpt get --server "$FC_ADDR" --key-file "$FC_KEY" --job 5 --rank 0 -o "$FC_DIR/g.ftc"
	[ "$output" = "job=0000000000000005 rank=0 epoch=3 -> $FC_DIR/g.ftc" ]
	cmp "$FC_DIR/g.ftc" "$FC_DIR/l/job-0000000000000005/rank-0/00000000000000000003.ftc"
	run -0 --separate-stderr ftckpt verify --server "$FC_ADDR" --key-file "$FC_KEY"
	[ "${#lines[@]}" -eq 3 ]
	run -0 ftckpt rm --server "$FC_ADDR" --key-file "$FC_KEY" --job 5 --rank 0 --epoch 2
	run -0 --separate-stderr ftckpt prune --server "$FC_ADDR" --key-file "$FC_KEY" --keep 1
	[ "${#lines[@]}" -eq 1 ]
	[[ ${lines[0]} == *"epoch=1 state=removed"* ]]
	run -0 ftckpt ls "$FC_DIR/srv"
	[ "${#lines[@]}" -eq 1 ]
	run -1 --separate-stderr ftckpt get --server "$FC_ADDR" --key-file "$FC_KEY" --job 5 --rank 0 --epoch 1 -o "$FC_DIR/h.ftc"
	[[ $stderr == "ftckpt: fatal: checkpoint server $FC_ADDR: image 'job-0000000000000005/rank-0/00000000000000000001.ftc': No such file or directory" ]]
	[ ! -e "$FC_DIR/h.ftc" ]
	# A corrupt image on the server: verify names it.
	printf 'X' | dd of="$FC_DIR/srv/job-0000000000000005/rank-0/00000000000000000003.ftc" bs=1 seek=300 conv=notrunc 2>/dev/null
	run -1 --separate-stderr ftckpt verify --server "$FC_ADDR" --key-file "$FC_KEY"
	[[ $stderr == *"00000000000000000003.ftc': corrupt"* ]]
	run -1 --separate-stderr ftckpt get --server "$FC_ADDR" --key-file "$FC_KEY" --job 5 --rank 0 -o "$FC_DIR/k.ftc"
	[[ $stderr == *"the image it sent is refused"*"corrupt"* ]]
	[ ! -e "$FC_DIR/k.ftc" ]
	[ -z "$(ls "$FC_DIR" | grep '\.tmp$')" ]
}

@test "ftckpt serve: a wrong key and a garbage client are refused, the server goes on" {
	fc_start "$FC_DIR/srv"
	ftboot keygen --key-file "$FC_DIR/other.key" >/dev/null
	run -100 --separate-stderr ftckpt ls --server "$FC_ADDR" --key-file "$FC_DIR/other.key"
	[[ $stderr == "ftckpt: fatal: checkpoint server $FC_ADDR: authentication failed"* ]]
	# Bytes that are not a handshake.
	exec 5<>"/dev/tcp/127.0.0.1/${FC_ADDR##*:}"
	printf 'GET / HTTP/1.0\r\n\r\n' >&5
	exec 5>&-
	fc_make "$FC_DIR/l" 1 0 1 1
	run -0 --separate-stderr ftckpt put --server "$FC_ADDR" --key-file "$FC_KEY" "$FC_DIR"/l/job-*/rank-0/*.ftc
	run -0 ftckpt ls --server "$FC_ADDR" --key-file "$FC_KEY"
	[ "${#lines[@]}" -eq 1 ]
	[[ $(cat "$FC_DIR/srv.err") == *"a different cluster key?"* ]]
}

@test "ftckpt serve: an upload cut off midway leaves nothing behind" {
	fc_start "$FC_DIR/srv"
	f=$(fttest ckpt make "$FC_DIR/l" --job 4 --rank 0 --nranks 1 --epoch 1 --size 300000)
	run -0 fttest ckpt cut "$FC_ADDR" --key-file "$FC_KEY" --file "$f" --cut 1000
	# The server has seen the connection end once ls answers after it.
	run -0 ftckpt ls --server "$FC_ADDR" --key-file "$FC_KEY"
	[ -z "$output" ]
	run -0 find "$FC_DIR/srv" -type f -name '*.ftc*'
	[ -z "$output" ]
	# A complete upload of the same image then works.
	run -0 ftckpt put --server "$FC_ADDR" --key-file "$FC_KEY" "$f"
	run -0 ftckpt verify --server "$FC_ADDR" --key-file "$FC_KEY"
	[ "${#lines[@]}" -eq 1 ]
}

@test "ftckpt prune: racing a writer in a loop never leaves a rank without a restart point" {
	for i in $(seq 1 40); do
		fc_make "$FC_DIR/s" 6 0 2 "$i"
		fc_make "$FC_DIR/s" 6 1 2 "$i"
		ftckpt prune --keep 1 "$FC_DIR/s" >/dev/null &
		p=$!
		fc_make "$FC_DIR/s" 6 0 2 "$((i + 100))"
		wait "$p"
		rm -f "$FC_DIR/s/job-0000000000000006/rank-0/$(printf '%020d' $((i + 100))).ftc"
		# Epoch i, complete on both ranks, is still there.
		[ -f "$FC_DIR/s/job-0000000000000006/rank-0/$(printf '%020d' "$i").ftc" ]
		[ -f "$FC_DIR/s/job-0000000000000006/rank-1/$(printf '%020d' "$i").ftc" ]
	done
	run -0 ftckpt verify "$FC_DIR/s"
	[ -z "$(find "$FC_DIR/s" -name '*.tmp')" ]
}

@test "ftckpt serve: one server a directory" {
	fc_start "$FC_DIR/srv"
	run -1 --separate-stderr ftckpt serve --dir "$FC_DIR/srv" --key-file "$FC_KEY"
	[ "$stderr" = "ftckpt[server]: fatal: checkpoint directory '$FC_DIR/srv' is in use by another server (it holds '$FC_DIR/srv/ftckpt.lock')" ]
	[ -z "$output" ]
}
