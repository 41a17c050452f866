# examples/: bundled workloads.  Until the analysts exist, `make demo` traces
# examples/demo/demo.c with ips2cc, packs the streams and prints what they
# hold: per-stream headers and per-procedure call counts.

DEMO_SESSION := $(B)/demo-session

$(B)/examples/demo: examples/demo/demo.c $(B)/bin/ips2cc $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc -O2 -pthread -o $@ $<

demo: all $(B)/examples/demo
	@rm -rf $(DEMO_SESSION)
	IPS2_SESSION=$(DEMO_SESSION) IPS2_APP=demo $(B)/examples/demo
	$(B)/bin/ips2-pack $(DEMO_SESSION)
	@for f in $(DEMO_SESSION)/*.ips2; do \
	    case $$f in *.proc.ips2) continue;; esac; \
	    echo "== $$f"; $(B)/bin/ips2-dump --summary $$f; \
	done

# The demo workload's programs (examples/workloads/*.c, known work: see
# demo.tcl), built with ips2cc.  -fno-optimize-sibling-calls keeps every
# call a call, so that call counts equal GNU gprof's on a -pg build.
WORKLOAD_PROGS  := $(addprefix $(B)/examples/workloads/,tcpserver tcpclient barrier)
WORKLOAD_CFLAGS := -O2 -fno-optimize-sibling-calls -pthread -Wall -Wextra -Werror

$(B)/examples/workloads/%: examples/workloads/%.c examples/workloads/cpuwork.h \
                           $(B)/bin/ips2cc $(RUNTIME_LIB)
	@mkdir -p $(dir $@)
	$(B)/bin/ips2cc $(WORKLOAD_CFLAGS) -o $@ $<

all: $(WORKLOAD_PROGS)
