# cpa/engine.mk: the critical-path engine's program, tests, fuzz target and
# benchmark (its sources are CPA_ENGINE_SRCS in cpa/module.mk, which
# includes this file last).
#   ips2-cpa gen|oracle|run|bench   random parts, queries over part files
#   test_cpa_*                      cmocka unit tests (random DAGs vs oracle)
#   fuzz_cpa                        the engine's wire decoders (batches, walks,
#                                   paths, metadata travel over PVM)

$(B)/include/ips2_cpa.h: cpa/ips2_cpa.h
	@mkdir -p $(dir $@)
	cp $< $@
HEADERS += $(B)/include/ips2_cpa.h

$(B)/bin/ips2-cpa: $(B)/obj/cpa/cpa_cmd.o $(CPA_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(CPA_LIB) $(TRACE_LIBS) -lm
PROGRAMS += $(B)/bin/ips2-cpa

CPA_TESTS := $(patsubst tests/unit/%.c,$(B)/tests/unit/%,$(wildcard tests/unit/test_cpa_*.c))
$(CPA_TESTS:$(B)/tests/unit/%=$(B)/obj/tests/unit/%.o): CFLAGS_COMMON += -Icpa
$(CPA_TESTS): $(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(CPA_LIB) $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(CPA_LIB) $(TRACE_LIBS) -lcmocka -lpthread -lm

$(eval $(call fuzz_target,cpa,cpa/wire.c cpa/pag_zstd.c cpa/path.c cpa/meta.c cpa/zero.c $(TRACE_CODEC_SRCS) \
                          cpa/cpa_internal.h cpa/ips2_cpa.h,-Itraces -Icpa,-lz -lzstd,\
                          tests/fuzz/corpus-cpa))

bench: $(B)/bin/ips2-cpa
