# traces/: the trace format library (reader, packer, symbol resolution)
# and ips2-dump.  Built position-independent so that the master's Tcl
# extension can link it too.

TRACE_SRCS := traces/reader.c traces/writer.c traces/pack.c traces/symbols.c traces/varint.c \
              traces/error.c traces/kinds.c traces/dump_fields.c traces/strtab.c traces/codec.c
TRACE_OBJS := $(TRACE_SRCS:%.c=$(B)/obj/%.o)
TRACE_LIB  := $(B)/lib/libips2trace.a
TRACE_LIBS := $(TRACE_LIB) -lelf -lz
CFLAGS_traces/ := -fPIC

$(TRACE_LIB): $(TRACE_OBJS)
	@mkdir -p $(dir $@)
	ar rcs $@ $^

$(B)/bin/ips2-dump: $(B)/obj/traces/dump.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS)

TRACE_HEADERS := $(addprefix $(B)/include/,ips2_format.h ips2_fields.h ips2_record.h ips2_reader.h ips2_writer.h ips2_pack.h ips2_symbols.h \
                                         ips2_strtab.h ips2_codec.h)
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
