# SPDX-License-Identifier: GPL-2.0
#
# The compile flags of the freestanding C++ core: one list for both builds.
# kmod/core/Kbuild.cxx includes this file for the module (after the flags it
# takes over from the kernel's KBUILD_CFLAGS); CMakeLists.txt reads it for the
# host library that the unit tests and the fuzzers link.  A source that breaks
# the subset (a libc or libstdc++ include, an exception, a static constructor)
# therefore fails on the host exactly as in Kbuild.  The rules behind the
# flags are in docs/architecture.md ("The boundary").
#
# Keep it one assignment of plain flags, no make functions or variables:
# CMakeLists.txt parses it with a regular expression.
#
#   -nostdinc -nostdinc++   no libc, no libstdc++ headers: only include/ and kmod/core/
#   -ffreestanding -fno-builtin-new -fno-builtin-delete   no hosted library assumed
#   -fno-exceptions -fno-rtti -fno-asynchronous-unwind-tables   no C++ runtime, no unwinding
#   -fno-threadsafe-statics -fno-use-cxa-atexit   no __cxa_guard_*, no __cxa_atexit
#   -mgeneral-regs-only     no SSE/AVX registers (the kernel does not save them)
wgx-core-cxxflags := -std=gnu++20 -ffreestanding -fno-exceptions -fno-rtti \
	-fno-threadsafe-statics -fno-use-cxa-atexit -nostdinc -nostdinc++ \
	-fno-asynchronous-unwind-tables -mgeneral-regs-only \
	-fno-builtin-new -fno-builtin-delete \
	-Wall -Wextra -Wno-missing-field-initializers -Werror
