# slave/: the reduction library (libips2slave.a: reduce a machine's trace
# directory into reductions; encode and decode reductions files) and
# ips2-reduce, a command that runs it and prints a summary; the protocol
# library (libips2proto.a: ips2_proto.h's PVM field packing) and ips2slave.
# The libraries are position-independent so that the master's Tcl
# extension can link them.  The reduction reads the collectors' .ext files
# (libips2ext.a) and builds the machine's PAG part (libips2cpa.a).

SLAVE_SRCS := slave/reduce.c slave/reduce_build.c slave/reduce_emit.c slave/reduce_kinds.c \
              slave/reduce_stream.c slave/compensate.c \
              slave/reduce_thread.c slave/histogram.c slave/reductions.c slave/metrics.c \
              slave/reduce_ext.c slave/reduce_names.c slave/reduce_clock.c
# latency.c: the latency histograms' buckets, merging, percentiles (ips2_latency.h)
SLAVE_SRCS += slave/latency.c
SLAVE_OBJS := $(SLAVE_SRCS:%.c=$(B)/obj/%.o)
SLAVE_LIB  := $(B)/lib/libips2slave.a
# what a program using the library links: it, the libraries it uses, libelf, zlib
SLAVE_LIBS := $(SLAVE_LIB) $(CPA_LIB) $(EXT_LIB) $(TRACE_LIBS) -lm
SLAVE_LIB_FILES := $(filter %.a,$(SLAVE_LIBS))
CFLAGS_slave/ := -fPIC -Islave

$(SLAVE_LIB): $(SLAVE_OBJS)

$(B)/bin/ips2-reduce: $(B)/obj/slave/reduce_cmd.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS)

SLAVE_HEADERS := $(B)/include/ips2_reductions.h $(B)/include/ips2_proto.h \
                 $(B)/include/ips2_latency.h
$(SLAVE_HEADERS): $(B)/include/%.h: slave/%.h
	@mkdir -p $(dir $@)
	cp $< $@

# Unit tests of the library link it too (and include its public header
# from $(B)/include).
$(B)/obj/tests/unit/test_reduce.o $(B)/obj/tests/unit/test_reductions.o: \
    | $(B)/include/ips2_reductions.h $(TRACE_HEADERS)
# test_reduce also reduces single streams directly (slave/reduce_internal.h)
$(B)/obj/tests/unit/test_reduce.o: CFLAGS_COMMON += -Islave
$(B)/tests/unit/test_reduce: $(B)/obj/tests/unit/test_reduce.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread
# test_compensate drives slave/compensate.h directly
$(B)/obj/tests/unit/test_compensate.o: CFLAGS_COMMON += -Islave
$(B)/tests/unit/test_compensate: $(B)/obj/tests/unit/test_compensate.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread
$(B)/tests/unit/test_reductions: $(B)/obj/tests/unit/test_reductions.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread
# the latency histogram against sorted arrays (ips2_latency.h)
$(B)/obj/tests/unit/test_latency.o: | $(B)/include/ips2_latency.h
$(B)/tests/unit/test_latency: $(B)/obj/tests/unit/test_latency.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka

LIBRARIES += $(SLAVE_LIB)
PROGRAMS  += $(B)/bin/ips2-reduce
HEADERS   += $(SLAVE_HEADERS)

# bench/run-reduce times ips2-reduce against uftrace report.
bench: $(B)/bin/ips2-reduce

# --- the protocol library: ips2_proto.h's field packing over PVM -----------
# (proto_pack.c), used by ips2slave and the master's Tcl extension.
PROTO_LIB := $(B)/lib/libips2proto.a
$(PROTO_LIB): $(B)/obj/slave/proto_pack.o
LIBRARIES += $(PROTO_LIB)

# --- ips2slave: the slave analyst program (PVM task, one per machine) -------
# Runs a machine's processes, reduces its traces with the library above,
# sends the reductions to the master (slave/ips2_proto.h).
SLAVEPROG_SRCS := slave/slave_main.c slave/slave_run.c slave/slave_ready.c slave/slave_exe.c \
                  slave/slave_collect.c \
                  slave/slave_proto.c \
                  slave/slave_analysis.c slave/slave_merge.c slave/slave_cpa.c slave/slave_clock.c
# the end of a run: the last writers of its traces (slave_end.h)
SLAVEPROG_SRCS += slave/slave_end.c
# the packing of a run's streams beside, in a child (slave_pack.h)
SLAVEPROG_SRCS += slave/slave_pack.c
SLAVEPROG_OBJS := $(SLAVEPROG_SRCS:%.c=$(B)/obj/%.o)
$(SLAVEPROG_OBJS): | $(TRACE_HEADERS)

$(B)/bin/ips2slave: $(SLAVEPROG_OBJS) $(SLAVE_LIB_FILES) $(PROTO_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $(SLAVEPROG_OBJS) $(SLAVE_LIBS) $(PROTO_LIB) -lpvm3

PROGRAMS += $(B)/bin/ips2slave

# Its unit tests: the process runner and the merge of reductions.
$(B)/obj/tests/unit/test_slave_run.o $(B)/obj/tests/unit/test_slave_merge.o: \
    CFLAGS_COMMON += -Islave
$(B)/tests/unit/test_slave_run: $(B)/obj/tests/unit/test_slave_run.o $(B)/obj/slave/slave_run.o \
                               $(B)/obj/slave/slave_end.o \
                               $(B)/obj/slave/slave_collect.o $(filter %.a,$(EXT_LIBS))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lcmocka -lz -lm
$(B)/tests/unit/test_slave_merge: $(B)/obj/tests/unit/test_slave_merge.o \
                                  $(B)/obj/slave/slave_merge.o
	@mkdir -p $(dir $@)
	$(CC) -o $@ $^ -lcmocka
