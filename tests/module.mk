# tests/: cmocka unit tests (tests/unit/test_*.c, one binary each), Tcl
# integration tests (tests/integration/*.test), fuzz targets (tests/fuzz).
# `make check` runs them all through tests/run-all, which prints the one
# closing line "N passed, N failed".

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)

$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS) -lcmocka -lpthread

TEST_BINS += $(UNIT_BINS)

# Keep the unit objects: deleting them as intermediates would rebuild them on
# every run and print "rm ..." after run-all's closing line.
.SECONDARY: $(UNIT_SRCS:%.c=$(B)/obj/%.o)

check: all $(TEST_BINS)
	@B=$(B) IPS2_BUILD=$(abspath $(B)) sh tests/run-all

FUZZ_TIME ?= 300
FUZZ_BIN  := $(B)/fuzz/fuzz_reader
$(FUZZ_BIN): tests/fuzz/fuzz_reader.c $(TRACE_SRCS) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -Itraces -o $@ tests/fuzz/fuzz_reader.c $(TRACE_SRCS) -lelf -lz

# The reductions decoder (slave/reductions.c) has its own target and corpus.
FUZZ_RED_BIN := $(B)/fuzz/fuzz_reductions
$(FUZZ_RED_BIN): tests/fuzz/fuzz_reductions.c slave/reductions.c slave/metrics.c | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -Itraces -Islave -o $@ tests/fuzz/fuzz_reductions.c slave/reductions.c slave/metrics.c -lz

fuzz: $(FUZZ_BIN) $(FUZZ_RED_BIN)
	@sh tests/fuzz/run-fuzz $(FUZZ_BIN) $(FUZZ_TIME)
	@sh tests/fuzz/run-fuzz $(FUZZ_RED_BIN) $(FUZZ_TIME) tests/fuzz/corpus-reductions

# The seed corpus is committed; `make fuzz-corpus` regenerates it (the
# generator is deterministic).  `make fuzz-smoke` runs the fuzz target once
# over every seed, without fuzzing: quick enough for `make check`.
CORPUS_GEN := $(B)/fuzz/make-corpus
$(CORPUS_GEN): $(B)/obj/tests/fuzz/make-corpus.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS)

.PHONY: fuzz-corpus fuzz-smoke
fuzz-corpus: $(CORPUS_GEN)
	rm -f tests/fuzz/corpus/*
	$(CORPUS_GEN) tests/fuzz/corpus

fuzz-smoke: $(FUZZ_BIN) $(FUZZ_RED_BIN)
	@$(FUZZ_BIN) tests/fuzz/corpus/* >$(B)/fuzz/smoke.log 2>&1 || \
	    { cat $(B)/fuzz/smoke.log; echo "fuzz-smoke: FAILED"; exit 1; }
	@$(FUZZ_RED_BIN) tests/fuzz/corpus-reductions/* >$(B)/fuzz/smoke-reductions.log 2>&1 || \
	    { cat $(B)/fuzz/smoke-reductions.log; echo "fuzz-smoke: FAILED"; exit 1; }
	@echo "fuzz-smoke: $$(ls tests/fuzz/corpus/* tests/fuzz/corpus-reductions/* | wc -l) seeds, no crashes"
