# bench/: side-by-side benchmarks (make bench).
