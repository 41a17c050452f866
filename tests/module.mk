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

# Fuzz targets (tests/fuzz/fuzz.mk): the trace reader, and the reductions
# decoder (slave/reductions.c).
$(eval $(call fuzz_target,reader,$(TRACE_SRCS),-Itraces,-lelf -lz,tests/fuzz/corpus))
$(eval $(call fuzz_target,reductions,slave/reductions.c slave/metrics.c traces/codec.c \
                          traces/varint.c,-Itraces -Islave,-lz,tests/fuzz/corpus-reductions))

# The reader's seed corpus is committed; `make fuzz-corpus` regenerates it
# (the generator is deterministic).
CORPUS_GEN := $(B)/fuzz/make-corpus
$(CORPUS_GEN): $(B)/obj/tests/fuzz/make-corpus.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS)

.PHONY: fuzz-corpus
fuzz-corpus: $(CORPUS_GEN)
	rm -f tests/fuzz/corpus/*
	$(CORPUS_GEN) tests/fuzz/corpus

