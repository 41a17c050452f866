# collectors/: the external data interface (ips2_external.h, external.c:
# writer and reader of the *.ext files a monitor leaves in a machine's
# trace directory) in libips2ext.a, and the collector programs the slave
# runs beside the processes: ips2-collect-os (page faults, context
# switches from /proc) and ips2-collect-hw (instructions, cycles through
# perf_event_open).  The slave's reduction library compiles external.c in
# as well (slave/module.mk), so libips2slave.a reads .ext files on its own.

EXT_SRCS := collectors/external.c
# (with the buffer codec it writes and reads through, so that a monitor
# links this library alone, and zlib)
EXT_OBJS := $(EXT_SRCS:%.c=$(B)/obj/%.o) $(B)/obj/traces/codec.o $(B)/obj/traces/varint.o
EXT_LIB  := $(B)/lib/libips2ext.a
CFLAGS_collectors/ := -fPIC -Icollectors

$(EXT_LIB): $(EXT_OBJS)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

# (their objects are named, so that make keeps them between builds)
COLLECT_OBJS := $(addprefix $(B)/obj/collectors/,collect_os.o collect_hw.o collect_loop.o)
.SECONDARY: $(COLLECT_OBJS)
$(B)/bin/ips2-collect-%: $(B)/obj/collectors/collect_%.o $(B)/obj/collectors/collect_loop.o $(EXT_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(B)/obj/collectors/collect_loop.o $(EXT_LIB) -lz -lm

$(B)/include/ips2_external.h: collectors/ips2_external.h
	@mkdir -p $(dir $@)
	cp $< $@

LIBRARIES += $(EXT_LIB)
PROGRAMS  += $(B)/bin/ips2-collect-os $(B)/bin/ips2-collect-hw
HEADERS   += $(B)/include/ips2_external.h

# The reader takes untrusted files: a fuzz target and its seed corpus
# (tests/fuzz/corpus-external: a whole file, a torn one, a note, one with
# a time near 2^63, one with a pid reused by a new process).
$(eval $(call fuzz_target,external,collectors/external.c traces/codec.c traces/varint.c,\
                          -Icollectors -Itraces,-lz -lm,tests/fuzz/corpus-external))

# Its unit test links the slave's reduction library (the reader is
# compiled into it; the test also reduces the files it writes).
# slave/module.mk comes later: its names are spelled out here.
$(B)/obj/tests/unit/test_external.o: CFLAGS_COMMON += -Icollectors
$(B)/obj/tests/unit/test_external.o: | $(B)/include/ips2_reductions.h
$(B)/tests/unit/test_external: $(B)/obj/tests/unit/test_external.o $(B)/lib/libips2slave.a \
    $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lm
