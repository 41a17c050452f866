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

FUZZ_CPA_BIN := $(B)/fuzz/fuzz_cpa
$(FUZZ_CPA_BIN): tests/fuzz/fuzz_cpa.c cpa/wire.c cpa/path.c cpa/meta.c cpa/zero.c \
                 cpa/cpa_internal.h cpa/ips2_cpa.h | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -Itraces -Icpa -o $@ tests/fuzz/fuzz_cpa.c cpa/wire.c cpa/path.c cpa/meta.c cpa/zero.c

.PHONY: fuzz-cpa fuzz-cpa-smoke
fuzz: fuzz-cpa
fuzz-cpa: $(FUZZ_CPA_BIN)
	@sh tests/fuzz/run-fuzz $(FUZZ_CPA_BIN) $(FUZZ_TIME) tests/fuzz/corpus-cpa
fuzz-smoke: fuzz-cpa-smoke
fuzz-cpa-smoke: $(FUZZ_CPA_BIN)
	@$(FUZZ_CPA_BIN) tests/fuzz/corpus-cpa/* >$(B)/fuzz/smoke-cpa.log 2>&1 || \
	    { cat $(B)/fuzz/smoke-cpa.log; echo "fuzz-cpa-smoke: FAILED"; exit 1; }

bench: $(B)/bin/ips2-cpa
