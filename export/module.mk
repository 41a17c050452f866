# export/: ips2-export, a session's traces as OTF2 (libotf2, Debian's
# libotf2-trace-dev), trace-event JSON and folded stacks (ips2_export.h);
# `ips2 export` runs it.  It reads the traces through traces/'s reader and
# trace-directory listing, builds each machine's PAG part with the
# reduction (slave/) and reads the pairing and the critical path from it
# (cpa/): it links the reduction library with the libraries it uses.

EXPORT_SRCS := export/session.c export/otf2.c export/json.c export/folded.c
EXPORT_OBJS := $(EXPORT_SRCS:%.c=$(B)/obj/%.o)
EXPORT_LIB  := $(B)/lib/libips2export.a
OTF2_CFLAGS := $(filter-out -I/usr/include,$(shell otf2-config --cflags 2>/dev/null))
OTF2_LIBS   := $(shell otf2-config --ldflags --libs 2>/dev/null || echo -lotf2)
CFLAGS_export/ := -Iexport $(OTF2_CFLAGS)

$(EXPORT_LIB): $(EXPORT_OBJS)

$(B)/bin/ips2-export: $(B)/obj/export/export_cmd.o $(EXPORT_LIB) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(EXPORT_LIB) $(SLAVE_LIBS) $(OTF2_LIBS)

# The public header: exporting a session from C.
EXPORT_HEADERS := $(B)/include/ips2_export.h
$(EXPORT_HEADERS): $(B)/include/%.h: export/%.h
	@mkdir -p $(dir $@)
	cp $< $@

LIBRARIES += $(EXPORT_LIB)
PROGRAMS  += $(B)/bin/ips2-export
HEADERS   += $(EXPORT_HEADERS)

# Its unit test looks at the exporter's pieces (export_internal.h).
$(B)/obj/tests/unit/test_export.o: CFLAGS_COMMON += -Iexport
$(B)/obj/tests/unit/test_export.o: | $(EXPORT_HEADERS)
$(B)/tests/unit/test_export: $(B)/obj/tests/unit/test_export.o $(EXPORT_LIB) $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(EXPORT_LIB) $(SLAVE_LIBS) $(OTF2_LIBS) -lcmocka -lpthread
