# examples/: bundled workloads (make demo).
