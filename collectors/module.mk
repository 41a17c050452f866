# collectors/: the external data interface (ips2_external.h, external.c:
# writer and reader of the *.ext files a monitor leaves in a machine's
# trace directory) in libips2ext.a, and the collector programs the slave
# runs beside the processes: ips2-collect-os (page faults, context
# switches from /proc) and ips2-collect-hw (instructions, cycles through
# perf_event_open).  The slave's reduction links libips2ext.a to read the
# .ext files.

EXT_SRCS := collectors/external.c
EXT_OBJS := $(EXT_SRCS:%.c=$(B)/obj/%.o)
EXT_LIB  := $(B)/lib/libips2ext.a
# what a program using the library links: it, the trace library (the
# buffer codec the files are written and read through) and zlib
EXT_LIBS := $(EXT_LIB) $(TRACE_LIB) -lz
CFLAGS_collectors/ := -fPIC -Icollectors

$(EXT_LIB): $(EXT_OBJS)

# (their objects are named, so that make keeps them between builds)
COLLECT_OBJS := $(addprefix $(B)/obj/collectors/,collect_os.o collect_hw.o collect_loop.o)
.SECONDARY: $(COLLECT_OBJS)
$(B)/bin/ips2-collect-%: $(B)/obj/collectors/collect_%.o $(B)/obj/collectors/collect_loop.o \
                        $(filter %.a,$(EXT_LIBS))
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(B)/obj/collectors/collect_loop.o $(EXT_LIBS) -lm

$(B)/include/ips2_external.h: collectors/ips2_external.h
	@mkdir -p $(dir $@)
	cp $< $@

LIBRARIES += $(EXT_LIB)
PROGRAMS  += $(B)/bin/ips2-collect-os $(B)/bin/ips2-collect-hw
HEADERS   += $(B)/include/ips2_external.h

# The reader takes untrusted files: a fuzz target and its seed corpus
# (tests/fuzz/corpus-external: a whole file, a torn one, a note, one with
# a time near 2^63, one with a pid reused by a new process).
$(eval $(call fuzz_target,external,collectors/external.c $(TRACE_CODEC_SRCS),\
                          -Icollectors -Itraces,-lz -lm,tests/fuzz/corpus-external))

# Its unit test also reduces the files it writes with the slave's library:
# its rule is in tests/module.mk, after slave/module.mk.
