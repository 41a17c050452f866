# tk/: the master analyst window (`ips2 gui`, docs/ANALYSTS.md §7), Tcl/Tk
# over the master package: the packages ips2::gui and ips2::gui::*, copied
# with their pkgIndex.tcl into $(B)/lib/ips2-gui (found through auto_path =
# $(B)/lib, beside the master package's lib/ips2).  `make install` puts
# them in PREFIX/lib/ips2-gui.

TK_SRCS   := $(wildcard tk/*.tcl)
TK_LIBDIR := $(B)/lib/ips2-gui
TK_FILES  := $(TK_SRCS:tk/%=$(TK_LIBDIR)/%)

$(TK_LIBDIR)/%.tcl: tk/%.tcl
	@mkdir -p $(dir $@)
	cp $< $@

all: $(TK_FILES)

.PHONY: install-tk
install: install-tk
install-tk: $(TK_FILES)
	install -d "$(DESTDIR)$(PREFIX)/lib/ips2-gui"
	install -m 644 $(TK_FILES) "$(DESTDIR)$(PREFIX)/lib/ips2-gui/"
