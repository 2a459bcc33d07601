# wgx — the user's entry point.
#
#   make            build kmod/wgx.ko (against KDIR) and the host targets in build/
#   make demo       the main job: a real tunnel carrying traffic (in a VM here)
#   make check      every test suite: unit, fuzz smoke, KUnit, integration
#   make unit | fuzz | fuzz-long | kunit | integration | selftest | bench | clean
#
# Every target first runs scripts/deps, which installs missing packages with apt.

KVER ?= $(shell uname -r)
KDIR ?= $(firstword $(wildcard /lib/modules/$(KVER)/build) \
	$(shell ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | sort -V | tail -n 1))
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=
CORE_OBJS = $(sort $(patsubst %.cpp,%.o,$(wildcard kmod/core/*.cpp)))

BPF_OBJS = $(BUILD)/bpf/hash_invalid.bpf.o

.PHONY: all deps module host bpf check unit fuzz fuzz-long kunit integration selftest demo bench clean core-symbols

all: module host bpf

deps:
	@scripts/deps

module: deps
	@test -n "$(KDIR)" || { echo "make: no kernel headers found; set KDIR" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 CONFIG_DEBUG_INFO_BTF_MODULES= modules
	$(if $(CORE_OBJS),@scripts/check-core-symbols $(CORE_OBJS))

core-symbols: module

host: deps
	@cmake -S . -B $(BUILD) $(CMAKE_FLAGS) >/dev/null
	@cmake --build $(BUILD) -j$(JOBS)

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

integration: all
	@scripts/integration

selftest: all
	@scripts/selftest

check: all
	@scripts/check

demo: all
	@scripts/demo

bench: all
	@scripts/bench $(if $(QUICK),--quick)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean >/dev/null 2>&1
	rm -rf $(BUILD) build-fuzz
