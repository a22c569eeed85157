# dmlref - reference implementation and conformance oracle for DirectML's
# indexing operators.  `make help` lists the targets.

# The version has one source of truth: include/dmlref.h.
VERSION_PART = $(shell sed -n 's/^\#define DMLREF_VERSION_$(1) \([0-9]*\)$$/\1/p' include/dmlref.h)
MAJOR := $(call VERSION_PART,MAJOR)
VERSION := $(MAJOR).$(call VERSION_PART,MINOR).$(call VERSION_PART,PATCH)

PREFIX ?= /usr/local
prefix ?= $(PREFIX)
libdir ?= $(prefix)/lib
bindir ?= $(prefix)/bin
includedir ?= $(prefix)/include
pkgconfigdir ?= $(libdir)/pkgconfig
cmakedir ?= $(libdir)/cmake/dmlref
DESTDIR ?=

CC ?= cc
BUILD ?= build
OPENMP ?= -fopenmp
SANITIZE ?=
OPT ?= -O2 -g
# A command that runs the build's programs when this machine cannot (qemu-s390x,
# wine): make test and the platform legs put it before each one.
EMULATOR ?=

# Warnings are errors in the checks (make check sets WERROR), not in a plain
# build: a porter's first build on a new compiler should not stop at a warning.
WERROR ?=
WARNINGS = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
           -Wvla -Wundef -Wpointer-arith -Wcast-align -Wwrite-strings $(WERROR)
# and where they hold: the library and the command, not the tests' templates
STRICT_WARNINGS = -Wconversion -Wcast-qual -Wformat=2
CFLAGS_ALL = -std=c99 -pedantic $(WARNINGS) $(if $(OPENMP),,-Wno-unknown-pragmas) $(OPT) $(OPENMP) $(SANITIZE) \
             -fPIC -fvisibility=hidden -D_FILE_OFFSET_BITS=64 -Iinclude -Isrc -I. $(PLATFORM_CFLAGS) $(CFLAGS)
LDFLAGS_ALL = $(OPENMP) $(SANITIZE) $(PLATFORM_LDFLAGS) $(LDFLAGS)

Q = $(if $(filter 1,$(V) $(VERBOSE)),,@)

# The layers, lowest first; each folder may use only its own files and the
# layers below it (make check-layers, HACKING.md).
BASE_SRC = src/base/status.c src/base/tensor.c src/base/walker.c src/base/index.c
REFERENCE_SRC = reference/gather_elements.c reference/scatter_elements.c reference/gather_nd.c \
                reference/nonzero_coordinates.c reference/trace.c
KERNEL_SRC = src/kernels/runs.c src/kernels/gather_elements.c \
             src/kernels/scatter_elements.c src/kernels/gather_nd.c src/kernels/nonzero_coordinates.c
CORE_SRC = src/core/operators.c src/core/validate.c src/core/execute.c src/core/kernels_compare.c
VECTOR_SRC = src/vector/elements.c src/vector/vector.c src/vector/read.c src/vector/eval.c \
             src/vector/write.c
LIB_SRC = $(BASE_SRC) $(REFERENCE_SRC) $(KERNEL_SRC) $(CORE_SRC) $(VECTOR_SRC)
LIB_OBJ = $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
HEADERS = $(wildcard include/*.h include/dmlref/*.h src/*/*.h reference/*.h conformance/*.h)
LIB_DEPS = $(shell pkg-config --libs jansson libxxhash 2>/dev/null || echo -ljansson -lxxhash) -lm

# The operating system's side of the command (src/platform): POSIX, or Windows
# when CC builds for it (mingw-w64); X.c beside X_posix.c and X_windows.c is what
# both sides share.
PLATFORM ?= $(if $(findstring mingw,$(shell $(CC) -dumpmachine 2>/dev/null)),windows,posix)
PLATFORM_SRC = $(wildcard src/platform/*_$(PLATFORM).c) \
               $(filter-out %_posix.c %_windows.c,$(wildcard src/platform/*.c))

ifeq ($(PLATFORM),windows)
# mingw-w64: programs end in .exe and link everything statically (OpenMP and
# the threads included), so that they run with no DLL beside them; no shared
# library (the plug-ins of dmlref check are DLLs of their own); stdio of C99
# (src/base/printf_like.h).  Debian has no mingw-w64 build of jansson, xxHash
# and cmocka: scripts/build/build_deps.sh builds them into MINGW_DEPS.
MINGW_DEPS ?= build/deps/mingw
EXE = .exe
SHARED_LIBS =
PLATFORM_CFLAGS = -D__USE_MINGW_ANSI_STDIO=1 -isystem $(MINGW_DEPS)/include
PLATFORM_LDFLAGS = -static -L$(MINGW_DEPS)/lib
PLATFORM_LIBS =
LIB_DEPS = -ljansson -lxxhash -lm
CMOCKA_CFLAGS =
CMOCKA_LIBS = -lcmocka-static
else
EXE =
SHARED_LIBS = $(BUILD)/libdmlref.so $(BUILD)/libdmlref.so.$(MAJOR)
PLATFORM_CFLAGS =
PLATFORM_LDFLAGS =
# dmlref check loads plug-ins with dlopen
PLATFORM_LIBS = -ldl
CMOCKA_CFLAGS = $(shell pkg-config --cflags cmocka 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null || echo -lcmocka)
endif

# The command: the layers above the library.
TEACH_SRC = src/teach/explain.c src/teach/show.c
CLI_SRC = $(PLATFORM_SRC) src/command_base/files.c $(TEACH_SRC) src/suite/suite.c src/suite/generate.c conformance/check.c conformance/backend.c \
          conformance/line_reader.c conformance/judge.c conformance/fuzz.c conformance/fuzz_case.c \
          conformance/mutations.c conformance/shrink.c src/cli/args.c \
          src/cli/check_command.c src/cli/fuzz_command.c src/cli/bench.c src/cli/bench_cases.c src/cli/bench_buffers.c src/cli/bench_report.c \
          src/cli/teach_command.c src/cli/main.c
CLI_OBJ = $(CLI_SRC:%.c=$(BUILD)/obj/%.o)

# The suite's hand-written cases (src/suite/cases, in the order of its LIST),
# embedded into the command as C data, so that dmlref gen needs no source tree.
CASE_FILES = $(shell find src/suite/cases -type f 2>/dev/null)
CASES_C = $(BUILD)/gen/suite_cases.c
CASES_OBJ = $(BUILD)/gen/suite_cases.o

TEST_NAMES = test_api test_validate test_gather_elements test_scatter_elements \
             test_gather_nd test_nonzero_coordinates test_random test_roundtrip \
             test_vectors test_explain
TEST_BIN = $(TEST_NAMES:%=$(BUILD)/tests/%$(EXE))
TEST_SUPPORT = tests/unit/testlib.c
TEST_HDR = tests/unit/testlib.h

.PHONY: all lib check check-quick check-perf check-ab-builds check-builds build-sanitized build-tsan \
        build-noopenmp build-i686 build-s390x build-mingw test-programs leg-programs check-units \
        check-harness check-cli-sanitized check-harness-sanitized test check-sanitize check-noopenmp check-clang \
        check-tsan check-rules check-layers check-style check-example \
        check-symbols vectors check-vectors check-checkout check-cross check-loaders check-packaging check-schema check-roundtrip check-cli \
        check-guides check-memory check-reports check-peers check-onnx-export conformance-reports node-deps \
        check-conformance check-conformance-backends check-conformance-check check-conformance-process \
        check-conformance-isolation check-conformance-fuzz backends fuzz-smoke check-valgrind \
        check-platforms check-i686 check-s390x check-mingw check-mingw-leg check-leg check-directml \
        leg-runner leg-tests leg-verify leg-gen leg-check leg-commands leg-same-verdicts leg-process-backend \
        playground check-playground install uninstall clean help deps FORCE

all: lib $(BUILD)/dmlref$(EXE) ## build build/libdmlref.a, build/libdmlref.so and build/dmlref

lib: $(BUILD)/libdmlref.a $(SHARED_LIBS)

$(BUILD)/dmlref$(EXE): $(CLI_OBJ) $(CASES_OBJ) $(BUILD)/libdmlref.a
	$(Q)$(CC) $(CLI_OBJ) $(CASES_OBJ) $(BUILD)/libdmlref.a $(LIB_DEPS) $(PLATFORM_LIBS) $(LDFLAGS_ALL) -o $@

$(CASES_C): scripts/build/embed_cases.sh $(CASE_FILES)
	@mkdir -p $(dir $@)
	$(Q)sh scripts/build/embed_cases.sh src/suite/cases > $@.tmp && mv $@.tmp $@

$(CASES_OBJ): $(CASES_C) src/suite/case_files.h $(BUILD)/flags
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

# The playground (docs/playground/): the library, explain and show, and the
# page's door (src/web) compiled to WebAssembly by emscripten from the same
# sources, without OpenMP; jansson and xxHash built for it from Debian's
# sources into WASM_DEPS (scripts/build/build_deps.sh).  The module is one
# JavaScript file with the WebAssembly inside (SINGLE_FILE), and the suite's
# vectors are JavaScript files too, so that the page works opened from disk,
# where a browser fetches nothing.  Debian's emscripten runs its JavaScript
# tools with Debian's acorn, which a Node.js of NodeSource's does not search.
WASM_DEPS ?= build/deps/wasm
WEB_SRC = src/web/playground.c
PLAYGROUND_DIR = docs/playground/generated
PLAYGROUND_EXPORTS = _dmlref_playground_run,_dmlref_playground_free,_dmlref_version_string,_malloc,_free

playground: $(PLAYGROUND_DIR)/guides.js ## the playground's WebAssembly and vectors (docs/playground/generated; emscripten)
	$(Q)$(if $(filter build/deps/wasm,$(WASM_DEPS)),sh scripts/build/build_deps.sh wasm build/deps >/dev/null)
	$(Q)NODE_PATH=/usr/share/nodejs $(MAKE) --no-print-directory CC=emcc OPENMP= BUILD=build/wasm \
	    PLATFORM_CFLAGS="-isystem $(WASM_DEPS)/include" build/wasm/dmlref.js
	$(Q)cmp -s build/wasm/dmlref.js $(PLAYGROUND_DIR)/dmlref.js || cp build/wasm/dmlref.js $(PLAYGROUND_DIR)/

$(PLAYGROUND_DIR)/guides.js: scripts/build/playground_vectors.mjs vectors/MANIFEST $(wildcard docs/operators/*.md)
	$(Q)node scripts/build/playground_vectors.mjs $(PLAYGROUND_DIR)

# The page in headless Chromium against the command (tests/cross/test_playground.mjs);
# SCREENSHOTS=docs/playground/screenshots renews the pictures of the docs.
check-playground: playground $(BUILD)/dmlref ## the playground in headless Chromium shows what dmlref eval and dmlref explain print for the same cases
	$(Q)$(SUMMARY) "playground in headless Chromium" $(BUILD)/playground.log \
	    node tests/cross/test_playground.mjs $(BUILD)/dmlref $(if $(SCREENSHOTS),--screenshots $(SCREENSHOTS))

$(BUILD)/dmlref.js: $(LIB_OBJ) $(TEACH_SRC:%.c=$(BUILD)/obj/%.o) $(WEB_SRC:%.c=$(BUILD)/obj/%.o)
	$(Q)$(CC) $^ -L$(WASM_DEPS)/lib -ljansson -lxxhash -O2 -o $@ -sMODULARIZE \
	    -sEXPORT_NAME=createDmlref -sSINGLE_FILE -sALLOW_MEMORY_GROWTH -sMAXIMUM_MEMORY=1073741824 \
	    -sENVIRONMENT=web,node -sEXPORTED_FUNCTIONS=$(PLAYGROUND_EXPORTS) \
	    -sEXPORTED_RUNTIME_METHODS=ccall,UTF8ToString

# Everything is rebuilt when the compiler or its flags change (a check's
# -Werror, another OPT), so one build folder never mixes two settings.  The
# text is fixed here, before any target adds to CFLAGS_ALL: whichever target
# asks for the flags file first (a library object, a test), it reads the same.
BUILD_FLAGS := $(CC) $(CFLAGS_ALL) $(LDFLAGS_ALL)
$(BUILD)/flags: FORCE
	@mkdir -p $(BUILD)
	@echo '$(BUILD_FLAGS)' | cmp -s - $@ || echo '$(BUILD_FLAGS)' > $@

FORCE:

$(BUILD)/obj/%.o: %.c $(HEADERS) $(BUILD)/flags
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -c $< -o $@

# The command's files use POSIX (processes, pipes, folders).
$(CLI_OBJ): CFLAGS_ALL += -D_POSIX_C_SOURCE=200809L
$(LIB_OBJ) $(CLI_OBJ) $(WEB_SRC:%.c=$(BUILD)/obj/%.o): CFLAGS_ALL += $(STRICT_WARNINGS)

$(BUILD)/libdmlref.a: $(LIB_OBJ)
	$(Q)rm -f $@ && ar rcs $@ $^

# The soname's link beside the library, so a program linked with -Lbuild -ldmlref runs
# from the build tree (LD_LIBRARY_PATH=build) as it does after make install.
$(BUILD)/libdmlref.so: $(LIB_OBJ)
	$(Q)$(CC) -shared -Wl,-soname,libdmlref.so.$(MAJOR) -o $@ $^ $(LIB_DEPS) $(LDFLAGS_ALL)

$(BUILD)/libdmlref.so.$(MAJOR): $(BUILD)/libdmlref.so
	$(Q)ln -sf libdmlref.so $@

$(BUILD)/tests/%$(EXE): tests/unit/%.c $(TEST_SUPPORT) $(TEST_HDR) $(HEADERS) $(BUILD)/flags $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit \
	    $< $(TEST_SUPPORT) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) $(LIB_DEPS) $(LDFLAGS_ALL) -o $@

# explain's test links the layer that words the traces, too.
$(BUILD)/tests/test_explain$(EXE): tests/unit/test_explain.c $(TEACH_SRC:%.c=$(BUILD)/obj/%.o) $(TEST_SUPPORT) \
                             $(TEST_HDR) $(HEADERS) $(BUILD)/flags $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit $< \
	    $(TEACH_SRC:%.c=$(BUILD)/obj/%.o) $(TEST_SUPPORT) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) \
	    $(LIB_DEPS) $(LDFLAGS_ALL) -o $@

# The random tests draw their cases with the suite's case generator, which
# needs the library alone.
GEN_OBJ = $(BUILD)/obj/src/suite/generate.o
$(BUILD)/tests/test_random$(EXE): tests/unit/test_random.c $(GEN_OBJ) $(TEST_SUPPORT) $(TEST_HDR) \
                            $(HEADERS) $(BUILD)/flags $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit $< $(GEN_OBJ) \
	    $(TEST_SUPPORT) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) $(LIB_DEPS) $(LDFLAGS_ALL) -o $@

# The playground's door, built natively, links it and the layer it words with.
TEST_NAMES += test_playground
WEB_TEST_OBJ = $(TEACH_SRC:%.c=$(BUILD)/obj/%.o) $(WEB_SRC:%.c=$(BUILD)/obj/%.o)
$(BUILD)/tests/test_playground$(EXE): tests/unit/test_playground.c $(WEB_TEST_OBJ) $(TEST_SUPPORT) \
                                $(TEST_HDR) $(HEADERS) $(BUILD)/flags $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit $< \
	    $(WEB_TEST_OBJ) $(TEST_SUPPORT) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) $(LIB_DEPS) \
	    $(LDFLAGS_ALL) -o $@

# src/platform/files.h's test links the side this CC builds for.
TEST_NAMES += test_platform_files
PLATFORM_FILES_OBJ = $(BUILD)/obj/src/platform/files_$(PLATFORM).o $(BUILD)/obj/src/platform/files.o
$(BUILD)/tests/test_platform_files$(EXE): tests/unit/test_platform_files.c $(PLATFORM_FILES_OBJ) $(TEST_SUPPORT) \
                                    $(TEST_HDR) $(HEADERS) $(BUILD)/flags $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit $< \
	    $(PLATFORM_FILES_OBJ) $(TEST_SUPPORT) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) \
	    $(LIB_DEPS) $(LDFLAGS_ALL) -o $@

# Runs every test program of $(BUILD); the whole log is $(BUILD)/tests.log.
test: $(TEST_BIN) ## run the unit tests of one build (BUILD, CC, OPENMP, SANITIZE, EMULATOR)
	$(Q)ROUNDTRIP_DIR=$(BUILD)/roundtrip EMULATOR="$(EMULATOR)" sh scripts/check/run_tests.sh "$(BUILD)" $(BUILD)/tests.log \
	    $(BUILD)/tests.summary $(TEST_BIN)

check check-%: export WERROR = -Werror
# Every check's "N passed, N failed" (scripts/check/last_line.sh) is added up here.
check: export DMLREF_CHECK_TOTALS = $(CURDIR)/build/check.totals
# More threads than cores: an OpenMP thread that waits sleeps, where by
# default it spins on a core another step needs.
check: export OMP_WAIT_POLICY = passive
# make check judges dmlref alone: every build and platform leg, the DirectML
# leg, the vectors, the harness and the docs that show output.  No step of it
# asserts a timing (check-perf) or reruns another library (check-peers).
# First every build it judges is made (check-builds; scripts/setup.sh makes
# them too), so that its steps only read the builds; then the steps run
# CHECK_JOBS at a time, the longest first (the playground's, which mostly
# waits for a browser, among them), each to its end even when another fails.
# Much of a step waits (emulators, wine, a backend's time-outs), so two cores
# carry four.  The files that record how the default build was made are
# rewritten by recipes that run every time, and so is the playground; they are
# taken as they are (make -o), or a step waiting on one would see the steps
# after it take the free jobs (the longest step started last).  The harness's
# tests run in their quick mode (check-harness); the command's tests run once,
# in the sanitizers' build (check-cli-sanitized; make check-cli runs them in
# the default build).
CHECK_JOBS ?= 4
CHECK_STEPS = check-mingw check-cli-sanitized check-directml check-playground check-units \
              check-i686 check-harness-sanitized check-harness check-tsan check-s390x \
              check-sanitize fuzz-smoke check-packaging check-guides check-reports check-loaders \
              check-vectors check-cross check-schema check-memory check-style check-layers \
              check-noopenmp check-checkout check-rules check-example check-symbols
CHECK_PREREQUISITES = all backends $(TEST_BIN) $(FAULTY_FAST)/dmlref $(FAULTY_FAST)/test_random
check: ## judges dmlref: its builds (gcc+OpenMP, no OpenMP, ASan+UBSan, TSan) and platform legs, DirectML, the vectors, the harness, the docs
	$(Q)$(MAKE) --no-print-directory check-builds
	$(Q)rm -f build/check.totals
	$(Q)$(MAKE) --no-print-directory -k -j$(CHECK_JOBS) -o $(BUILD)/flags -o $(BUILD)/backends.names \
	    -o playground $(CHECK_STEPS)
	@cat build/tests.summary build/noopenmp/tests.summary \
	    build/sanitize/tests.summary build/tsan/tests.summary build/i686/tests.summary \
	    build/s390x/tests.summary build/mingw/tests.summary build/check.totals \
	    | awk '{p += $$1; f += $$2} END {print p " passed, " f " failed"}'

# The builds make check judges, two at a time: the default one first (the
# others' tests compare with its command and plug-ins).
check-builds: ## make every build make check runs (scripts/setup.sh does): the default one, ASan+UBSan, TSan, no OpenMP, i686, s390x, mingw-w64, the playground
	$(Q)$(MAKE) --no-print-directory -s -j2 $(CHECK_PREREQUISITES)
	$(Q)$(MAKE) --no-print-directory -s -j2 build-sanitized build-tsan build-noopenmp build-i686 \
	    build-s390x build-mingw playground
build-sanitized:
	$(Q)$(MAKE) --no-print-directory $(SANITIZED) test-programs
	$(Q)sh tests/fuzz/prepare.sh build/sanitize > build/sanitize/fuzz-prepare.log 2>&1 \
	    || { cat build/sanitize/fuzz-prepare.log; exit 1; }
build-tsan:
	$(Q)$(MAKE) --no-print-directory $(TSAN) test-programs
build-noopenmp:
	$(Q)$(MAKE) --no-print-directory $(NO_OPENMP) test-programs
build-i686:
	$(Q)$(MAKE) --no-print-directory CC="$(I686_CC)" BUILD=build/i686 leg-programs
build-s390x:
	$(Q)$(MAKE) --no-print-directory CC=$(S390X_CC) BUILD=build/s390x leg-programs
# The mingw-w64 build, then the wine prefixes of the Windows leg and of the
# DirectML leg where they are not made yet: wine makes one on first use (tens
# of seconds); the DirectML leg's canary runs as its prefix is made.
build-mingw: $(NODE_DEPS)
	$(Q)$(if $(filter build/deps/mingw,$(MINGW_DEPS)),sh scripts/build/build_deps.sh mingw build/deps)
	$(Q)$(MAKE) --no-print-directory CC=$(MINGW_CC) BUILD=build/mingw leg-programs
	$(Q)test -f build/mingw/wine/system.reg || sh scripts/check/with_wine.sh build/mingw/wine true
	$(Q)mkdir -p build/directml
	$(Q)test -f build/directml/wine/system.reg || sh scripts/check/directml_leg.sh true \
	    > build/directml/prefix.log 2>&1 || { cat build/directml/prefix.log; exit 1; }
# what one build's steps run: its unit tests and command; a leg's plug-ins too
test-programs: $(TEST_BIN) $(BUILD)/dmlref$(EXE)
leg-programs: test-programs
	$(Q)$(MAKE) --no-print-directory backends BACKENDS="$(LEG_BACKENDS)"

# The edit loop: one build, the quick modes of its unit tests and of the
# harness's tests (DMLREF_TEST_QUICK), one after another.
check-quick: export DMLREF_CHECK_TOTALS = $(CURDIR)/build/check-quick.totals
check-quick: export DMLREF_TEST_QUICK = 1
check-quick: ## the edit loop, under 3 minutes: the default build's unit tests, the vectors, the command line and the harness, in their quick modes
	$(Q)$(MAKE) --no-print-directory $(CHECK_PREREQUISITES)
	$(Q)rm -f build/check-quick.totals
	$(Q)$(MAKE) --no-print-directory test
	$(Q)$(MAKE) --no-print-directory check-vectors
	$(Q)$(MAKE) --no-print-directory check-cli
	$(Q)$(MAKE) --no-print-directory -j$(CHECK_JOBS) check-conformance
	@cat $(BUILD)/tests.summary build/check-quick.totals | awk '{p += $$1; f += $$2} END {print p " passed, " f " failed"}'

# Timings: what they measure depends on the machine and its load, so they are
# read, never a pass/fail step of make check.
check-perf: lib $(BUILD)/dmlref ## the timings: two builds side by side (check-ab-builds), then dmlref bench --quick
	$(Q)$(MAKE) --no-print-directory check-ab-builds
	$(Q)$(BUILD)/dmlref bench --quick

# The default build's unit tests, whole, and the element encodings they leave
# read back by Python and Node.
check-units:
	$(Q)$(MAKE) --no-print-directory test
	$(Q)$(MAKE) --no-print-directory check-roundtrip

# The harness's tests in their quick mode: every check, on the quick suite
# (tests/cli/lib.sh); the whole suite goes through a plug-in once here, and is
# verified and regenerated in every build.  test_check.sh runs in the
# sanitizers' build alone (check-harness-sanitized).  make check-conformance
# runs the five tests whole, in one build.
check-harness:
	$(Q)DMLREF_TEST_QUICK=1 $(MAKE) --no-print-directory \
	    $(filter-out check-conformance-check,$(HARNESS_TESTS))
	$(Q)$(SUMMARY) "dmlref check --backend reference.so, the whole suite" $(BUILD)/check-reference.log \
	    sh tests/cli/whole_suite.sh check $(BUILD)/dmlref $(BUILD)/backends/reference.so

# The command under the sanitizers: its tests, and the harness's with
# misbehaving processes in their quick mode (the sanitizers look at the same
# code paths; the whole suite is judged in the default build).
check-cli-sanitized:
	$(Q)$(MAKE) --no-print-directory check-cli $(SANITIZED)
check-harness-sanitized:
	$(Q)ASAN_OPTIONS=detect_leaks=1 DMLREF_TEST_QUICK=1 $(SUMMARY) "dmlref check with misbehaving processes (build/sanitize, quick)" \
	    build/sanitize/check.log sh tests/cli/test_check.sh build/sanitize/dmlref build/backends

check-clang: ## the tests built with clang -fopenmp -O2 (not in make check: its sanitizer builds are clang's)
	$(Q)DMLREF_TEST_QUICK=1 $(MAKE) --no-print-directory test CC=clang BUILD=build/clang

NO_OPENMP = OPENMP= BUILD=build/noopenmp CFLAGS=-DDMLREF_NO_AVX2
check-noopenmp: ## the tests built without OpenMP, and with the strict pass's SSE2 loop, not its AVX2 one
	$(Q)DMLREF_TEST_QUICK=1 $(MAKE) --no-print-directory test $(NO_OPENMP)

# ASan and UBSan, with libFuzzer's coverage instrumentation: the libFuzzer
# targets of fuzz-smoke link this build's library (tests/fuzz/common.sh).
SANITIZED = CC=clang BUILD=build/sanitize OPT="-O1 -g" \
    SANITIZE="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -fsanitize=fuzzer-no-link"
check-sanitize: ## the tests under AddressSanitizer and UndefinedBehaviorSanitizer
	$(Q)ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	    LSAN_OPTIONS=suppressions=$(CURDIR)/tests/unit/lsan.supp DMLREF_TEST_QUICK=1 \
	    $(MAKE) --no-print-directory test $(SANITIZED)

# LLVM's OpenMP tool that tells ThreadSanitizer about parallel regions (libomp-dev)
ARCHER ?= $(firstword $(wildcard /usr/lib/llvm-*/lib/libarcher.so))

TSAN = CC=clang BUILD=build/tsan OPT="-O1 -g" SANITIZE="-fsanitize=thread"
check-tsan: ## the tests under ThreadSanitizer (clang, libomp and its Archer tool): no data races
	$(Q)test -n "$(ARCHER)" || { echo "check-tsan: libarcher.so not found (libomp-dev)"; exit 1; }
	$(Q)OMP_TOOL_LIBRARIES=$(ARCHER) DMLREF_TEST_QUICK=1 \
	    TSAN_OPTIONS="halt_on_error=1 suppressions=$(CURDIR)/tests/unit/tsan.supp" \
	    $(MAKE) --no-print-directory test $(TSAN)

check-ab-builds: lib ## scripts/report/ab_builds.sh times two builds side by side: the same one near 1, an unoptimised one well above (a timing: not in make check)
	$(Q)$(SUMMARY) "scripts/report/ab_builds.sh, two builds side by side" $(BUILD)/ab-builds.log \
	    sh tests/cli/test_ab_builds.sh $(BUILD)/libdmlref.a

check-rules: ## every rule id and decision of docs/rules.md is named by a test
	$(Q)sh scripts/check/check_rule_coverage.sh

check-layers: all ## every include and call goes along the layers (HACKING.md); the check fails on each kind of breach
	$(Q)sh scripts/check/check_layers.sh $(BUILD)
	$(Q)$(SUMMARY) "layering check against breaches" $(BUILD)/layers.log sh tests/cli/test_layers.sh

check-style: ## the C files as .clang-format says, every text file as .editorconfig says (sh scripts/check/check_style.sh --fix formats)
	$(Q)sh scripts/check/check_style.sh

check-example: lib ## the README's example prints what README.md says, linked statically (dmlref.h alone: no JSON or hash library) and from the build tree
	@mkdir -p $(BUILD)/examples
	$(Q)$(CC) -std=c99 -pedantic $(WARNINGS) $(OPENMP) -Iinclude docs/examples/gather_elements.c \
	    $(BUILD)/libdmlref.a -lm $(LDFLAGS_ALL) -o $(BUILD)/examples/gather_elements
	$(Q)$(BUILD)/examples/gather_elements | diff -u docs/examples/gather_elements.expected -
	$(Q)$(CC) -std=c99 -pedantic $(WARNINGS) -Iinclude docs/examples/gather_elements.c \
	    -L$(BUILD) -ldmlref $(LDFLAGS) -o $(BUILD)/examples/gather_elements_shared
	$(Q)LD_LIBRARY_PATH=$(BUILD) $(BUILD)/examples/gather_elements_shared \
	    | diff -u docs/examples/gather_elements.expected -
	$(Q)if [ -f build/setup.line ] && ! grep -qxF "$$(cat build/setup.line)" README.md; then \
	    echo "check-example: README.md does not show the line scripts/setup.sh printed: $$(cat build/setup.line)"; \
	    exit 1; fi
	@echo "check-example: docs/examples/gather_elements.c prints the expected output (static with no JSON or hash library, and -L$(BUILD) -ldmlref)$(if $(wildcard build/setup.line),; README.md shows the line scripts/setup.sh printed)"

check-symbols: lib ## every global symbol of the libraries starts with dmlref_
	$(Q)bad=$$( (nm -g --defined-only $(BUILD)/libdmlref.a; nm -D --defined-only $(BUILD)/libdmlref.so) \
	    | awk 'NF == 3 {print $$3}' | grep -v '^dmlref_' | sort -u); \
	if [ -n "$$bad" ]; then echo "check-symbols: not in the dmlref_ namespace: $$bad" >&2; exit 1; fi
	@echo "check-symbols: every global symbol starts with dmlref_"

# The suite's own files under vectors/ (FORMAT.md and schema.json are written by hand).
SUITE_DIRS = gather_elements scatter_elements gather_nd gather_nd1 nonzero_coordinates
SUITE_FILES = MANIFEST README.md $(SUITE_DIRS)

# gen writes into a new folder only, and vectors/ keeps the hand-written files:
# the suite is made beside it, then its entries replace the old ones.
vectors: $(BUILD)/dmlref ## regenerate the golden suite under vectors/
	$(Q)rm -rf $(BUILD)/vectors-new
	$(Q)$(BUILD)/dmlref gen --out $(BUILD)/vectors-new
	$(Q)rm -rf $(SUITE_FILES:%=vectors/%)
	$(Q)mv $(SUITE_FILES:%=$(BUILD)/vectors-new/%) vectors/
	$(Q)rmdir $(BUILD)/vectors-new

check-vectors: $(BUILD)/dmlref ## the suite regenerates byte for byte, and verifies
	$(Q)rm -rf $(BUILD)/vectors-regen
	$(Q)$(BUILD)/dmlref gen --out $(BUILD)/vectors-regen > /dev/null
	$(Q)diff -r -q -x FORMAT.md -x schema.json vectors $(BUILD)/vectors-regen \
	    || { echo "check-vectors: the committed suite differs from dmlref gen (make vectors)" >&2; exit 1; }
	@echo "check-vectors: dmlref gen reproduces the committed suite byte for byte"
	$(Q)$(SUMMARY) "dmlref verify vectors" $(BUILD)/verify.log $(BUILD)/dmlref verify vectors
	$(Q)$(SUMMARY) "dmlref verify --kernels fast vectors" $(BUILD)/verify-fast.log \
	    $(BUILD)/dmlref verify --kernels fast vectors

check-checkout: $(BUILD)/dmlref ## a Windows-style checkout (core.autocrlf=true) keeps the suite byte for byte (.gitattributes)
	$(Q)$(SUMMARY) "checkout with core.autocrlf=true" $(BUILD)/checkout.log \
	    sh tests/cli/test_checkout.sh $(BUILD)/dmlref

PYTHON = /usr/bin/python3
SUMMARY = sh scripts/check/last_line.sh

check-memory: $(BUILD)/dmlref ## eval and verify of a generated case of each operator peak below 1.1x its tensors' bytes
	$(Q)$(SUMMARY) "peak memory of eval and verify, 64 MiB cases" $(BUILD)/memory.log \
	    $(PYTHON) scripts/report/bench_memory.py --dmlref $(BUILD)/dmlref --mib 64 --limit 1.1

check-loaders: $(BUILD)/dmlref ## the Python and JavaScript loaders: their own tests, and every vector
	$(Q)$(SUMMARY) "Python loader example" $(BUILD)/loader-doctest.log \
	    $(PYTHON) -m doctest -v scripts/loaders/dmlref_vectors.py
	$(Q)$(SUMMARY) "Python loader self-test" $(BUILD)/loader-py.log \
	    $(PYTHON) scripts/loaders/dmlref_vectors.py selftest
	$(Q)$(SUMMARY) "Python loader: hostile files and vectors, caps, -0" $(BUILD)/loader-hostile.log \
	    $(PYTHON) tests/cross/test_loader.py --dmlref $(BUILD)/dmlref
	$(Q)$(SUMMARY) "JavaScript loader" $(BUILD)/loader-js.log node tests/cross/test_loader.mjs
	$(Q)$(SUMMARY) "JavaScript loader over vectors/" $(BUILD)/loader-js-vectors.log \
	    node tests/cross/test_loader.mjs vectors

# ONNX Runtime for Node.js, which the example backend onnx_backend.py runs and
# the exported ONNX tests run under: from npm's registry, into
# conformance/backends/peers/node_modules (pinned by conformance/backends/peers/package-lock.json).
# Its install script would fetch CUDA's libraries; it is not needed.
NODE_DEPS = conformance/backends/peers/node_modules/.package-lock.json
$(NODE_DEPS): conformance/backends/peers/package.json conformance/backends/peers/package-lock.json
	$(Q)ONNXRUNTIME_NODE_INSTALL_CUDA=skip npm ci --prefix conformance/backends/peers --no-audit --no-fund \
	    --loglevel=error

node-deps: $(NODE_DEPS) ## install the example backends' npm packages (conformance/backends/peers/node_modules)

check-reports: ## docs/conformance/: every report names its suite and adds up to it; the matrix is what the reports give, stale columns marked (no backend is run)
	$(Q)mkdir -p $(BUILD)
	$(Q)$(SUMMARY) "conformance reports (docs/conformance/)" $(BUILD)/reports.log \
	    $(PYTHON) scripts/report/conformance_reports.py check
	$(Q)$(SUMMARY) "conformance matrix (docs/conformance/README.md, matrix.json, matrix.svg)" $(BUILD)/matrix.log \
	    $(PYTHON) scripts/report/conformance_matrix.py check
	$(Q)$(SUMMARY) "the matrix on a grown suite (tests/cross/test_matrix.py)" $(BUILD)/matrix-test.log \
	    $(PYTHON) tests/cross/test_matrix.py

check-peers: $(BUILD)/dmlref $(NODE_DEPS) ## the CPU peers (NumPy, ONNX Runtime for Node.js) rerun: their summaries are what they give today; then check-onnx-export
	$(Q)$(SUMMARY) "the CPU peers rerun (docs/conformance/numpy, onnxruntime-node)" $(BUILD)/peers.log \
	    $(PYTHON) scripts/report/conformance_reports.py rerun --dmlref $(BUILD)/dmlref --cases $(BUILD)/conformance
	$(Q)$(MAKE) --no-print-directory check-onnx-export

check-onnx-export: $(NODE_DEPS) ## vectors/ as ONNX node tests (scripts/loaders/export_onnx.py): each states its vector, ONNX Runtime passes it, docs/onnx.md's counts
	$(Q)$(SUMMARY) "ONNX node tests exported from vectors/" $(BUILD)/onnx-export.log \
	    $(PYTHON) tests/cross/test_onnx_export.py --out $(BUILD)/onnx-tests

conformance-reports: $(BUILD)/dmlref $(NODE_DEPS) ## rewrite docs/conformance/'s summaries of the CPU backends (their per-case reports into BUILD/conformance/), then the matrix
	$(Q)$(PYTHON) scripts/report/conformance_reports.py write --dmlref $(BUILD)/dmlref --cases $(BUILD)/conformance
	$(Q)$(PYTHON) scripts/report/conformance_matrix.py write

# The test runs make install (a make of its own: +).  The build is made by a
# make of its own too: both take WERROR from the environment, so their flags
# agree and make install builds nothing again.
check-packaging: ## the loaders as pip and npm packages, make install's CMake package and pkg-config file, each used away from the repository
	$(Q)$(MAKE) --no-print-directory all
	+$(Q)$(SUMMARY) "packaging: pip, npm, CMake, pkg-config" $(BUILD)/packaging.log \
	    sh tests/cross/test_packaging.sh $(BUILD)

check-schema: ## vectors/schema.json: every vector validates, every malformed file fails it (python3-jsonschema)
	$(Q)$(PYTHON) -c 'import jsonschema' 2>/dev/null || { echo "check-schema: FAILED:" \
	    "$(PYTHON) cannot import jsonschema (Debian: python3-jsonschema; sh scripts/build/install_deps.sh)" >&2; \
	    exit 1; }
	$(Q)$(SUMMARY) "JSON Schema" $(BUILD)/schema.log $(PYTHON) tests/cross/test_schema.py

# The element encodings written by dmlref (tests/unit/test_roundtrip.c leaves the
# vectors and raw patterns in build/roundtrip) read back by Python and Node.
# Each vector gathers its input whole, so its expected output is its input's
# text again: the readers take OutputTensor.expected, and its digest.
ROUNDTRIP_SETS = float16_all float32_random float64_random int64_extremes uint64_extremes
$(BUILD)/roundtrip/float16_all.json: $(BUILD)/tests/test_roundtrip
	$(Q)mkdir -p $(BUILD)/roundtrip && ROUNDTRIP_DIR=$(BUILD)/roundtrip $(BUILD)/tests/test_roundtrip \
	    > $(BUILD)/roundtrip/write.log 2>&1 || { cat $(BUILD)/roundtrip/write.log; exit 1; }

check-roundtrip: $(BUILD)/roundtrip/float16_all.json ## Python's json and Node's JSON.parse read dmlref's bits back exactly
	$(Q)set -e; for s in $(ROUNDTRIP_SETS); do \
	    $(SUMMARY) "round trip $$s, Python" $(BUILD)/roundtrip/$$s.py.log \
	        $(PYTHON) tests/cross/roundtrip.py $(BUILD)/roundtrip/$$s.json $(BUILD)/roundtrip/$$s.bin \
	        OutputTensor.expected; \
	    $(SUMMARY) "round trip $$s, Node" $(BUILD)/roundtrip/$$s.node.log \
	        node tests/cross/roundtrip.mjs $(BUILD)/roundtrip/$$s.json $(BUILD)/roundtrip/$$s.bin \
	        OutputTensor.expected; \
	done

check-cross: $(BUILD)/dmlref ## independent cross-checks: the numpy model, ONNX's node tests
	$(Q)$(SUMMARY) "numpy model over vectors/" $(BUILD)/model.log $(PYTHON) tests/cross/model.py vectors
	$(Q)$(SUMMARY) "ONNX node tests" $(BUILD)/onnx.log \
	    $(PYTHON) tests/cross/onnx_node_tests.py --dmlref $(BUILD)/dmlref

check-cli: $(BUILD)/dmlref ## the command end to end, dmlref show, its files and walks, and every malformed vector of tests/cli/malformed
	$(Q)$(SUMMARY) "command line ($(BUILD))" $(BUILD)/cli.log sh tests/cli/test_cli.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "dmlref show ($(BUILD))" $(BUILD)/show.log sh tests/cli/test_show.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "files and walks ($(BUILD))" $(BUILD)/files.log sh tests/cli/test_files.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "malformed vectors ($(BUILD))" $(BUILD)/malformed.log \
	    sh tests/cli/test_malformed.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "dmlref bench ($(BUILD))" $(BUILD)/bench.log sh tests/cli/test_bench.sh $(BUILD)
	$(Q)$(SUMMARY) "dmlref explain ($(BUILD))" $(BUILD)/explain.log sh tests/cli/test_explain.sh $(BUILD)/dmlref

# The guides' `dmlref explain` and `dmlref show` blocks run and compared with
# the real command (sh scripts/check/check_guides.sh --fix $(BUILD)/dmlref rewrites
# them), after the checker has shown it fails on wrong pages.
check-guides: $(BUILD)/dmlref ## every explain and show block of docs/operators/ prints what the page says, and every vector it names exists; the peer comparison pages are what their runs give
	$(Q)$(SUMMARY) "check_guides.sh against wrong pages" $(BUILD)/guides-test.log sh tests/cli/test_guides.sh
	$(Q)$(SUMMARY) "guides (docs/operators/)" $(BUILD)/guides.log sh scripts/check/check_guides.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "peer comparisons (docs/performance/)" $(BUILD)/peer-reports.log sh scripts/check/check_peer_reports.sh
	$(Q)$(SUMMARY) "every count a page states (scripts/check/check_counts.sh), and against doctored pages" $(BUILD)/counts.log sh tests/cli/test_counts.sh

# build.sh takes CC from the environment (make exports a CC set on its command
# line) and, for mingw-w64, the folder of the libraries built for it.  The stamp
# keeps plug-ins that are up to date from being written again while the lanes
# of make check load them.
# BACKENDS names some of them (all when empty).
BACKENDS ?=
backends: $(BUILD)/backends.stamp ## the conformance plug-ins: the reference, a naive one and its faulty variants
$(BUILD)/backends.stamp: $(BUILD)/libdmlref.a $(wildcard conformance/backends/*) $(HEADERS) $(BUILD)/flags \
                         $(BUILD)/backends.names
	$(Q)$(if $(filter windows,$(PLATFORM)),MINGW_DEPS=$(abspath $(MINGW_DEPS))) \
	    sh conformance/backends/build.sh $(BUILD) $(BACKENDS) > /dev/null
	$(Q)touch $@
$(BUILD)/backends.names: FORCE
	@mkdir -p $(BUILD)
	@echo '$(BACKENDS)' | cmp -s - $@ || echo '$(BACKENDS)' > $@

# A deliberately faulty fast kernel (tests/unit/faulty_fast_kernel.c) linked ahead of
# libdmlref.a, so that the archive's own member is not pulled in: a dmlref command
# and a test_random that make check-conformance expects to catch it.  The wrap lets
# the kernel tell a call that selects the fast kernels from one that does not.
FAULTY_FAST = $(BUILD)/faulty-fast
FAULTY_OBJ = $(BUILD)/obj/tests/unit/faulty_fast_kernel.o
FAULTY_LINK = -Wl,--wrap=dmlref_execute_with_options

$(FAULTY_FAST)/dmlref: $(CLI_OBJ) $(CASES_OBJ) $(FAULTY_OBJ) $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CLI_OBJ) $(CASES_OBJ) $(FAULTY_OBJ) $(BUILD)/libdmlref.a $(LIB_DEPS) $(PLATFORM_LIBS) $(FAULTY_LINK) \
	    $(LDFLAGS_ALL) -o $@

$(FAULTY_FAST)/test_random: tests/unit/test_random.c $(GEN_OBJ) $(TEST_SUPPORT) $(TEST_HDR) $(HEADERS) \
                            $(FAULTY_OBJ) $(BUILD)/libdmlref.a
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS_ALL) -D_POSIX_C_SOURCE=200809L $(CMOCKA_CFLAGS) -Itests/unit $< $(GEN_OBJ) $(TEST_SUPPORT) \
	    $(FAULTY_OBJ) $(BUILD)/libdmlref.a $(CMOCKA_LIBS) $(LIB_DEPS) $(FAULTY_LINK) \
	    $(LDFLAGS_ALL) -o $@

# Five tests, side by side under make -j (much of them waits for a backend's
# time-out).
HARNESS_PROGRAMS = $(BUILD)/dmlref backends $(FAULTY_FAST)/dmlref $(FAULTY_FAST)/test_random
HARNESS_TESTS = check-conformance-backends check-conformance-check check-conformance-process \
                check-conformance-isolation check-conformance-fuzz
check-conformance: $(HARNESS_TESTS) ## dmlref check catches every faulty backend, survives crashes and hangs; fuzz catches a faulty fast kernel
check-conformance-backends: $(HARNESS_PROGRAMS)
	$(Q)$(SUMMARY) "faulty backends" $(BUILD)/backends.log \
	    sh tests/cli/test_backends.sh $(BUILD)/dmlref $(BUILD)/backends
check-conformance-check: $(HARNESS_PROGRAMS)
	$(Q)$(SUMMARY) "dmlref check with misbehaving processes" $(BUILD)/check.log \
	    sh tests/cli/test_check.sh $(BUILD)/dmlref
check-conformance-process: $(HARNESS_PROGRAMS)
	$(Q)$(SUMMARY) "dmlref check with the process backend in C" $(BUILD)/process.log \
	    sh tests/cli/test_process_backend.sh $(BUILD)/dmlref $(BUILD)/backends
check-conformance-isolation: $(HARNESS_PROGRAMS)
	$(Q)$(SUMMARY) "dmlref check contains hostile backends" $(BUILD)/isolation.log \
	    sh tests/cli/test_isolation.sh $(BUILD)/dmlref $(BUILD)/backends
check-conformance-fuzz: $(HARNESS_PROGRAMS)
	$(Q)$(SUMMARY) "dmlref fuzz" $(BUILD)/fuzz.log \
	    sh tests/cli/test_fuzz.sh $(BUILD)/dmlref $(BUILD)/backends $(FAULTY_FAST)

check-valgrind: ## every unit test program (built without OpenMP) under valgrind memcheck; slow, not in check
	$(Q)$(MAKE) --no-print-directory OPENMP= BUILD=build/noopenmp $(TEST_NAMES:%=build/noopenmp/tests/%)
	$(Q)set -e; for t in $(TEST_NAMES); do \
	    DMLREF_TEST_QUICK=1 ROUNDTRIP_DIR=build/noopenmp/roundtrip valgrind --error-exitcode=99 \
	        --leak-check=full --errors-for-leak-kinds=definite -q build/noopenmp/tests/$$t \
	        > build/noopenmp/$$t.valgrind.log 2>&1; \
	    echo "valgrind $$t: clean"; \
	done

FUZZ_SECONDS ?= 5
fuzz-smoke: export WERROR = -Werror
fuzz-smoke: ## the libFuzzer targets of tests/fuzz under ASan and UBSan (the build/sanitize library), FUZZ_SECONDS each
	$(Q)$(SUMMARY) "libFuzzer, $(FUZZ_SECONDS) s a target" build/fuzz-smoke.log \
	    sh tests/fuzz/run_smoke.sh build/sanitize $(FUZZ_SECONDS)

# ---- The platform legs (HACKING.md, "Platforms") ----
# The suite on three other machines: 32-bit x86 (i686), big-endian s390x and
# Windows x86-64 (mingw-w64).  Each leg builds with its compiler into build/LEG
# and runs the programs there natively or under an emulator (EMULATOR): the unit
# tests, dmlref verify of the whole suite, dmlref gen byte for byte, and dmlref
# check of the reference plug-in built for that machine (tests/cli/whole_suite.sh
# fails each step that does not handle every vector of vectors/MANIFEST).

# Debian's gcc-multilib, which links /usr/include/asm, conflicts with the cross
# compilers; gcc-12-multilib does not, and the kernel's x86 headers serve both widths.
I686_CC = gcc -m32 -idirafter /usr/include/x86_64-linux-gnu
S390X_CC = s390x-linux-gnu-gcc
MINGW_CC = x86_64-w64-mingw32-gcc
MINGW_DEPS ?= build/deps/mingw
WINE ?= /usr/lib/wine/wine64
PLUGIN = $(if $(filter windows,$(PLATFORM)),.dll,.so)
# dmlref as the tests run it: itself, or a script that runs it under EMULATOR
LEG_DMLREF = $(if $(EMULATOR),$(BUILD)/run/dmlref,$(BUILD)/dmlref$(EXE))

# The legs run side by side, LEG_JOBS programs at a time (their emulated tests
# are mostly one thread each); each leg's lines come out together when it ends, and
# a leg that fails stops no other.
LEG_JOBS ?= $(shell nproc 2>/dev/null || echo 2)

check-platforms: $(BUILD)/dmlref backends ## the platform legs side by side: check-i686, check-s390x, check-mingw
	$(Q)$(MAKE) --no-print-directory -k -j$(LEG_JOBS) --output-sync=recurse check-mingw check-s390x check-i686

# A kernel without 32-bit x86 support (some virtual machines) runs the leg under qemu-i386.
check-i686: $(BUILD)/dmlref backends ## the platform leg on 32-bit x86 (gcc -m32), natively or under qemu-i386
	$(Q)mkdir -p build/i686
	$(Q)echo 'int main(void) { return 0; }' | $(I686_CC) -x c - -o build/i686/probe
	$(Q)if build/i686/probe 2>/dev/null; then emulator=; else emulator=qemu-i386; \
	    echo "check-i686: this kernel runs no 32-bit x86 program: the leg runs under $$emulator"; fi; \
	    $(MAKE) --no-print-directory check-leg CC="$(I686_CC)" BUILD=build/i686 EMULATOR=$$emulator

check-s390x: $(BUILD)/dmlref backends ## the platform leg on big-endian s390x (s390x-linux-gnu-gcc), under qemu-s390x
	$(Q)$(MAKE) --no-print-directory check-leg CC=$(S390X_CC) BUILD=build/s390x EMULATOR=qemu-s390x

# jansson, xxHash and cmocka for mingw-w64, built from Debian's sources once per
# source version (scripts/build/build_deps.sh); MINGW_DEPS=DIR names a folder built otherwise.
check-mingw: $(BUILD)/dmlref backends ## the platform leg on Windows x86-64 (mingw-w64), under wine
	$(Q)$(if $(filter build/deps/mingw,$(MINGW_DEPS)),sh scripts/build/build_deps.sh mingw build/deps)
	$(Q)sh scripts/check/with_wine.sh build/mingw/wine $(MAKE) --no-print-directory check-mingw-leg \
	    CC=$(MINGW_CC) BUILD=build/mingw EMULATOR=$(WINE)

# DirectML itself (docs/directml.md): the DirectML.dll of `make node-deps`
# under wine, on vkd3d and the lavapipe of scripts/check/directml_stack.sh, behind
# the process backend conformance/backends/directml_process.c (built for
# mingw-w64 beside the Windows leg's plug-ins); the verdict on a doctored
# report, the leg's pin and canary, then the whole suite.
check-directml: $(BUILD)/dmlref $(NODE_DEPS) ## the suite through the real DirectML.dll, under wine; the leg fails when DirectML computes nothing, the DLL is not the pinned one, or a difference is not listed
	$(Q)$(if $(filter build/deps/mingw,$(MINGW_DEPS)),sh scripts/build/build_deps.sh mingw build/deps)
	$(Q)$(MAKE) --no-print-directory CC=$(MINGW_CC) BUILD=build/mingw leg-programs
	$(Q)mkdir -p build/directml
	$(Q)$(SUMMARY) "the DirectML verdict on doctored reports" build/directml/verdict.log \
	    sh tests/cross/test_directml_verdict.sh
	$(Q)$(SUMMARY) "the DirectML leg: its pin and canary" build/directml/leg.log \
	    sh tests/cross/test_directml_leg.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "the suite and dmlref fuzz through DirectML 1.15.4 on lavapipe" \
	    build/directml/suite.log sh scripts/check/directml_suite.sh $(BUILD)/dmlref
	$(Q)$(SUMMARY) "docs/directml.md shows what the leg prints" build/directml/page.log \
	    sh tests/cross/test_directml_page.sh build/directml/suite.log

# The plug-ins a leg runs: tests/cli/test_leg_commands.sh's; the Windows leg's
# tests/cli/test_same_verdicts.sh and tests/cli/test_process_backend.sh take more,
# and check-directml its process backend.
LEG_BACKENDS = reference faulty_ignores_strides $(if $(filter windows,$(PLATFORM)),naive hostile \
               faulty_crashes_on_rank_8 faulty_hangs_on_scatter_duplicates faulty_writes_past_output \
               faulty_writes_into_input reference_process directml_process)

# Under wine (scripts/check/with_wine.sh): the leg, then what only Windows does its own
# way: children, pipes, shared memory and faults (src/platform/*_windows.c),
# judged against the Linux build of the same plug-ins, and the process backend (its
# tests in their quick mode: each wine start is slow, and the default build
# runs them whole).
# The verdicts of Linux come last, with less beside them: one of its plug-ins
# writes 50 ms late, which a run must still see while its next case runs.
check-mingw-leg: check-leg leg-process-backend
	$(Q)$(MAKE) --no-print-directory leg-same-verdicts
leg-same-verdicts: leg-runner
	$(Q)$(SUMMARY) "the verdicts of Linux, plug-ins that misbehave ($(BUILD))" $(BUILD)/same-verdicts.log \
	    sh tests/cli/test_same_verdicts.sh build/dmlref build/backends $(LEG_DMLREF) $(BUILD)/backends
leg-process-backend: leg-runner
	$(Q)DMLREF_TEST_QUICK=1 $(SUMMARY) "dmlref check --exec reference_process.exe ($(BUILD), quick)" \
	    $(BUILD)/process-backend.log sh tests/cli/test_process_backend.sh $(LEG_DMLREF) $(BUILD)/backends

# One leg, with CC, BUILD and EMULATOR as check-i686, check-s390x or check-mingw
# set them; its steps side by side under make -j (they only read the build).
LEG_STEPS = leg-tests leg-verify leg-gen leg-check leg-commands
check-leg: $(LEG_STEPS)
leg-runner: leg-programs
	$(Q)if [ -n "$(EMULATOR)" ]; then mkdir -p $(BUILD)/run && \
	    printf '#!/bin/sh\n# dmlref of $(BUILD) under $(EMULATOR) (make check-leg)\nexec %s %s "$$@"\n' \
	        "$(EMULATOR)" "$(abspath $(BUILD))/dmlref$(EXE)" >$(BUILD)/run/dmlref && \
	    chmod +x $(BUILD)/run/dmlref; fi
leg-tests: leg-runner
	$(Q)DMLREF_TEST_QUICK=1 $(MAKE) --no-print-directory test
leg-verify: leg-runner
	$(Q)$(SUMMARY) "dmlref verify vectors ($(BUILD))" $(BUILD)/verify.log \
	    sh tests/cli/whole_suite.sh verify $(LEG_DMLREF)
leg-gen: leg-runner
	$(Q)$(SUMMARY) "dmlref gen, byte for byte ($(BUILD))" $(BUILD)/gen.log \
	    sh tests/cli/whole_suite.sh gen $(LEG_DMLREF) $(BUILD)/vectors-regen
leg-check: leg-runner
	$(Q)$(SUMMARY) "dmlref check --backend reference$(PLUGIN) ($(BUILD))" $(BUILD)/check-reference.log \
	    sh tests/cli/whole_suite.sh check $(LEG_DMLREF) $(BUILD)/backends/reference$(PLUGIN)
leg-commands: leg-runner
	$(Q)$(SUMMARY) "eval, show, explain, fuzz and bench beside Linux's ($(BUILD))" $(BUILD)/commands.log \
	    sh tests/cli/test_leg_commands.sh $(LEG_DMLREF) $(BUILD)/backends build/dmlref build/backends

deps: ## install the Debian packages the build needs (as root)
	$(Q)sh scripts/build/install_deps.sh

# The CMake package finds the library and headers from its own folder
# (scripts/build/cmake/), so an installed tree may move; it refuses a project of
# another pointer size.
CMAKE_PACKAGE = dmlrefConfig dmlrefConfigVersion
POINTER_SIZE = $(shell echo __SIZEOF_POINTER__ | $(CC) -E -P -x c - | tr -d ' \n')

install: lib $(BUILD)/dmlref ## install the library, headers, command, pkg-config file and CMake package (PREFIX, DESTDIR)
	install -d $(DESTDIR)$(libdir) $(DESTDIR)$(includedir) $(DESTDIR)$(pkgconfigdir) $(DESTDIR)$(cmakedir)
	install -m 644 $(BUILD)/libdmlref.a $(DESTDIR)$(libdir)/libdmlref.a
	install -m 755 $(BUILD)/libdmlref.so $(DESTDIR)$(libdir)/libdmlref.so.$(VERSION)
	ln -sf libdmlref.so.$(VERSION) $(DESTDIR)$(libdir)/libdmlref.so.$(MAJOR)
	ln -sf libdmlref.so.$(MAJOR) $(DESTDIR)$(libdir)/libdmlref.so
	install -d $(DESTDIR)$(includedir)/dmlref $(DESTDIR)$(bindir)
	install -m 644 include/dmlref.h $(DESTDIR)$(includedir)/dmlref.h
	install -m 644 include/dmlref/vector.h include/dmlref/backend.h $(DESTDIR)$(includedir)/dmlref/
	install -m 755 $(BUILD)/dmlref $(DESTDIR)$(bindir)/dmlref
	printf '%s\n' 'prefix=$(prefix)' 'libdir=$(libdir)' 'includedir=$(includedir)' '' \
	    'Name: dmlref' \
	    'Description: reference implementation of DirectML indexing operators' \
	    'Version: $(VERSION)' 'Cflags: -I$${includedir}' 'Libs: -L$${libdir} -ldmlref' \
	    'Requires.private: jansson libxxhash' 'Libs.private: $(OPENMP) -lm' \
	    > $(DESTDIR)$(pkgconfigdir)/dmlref.pc
	for f in $(CMAKE_PACKAGE); do \
	    sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' -e 's|@OPENMP@|$(OPENMP)|g' \
	        -e 's|@POINTER_SIZE@|$(POINTER_SIZE)|g' \
	        -e 's|@LIBDIR@|$(shell realpath -m -s --relative-to=$(cmakedir) $(libdir))|g' \
	        -e 's|@INCLUDEDIR@|$(shell realpath -m -s --relative-to=$(cmakedir) $(includedir))|g' \
	        scripts/build/cmake/$$f.cmake.in > $(DESTDIR)$(cmakedir)/$$f.cmake || exit 1; \
	done

uninstall: ## remove what install put in place
	rm -f $(DESTDIR)$(libdir)/libdmlref.a $(DESTDIR)$(libdir)/libdmlref.so* \
	      $(DESTDIR)$(includedir)/dmlref.h $(DESTDIR)$(includedir)/dmlref/vector.h \
	      $(DESTDIR)$(includedir)/dmlref/backend.h \
	      $(DESTDIR)$(bindir)/dmlref $(DESTDIR)$(pkgconfigdir)/dmlref.pc \
	      $(CMAKE_PACKAGE:%=$(DESTDIR)$(cmakedir)/%.cmake)
	rmdir $(DESTDIR)$(includedir)/dmlref $(DESTDIR)$(cmakedir) 2>/dev/null || true

clean: ## remove build/ and the playground's generated files
	rm -rf build $(PLAYGROUND_DIR)

help: ## list the targets
	@echo "dmlref $(VERSION) - targets:"
	@grep -E '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | sed 's/:.*## /\t/' | expand -t 18 | sed 's/^/  /'
