# master/: the master package `ips2`, a stubs-enabled Tcl extension:
# $(B)/lib/ips2/libips2tcl.so, its Tcl layer (*.tcl) and its pkgIndex.tcl,
# found with auto_path (or TCLLIBPATH) = $(B)/lib.  It links the reduction
# library (slave/, for decoding reductions files and reducing phases
# in-process) with the libraries it uses (SLAVE_LIBS: the critical-path
# engine, the trace library), and the protocol library, all
# position-independent, and includes their public headers only.  `make
# install` puts the directory in PREFIX/lib/ips2.  The model and tables
# (everything but the tcl_* files, session_dir.c and ips2tcl.c) do not use
# Tcl, so unit tests link them without it.

MASTER_CORE_SRCS := master/model.c master/tables.c master/histograms.c master/gprof.c \
                    master/phases.c
MASTER_TCL_SRCS  := master/session_dir.c master/tcl_session.c master/tcl_tables.c \
                    master/ips2tcl.c
MASTER_LIBS      := # more libraries the package needs (the PVM part: -lpvm3)
# names.c: what a machine's or application's name may be (names.h)
MASTER_CORE_SRCS += master/names.c
# clock_note.c: the process-time clock a table's header states (clock_note.h)
MASTER_CORE_SRCS += master/clock_note.c
# latency.c: procedures' latency distributions (latency.h)
MASTER_CORE_SRCS += master/latency.c
MASTER_CORE_OBJS := $(MASTER_CORE_SRCS:%.c=$(B)/obj/%.o)
MASTER_TCL_OBJS  := $(MASTER_TCL_SRCS:%.c=$(B)/obj/%.o)
MASTER_PKG_DIR   := $(B)/lib/ips2
MASTER_PKG_LIB   := $(MASTER_PKG_DIR)/libips2tcl.so
MASTER_PKG_INDEX := $(MASTER_PKG_DIR)/pkgIndex.tcl
TCL_INCLUDE      := /usr/include/tcl8.6
CFLAGS_master/   := -fPIC -Imaster -I$(TCL_INCLUDE) -DUSE_TCL_STUBS

$(MASTER_CORE_OBJS) $(MASTER_TCL_OBJS): | $(TRACE_HEADERS)

$(MASTER_PKG_LIB): $(MASTER_CORE_OBJS) $(MASTER_TCL_OBJS) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-z,defs -o $@ $(MASTER_CORE_OBJS) $(MASTER_TCL_OBJS) $(SLAVE_LIBS) \
	    $(MASTER_LIBS) -ltclstub8.6 -lm

$(MASTER_PKG_INDEX): master/pkgIndex.tcl
	@mkdir -p $(dir $@)
	cp $< $@

# Its public header: opening a session from C (Ips2_OpenSession).
$(B)/include/ips2_master.h: master/ips2_master.h
	@mkdir -p $(dir $@)
	cp $< $@
HEADERS += $(B)/include/ips2_master.h

# The package's Tcl layer (workload language, manifest, formatting, the
# `ips2` command line: ANALYSTS.md §1, §3, §7) beside the library, and the
# `ips2` command, a tclsh script, in $(B)/bin.
MASTER_TCL_FILES := $(patsubst master/%,$(MASTER_PKG_DIR)/%,$(filter-out master/pkgIndex.tcl,\
                        $(wildcard master/*.tcl)))
$(MASTER_PKG_DIR)/%.tcl: master/%.tcl
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/bin/ips2: master/ips2
	@mkdir -p $(dir $@)
	cp $< $@ && chmod +x $@

PROGRAMS += $(B)/bin/ips2
all: $(MASTER_PKG_LIB) $(MASTER_PKG_INDEX) $(MASTER_TCL_FILES)

.PHONY: install-master
install: install-master
install-master: $(MASTER_PKG_LIB) $(MASTER_PKG_INDEX) $(MASTER_TCL_FILES)
	install -d "$(DESTDIR)$(PREFIX)/lib/ips2"
	install -m 755 $(MASTER_PKG_LIB) "$(DESTDIR)$(PREFIX)/lib/ips2/"
	install -m 644 $(MASTER_PKG_INDEX) $(MASTER_TCL_FILES) "$(DESTDIR)$(PREFIX)/lib/ips2/"

# Unit tests of the model and tables: built in memory, no Tcl.
MASTER_TESTS := $(B)/tests/unit/test_model $(B)/tests/unit/test_tables \
                $(B)/tests/unit/test_clock_note
$(MASTER_TESTS:$(B)/tests/unit/%=$(B)/obj/tests/unit/%.o): CFLAGS_COMMON += -Imaster
$(MASTER_TESTS): $(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(MASTER_CORE_OBJS) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MASTER_CORE_OBJS) $(SLAVE_LIBS) -lcmocka -lpthread -lm

# Its unit test: the names that may become file names.
$(B)/obj/tests/unit/test_names.o: CFLAGS_COMMON += -Imaster
$(B)/tests/unit/test_names: $(B)/obj/tests/unit/test_names.o $(B)/obj/master/names.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lcmocka

# --- the PVM part: ips2::run (tcl_run.c, run_plan.c), the pvmd (pvm_vm.c),
# the slaves (pvm_slaves.c), with the protocol library of ips2slave
# (slave/ips2_proto.h).  Appended to the package's objects; the link recipe
# above expands MASTER_TCL_OBJS and MASTER_LIBS when it runs.  ips2::run
# spawns $(B)/bin/ips2slave (bin/ beside the package's lib/).
MASTER_PVM_SRCS := master/tcl_run.c master/run_plan.c master/pvm_vm.c master/pvm_slaves.c \
                   master/slave_path.c
MASTER_PVM_OBJS := $(MASTER_PVM_SRCS:%.c=$(B)/obj/%.o)
$(MASTER_PVM_OBJS): | $(TRACE_HEADERS)
MASTER_TCL_OBJS += $(MASTER_PVM_OBJS)
MASTER_LIBS += $(PROTO_LIB) -lpvm3
$(MASTER_PKG_LIB): $(MASTER_PVM_OBJS) $(PROTO_LIB)
# Its unit test: where ips2slave is found.
$(B)/obj/tests/unit/test_slave_path.o: CFLAGS_COMMON += -Imaster
$(B)/tests/unit/test_slave_path: $(B)/obj/tests/unit/test_slave_path.o $(B)/obj/master/slave_path.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lcmocka

# --- the critical path (cpa/, ANALYSTS.md §6): queries in this process
# (cpa_local.c) or on PVM slaves (cpa_slaves.c), the session's critical-path
# core (cpa_session.c) and background thread (query_thread.c), and the
# session's cp, cp-zero, cp-path, cp-imbalance, timeline, async and cancel
# subcommands and ips2::cpa (tcl_cpa.c, tcl_path_text.c, tcl_async.c).  Linked with
# libips2cpa.a (in SLAVE_LIBS).
MASTER_CPA_SRCS := master/cpa_local.c master/cpa_slaves.c master/cpa_view.c master/cpa_session.c \
                   master/query_thread.c master/tcl_cpa.c master/tcl_path_text.c master/tcl_async.c master/msg_waits.c \
                   master/tcl_msg_waits.c master/tcl_clocks.c
# cpa_zero.c: the procedures a cp-zero names, checked against the session's
MASTER_CPA_SRCS += master/cpa_zero.c
MASTER_CPA_OBJS := $(MASTER_CPA_SRCS:%.c=$(B)/obj/%.o)
$(MASTER_CPA_OBJS): | $(TRACE_HEADERS)
MASTER_TCL_OBJS += $(MASTER_CPA_OBJS)
$(MASTER_PKG_LIB): $(MASTER_CPA_OBJS)
# Unit test of the critical-path session core (cpa_session.c, query_thread.c):
# no Tcl; the PVM backend (cpa_slaves.c over pvm_slaves.c, driven by the Tcl
# event loop) is linked, with Tcl's stubs library, but not started.
MASTER_CPA_CORE_OBJS := $(filter-out $(B)/obj/master/tcl_%,$(MASTER_CPA_OBJS)) \
                        $(B)/obj/master/pvm_vm.o $(B)/obj/master/pvm_slaves.o
$(B)/obj/tests/unit/test_cp_session.o: CFLAGS_COMMON += -Imaster
$(B)/tests/unit/test_cp_session: $(B)/obj/tests/unit/test_cp_session.o $(MASTER_CORE_OBJS) \
                                  $(MASTER_CPA_CORE_OBJS) $(PROTO_LIB) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MASTER_CORE_OBJS) $(MASTER_CPA_CORE_OBJS) $(PROTO_LIB) $(SLAVE_LIBS) \
	    -lpvm3 -ltclstub8.6 -lcmocka -lpthread -lm
# Unit test of the message patterns (msg_waits.c) on constructed PAGs.
$(B)/obj/tests/unit/test_msg_waits.o: CFLAGS_COMMON += -Imaster
$(B)/tests/unit/test_msg_waits: $(B)/obj/tests/unit/test_msg_waits.o $(MASTER_CORE_OBJS) \
                                 $(MASTER_CPA_CORE_OBJS) $(PROTO_LIB) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MASTER_CORE_OBJS) $(MASTER_CPA_CORE_OBJS) $(PROTO_LIB) $(SLAVE_LIBS) \
	    -lpvm3 -ltclstub8.6 -lcmocka -lpthread -lm
# bench/run-cpa-pvm times the diffusion over PVM slaves through ips2::cpa
bench: $(MASTER_PKG_LIB) $(MASTER_PKG_INDEX) $(B)/bin/ips2slave $(B)/bin/ips2-cpa

# --- the W3 search (issue 11): a Tcl-free core (search.c, search_space.c,
# search_explain.c; search.h) over the model, the critical path's
# profiles and the message waits (msg_waits.c), and its binding
# `$session search` (tcl_search.c).
MASTER_SEARCH_SRCS := master/search.c master/search_space.c master/search_explain.c
MASTER_SEARCH_OBJS := $(MASTER_SEARCH_SRCS:%.c=$(B)/obj/%.o)
$(MASTER_SEARCH_OBJS) $(B)/obj/master/tcl_search.o: | $(TRACE_HEADERS)
MASTER_TCL_OBJS += $(MASTER_SEARCH_OBJS) $(B)/obj/master/tcl_search.o
$(MASTER_PKG_LIB): $(MASTER_SEARCH_OBJS) $(B)/obj/master/tcl_search.o
# Its unit tests: constructed models and sample streams, no Tcl (linked
# as test_cp_session is, for msg_waits.c's tables).
SEARCH_TESTS := $(B)/tests/unit/test_search
$(SEARCH_TESTS:$(B)/tests/unit/%=$(B)/obj/tests/unit/%.o): CFLAGS_COMMON += -Imaster
$(SEARCH_TESTS): $(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(MASTER_SEARCH_OBJS) \
                 $(MASTER_CORE_OBJS) $(MASTER_CPA_CORE_OBJS) $(PROTO_LIB) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(MASTER_SEARCH_OBJS) $(MASTER_CORE_OBJS) $(MASTER_CPA_CORE_OBJS) \
	    $(PROTO_LIB) $(SLAVE_LIBS) -lpvm3 -ltclstub8.6 -lcmocka -lpthread -lm
