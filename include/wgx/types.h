/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wgx/types.h - fixed-width types shared by the C glue and the C++ core.
 *
 * The core is freestanding and may not include libc or kernel headers, so the
 * types come from the compiler's own predefined macros.  In kernel C they are
 * the same types as u8..u64, size_t and bool from <linux/types.h>.
 */
#ifndef WGX_TYPES_H
#define WGX_TYPES_H

typedef __UINT8_TYPE__ wgx_u8;
typedef __UINT16_TYPE__ wgx_u16;
typedef __UINT32_TYPE__ wgx_u32;
typedef __UINT64_TYPE__ wgx_u64;
typedef __INT64_TYPE__ wgx_s64;
typedef __SIZE_TYPE__ wgx_size;

#ifdef __cplusplus
#define WGX_EXTERN_C_BEGIN extern "C" {
#define WGX_EXTERN_C_END }
#else
#define WGX_EXTERN_C_BEGIN
#define WGX_EXTERN_C_END
#if defined(__KERNEL__)
#include <linux/types.h> /* bool */
#else
#include <stdbool.h>
#endif
#endif

#endif /* WGX_TYPES_H */
