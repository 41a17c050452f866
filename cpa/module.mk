# cpa/: the Program Activity Graph and the critical-path engine, one
# position-independent library, $(B)/lib/libips2cpa.a (the slave's
# reduction builds its PAG part with it; the master's package and the
# slaves run queries with it).  Two source lists: the PAG part (builder,
# matcher, part file: cpa/PAG.md) and the engine (cpa/ips2_cpa.h).

CPA_PAG_SRCS    := cpa/pag.c cpa/pag_build.c cpa/pag_bytes.c cpa/pag_match.c cpa/pag_file.c \
                   cpa/pag_fold.c cpa/pag_clocks.c cpa/pag_zstd.c
CPA_ENGINE_SRCS := cpa/path.c cpa/zero.c cpa/diffuse.c cpa/walk.c cpa/oracle.c cpa/inproc.c \
                   cpa/wire.c cpa/meta.c cpa/profile.c cpa/pag_random.c cpa/lazy.c
CPA_SRCS := $(CPA_PAG_SRCS) $(CPA_ENGINE_SRCS)
CPA_OBJS  = $(CPA_SRCS:%.c=$(B)/obj/%.o)
CPA_LIB  := $(B)/lib/libips2cpa.a
CFLAGS_cpa/ := -fPIC -Icpa
$(CPA_OBJS): | $(TRACE_HEADERS)

$(CPA_LIB): $(CPA_OBJS)

# The public headers: a part and the engine, and the builder's interface,
# which the slave's reduction drives (pag_build.h).
CPA_HEADERS := $(addprefix $(B)/include/,ips2_pag.h ips2_pag_clocks.h pag_build.h)
$(CPA_HEADERS): $(B)/include/%.h: cpa/%.h
	@mkdir -p $(dir $@)
	cp $< $@

LIBRARIES += $(CPA_LIB)
HEADERS   += $(CPA_HEADERS)

# Unit tests of the PAG part (test_pag_build, which builds parts through
# the slave's reduction, is in tests/module.mk).
$(B)/obj/tests/unit/test_pag_file.o: CFLAGS_COMMON += -Icpa
$(B)/tests/unit/test_pag_file: $(B)/obj/tests/unit/test_pag_file.o $(CPA_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(CPA_LIB) $(TRACE_LIBS) -lcmocka -lpthread -lm

# test_clocks: the clock estimate (traces/) and the message pass (cpa/).
$(B)/obj/tests/unit/test_clocks.o: | $(CPA_HEADERS) $(TRACE_HEADERS)
$(B)/tests/unit/test_clocks: $(B)/obj/tests/unit/test_clocks.o $(CPA_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(CPA_LIB) $(TRACE_LIBS) -lcmocka -lpthread -lm

# The part file's decoders (cpa/pag_file.c) have their own fuzz target.
$(eval $(call fuzz_target,pag,$(CPA_PAG_SRCS) $(TRACE_SRCS) cpa/pag_internal.h cpa/ips2_pag.h,\
                          -Itraces -Icpa,-lelf -lz -lzstd,tests/fuzz/corpus-pag))

# The engine's program, tests, fuzz target and benchmark (helper E).
include cpa/engine.mk
