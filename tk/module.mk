# tk/: the Tcl front end of the analysts (docs/ANALYSTS.md §1, §3, §7): the
# Tcl packages ips2::dsl, ips2::workload, ips2::manifest, ips2::format and
# ips2::cli, copied with their pkgIndex.tcl into $(B)/lib/ips2-tcl (found
# through auto_path = $(B)/lib, beside the master package's lib/ips2), and
# the `ips2` command, a tclsh script, into $(B)/bin.  `make install` puts
# them in PREFIX/lib/ips2-tcl and PREFIX/bin.

TK_SRCS   := $(wildcard tk/*.tcl)
TK_LIBDIR := $(B)/lib/ips2-tcl
TK_FILES  := $(TK_SRCS:tk/%=$(TK_LIBDIR)/%)

$(TK_LIBDIR)/%.tcl: tk/%.tcl
	@mkdir -p $(dir $@)
	cp $< $@

$(B)/bin/ips2: tk/ips2
	@mkdir -p $(dir $@)
	cp $< $@ && chmod +x $@

PROGRAMS += $(B)/bin/ips2
all: $(TK_FILES)

.PHONY: install-tk
install: install-tk
install-tk: $(TK_FILES)
	install -d "$(DESTDIR)$(PREFIX)/lib/ips2-tcl"
	install -m 644 $(TK_FILES) "$(DESTDIR)$(PREFIX)/lib/ips2-tcl/"
