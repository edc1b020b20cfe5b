# corral: `make` builds ./corral, `make check` runs every test.
PREFIX ?= /usr/local
CC ?= cc
PKGS := yajl libseccomp libcap
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
VERSION := $(shell cat VERSION)
CFLAGS ?= -O2 -g
# override: `make CFLAGS=...` (make sanitize) adds to these, never drops them
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-D_FORTIFY_SOURCE=2 -D_GNU_SOURCE -fstack-protector-strong -fPIE \
	-DCORRAL_VERSION='"$(VERSION)"' -Ispec -Ihooks $(PKG_CFLAGS)
override LDFLAGS += -pie -Wl,-z,relro,-z,now

SPEC_SRC := $(wildcard spec/*.c)
HOOKS_SRC := $(wildcard hooks/*.c)
RUNTIME_SRC := $(wildcard runtime/*.c)
SPEC_OBJ := $(SPEC_SRC:%.c=build/%.o)
HOOKS_OBJ := $(HOOKS_SRC:%.c=build/%.o)
RUNTIME_OBJ := $(RUNTIME_SRC:%.c=build/%.o)
UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=build/helpers/%)

all: corral

corral: $(RUNTIME_OBJ) $(HOOKS_OBJ) $(SPEC_OBJ) build/gen/seccomp_filters.o
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(PKG_LIBS)

# corral's fixed seccomp filters, compiled once at build time
# (runtime/seccomp_prebuilt.c says why).
SECCOMP_GEN_OBJ := build/runtime/seccomp.o build/runtime/seccomp_baseline.o \
	build/spec/error.o
build/seccomp_gen: tools/seccomp_gen.c runtime/seccomp.h $(SECCOMP_GEN_OBJ)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -iquote runtime $(LDFLAGS) -o $@ $< \
		$(SECCOMP_GEN_OBJ) $(PKG_LIBS)

build/gen/seccomp_filters.c: build/seccomp_gen
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$< >$@.tmp && mv $@.tmp $@

build/gen/seccomp_filters.o: build/gen/seccomp_filters.c runtime/seccomp.h
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -iquote runtime -c -o $@ $<

build/%.o: %.c $(wildcard spec/*.h hooks/*.h runtime/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -c -o $@ $<

build/tests/%: tests/unit/%.c tests/unit/unit.h $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(SPEC_OBJ) $(PKG_LIBS)

# The seccomp tests also link the filters they load (quoted runtime/ headers
# via -iquote, so <seccomp.h> stays libseccomp's).
build/tests/test_seccomp: tests/unit/test_seccomp.c tests/unit/unit.h \
		build/runtime/seccomp.o build/runtime/seccomp_baseline.o \
		build/runtime/seccomp_prebuilt.o build/gen/seccomp_filters.o \
		build/runtime/seccomp_cache.o build/runtime/fsutil.o $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit -iquote runtime $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

# The field-rule test links a build of spec/ whose JSON reader reports
# every key it looks up (tests/unit/test_fields.c says why).
TRACE_SPEC_OBJ := $(SPEC_SRC:%.c=build/trace/%.o)
build/trace/spec/%.o: spec/%.c $(wildcard spec/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $< (traced)"
	@$(CC) $(CFLAGS) -DJSON_TRACE_KEYS -c -o $@ $<

build/tests/test_fields: tests/unit/test_fields.c tests/unit/unit.h \
		tests/unit/fixture.h $(TRACE_SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(TRACE_SPEC_OBJ) \
		$(PKG_LIBS)

# The cgroup unit tests and the integration tests' driver link the cgroup
# module alone; the unit tests run it on fake trees (cg_fake_kernel).
CGROUP_OBJ := $(patsubst %.c,build/%.o,$(wildcard runtime/cgroup*.c)) \
	build/runtime/fsutil.o build/spec/error.o
build/tests/test_cgroup: tests/unit/test_cgroup.c tests/unit/unit.h \
		$(CGROUP_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit -iquote runtime $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

build/helpers/cgtool: tests/helpers/cgtool.c $(CGROUP_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -iquote runtime $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

build/helpers/%: tests/helpers/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<

# Helpers copied into a container's rootfs: static, so they need no libc
# there (the security battery's sysprobe); never sanitized, as ASan needs
# its dynamic runtime.
STATIC_HELPER_BIN := $(patsubst tests/helpers/static/%.c,build/helpers/static/%,\
	$(wildcard tests/helpers/static/*.c))
build/helpers/static/%: tests/helpers/static/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(filter-out -fPIE -fsanitize=%,$(CFLAGS)) -static -o $@ $<

unit: $(UNIT_BIN)
	@for t in $(UNIT_BIN); do $$t || exit 1; done

helpers: $(HELPER_BIN) $(STATIC_HELPER_BIN)

check: corral $(UNIT_BIN) $(HELPER_BIN) $(STATIC_HELPER_BIN)
	@tests/run

sanitize:
	$(MAKE) clean
	$(MAKE) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" check

install: corral
	install -D -m 0755 corral $(DESTDIR)$(PREFIX)/bin/corral

deps:
	@tests/deps

format:
	clang-format -i $(SPEC_SRC) $(HOOKS_SRC) $(RUNTIME_SRC) spec/*.h hooks/*.h runtime/*.h tools/*.c tests/fuzz/*.[ch]

format-check:
	clang-format --dry-run --Werror $(SPEC_SRC) $(HOOKS_SRC) $(RUNTIME_SRC) spec/*.h hooks/*.h runtime/*.h tools/*.c tests/fuzz/*.[ch]

# make demo POLICY=config-examples/policy/permissive.json shows what leaks
demo: corral
	@POLICY="$(POLICY)" tests/demo

# make fuzz: libFuzzer targets over spec/ (clang, ASan+UBSan) in build/fuzz/;
# make fuzz-run FUZZ_TIME=60 runs each on a copy of tests/fuzz/corpus/.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
	-Werror -Wno-unused-parameter -D_GNU_SOURCE -Ispec \
	$(shell pkg-config --cflags yajl 2>/dev/null) $(FUZZ_SAN)
FUZZ_TARGETS := spec policy harden state
FUZZ_BIN := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
FUZZ_SPEC_OBJ := $(SPEC_SRC:%.c=build/fuzz/%.o)

build/fuzz/spec/%.o: spec/%.c $(wildcard spec/*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(wildcard tests/fuzz/*.h) \
		$(FUZZ_SPEC_OBJ)
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< \
		$(FUZZ_SPEC_OBJ) $(shell pkg-config --libs yajl 2>/dev/null) -lm

fuzz: $(FUZZ_SPEC_OBJ) $(FUZZ_BIN)

fuzz-run: fuzz
	@FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run $(FUZZ_TARGETS)

clean:
	rm -rf build corral

# corral vs crun and runc, side by side (root; not part of check):
# tests/bench/README.md says what is measured, BENCH_N=20 for a short run
bench: corral
	@tests/bench/run

.PHONY: all unit helpers check sanitize install deps format format-check demo clean \
	bench fuzz fuzz-run
