# tests/fuzz/fuzz.mk - one rule set per libFuzzer target (every reader of
# untrusted input has one).  A part declares its target with
#
#   $(eval $(call fuzz_target,NAME,SOURCES,FLAGS,LIBS,CORPUS))
#
# which builds $(B)/fuzz/fuzz_NAME from tests/fuzz/fuzz_NAME.c and the .c
# files among SOURCES (the rest, headers, are prerequisites only) with
# clang's fuzzer and sanitizers, and hooks it into `make fuzz` (fuzzing for
# FUZZ_TIME seconds on a copy of the seed corpus CORPUS, tests/fuzz/run-fuzz)
# and `make fuzz-smoke` (every seed once, no fuzzing: quick enough for
# `make check`).

FUZZ_TIME ?= 300

.PHONY: fuzz fuzz-smoke

define fuzz_target
$(B)/fuzz/fuzz_$(1): tests/fuzz/fuzz_$(1).c $(2) | $(SETUP_STAMP)
	@mkdir -p $$(dir $$@)
	$$(CLANG) -std=c11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined $(3) \
	    -o $$@ tests/fuzz/fuzz_$(1).c $(filter %.c,$(2)) $(4)

.PHONY: fuzz-$(1) fuzz-smoke-$(1)
fuzz: fuzz-$(1)
fuzz-$(1): $(B)/fuzz/fuzz_$(1)
	@sh tests/fuzz/run-fuzz $$< $$(FUZZ_TIME) $(5)
fuzz-smoke: fuzz-smoke-$(1)
fuzz-smoke-$(1): $(B)/fuzz/fuzz_$(1)
	@$$< $(5)/* >$(B)/fuzz/smoke-$(1).log 2>&1 || \
	    { cat $(B)/fuzz/smoke-$(1).log; echo "fuzz-smoke-$(1): FAILED"; exit 1; }
	@echo "fuzz-smoke-$(1): $$$$(ls $(5)/* | wc -l) seeds, no crashes"
endef
