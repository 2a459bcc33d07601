# wgx — the user's entry point.
#
#   make            the product: kmod/wgx.ko, the release module (against KDIR),
#                   and the tool build/tools/wgx
#   make module     kmod/wgx.ko; WGX_DEBUG=1: the debug build, with the test
#                   hooks (timer_scale, debugfs crypto_ceiling and
#                   telemetry_cost); the test targets below build that one
#   make tool       build/tools/wgx (and wgx-top, wgx-exporter: the programs
#                   of `wgx top` and `wgx exporter`, which wgx runs)
#   make host       the tool, the unit tests and the benchmark helpers in build/
#   make demo       the main job: a real tunnel carrying traffic (in a VM here)
#   make check      every test suite: unit, fuzz smoke, KUnit, integration
#   make unit | fuzz | fuzz-long | kunit | integration | selftest | bench | clean
#   make install | uninstall        (DESTDIR, PREFIX, ...: see "Installation" below)
#   make install-dkms | uninstall-dkms | dkms
#   make deb        Debian packages wgx and wgx-dkms in build/deb/
#
# The product targets (make, module, tool, install*, dkms) only check the
# build dependencies (scripts/deps --build) and name what is missing; they
# never install anything.  The test targets first run scripts/deps, which
# installs the test toolchain with apt; make deb installs what packaging needs
# (scripts/deps --deb).

KVER ?= $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CORE_OBJS = $(sort $(patsubst %.cpp,%.o,$(wildcard kmod/core/*.cpp)))

BPF_OBJS = $(BUILD)/bpf/hash_invalid.bpf.o

.PHONY: all deps module tool host test-build bpf deb check check-all unit fuzz fuzz-long kunit integration selftest demo bench clean \
	core-symbols install install-only uninstall install-dkms uninstall-dkms dkms


# WGX_DEBUG=1: the module with its test hooks (kmod/Kbuild).  0 (default):
# the release module, what install, dkms and the packages ship.
WGX_DEBUG ?= 0

all: module tool

deps:
	@scripts/deps

module:
	@scripts/deps --build module
	@test -n "$(KDIR)" || { echo "make: no kernel headers found (apt-get install linux-headers-$$(uname -r)); or set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 CONFIG_DEBUG_INFO_BTF_MODULES= WGX_DEBUG=$(WGX_DEBUG) modules
	$(if $(CORE_OBJS),@scripts/check-core-symbols $(CORE_OBJS))
	@scripts/check-glue-calls kmod

core-symbols: module

# The tool alone (a fresh build/ is configured without the tests, WGX_TESTS=OFF);
# the target wgx builds wgx-top and wgx-exporter next to it as well.
tool:
	@scripts/deps --build tool
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS) --target wgx

host: deps
	@cmake -S . -B $(BUILD) -DWGX_TESTS=ON $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

# The test targets build and test the debug module (and so do the make runs
# they start); make demo shows the release module.
integration selftest check check-all bench: WGX_DEBUG = 1
test-build: deps module host bpf

# tc programs of the test and benchmark beds (clang -target bpf).
bpf: $(BPF_OBJS)

$(BUILD)/bpf/%.bpf.o: bench/%.bpf.c | deps
	@mkdir -p $(dir $@)
	clang -O2 -g0 -Wall -target bpf -I/usr/include/$(shell gcc -dumpmachine) -c $< -o $@

unit: host
	@scripts/run-unit $(BUILD)

fuzz: deps
	@scripts/fuzz --smoke

fuzz-long: deps
	@scripts/fuzz --long

kunit: deps
	@scripts/kunit

integration: test-build
	@scripts/integration

selftest: test-build
	@scripts/selftest

check: test-build
	@scripts/check

check-all: test-build
	@scripts/check --all

demo: deps all
	@scripts/demo

bench: test-build
	@scripts/bench $(if $(QUICK),--quick)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	rm -rf $(BUILD) build-fuzz

# ---- Installation ------------------------------------------------------------
# Debian conventions: DESTDIR stages the tree (a package build), PREFIX (default
# /usr/local; a package uses PREFIX=/usr) places the tool, its man pages,
# completions, examples and the systemd units.  Units go to
# $(PREFIX)/lib/systemd/system: systemd searches /usr/local/lib/systemd/system
# and /usr/lib/systemd/system (= /lib/systemd/system on merged-/usr Debian),
# so both prefixes work.  The module goes to /lib/modules/<kernel>/updates/,
# <kernel> being the release the module was built for (KDIR's, not the
# running kernel's), followed by `depmod -a <kernel>` unless DESTDIR is set.
# tests/install/manifest lists exactly what `make install` lays out.  The
# tool and the module are installed stripped (the module of its debug info,
# as the kernel's INSTALL_MOD_STRIP=1); INSTALL_STRIP=0 keeps them whole
# (debian/rules: dh_strip strips and keeps the symbols in -dbgsym).
# install-only refuses the debug module (WGX_DEBUG=1 installs it on purpose).
#
#   make install        build, then install      make install-only  install what is built
#                       INSTALL_MODULE=0: all but wgx.ko (the module comes from DKMS)
#   make uninstall      remove exactly what install laid out (and depmod): the
#                       module of every kernel install put it in (a kernel
#                       upgrade since changes nothing), or with KVER=,
#                       MODULE_KVER= or MODULEDIR= only that kernel's
#   make install-dkms   the module sources and dkms.conf in /usr/src/wgx-$(VERSION)
#   make dkms           install-dkms, then dkms add/build/install (needs root)
VERSION := $(strip $(shell cat $(CURDIR)/VERSION))
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
# wgx-top and wgx-exporter, the programs of `wgx top` and `wgx exporter`
# (linked with ncurses and libmicrohttpd, which wgx itself is not): wgx looks
# for them in ../libexec/wgx/ from its own directory, so the directory
# follows BINDIR (/usr/bin: /usr/libexec/wgx, FHS 3.0 and Debian policy 9.1.1).
LIBEXECDIR = $(dir $(patsubst %/,%,$(BINDIR)))libexec/wgx
MANDIR ?= $(PREFIX)/share/man
DOCDIR ?= $(PREFIX)/share/doc/wgx
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
SYSCONFDIR ?= /etc
MODULE_KVER ?= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
MODULEDIR ?= /lib/modules/$(MODULE_KVER)/updates
DKMSSRCDIR ?= /usr/src/wgx-$(VERSION)
INSTALL_MODULE ?= 1
INSTALL_STRIP ?= 1
STRIP ?= strip

# One line per installed file: MODE DESTINATION SOURCE; a source ending in .in
# has @VERSION@, @BINDIR@, @LIBEXECDIR@, @SYSCONFDIR@ and @DOCDIR@ filled in.  install and
# uninstall both walk this list.
define INSTALL_LIST
644 $(MODULEDIR)/wgx.ko kmod/wgx.ko
755 $(BINDIR)/wgx $(BUILD)/tools/wgx
755 $(LIBEXECDIR)/wgx-top $(BUILD)/tools/wgx-top
755 $(LIBEXECDIR)/wgx-exporter $(BUILD)/tools/wgx-exporter
755 $(BINDIR)/wgx-quick tools/wgx-quick/wgx-quick.in
644 $(MANDIR)/man8/wgx.8 docs/man/wgx.8.in
644 $(MANDIR)/man8/wgx-quick.8 docs/man/wgx-quick.8.in
644 $(BASHCOMPDIR)/wgx dist/bash-completion/wgx
644 $(BASHCOMPDIR)/wgx-quick dist/bash-completion/wgx-quick.in
644 $(SYSTEMDUNITDIR)/wgx@.service dist/systemd/wgx@.service.in
644 $(SYSTEMDUNITDIR)/wgx-quick@.service dist/systemd/wgx-quick@.service.in
644 $(SYSTEMDUNITDIR)/wgx-reresolve@.service dist/systemd/wgx-reresolve@.service.in
644 $(SYSTEMDUNITDIR)/wgx-reresolve@.timer dist/systemd/wgx-reresolve@.timer.in
644 $(SYSTEMDUNITDIR)/wgx-quick-reresolve@.service dist/systemd/wgx-quick-reresolve@.service.in
644 $(SYSTEMDUNITDIR)/wgx-quick-reresolve@.timer dist/systemd/wgx-quick-reresolve@.timer.in
644 $(SYSTEMDUNITDIR)/wgx-networkd-reresolve@.service dist/systemd/wgx-networkd-reresolve@.service.in
644 $(SYSTEMDUNITDIR)/wgx-networkd-reresolve@.timer dist/systemd/wgx-networkd-reresolve@.timer.in
644 $(DOCDIR)/README.md README.md
644 $(DOCDIR)/guide.md docs/guide.md
644 $(DOCDIR)/dropin.md docs/dropin.md
644 $(DOCDIR)/mtu.md docs/mtu.md
644 $(DOCDIR)/rotation.md docs/rotation.md
644 $(DOCDIR)/datapath.md docs/datapath.md
644 $(DOCDIR)/telemetry.md docs/telemetry.md
644 $(DOCDIR)/show-json.schema.json docs/show-json.schema.json
644 $(DOCDIR)/examples/wgx0.conf dist/examples/wgx0.conf
644 $(DOCDIR)/examples/wgx0.network dist/examples/wgx0.network
644 $(DOCDIR)/examples/wgx-quick.conf dist/examples/wgx-quick.conf
644 $(DOCDIR)/examples/modprobe-wgx.conf dist/examples/modprobe-wgx.conf
endef
export INSTALL_LIST
# The list without the module when INSTALL_MODULE=0.
INSTALL_LIST_CMD = printf '%s\n' "$$INSTALL_LIST" $(if $(filter 0,$(INSTALL_MODULE)),| grep -v ' kmod/wgx.ko$$')
DEPMOD = $(if $(DESTDIR)$(filter 0,$(INSTALL_MODULE)),,depmod -a $(MODULE_KVER))
# What uninstall removes of the module: with MODULEDIR, MODULE_KVER or KVER
# set by the user (command line, environment) that kernel's, else every
# $(DESTDIR)/lib/modules/*/updates/wgx.ko (install's MODULEDIR for each
# kernel it ran for; uname -r may name another kernel by now).
user_set = $(filter-out undefined default file,$(origin $(1)))
UNINSTALL_MODULES = $(strip $(if $(filter 0,$(INSTALL_MODULE)),, \
	$(if $(call user_set,MODULEDIR)$(call user_set,MODULE_KVER),$(MODULEDIR)/wgx.ko, \
	$(if $(call user_set,KVER),/lib/modules/$(KVER)/updates/wgx.ko, \
	$(patsubst $(DESTDIR)%,%,$(wildcard $(DESTDIR)/lib/modules/*/updates/wgx.ko))))))
UNINSTALL_KVERS = $(strip $(if $(filter 0,$(INSTALL_MODULE)),, \
	$(if $(call user_set,MODULEDIR)$(call user_set,MODULE_KVER),$(MODULE_KVER), \
	$(patsubst /lib/modules/%/updates/wgx.ko,%,$(UNINSTALL_MODULES)))))
UNINSTALL_DEPMOD = $(if $(DESTDIR),,$(if $(UNINSTALL_KVERS),$(strip depmod -a $(firstword $(UNINSTALL_KVERS)) $(foreach \
	k,$(wordlist 2,$(words $(UNINSTALL_KVERS)),$(UNINSTALL_KVERS)),&& depmod -a $(k)))))
# With INSTALL_STRIP=1, strip the installed $$dest of $$src: the tool and its programs to what they need to run
# (dh_strip's --strip-unneeded), the module of its debug info.
STRIP_CMD = $(if $(filter 1,$(INSTALL_STRIP)),case "$$src" in \
		(kmod/wgx.ko) $(STRIP) --strip-debug "$(DESTDIR)$$dest" ;; \
		($(BUILD)/tools/wgx | $(BUILD)/tools/wgx-top | $(BUILD)/tools/wgx-exporter) $(STRIP) --strip-unneeded --remove-section=.comment --remove-section=.note "$(DESTDIR)$$dest" ;; \
		esac,:)
SUBST = sed -e 's|@VERSION@|$(VERSION)|g' -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@LIBEXECDIR@|$(LIBEXECDIR)|g' \
	-e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' -e 's|@DOCDIR@|$(DOCDIR)|g'

# INSTALL_MODULE=0 builds no module either (the module comes from DKMS).
install: $(if $(filter 0,$(INSTALL_MODULE)),tool,all)
	@$(MAKE) --no-print-directory install-only

install-only:
	@test "$(INSTALL_MODULE)" = 0 || test -n "$(MODULE_KVER)" || { echo "make: no kernel release for the module; set KDIR or MODULE_KVER" >&2; exit 1; }
	@test -n "$(VERSION)" || { echo "make: VERSION is empty" >&2; exit 1; }
	@if [ "$(INSTALL_MODULE)" != 0 ] && [ "$(WGX_DEBUG)" != 1 ] && [ -f kmod/wgx.ko ] && \
		[ -n "$$(/sbin/modinfo -F test_hooks kmod/wgx.ko)" ]; then \
		echo "make install: kmod/wgx.ko is the debug build (test hooks: $$(/sbin/modinfo -F test_hooks kmod/wgx.ko)); run make module, or make install-only WGX_DEBUG=1 to install it anyway" >&2; \
		exit 1; \
	fi
	@$(INSTALL_LIST_CMD) | while read -r mode dest src; do \
		test -f "$$src" || { echo "make install: $$src is missing (run make first)" >&2; exit 1; }; \
		install -d -m 0755 "$(DESTDIR)$$(dirname "$$dest")" || exit 1; \
		case "$$src" in \
		*.in) $(SUBST) "$$src" >"$(DESTDIR)$$dest.tmp" && chmod "$$mode" "$(DESTDIR)$$dest.tmp" && \
			mv -f "$(DESTDIR)$$dest.tmp" "$(DESTDIR)$$dest" ;; \
		*) install -m "$$mode" "$$src" "$(DESTDIR)$$dest" && { $(STRIP_CMD); } ;; \
		esac || exit 1; \
		echo "  INSTALL $(DESTDIR)$$dest"; \
	done
	@install -d -m 0700 "$(DESTDIR)$(SYSCONFDIR)/wgx"
	$(DEPMOD)

uninstall:
	@{ printf '%s\n' "$$INSTALL_LIST" | grep -v ' kmod/wgx.ko$$'; \
		for m in $(UNINSTALL_MODULES); do echo "644 $$m kmod/wgx.ko"; done; } | while read -r mode dest src; do \
		if [ -e "$(DESTDIR)$$dest" ]; then rm -f "$(DESTDIR)$$dest" && echo "  REMOVE  $(DESTDIR)$$dest"; fi; \
	done
	@-rmdir "$(DESTDIR)$(DOCDIR)/examples" "$(DESTDIR)$(DOCDIR)" "$(DESTDIR)$(LIBEXECDIR)" "$(DESTDIR)$(SYSCONFDIR)/wgx" 2>/dev/null || true
	$(UNINSTALL_DEPMOD)

# The DKMS source tree: dkms.conf, the top Kbuild, VERSION, kmod/ and include/
# (sources only, no build products).
DKMS_SOURCES = Kbuild VERSION $(sort $(shell find kmod include -type f \
	\( -name '*.c' -o -name '*.h' -o -name '*.cpp' -o -name '*.hpp' -o -name 'Kbuild*' -o -name '*.mk' \) \
	! -name '*.mod.c' 2>/dev/null))

install-dkms:
	@test -n "$(VERSION)" || { echo "make: VERSION is empty" >&2; exit 1; }
	@rm -rf "$(DESTDIR)$(DKMSSRCDIR)"
	@install -d -m 0755 "$(DESTDIR)$(DKMSSRCDIR)"
	@for f in $(DKMS_SOURCES); do \
		install -D -m 0644 "$$f" "$(DESTDIR)$(DKMSSRCDIR)/$$f" || exit 1; \
	done
	@$(SUBST) dist/dkms.conf.in >"$(DESTDIR)$(DKMSSRCDIR)/dkms.conf"
	@chmod 0644 "$(DESTDIR)$(DKMSSRCDIR)/dkms.conf"
	@echo "  INSTALL $(DESTDIR)$(DKMSSRCDIR) (dkms.conf and $(words $(DKMS_SOURCES)) source files)"

uninstall-dkms:
	$(if $(DESTDIR),,-dkms remove wgx/$(VERSION) --all)
	rm -rf "$(DESTDIR)$(DKMSSRCDIR)"

dkms: install-dkms
	@scripts/deps --build module dkms
	dkms add wgx/$(VERSION)
	dkms build wgx/$(VERSION)
	dkms install wgx/$(VERSION)

# ---- Debian packages -----------------------------------------------------------
# make deb: the packages wgx and wgx-dkms (debian/), built with
# dpkg-buildpackage from a copy of the checkout's files (scripts/source-tree) in
# $(DEBDIR)/wgx-$(VERSION)/, so the results (.deb, .buildinfo, .changes, next
# to that copy) and debhelper's files stay out of the tree; then lintian.
# Installs what packaging needs first (scripts/deps --deb).
DEBDIR ?= $(BUILD)/deb
DEB_VERSION = $(shell dpkg-parsechangelog -l debian/changelog -S Version 2>/dev/null)

deb: SHELL := /bin/bash
deb:
	@scripts/deps --deb
	@test "$(DEB_VERSION)" = "$(VERSION)" || test "$${DEB_VERSION%%+*}" = "$(VERSION)" || \
		{ echo "make deb: debian/changelog is at $(DEB_VERSION), VERSION at $(VERSION)" >&2; exit 1; }
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make deb: needs a git checkout (git ls-files)" >&2; exit 1; }
	@rm -rf "$(DEBDIR)" && mkdir -p "$(DEBDIR)/wgx-$(VERSION)"
	@scripts/source-tree "$(DEBDIR)/wgx-$(VERSION)"
	@echo "  DEB     $(DEBDIR) (dpkg-buildpackage -b; log: $(DEBDIR)/build.log)"
	@cd "$(DEBDIR)/wgx-$(VERSION)" && DEB_BUILD_OPTIONS="parallel=$(JOBS) $(DEB_BUILD_OPTIONS)" \
		dpkg-buildpackage -b -us -uc >../build.log 2>&1 || { tail -n 30 ../build.log >&2; exit 1; }
	@echo "  LINTIAN $(DEBDIR)/*.changes"
	@lintian --fail-on error,warning --info $(DEBDIR)/*.changes
	@ls -1 $(DEBDIR)/*.deb
