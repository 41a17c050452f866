# tests/: cmocka unit tests (tests/unit/test_*.c, one binary each), Tcl
# integration tests (tests/integration/*.test), fuzz targets (tests/fuzz).
# `make check` runs them all through tests/run-all, which prints the one
# closing line "N passed, N failed".

UNIT_SRCS := $(wildcard tests/unit/test_*.c)
# A unit test may look inside the part it tests: the trace library's and
# the runtime's private headers for all (varint.h, dump_fields.h,
# pvm_pairs.h); the other parts add their folder to their own tests.
CFLAGS_tests/unit/ := -Itraces -Iinstr
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/unit/%)

$(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(TRACE_LIB)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(TRACE_LIBS) -lcmocka -lpthread

TEST_BINS += $(UNIT_BINS)

# Unit tests that drive a part through a library above it: the PAG parts
# the slave's reduction builds (test_pag_build looks into cpa/'s
# pag_internal.h), the .ext files the reduction reads (test_external).
$(B)/obj/tests/unit/test_pag_build.o: CFLAGS_COMMON += -Icpa
$(B)/obj/tests/unit/test_external.o: CFLAGS_COMMON += -Icollectors
$(B)/tests/unit/test_pag_build $(B)/tests/unit/test_external: \
    $(B)/tests/unit/%: $(B)/obj/tests/unit/%.o $(SLAVE_LIB_FILES)
	@mkdir -p $(dir $@)
	$(CC) -o $@ $< $(SLAVE_LIBS) -lcmocka -lpthread -lm

# Keep the unit objects: deleting them as intermediates would rebuild them on
# every run and print "rm ..." after run-all's closing line.
.SECONDARY: $(UNIT_SRCS:%.c=$(B)/obj/%.o)

# The real servers of real.test are built (once, in $(B)/real) before the
# suites start, outside their per-file time limit; real.test says why when
# they are unavailable, and fails when their build does.
check: all $(TEST_BINS)
	@IPS2_BUILD=$(abspath $(B)) sh scripts/real-programs.sh >/dev/null || true
	@B=$(B) IPS2_BUILD=$(abspath $(B)) sh tests/run-all

# Fuzz targets (tests/fuzz/fuzz.mk): the trace reader, and the reductions
# decoder (slave/reductions.c).
$(eval $(call fuzz_target,reader,$(TRACE_SRCS),-Itraces,-lelf -lz -lzstd,tests/fuzz/corpus))
$(eval $(call fuzz_target,reductions,slave/reductions.c slave/metrics.c slave/latency.c \
                          $(TRACE_CODEC_SRCS),\
                          -Itraces -Islave,-lz,tests/fuzz/corpus-reductions))

# The Tcl readers (workload files and manifests, master/dsl.tcl under its
# limits): a Tcl script mutating the valid files of corpus-tcl; `make fuzz`
# runs it for FUZZ_TIME seconds, `make fuzz-smoke` reads each seed once
# (hostile_tcl.test runs a few hundred mutations in `make check`).
FUZZ_TCL_NEEDS := $(MASTER_TCL_FILES) $(MASTER_PKG_INDEX)
.PHONY: fuzz-tcl fuzz-smoke-tcl
fuzz: fuzz-tcl
fuzz-tcl: $(FUZZ_TCL_NEEDS)
	@timeout $$(($(FUZZ_TIME) + 120)) tclsh tests/fuzz/fuzz_tcl.tcl -lib $(B)/lib \
	    -seconds $(FUZZ_TIME) tests/fuzz/corpus-tcl
fuzz-smoke: fuzz-smoke-tcl
fuzz-smoke-tcl: $(FUZZ_TCL_NEEDS)
	@timeout 120 tclsh tests/fuzz/fuzz_tcl.tcl -lib $(B)/lib -count 0 tests/fuzz/corpus-tcl

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

