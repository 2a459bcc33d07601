// SPDX-License-Identifier: GPL-2.0
//
// bytes.hpp - freestanding byte helpers for the core: fixed-width loads and
// stores in a stated byte order, copy/zero/compare without libc, and a
// compile-time array size.  Everything is constexpr or inline; nothing here
// allocates or touches global state.
#pragma once

#include <wgx/types.h>

namespace wgx {

using u8 = wgx_u8;
using u16 = wgx_u16;
using u32 = wgx_u32;
using u64 = wgx_u64;
using s64 = wgx_s64;
using usize = wgx_size;

/// Number of elements of a C array, at compile time.
template <typename T, usize N> constexpr usize array_size(const T (&)[N])
{
    return N;
}

inline void copy_bytes(void *dst, const void *src, usize len)
{
    __builtin_memcpy(dst, src, len);
}
inline void move_bytes(void *dst, const void *src, usize len)
{
    __builtin_memmove(dst, src, len);
}
inline void zero_bytes(void *dst, usize len)
{
    __builtin_memset(dst, 0, len);
}
/// Non-constant-time equality; use wgx_platform_memneq() for anything secret.
inline bool bytes_equal(const void *a, const void *b, usize len)
{
    return __builtin_memcmp(a, b, len) == 0;
}

/// True when all @len bytes at @p are zero (not constant time).
inline bool all_zero(const void *p, usize len)
{
    const u8 *b = static_cast<const u8 *>(p);
    u8 acc = 0;
    for (usize i = 0; i < len; ++i)
        acc |= b[i];
    return acc == 0;
}

inline u32 load_le32(const u8 *p)
{
    return u32(p[0]) | u32(p[1]) << 8 | u32(p[2]) << 16 | u32(p[3]) << 24;
}
inline u64 load_le64(const u8 *p)
{
    return u64(load_le32(p)) | u64(load_le32(p + 4)) << 32;
}
inline u16 load_be16(const u8 *p)
{
    return u16(u16(p[0]) << 8 | p[1]);
}
inline u32 load_be32(const u8 *p)
{
    return u32(p[3]) | u32(p[2]) << 8 | u32(p[1]) << 16 | u32(p[0]) << 24;
}
inline u64 load_be64(const u8 *p)
{
    return u64(load_be32(p)) << 32 | u64(load_be32(p + 4));
}

inline void store_le32(u8 *p, u32 v)
{
    for (int i = 0; i < 4; ++i)
        p[i] = u8(v >> (8 * i));
}
inline void store_le64(u8 *p, u64 v)
{
    store_le32(p, u32(v));
    store_le32(p + 4, u32(v >> 32));
}
inline void store_be32(u8 *p, u32 v)
{
    for (int i = 0; i < 4; ++i)
        p[3 - i] = u8(v >> (8 * i));
}
inline void store_be64(u8 *p, u64 v)
{
    store_be32(p, u32(v >> 32));
    store_be32(p + 4, u32(v));
}

/// Time units: the core takes monotonic time in nanoseconds.
constexpr u64 NSEC_PER_SEC = 1000000000ULL;
constexpr u64 NSEC_PER_MSEC = 1000000ULL;

}  // namespace wgx
