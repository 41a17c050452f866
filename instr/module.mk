# instr/: libips2 (the in-process runtime) and the ips2cc/ips2c++ drivers.
# The runtime is never instrumented itself, hides everything but the hooks
# and the interposed libc entry points, and is built position-independent.

RUNTIME_SRCS := $(wildcard instr/*.c)
RUNTIME_OBJS := $(RUNTIME_SRCS:%.c=$(B)/obj/%.o)
RUNTIME_LIB  := $(B)/lib/libips2.so
CFLAGS_instr/ := -fPIC -fvisibility=hidden -fno-instrument-functions -fno-omit-frame-pointer \
                 -ftls-model=initial-exec

$(RUNTIME_LIB): $(RUNTIME_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared -Wl,-z,defs -Wl,-soname,libips2.so -o $@ $^ -ldl -lpthread

$(B)/bin/ips2cc: instr/ips2cc
	@mkdir -p $(dir $@)
	cp $< $@ && chmod +x $@
$(B)/bin/ips2c++: $(B)/bin/ips2cc
	ln -sf ips2cc $@

# ips2-preload: runs a program not built with ips2cc with libips2 preloaded.
$(B)/bin/ips2-preload: instr/ips2-preload
	@mkdir -p $(dir $@)
	cp $< $@ && chmod +x $@

# ips2.h: the public header for home-made locks and barriers (instr/sync_user.c);
# make install puts it in PREFIX/include/ips2/, ips2cc adds its directory.
$(B)/include/ips2.h: instr/ips2.h
	@mkdir -p $(dir $@)
	cp $< $@

HEADERS   += $(B)/include/ips2.h
LIBRARIES += $(RUNTIME_LIB)
PROGRAMS  += $(B)/bin/ips2cc $(B)/bin/ips2c++ $(B)/bin/ips2-preload
