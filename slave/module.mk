# slave/: the reduction library (libips2slave.a: reduce a machine's trace
# directory into reductions; encode and decode reductions files) and
# ips2-reduce, a command that runs it and prints a summary.  The library is
# position-independent so that the master's Tcl extension can link it.

SLAVE_SRCS := slave/reduce.c slave/reduce_build.c slave/reduce_emit.c slave/reduce_kinds.c \
              slave/reduce_raw.c slave/reduce_stream.c slave/reduce_strings.c \
              slave/reduce_thread.c slave/histogram.c slave/reductions.c slave/metrics.c
SLAVE_OBJS := $(SLAVE_SRCS:%.c=$(B)/obj/%.o)
SLAVE_LIB  := $(B)/lib/libips2slave.a
# what a program using the library links: it, the trace library, libelf, zlib
SLAVE_LIBS := $(SLAVE_LIB) $(TRACE_LIBS) -lm
CFLAGS_slave/ := -fPIC -Islave

$(SLAVE_LIB): $(SLAVE_OBJS)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(B)/bin/ips2-reduce: $(B)/obj/slave/reduce_cmd.o $(SLAVE_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS)

$(B)/include/ips2_reductions.h: slave/ips2_reductions.h
	@mkdir -p $(dir $@)
	cp $< $@

# Unit tests of the library link it too (and include its public header
# from $(B)/include).
$(B)/obj/tests/unit/test_reduce.o $(B)/obj/tests/unit/test_reductions.o: \
    | $(B)/include/ips2_reductions.h $(TRACE_HEADERS)
# test_reduce also checks the fast raw decoder directly (slave/reduce_internal.h)
$(B)/obj/tests/unit/test_reduce.o: CFLAGS_COMMON += -Islave
$(B)/tests/unit/test_reduce: $(B)/obj/tests/unit/test_reduce.o $(SLAVE_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread
$(B)/tests/unit/test_reductions: $(B)/obj/tests/unit/test_reductions.o $(SLAVE_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread

LIBRARIES += $(SLAVE_LIB)
PROGRAMS  += $(B)/bin/ips2-reduce
HEADERS   += $(B)/include/ips2_reductions.h
