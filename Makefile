# SPDX-License-Identifier: ISC
# ft: plain GNU make.  `make demo` and `make check` do all the set-up on a
# fresh Debian machine (packages are installed when run as root).

PREFIX	?= /usr/local
DESTDIR	?=
CC	?= cc
ifeq ($(origin CC),default)
CC	 = gcc
endif
CLANG	?= clang
OPT	?= -O2
WARN	 = -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
CFLAGS	?= $(OPT) -g
FT_CFLAGS = -std=c11 -D_GNU_SOURCE -fPIC -fvisibility=hidden $(WARN)
LDLIBS	 = -lsodium -lbsd -lcurl -lzstd -lm
VERSION	 = 0.1.0

# Packages, by what needs them.
PKGS_BUILD = gcc make pkg-config libbsd-dev libzstd-dev libcurl4-openssl-dev \
	     libsodium-dev
PKGS_CHECK = bats parallel mandoc python3 iproute2 clang libclang-rt-14-dev libfuzzer-14-dev valgrind \
	     jq libxml2-utils librsvg2-bin
PKGS_BENCH = openmpi-bin libopenmpi-dev hyperfine

LIB_SRCS = $(sort $(wildcard lib/*/*.c))
LIB_OBJS = $(LIB_SRCS:%.c=build/obj/%.o)
LIB_HDRS = $(wildcard lib/*/*.h)
CMDS	 = ftrun ftcc ftgossip fttest ftboot ftlog ftckpt ftreplay
BINS	 = $(CMDS:%=bin/%)
UNIT_SRCS = $(wildcard tests/unit/test_*.c)
UNIT_BINS = $(UNIT_SRCS:tests/unit/%.c=build/unit/%)
ASAN_BINS = $(UNIT_SRCS:tests/unit/%.c=build/asan/%)
FUZZ_SRCS = $(wildcard tests/fuzz/fuzz_*.c)
FUZZ_BINS = $(FUZZ_SRCS:tests/fuzz/%.c=build/fuzz/%)
MANS	 = $(wildcard man/man*/*.[0-9])
# fttest is a test aid: built in bin/, never installed, nor its page.
MANS_INST = $(filter-out man/man1/fttest.1,$(MANS))

.PHONY: FORCE all deps deps-check deps-bench demo check unit asan fuzz fuzz-smoke \
	bench bench-compare bench-multihost install uninstall clean lint

all: deps lib/libft.a lib/libft.so $(BINS) ft.pc

# Install what is missing when root; otherwise say what to install.
deps:
	@sh mk/deps.sh $(PKGS_BUILD)
deps-check:
	@sh mk/deps.sh $(PKGS_BUILD) $(PKGS_CHECK)
deps-bench:
	@sh mk/deps.sh $(PKGS_BUILD) $(PKGS_BENCH)

# make -j must not compile before the packages that give the headers are in.
$(LIB_OBJS): | deps

build/obj/%.o: %.c $(LIB_HDRS) lib/include/mpi.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(FT_CFLAGS) -c -o $@ $<

lib/libft.a: $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $(LIB_OBJS)

lib/libft.so: lib/libft.so.0
	ln -sf libft.so.0 $@

lib/libft.so.0: $(LIB_OBJS) lib/libft.map
	$(CC) -shared -Wl,-soname,libft.so.0 -Wl,--version-script=lib/libft.map \
	    -o $@ $(LIB_OBJS) $(LDLIBS)

# A program is cmd/NAME/main.c and the other .c files beside it, if any.
.SECONDEXPANSION:
bin/%: cmd/%/main.c $$(wildcard cmd/$$*/*.[ch]) lib/libft.a $(LIB_HDRS)
	@mkdir -p bin
	$(CC) $(CFLAGS) $(FT_CFLAGS) -o $@ $(filter %.c,$^) lib/libft.a \
	    $(LDLIBS)

# Rebuilt every time: PREFIX may differ between make and make install.
ft.pc: mk/ft.pc.in FORCE
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' \
	    mk/ft.pc.in > $@

build/unit/%: tests/unit/%.c tests/unit/tap.h tests/unit/sim.h lib/libft.a
	@mkdir -p build/unit
	$(CC) $(CFLAGS) $(FT_CFLAGS) -Ilib -o $@ $< lib/libft.a $(LDLIBS)

# The same unit tests, and the fuzz targets, linked with the library built
# once under ASan and UBSan (and, for fuzzing, coverage instrumentation).
ASAN_FLAGS = -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all \
	     -fno-omit-frame-pointer
FUZZ_FLAGS = -O1 -g -fsanitize=address,undefined
ASAN_OBJS = $(LIB_SRCS:%.c=build/asan/obj/%.o)
FUZZ_OBJS = $(LIB_SRCS:%.c=build/fuzz/obj/%.o)
$(ASAN_OBJS) $(FUZZ_OBJS): | deps-check

build/asan/obj/%.o: %.c $(LIB_HDRS) lib/include/mpi.h
	@mkdir -p $(dir $@)
	$(CLANG) $(ASAN_FLAGS) $(FT_CFLAGS) -c -o $@ $<

build/fuzz/obj/%.o: %.c $(LIB_HDRS) lib/include/mpi.h
	@mkdir -p $(dir $@)
	$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link $(FT_CFLAGS) -c -o $@ $<

build/asan/libft.a: $(ASAN_OBJS)
	rm -f $@
	ar rcs $@ $(ASAN_OBJS)

build/fuzz/libft.a: $(FUZZ_OBJS)
	rm -f $@
	ar rcs $@ $(FUZZ_OBJS)

build/asan/%: tests/unit/%.c tests/unit/tap.h tests/unit/sim.h build/asan/libft.a
	$(CLANG) $(ASAN_FLAGS) $(FT_CFLAGS) -Ilib -o $@ $< build/asan/libft.a \
	    $(LDLIBS)

build/fuzz/%: tests/fuzz/%.c build/fuzz/libft.a
	$(CLANG) $(FUZZ_FLAGS) -fsanitize=fuzzer $(FT_CFLAGS) -Ilib -o $@ $< \
	    build/fuzz/libft.a $(LDLIBS)

unit: all $(UNIT_BINS)
asan: deps-check $(ASAN_BINS)
fuzz: deps-check $(FUZZ_BINS)
	@for f in $(FUZZ_BINS); do echo "== $$f"; \
	    $$f -max_total_time=$${FUZZ_SECONDS:-60} -print_final_stats=0 \
	    build/fuzz/corpus-$$(basename $$f) || exit 1; done

check: deps-check all $(UNIT_BINS) $(ASAN_BINS) $(FUZZ_BINS)
	@bash tests/run-all.sh

demo: all
	@bash examples/demo.sh

bench: deps-bench all
	@FTBIN=$(CURDIR)/bin bash bench/run.sh
	@FTBIN=$(CURDIR)/bin bash bench/coll.sh
	@FTBIN=$(CURDIR)/bin bash bench/typepack.sh
	@FTBIN=$(CURDIR)/bin bash bench/gossip-sim.sh
	@FTBIN=$(CURDIR)/bin bash bench/gossip-run.sh
	@FTBIN=$(CURDIR)/bin bash bench/replicate.sh
	@FTBIN=$(CURDIR)/bin bash bench/cpu.sh
	@FTBIN=$(CURDIR)/bin bash bench/ftlog.sh
	@FTBIN=$(CURDIR)/bin bash bench/ckpt.sh
	@FTBIN=$(CURDIR)/bin bash bench/replay.sh

# Across hosts made of network namespaces (needs root for most parts).
bench-multihost: deps-bench all
	@FTBIN=$(CURDIR)/bin bash bench/multihost.sh

# Before and after of a change: BEFORE is another checkout with ft built
# (make -C dir all), AFTER this tree unless given, COMPARE_FLAGS options of
# bench/compare.sh.  make bench does not need a second tree.
bench-compare: deps-bench all
	@if [ -z "$(BEFORE)" ]; then \
	    echo "usage: make bench-compare BEFORE=dir [AFTER=dir]" \
	        "[COMPARE_FLAGS='-r 5']" >&2; \
	    exit 100; fi
	@bash bench/compare.sh $(COMPARE_FLAGS) "$(BEFORE)" \
	    "$(or $(AFTER),$(CURDIR))"

lint:
	mandoc -Tlint -W warning $(MANS)

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib \
	    $(DESTDIR)$(PREFIX)/include/ft $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	    $(DESTDIR)$(PREFIX)/share/man/man1 \
	    $(DESTDIR)$(PREFIX)/share/man/man3 \
	    $(DESTDIR)$(PREFIX)/share/man/man5 \
	    $(DESTDIR)$(PREFIX)/share/man/man7
	install -m 755 bin/ftrun bin/ftcc bin/ftgossip bin/ftboot bin/ftlog \
	    bin/ftckpt $(DESTDIR)$(PREFIX)/bin/
	install -m 644 lib/libft.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 lib/libft.so $(DESTDIR)$(PREFIX)/lib/libft.so.0
	ln -sf libft.so.0 $(DESTDIR)$(PREFIX)/lib/libft.so
	install -m 644 lib/include/mpi.h lib/include/mpi-ext.h lib/include/ft.h \
	    $(DESTDIR)$(PREFIX)/include/ft/
	install -m 644 ft.pc $(DESTDIR)$(PREFIX)/lib/pkgconfig/
	for m in $(MANS_INST); do \
	    install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/$$(basename $$(dirname $$m))/; \
	done

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/ftrun $(DESTDIR)$(PREFIX)/bin/ftcc \
	    $(DESTDIR)$(PREFIX)/bin/ftgossip $(DESTDIR)$(PREFIX)/bin/ftboot \
	    $(DESTDIR)$(PREFIX)/bin/ftlog $(DESTDIR)$(PREFIX)/bin/ftckpt \
	    $(DESTDIR)$(PREFIX)/lib/libft.a $(DESTDIR)$(PREFIX)/lib/libft.so \
	    $(DESTDIR)$(PREFIX)/lib/libft.so.0 \
	    $(DESTDIR)$(PREFIX)/lib/pkgconfig/ft.pc
	rm -rf $(DESTDIR)$(PREFIX)/include/ft
	for m in $(MANS_INST); do \
	    rm -f $(DESTDIR)$(PREFIX)/share/man/$$(basename $$(dirname $$m))/$$(basename $$m); \
	done

clean:
	rm -rf build bin lib/libft.a lib/libft.so lib/libft.so.0 ft.pc
