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
OPT     ?= -O2

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

.PHONY: all setup check demo bench fuzz install clean format
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
