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

check: all $(TEST_BINS)
	@sh tests/run-all

FUZZ_TIME ?= 300
FUZZ_BIN  := $(B)/fuzz/fuzz_reader
$(FUZZ_BIN): tests/fuzz/fuzz_reader.c $(TRACE_SRCS) | $(SETUP_STAMP)
	@mkdir -p $(dir $@)
	$(CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined \
	    -Itraces -o $@ tests/fuzz/fuzz_reader.c $(TRACE_SRCS) -lelf -lz

fuzz: $(FUZZ_BIN)
	@sh tests/fuzz/run-fuzz $(FUZZ_BIN) $(FUZZ_TIME)
