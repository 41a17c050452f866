# examples/: bundled workloads.  `make demo` runs examples/workloads/demo.tcl
# with `ips2 run`: three applications (a TCP server, its clients, a pthread
# barrier program) on two machines played by this host, under a private
# pvmd; it prints the logical and physical trees, the multi-application
# metric table, an NPT profile and a gprof table per application, then the
# client's inter-application critical-path profile and checks the critical
# path's invariant (length <= elapsed) for every application and mode
# (cpcheck.tcl), and keeps
# the session in $(B)/demo-session (reopen it with `ips2 report`).

# The demo workload's programs (examples/workloads/*.c, known work: see
# demo.tcl), built with ips2cc.  -fno-optimize-sibling-calls keeps every
# call a call, so that call counts equal GNU gprof's on a -pg build.
WORKLOAD_PROGS  := $(addprefix $(B)/examples/workloads/,tcpserver tcpclient barrier \
                   cpstep csserver csclient cpimbalance)
WORKLOAD_CFLAGS := -O2 -fno-optimize-sibling-calls -pthread -Wall -Wextra -Werror

$(B)/examples/workloads/%: examples/workloads/%.c examples/workloads/cpuwork.h \
                           examples/workloads/loopback.h examples/workloads/options.h \
                           $(B)/bin/ips2cc $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc $(WORKLOAD_CFLAGS) -o $@ $<

all: $(WORKLOAD_PROGS)

DEMO_SESSION := $(B)/demo-session

demo: all
	@rm -rf $(DEMO_SESSION)
	$(B)/bin/ips2 run examples/workloads/demo.tcl -session $(DEMO_SESSION) -pvm private \
	    -set bin=$(abspath $(B))/examples/workloads -set port=$$(tclsh examples/workloads/freeport.tcl)
	@echo
	@echo "== inter-application critical path of the client (process level)"
	$(B)/bin/ips2 report $(DEMO_SESSION) cp -mode inter -app client -level process
	@echo
	@echo "== the critical path's invariant: length <= elapsed, every application and mode"
	tclsh examples/workloads/cpcheck.tcl $(abspath $(B)) $(DEMO_SESSION)

# The search's workloads (examples/search/README.md): programs with
# planted bottlenecks and decoys, and small versions of the thesis's Ch. 4
# programs, built with ips2cc like the demo's.
SEARCH_PROGS := $(addprefix $(B)/examples/search/,cpubound hotlock smallio pagefault tinycalls \
                balanced pvmpipe water hashjoin locusroute)
SEARCH_LIBS_pvmpipe := -lpvm3
SEARCH_LIBS_water   := -lm

$(B)/examples/search/%: examples/search/%.c examples/workloads/cpuwork.h \
                        examples/workloads/options.h $(B)/bin/ips2cc $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc $(WORKLOAD_CFLAGS) -o $@ $< $(SEARCH_LIBS_$*)

all: $(SEARCH_PROGS)

# bench/run-search runs some of them beside bench/calls.c.
bench: $(SEARCH_PROGS)

# The perturbation validation programs (examples/perturb/README.md): each
# built with ips2cc (traced) and with plain cc (the untraced reference,
# no probes); examples/perturb/validate.tcl compares their times.
PERTURB_NAMES := seq barrier mutex pipeline
PERTURB_PROGS := $(addprefix $(B)/examples/perturb/,$(PERTURB_NAMES)) \
                 $(addprefix $(B)/examples/perturb/plain/,$(PERTURB_NAMES))

$(B)/examples/perturb/%: examples/perturb/%.c examples/perturb/perturb.h $(B)/bin/ips2cc \
                         $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc $(WORKLOAD_CFLAGS) -o $@ $<
$(B)/examples/perturb/plain/%: examples/perturb/%.c examples/perturb/perturb.h
	@mkdir -p $(dir $@)
	$(CC) $(WORKLOAD_CFLAGS) -o $@ $<

all: $(PERTURB_PROGS)

# The clock-precision study (examples/clock/precision.tcl, paper §5.1).
CLOCK_PROGS := $(B)/examples/clock/join

$(B)/examples/clock/%: examples/clock/%.c examples/workloads/cpuwork.h \
                       examples/workloads/options.h $(B)/bin/ips2cc $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc $(WORKLOAD_CFLAGS) -o $@ $<

all: $(CLOCK_PROGS)
