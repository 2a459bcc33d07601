# SPDX-License-Identifier: GPL-2.0
#
# Kbuild rule for the C++ core: core/%.cpp -> core/%.o (included from kmod/Kbuild).
#
# Flags are derived from the kernel's own KBUILD_CFLAGS (code model, red zone,
# retpolines/return thunks, stack protector, no SSE, ...) with the C-only
# options filtered out, plus the freestanding subset and warnings of
# core/flags.mk, the list the host build (CMakeLists.txt) reads too.  The core
# never includes a kernel header: only include/ and kmod/core/ are on its
# include path.
#
# The rule goes through if_changed_dep, so every object gets a real .cmd file
# with its dependencies and command line, and objtool runs on it like on C.

WGX_CXX ?= $(CROSS_COMPILE)g++

# C-only options (and ftrace instrumentation, which is not wanted in the core).
wgx-cxx-filter := -std=% -Wstrict-prototypes -Wold-style-definition \
	-Wmissing-prototypes -Wmissing-declarations -Wdeclaration-after-statement \
	-Wimplicit-function-declaration -Werror=implicit-function-declaration \
	-Wimplicit-int -Werror=implicit-int -Werror=incompatible-pointer-types \
	-Werror=designated-init -Wno-pointer-sign -Werror=strict-prototypes \
	-Wno-old-style-declaration -Wold-style-declaration -Wnested-externs \
	-Wbad-function-cast -Wmissing-parameter-type -Wno-array-bounds -Wpointer-sign \
	-Wno-alloc-size-larger-than -Wno-stringop-overflow -Wno-restrict -Wno-maybe-uninitialized \
	-Wno-enum-int-mismatch -Wenum-int-mismatch -Wpacked-not-aligned \
	-pg -mfentry -mrecord-mcount -mnop-mcount -DCC_USING_FENTRY -DCC_USING_NOP_MCOUNT \
	-Wmissing-include-dirs -Wunused-but-set-variable -Wunused-const-variable

include $(src)/core/flags.mk

wgx-cxxflags = $(filter-out $(wgx-cxx-filter),$(KBUILD_CFLAGS) $(KBUILD_CFLAGS_MODULE)) \
	$(wgx-core-cxxflags) -I$(src)/../include -I$(src)/core -DWGX_KERNEL

quiet_cmd_cxx_o_cpp = C++ $(quiet_modtag) $@
      cmd_cxx_o_cpp = $(WGX_CXX) -Wp,-MMD,$(depfile) $(wgx-cxxflags) -c -o $@ $< \
		$(cmd_objtool)

$(obj)/core/%.o: $(src)/core/%.cpp FORCE
	$(call if_changed_dep,cxx_o_cpp)
