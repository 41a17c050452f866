# bench/: side-by-side benchmarks (make bench).  Each bench/run-* script is
# one benchmark, run in turn.  bench/run-calls builds bench/calls.c plain,
# with ips2cc and with -pg, runs plain / ips2 / gprof / uftrace interleaved
# and prints per-call cost and trace bytes per call; see bench/README.md.  Knobs (environment or make
# command line): BENCH_N, BENCH_R, BENCH_EXACT_N, BENCH_PACK_R, BENCH_CC,
# BENCH_STRICT.  bench/run-real measures redis from Debian source
# (scripts/real-programs.sh builds it into build/real on its first run).

bench: $(RUNTIME_LIB) $(B)/bin/ips2cc $(B)/bin/ips2-pack $(B)/bin/ips2-dump
	@for s in bench/run-*; do IPS2_BUILD=$(B) bash $$s || exit 1; done
