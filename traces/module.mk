# traces/: the trace format library (reader, packer, symbol resolution)
# and ips2-dump.  Built position-independent so that the master's Tcl
# extension can link it too.

TRACE_SRCS := traces/reader.c traces/writer.c traces/pack.c traces/symbols.c traces/varint.c \
              traces/error.c traces/kinds.c traces/dump_fields.c traces/strtab.c traces/codec.c \
              traces/pack_dir.c traces/trace_dir.c traces/file.c traces/clocks.c
TRACE_OBJS := $(TRACE_SRCS:%.c=$(B)/obj/%.o)
# the buffer codec alone, for the fuzz targets of the readers built on it
TRACE_CODEC_SRCS := traces/codec.c traces/varint.c
TRACE_LIB  := $(B)/lib/libips2trace.a
TRACE_LIBS := $(TRACE_LIB) -lelf -lz -lzstd
CFLAGS_traces/ := -fPIC

$(TRACE_LIB): $(TRACE_OBJS)

$(B)/bin/ips2-dump: $(B)/obj/traces/dump.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS)

# The public headers: every traces/ips2_*.h; the rest stays in traces/.
TRACE_HEADERS := $(patsubst traces/%,$(B)/include/%,$(wildcard traces/ips2_*.h))
$(B)/include/%.h: traces/%.h
	@mkdir -p $(dir $@)
	cp $< $@

LIBRARIES += $(TRACE_LIB)
PROGRAMS  += $(B)/bin/ips2-dump
HEADERS   += $(TRACE_HEADERS)

# --- ips2-pack: pack finished raw streams (traces/pack_cmd.c) ---------------
$(B)/bin/ips2-pack: $(B)/obj/traces/pack_cmd.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS)

PROGRAMS += $(B)/bin/ips2-pack
