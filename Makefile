# corral: `make` builds ./corral, `make check` runs every test.
PREFIX ?= /usr/local
CC ?= cc
PKGS := yajl libseccomp libcap
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lm
VERSION := $(shell cat VERSION)
# spec/ and runtime/ hold one directory per subsystem (docs/architecture.md);
# a header is included by its name alone, found through these paths.
# spec/ is compiled without runtime/'s (spec is pure: it includes none).
SPEC_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard spec/*/*.[ch]))))
RUNTIME_DIRS := $(patsubst %/,%,$(sort $(dir $(wildcard runtime/*/*.[chS]))))
SPEC_INC := $(SPEC_DIRS:%=-I%)
RUNTIME_INC := $(RUNTIME_DIRS:%=-iquote %)

CFLAGS ?= -O2 -g
# override: `make CFLAGS=...` (make sanitize) adds to these, never drops them
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-unused-parameter \
	-Wshadow -Wmissing-prototypes -Wswitch-default \
	-D_FORTIFY_SOURCE=2 -D_GNU_SOURCE -fstack-protector-strong -fPIE \
	-DCORRAL_VERSION='"$(VERSION)"' $(SPEC_INC) -Ihooks -Istage \
	-iquote build/gen $(PKG_CFLAGS)
override LDFLAGS += -pie -Wl,-z,relro,-z,now

SPEC_SRC := $(wildcard spec/*/*.c)
HOOKS_SRC := $(wildcard hooks/*.c)
RUNTIME_SRC := $(wildcard runtime/*/*.c)
SPEC_OBJ := $(SPEC_SRC:%.c=build/%.o)
HOOKS_OBJ := $(HOOKS_SRC:%.c=build/%.o)
RUNTIME_OBJ := $(RUNTIME_SRC:%.c=build/%.o)
STAGE_SRC := $(wildcard stage/*.c)
# the two programs corral carries as bytes (the stage, the egress
# connection's), each assembled into an object of its directory
STAGE_BLOB_OBJ := build/runtime/lifecycle/stage_blob.o
EGRESS_BLOB_OBJ := build/runtime/egress/egress_blob.o
# tests/unit/<subsystem>/test_*.c, built as build/tests/<subsystem>/test_*
UNIT_SRC := $(wildcard tests/unit/*/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=build/tests/%)
HELPER_SRC := $(wildcard tests/helpers/*.c)
HELPER_BIN := $(HELPER_SRC:tests/helpers/%.c=build/helpers/%)

all: corral

# corral itself is linked statically (glibc, yajl, libseccomp and libcap
# from their Debian archives), position-independent for ASLR: every
# container costs one exec of corral, and on a virtual machine where a page
# fault is dear, loading four shared libraries and relocating them was a
# millisecond of each `corral run` (tests/bench/README.md).
# corral calls nothing of glibc's that loads a module at run time (no NSS:
# /etc/passwd and /etc/group are read as files).  A sanitized build links
# dynamically, as ASan needs its runtime.
CORRAL_LIBS := $(if $(findstring -fsanitize,$(LDFLAGS)),$(PKG_LIBS),\
	-static-pie -lyajl_s -lseccomp -lcap -lm)
corral: $(RUNTIME_OBJ) $(HOOKS_OBJ) $(SPEC_OBJ) build/gen/seccomp_filters.o \
		build/stage/params.o $(STAGE_BLOB_OBJ) $(EGRESS_BLOB_OBJ)
	@echo "  LD      $@"
	@$(CC) $(LDFLAGS) -o $@ $^ $(CORRAL_LIBS)

# The stage (stage/main.c): the static program the container's processes
# become before they run its code, carried inside corral as bytes
# (runtime/lifecycle/stage_blob.S).  Static, so that after pivot_root it loads no
# library from the container's rootfs (the link fails if it has a program
# interpreter); position-independent, for ASLR; stripped, as its bytes are
# written to a memfd for every container; never sanitized (ASan needs its
# dynamic runtime).  Built against musl when it is installed (tests/deps
# installs musl-tools): 65 KB against glibc's 750, which each container
# writes, maps and execs.  Its objects carry -MMD dependencies, so a change
# to any header it includes rebuilds it and, through the blob, corral.
STAGE_DIR := build/static-stage
STAGE_OBJ := $(patsubst %.c,$(STAGE_DIR)/%.o,$(STAGE_SRC) spec/core/error.c \
	spec/config/hook_kinds.c hooks/hooks.c runtime/base/sync.c \
	runtime/base/forward.c runtime/base/fsutil.c) \
	$(STAGE_DIR)/gen/seccomp_filters.o
STAGE_BIN := $(STAGE_DIR)/corral-stage
TRIPLET := $(shell $(CC) -dumpmachine)
MUSL_LIBDIR := /usr/lib/$(TRIPLET:-gnu=-musl)
STAGE_LIBC := $(if $(and $(wildcard $(MUSL_LIBDIR)/rcrt1.o),\
	$(shell command -v musl-gcc 2>/dev/null)),musl,glibc)
STAGE_CFLAGS = $(filter-out -fsanitize=% -I/usr/include,$(CFLAGS)) \
	$(RUNTIME_INC) -ffunction-sections -fdata-sections -MMD -MP
STAGE_LDFLAGS := -static-pie -s -Wl,--gc-sections -Wl,-z,relro,-z,now
ifeq ($(STAGE_LIBC),musl)
# musl's headers without the kernel's: linux/ and asm/ come from the
# host's, looked up after musl's own.
STAGE_CC := musl-gcc
STAGE_CFLAGS += -idirafter $(STAGE_DIR)/include
STAGE_LINK = $(CC) -nostdlib -nostartfiles $(STAGE_LDFLAGS) \
	-Wl,--no-dynamic-linker -o $@ $(MUSL_LIBDIR)/rcrt1.o \
	$(MUSL_LIBDIR)/crti.o $^ $(MUSL_LIBDIR)/libc.a \
	$(shell $(CC) -print-libgcc-file-name) $(MUSL_LIBDIR)/crtn.o
else
STAGE_CC := $(CC)
STAGE_LINK = $(CC) $(STAGE_LDFLAGS) -o $@ $^
endif

$(STAGE_DIR)/include:
	@mkdir -p $@
	@ln -sfn /usr/include/linux $@/linux
	@ln -sfn /usr/include/asm-generic $@/asm-generic
	@ln -sfn /usr/include/$(TRIPLET)/asm $@/asm

$(STAGE_DIR)/%.o: %.c | $(STAGE_DIR)/include
	@mkdir -p $(dir $@)
	@echo "  CC      $< (stage, $(STAGE_LIBC))"
	@$(STAGE_CC) $(STAGE_CFLAGS) -c -o $@ $<

$(STAGE_DIR)/gen/seccomp_filters.o: build/gen/seccomp_filters.c \
		| $(STAGE_DIR)/include
	@mkdir -p $(dir $@)
	@echo "  CC      $< (stage, $(STAGE_LIBC))"
	@$(STAGE_CC) $(STAGE_CFLAGS) -c -o $@ $<

$(STAGE_BIN): $(STAGE_OBJ)
	@echo "  LD      $@ ($(STAGE_LIBC))"
	@$(STAGE_LINK)
	@if readelf -lW $@ | grep -q INTERP; then \
		echo "$@: has a program interpreter"; rm -f $@; exit 1; fi

$(STAGE_BLOB_OBJ): runtime/lifecycle/stage_blob.S $(STAGE_BIN)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) -c -DSTAGE_BIN='"$(STAGE_BIN)"' -o $@ $<

-include $(STAGE_OBJ:.o=.d)

# The program each connection of the egress proxy runs (egress/main.c,
# runtime/egress/egress_child.h): the part that reads the workload's bytes, under
# a filter with no socket, connect or exec.  Static and stripped as the
# stage is, carried inside corral as bytes (runtime/egress/egress_blob.S); the
# egress helper writes it to a memfd once and executes it per connection,
# so each has an address layout and canary of its own.
EGRESS_CONN_OBJ := $(patsubst %.c,$(STAGE_DIR)/%.o,$(wildcard egress/*.c) \
	runtime/egress/egress_relay.c spec/egress/egress.c \
	spec/egress/tls_hello.c spec/core/error.c) \
	$(STAGE_DIR)/gen/seccomp_filters.o
EGRESS_CONN_BIN := $(STAGE_DIR)/corral-egress-conn

$(EGRESS_CONN_BIN): $(EGRESS_CONN_OBJ)
	@echo "  LD      $@ ($(STAGE_LIBC))"
	@$(STAGE_LINK)
	@if readelf -lW $@ | grep -q INTERP; then \
		echo "$@: has a program interpreter"; rm -f $@; exit 1; fi

$(EGRESS_BLOB_OBJ): runtime/egress/egress_blob.S $(EGRESS_CONN_BIN)
	@mkdir -p $(dir $@)
	@echo "  AS      $<"
	@$(CC) -c -DEGRESS_CONN_BIN='"$(EGRESS_CONN_BIN)"' -o $@ $<

-include $(EGRESS_CONN_OBJ:.o=.d)

stage: $(STAGE_BIN)
	@size $(STAGE_BIN); ls -l $(STAGE_BIN)

# corral's fixed seccomp filters, compiled once at build time
# (runtime/seccomp/seccomp_prebuilt.c says why).
SECCOMP_GEN_OBJ := build/runtime/seccomp/seccomp.o \
	build/runtime/seccomp/seccomp_baseline.o \
	build/runtime/seccomp/seccomp_own.o \
	build/runtime/egress/egress_seccomp.o build/spec/core/error.o
build/seccomp_gen: tools/seccomp_gen.c runtime/seccomp/seccomp_filter.h \
		$(SECCOMP_GEN_OBJ)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
		$(SECCOMP_GEN_OBJ) $(PKG_LIBS)

build/gen/seccomp_filters.c: build/seccomp_gen
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$< >$@.tmp && mv $@.tmp $@

build/gen/seccomp_filters.o: build/gen/seccomp_filters.c \
		runtime/seccomp/seccomp_prebuilt.h
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(RUNTIME_INC) -c -o $@ $<

# `corral COMMAND --help`, from corral(8)'s source (tools/help_gen.awk).
build/gen/help.inc: docs/man/corral.8.scd tools/help_gen.awk
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@awk -f tools/help_gen.awk $< >$@.tmp && mv $@.tmp $@

build/runtime/cli/main.o: build/gen/help.inc

# The domains a wildcard egress rule may not stand on: the Public Suffix
# List (Debian's publicsuffix package, a build dependency: tests/deps) and
# corral's own list, compiled into spec/egress/egress_suffix.c at build time.
PSL ?= /usr/share/publicsuffix/public_suffix_list.dat
build/psl_gen: tools/psl_gen.c spec/egress/egress_suffix.h \
		build/spec/egress/egress.o build/spec/core/error.o
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(filter %.o,$^)

build/gen/public_suffixes.inc: build/psl_gen $(PSL) tools/egress_suffixes.txt
	@mkdir -p $(dir $@)
	@echo "  GEN     $@"
	@$< $(PSL) tools/egress_suffixes.txt >$@.tmp && mv $@.tmp $@

build/spec/egress/egress_suffix.o build/trace/spec/egress/egress_suffix.o \
	build/fuzz/spec/egress/egress_suffix.o: build/gen/public_suffixes.inc

# Each object depends on the headers it includes (-MMD -MP: build/X.d).
build/%.o: %.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

build/runtime/%.o: runtime/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(RUNTIME_INC) -MMD -MP -c -o $@ $<

-include $(SPEC_OBJ:.o=.d) $(HOOKS_OBJ:.o=.d) $(RUNTIME_OBJ:.o=.d)

build/tests/%: tests/unit/%.c tests/unit/unit.h $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(SPEC_OBJ) $(PKG_LIBS)

# The runtime's objects, all but main(), as a library: the unit tests of
# the runtime's own pieces (host paths, the sync socket, the state
# directory, file helpers) link it as the binary does.
LIB_OBJ := $(filter-out build/runtime/cli/main.o,$(RUNTIME_OBJ)) $(HOOKS_OBJ) \
	build/gen/seccomp_filters.o build/stage/params.o \
	$(STAGE_BLOB_OBJ) $(EGRESS_BLOB_OBJ)
build/libcorral.a: $(LIB_OBJ)
	@echo "  AR      $@"
	@rm -f $@ && ar rcs $@ $^

RUNTIME_UNIT := $(filter build/tests/base/% build/tests/fs/% \
	build/tests/state/%,$(UNIT_BIN))
$(RUNTIME_UNIT): build/tests/%: tests/unit/%.c \
		tests/unit/unit.h build/libcorral.a $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
		build/libcorral.a $(SPEC_OBJ) $(PKG_LIBS)

# The seccomp tests also link the filters they load.
SECCOMP_UNIT := $(filter build/tests/seccomp/%,$(UNIT_BIN))
$(SECCOMP_UNIT): build/tests/%: tests/unit/%.c tests/unit/unit.h \
		$(wildcard tests/unit/seccomp/*.h) \
		$(patsubst %.c,build/%.o,$(wildcard runtime/seccomp/*.c)) \
		build/runtime/egress/egress_seccomp.o build/gen/seccomp_filters.o \
		build/runtime/base/fsutil.o $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

# The field-rule test links a build of spec/ whose JSON reader reports
# every key it looks up (tests/unit/config/test_fields.c says why).
TRACE_SPEC_OBJ := $(SPEC_SRC:%.c=build/trace/%.o)
build/trace/spec/%.o: spec/%.c
	@mkdir -p $(dir $@)
	@echo "  CC      $< (traced)"
	@$(CC) $(CFLAGS) -DJSON_TRACE_KEYS -MMD -MP -c -o $@ $<

-include $(TRACE_SPEC_OBJ:.o=.d)

build/tests/config/test_fields: tests/unit/config/test_fields.c tests/unit/unit.h \
		tests/unit/fixture.h $(TRACE_SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(TRACE_SPEC_OBJ) \
		$(PKG_LIBS)

# The stage's parameter format, encoded and decoded in one process.
build/tests/stage/test_stage_params: tests/unit/stage/test_stage_params.c \
		tests/unit/unit.h build/stage/params.o $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

# The cgroup unit tests and the integration tests' driver link the cgroup
# module alone; the unit tests run it on fake trees, with their fake
# kernel (tests/unit/cgroup/cgroup_fake.c) in place of
# runtime/cgroup/cgroup_kernel.c.
CGROUP_OBJ := $(patsubst %.c,build/%.o,$(wildcard runtime/cgroup/*.c)) \
	$(patsubst %.c,build/%.o,$(wildcard runtime/systemd/*.c)) \
	build/runtime/base/fsutil.o build/runtime/base/log.o \
	build/spec/core/error.o build/spec/core/units.o
CGROUP_UNIT := $(filter build/tests/cgroup/%,$(UNIT_BIN))
CGROUP_UNIT_OBJ := $(filter-out build/runtime/cgroup/cgroup_kernel.o,\
	$(CGROUP_OBJ)) build/tests/cgroup/cgroup_fake.o
build/tests/cgroup/cgroup_fake.o: tests/unit/cgroup/cgroup_fake.c \
		tests/unit/cgroup/cgroup_fake.h $(wildcard runtime/cgroup/*.h)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(RUNTIME_INC) -c -o $@ $<

$(CGROUP_UNIT): build/tests/%: tests/unit/%.c \
		tests/unit/unit.h tests/unit/cgroup/cgroup_fake.h $(CGROUP_UNIT_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

# The systemd client's pure parts (tests/unit/systemd/): the wire format
# and the unit properties, with no socket.
SYSTEMD_UNIT := $(filter build/tests/systemd/%,$(UNIT_BIN))
$(SYSTEMD_UNIT): build/tests/%: tests/unit/%.c tests/unit/unit.h \
		build/runtime/systemd/dbus_wire.o \
		build/runtime/systemd/systemd_props.o $(SPEC_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) -Itests/unit $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
		$(filter %.o,$^) $(PKG_LIBS)

build/helpers/cgtool: tests/helpers/cgtool.c $(CGROUP_OBJ)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS) $(RUNTIME_INC) $(LDFLAGS) -o $@ $< \
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

# make check-vm [KERNEL="5.10 6.1 6.12"] [MODE=bare|systemd]: the suites of
# tests/vm/suites.list in QEMU guests booting Debian's kernels (root;
# tests/vm/README.md).  Default: the three kernels bare and 6.1 under systemd.
check-vm: corral $(HELPER_BIN) $(STATIC_HELPER_BIN)
	@KERNEL="$(KERNEL)" MODE="$(MODE)" tests/vm/run

# make check-vm-ci: the short lane for CI, one guest after the other:
# bare 5.10 (tests/vm/suites-ci.list), then 6.1 under systemd
# (tests/vm/suites-ci-systemd.list); each guest killed at 1200 s.
check-vm-ci: corral $(HELPER_BIN) $(STATIC_HELPER_BIN)
	@GUESTS="5.10:bare 6.1:systemd" LIST=ci VM_TIMEOUT=1200 tests/vm/run

sanitize:
	$(MAKE) clean
	$(MAKE) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined" check

install: corral
	install -D -m 0755 corral $(DESTDIR)$(PREFIX)/bin/corral

deps:
	@tests/deps

# make man: the manual pages corral(8) and corral-policy.json(5), from
# their scdoc sources in docs/man/ (Debian's scdoc), in build/man/.
MAN_PAGES := $(patsubst docs/man/%.scd,build/man/%,$(wildcard docs/man/*.scd))
build/man/%: docs/man/%.scd VERSION
	@mkdir -p $(dir $@)
	@echo "  SCDOC   $<"
	@sed 's/@VERSION@/$(VERSION)/' $< | scdoc >$@.tmp && mv $@.tmp $@

man: $(MAN_PAGES)

# make deb: the Debian package (debian/), built by `dpkg-buildpackage -us
# -uc -b` in a copy of this tree under build/deb/, where the .deb files
# land (dpkg-buildpackage writes them beside the tree it builds).
deb:
	@rm -rf build/deb && mkdir -p build/deb/corral-$(VERSION)
	@tar -c --exclude=./build --exclude=./corral --exclude=./.git . | \
		tar -x -C build/deb/corral-$(VERSION)
	cd build/deb/corral-$(VERSION) && dpkg-buildpackage -us -uc -b
	@ls build/deb/*.deb

# every C file of the repository
FORMAT_FILES = $(wildcard spec/*/*.[ch] runtime/*/*.[ch] hooks/*.[ch] \
	stage/*.[ch] egress/*.[ch] tools/*.c tests/unit/*.h tests/unit/*/*.[ch] \
	tests/fuzz/*.h tests/fuzz/*/*.[ch] tests/helpers/*.c \
	tests/helpers/static/*.c)

format:
	clang-format -i $(FORMAT_FILES)

format-check:
	@clang-format --dry-run --Werror $(FORMAT_FILES)

# make demo POLICY=config-examples/policy/permissive.json shows what leaks
demo: corral
	@POLICY="$(POLICY)" tests/demo

# make fuzz: libFuzzer targets over spec/, the cgroup paths
# (runtime/cgroup/cgroup_path.c, pure as spec/ is) and the D-Bus reply
# parser (runtime/systemd/dbus_wire.c) with clang, ASan+UBSan, in
# build/fuzz/; one per tests/fuzz/<subsystem>/fuzz_<target>.c;
# make fuzz-run FUZZ_TIME=60 runs each on a copy of tests/fuzz/corpus/.
FUZZ_CC ?= clang
FUZZ_TIME ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -O1 -g -fno-omit-frame-pointer -Wall -Wextra \
	-Werror -Wno-unused-parameter -D_GNU_SOURCE $(SPEC_INC) -iquote build/gen \
	$(shell pkg-config --cflags yajl 2>/dev/null) $(FUZZ_SAN)
FUZZ_SRC := $(wildcard tests/fuzz/*/fuzz_*.c)
FUZZ_TARGETS := $(patsubst fuzz_%.c,%,$(notdir $(FUZZ_SRC)))
FUZZ_BIN := $(FUZZ_TARGETS:%=build/fuzz/fuzz_%)
FUZZ_SPEC_OBJ := $(SPEC_SRC:%.c=build/fuzz/%.o)
vpath fuzz_%.c $(sort $(dir $(FUZZ_SRC)))

build/fuzz/spec/%.o: spec/%.c $(wildcard spec/*/*.h)
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_%: fuzz_%.c $(wildcard tests/fuzz/*.h tests/fuzz/*/*.h) \
		$(FUZZ_SPEC_OBJ)
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz -o $@ $< \
		$(FUZZ_SPEC_OBJ) $(shell pkg-config --libs yajl 2>/dev/null) -lm

build/fuzz/runtime/cgroup/cgroup_path.o: runtime/cgroup/cgroup_path.c \
		runtime/cgroup/cgroup_path.h
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_cgroup_path: tests/fuzz/cgroup/fuzz_cgroup_path.c \
		tests/fuzz/fuzz.h build/fuzz/runtime/cgroup/cgroup_path.o \
		build/fuzz/spec/core/error.o
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz $(RUNTIME_INC) \
		-o $@ $< $(filter %.o,$^)

build/fuzz/runtime/systemd/dbus_wire.o: runtime/systemd/dbus_wire.c \
		runtime/systemd/dbus_wire.h
	@mkdir -p $(dir $@)
	@echo "  FUZZCC  $<"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link -c -o $@ $<

build/fuzz/fuzz_dbus_reply: tests/fuzz/systemd/fuzz_dbus_reply.c \
		tests/fuzz/fuzz.h build/fuzz/runtime/systemd/dbus_wire.o \
		build/fuzz/spec/core/error.o
	@echo "  FUZZLD  $@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -Itests/fuzz $(RUNTIME_INC) \
		-o $@ $< $(filter %.o,$^)

fuzz: $(FUZZ_SPEC_OBJ) $(FUZZ_BIN)

fuzz-run: fuzz
	@FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run $(FUZZ_TARGETS)

clean:
	rm -rf build corral

# The OCI runtime-tools validation suite against corral (permissive and
# default policies) and runc, in one run (root; tests/conformance/README.md)
conformance: corral
	@tests/conformance/run

# The security mutants, each killed by a test that runs the real binary
# (root; tests/mutate/README.md)
mutate: corral helpers
	@tests/mutate/run

# corral vs crun and runc, side by side (root; not part of check):
# tests/bench/README.md says what is measured, BENCH_N=20 for a short run
bench: corral
	@tests/bench/run

.PHONY: all unit helpers check check-vm check-vm-ci sanitize install deps format format-check demo clean \
	bench fuzz fuzz-run stage conformance mutate
.PHONY: man deb
