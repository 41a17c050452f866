# ips2 top-level build.  Non-recursive: each part contributes a module.mk
# fragment that appends to the variables below.  Everything lands in build/:
#   build/bin  build/lib  build/include  build/obj  build/tcl
# `make` builds with warnings as errors; `make check` runs every test and ends
# with one line "N passed, N failed"; `make demo` runs the bundled workload.

PREFIX  ?= /usr/local
DESTDIR ?=
CC      ?= cc
CLANG   ?= clang
B       := build
# A build directory named by its absolute path inside the tree (the tests
# run `make B=$IPS2_BUILD ...`) is the same one named relatively: objects
# and their dependency files must keep one name, or the dependencies
# written by one make are not seen by the other.
override B := $(patsubst $(CURDIR)/%,%,$(B))
OPT     ?= -O2
# Sanitizer flags for every compile and link (`make check-asan` sets them
# for its own build directory; see there).
SANITIZE ?=
ifneq ($(strip $(SANITIZE)),)
CC := $(CC) $(SANITIZE)
endif

WARN     := -Wall -Wextra -Werror -Wshadow -Wno-unused-parameter
# Parts see each other only through the public headers their module.mk
# copies into $(B)/include; a part adds its own folder to its CFLAGS_<dir>.
CFLAGS_COMMON := -std=c11 -D_GNU_SOURCE $(OPT) -g $(WARN) -I$(B)/include
LDLIBS_COMMON :=

# Filled by the module.mk fragments.
PROGRAMS   :=
LIBRARIES  :=
HEADERS    :=
TEST_BINS  :=
CLEAN_EXTRA:=

SETUP_STAMP := $(B)/.setup-done

.PHONY: all setup check check-asan demo bench fuzz install clean format
all:

# The parts in the order of their dependencies: each module.mk owns its
# targets and uses the libraries and public headers of the ones before it.
include tests/fuzz/fuzz.mk
include traces/module.mk
include instr/module.mk
include collectors/module.mk
include cpa/module.mk
include slave/module.mk
include master/module.mk
include export/module.mk
include tests/module.mk
include bench/module.mk
include examples/module.mk
include tk/module.mk

all: $(PROGRAMS) $(LIBRARIES) $(HEADERS)

# One setup script installs what is missing (Debian packages); it is quick
# when everything is there, so the stamp only saves a few dpkg queries.
setup: $(SETUP_STAMP)
$(SETUP_STAMP): scripts/setup.sh
	@mkdir -p $(B)
	@sh scripts/setup.sh
	@touch $@

# A part's static library: its module.mk names the objects
# ($(X_LIB): $(X_OBJS)); made afresh, so a dropped object leaves it.
$(B)/lib/%.a:
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $^

# Every object waits for the public headers to be in $(B)/include.
$(B)/obj/%.o: %.c | $(SETUP_STAMP) $(HEADERS)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_COMMON) $(CFLAGS_$(dir $<)) -MMD -MP -c -o $@ $<

# make check-asan: everything built again into $(ASAN_B) with AddressSanitizer
# and UndefinedBehaviorSanitizer, then `make check`'s tests (unit,
# integration, GUI) run on that build and end with the same "N passed, N
# failed" line.  Any report fails: UBSan does not recover, ASan and UBSan
# abort (a tool that dies of SIGABRT is never taken for one that refused
# its input with exit status 1).  How each kind of process runs:
#  - the tools (ips2slave, ips2-dump, -pack, -reduce, -cpa, the collectors)
#    and the unit tests are built with both sanitizers; the unit tests run
#    with LeakSanitizer on, the Tcl suites with detect_leaks=0 (tclsh and
#    the tools exit without freeing);
#  - the Tcl extension is built with both, but tclsh is not: the Tcl suites
#    run a tclsh that preloads the ASan runtime (tests/make-asan-tclsh,
#    first in PATH) without putting it in LD_PRELOAD, so that no other
#    program inherits it;
#  - the runtime, libips2, is built with UBSan only.  Traced programs are
#    the user's, not built with ASan; an ASan runtime must come first in a
#    process, which a program linked with ips2cc or run by ips2-preload
#    does not give, and a preloaded one changes what the tests look at
#    (its dlopen interceptor loses the caller's RUNPATH).  UBSan has no such
#    order; its deadly-signal handlers are off (handle_segv=0 ...) so that
#    a traced program dies of a signal as untraced (faults.test) and the
#    runtime's own handlers see the default disposition.
ASAN_B := build-asan
CLEAN_EXTRA += $(ASAN_B)
ASAN_FLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
SAN_SIGNALS := handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0
check-asan:
	@sh tests/make-asan-tclsh $(abspath $(ASAN_B))/asan-tclsh/bin "$(CC)"
	@ASAN_OPTIONS=abort_on_error=1:detect_leaks=1 \
	UBSAN_OPTIONS=abort_on_error=1:halt_on_error=1:print_stacktrace=1:$(SAN_SIGNALS) \
	IPS2_SANITIZER_TCLSH=$(abspath $(ASAN_B))/asan-tclsh/bin IPS2_SANITIZE="$(ASAN_FLAGS)" \
	    $(MAKE) --no-print-directory B=$(ASAN_B) SANITIZE="$(ASAN_FLAGS)" check

ifneq ($(strip $(SANITIZE)),)
$(RUNTIME_OBJS) $(RUNTIME_LIB): private CC += -fno-sanitize=address
endif

-include $(shell find $(B)/obj -name '*.d' 2>/dev/null)

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(B) $(CLEAN_EXTRA)

# make install PREFIX=/usr/local DESTDIR=: the programs of build/bin (the
# ips2c++ symlink stays a symlink), the libraries of build/lib, the public
# headers under include/ips2/ and the man pages.  ips2cc finds libips2 as
# ../lib beside its own resolved location, so an installed tree works from
# wherever it lands.
INSTALL_DIR = $(DESTDIR)$(PREFIX)
install: all
	install -d "$(INSTALL_DIR)/bin" "$(INSTALL_DIR)/lib" "$(INSTALL_DIR)/include/ips2" \
	    "$(INSTALL_DIR)/share/man/man1"
	for f in $(filter $(B)/bin/%,$(PROGRAMS)); do \
	    if [ -L "$$f" ]; then cp -P "$$f" "$(INSTALL_DIR)/bin/"; \
	    else install -m 755 "$$f" "$(INSTALL_DIR)/bin/"; fi || exit 1; \
	done
	for f in $(filter $(B)/lib/%,$(LIBRARIES)); do \
	    case $$f in *.a) m=644 ;; *) m=755 ;; esac; \
	    install -m $$m "$$f" "$(INSTALL_DIR)/lib/" || exit 1; \
	done
	install -m 644 $(filter $(B)/include/%.h,$(HEADERS)) "$(INSTALL_DIR)/include/ips2/"
	install -m 644 $(wildcard docs/man/*.1) "$(INSTALL_DIR)/share/man/man1/"
