// SPDX-License-Identifier: GPL-2.0
//
// messages.hpp - WireGuard message layouts for the C++ core (whitepaper 5.4).
//
// The layouts are defined once, as packed C structs in <wgx/messages.h>, so the C
// glue and the core agree byte for byte; this header adds compile-time checks
// of every offset and the byte-level accessors the core uses (the core never
// dereferences a struct pointer into a packet buffer: it reads and writes at
// these offsets with explicit little-endian loads/stores).
#pragma once

#include <wgx/messages.h>

#include "bytes.hpp"

namespace wgx::msg {

// Message types (first byte; the next three bytes must be zero).
constexpr u8 TYPE_INITIATION = WGX_MSG_INITIATION;
constexpr u8 TYPE_RESPONSE = WGX_MSG_RESPONSE;
constexpr u8 TYPE_COOKIE_REPLY = WGX_MSG_COOKIE_REPLY;
constexpr u8 TYPE_TRANSPORT = WGX_MSG_TRANSPORT;

// Sizes in bytes.
constexpr usize KEY_LEN = 32;
constexpr usize TAG_LEN = 16;
constexpr usize MAC_LEN = 16;
constexpr usize TAI64N_LEN = WGX_TAI64N_LEN;
constexpr usize COOKIE_LEN = WGX_COOKIE_LEN;
constexpr usize COOKIE_NONCE_LEN = WGX_COOKIE_NONCE_LEN;
constexpr usize INITIATION_LEN = WGX_MSG_INITIATION_LEN;
constexpr usize RESPONSE_LEN = WGX_MSG_RESPONSE_LEN;
constexpr usize COOKIE_REPLY_LEN = WGX_MSG_COOKIE_REPLY_LEN;
constexpr usize TRANSPORT_HEADER_LEN = WGX_MSG_TRANSPORT_HEADER_LEN;
constexpr usize TRANSPORT_MIN_LEN = WGX_MSG_TRANSPORT_MIN_LEN;
constexpr usize PADDING_MULTIPLE = WGX_MSG_PADDING_MULTIPLE;

// Offsets within each message.
namespace initiation {
constexpr usize SENDER = __builtin_offsetof(wgx_msg_initiation, sender_index);
constexpr usize EPHEMERAL = __builtin_offsetof(wgx_msg_initiation, unencrypted_ephemeral);
constexpr usize STATIC = __builtin_offsetof(wgx_msg_initiation, encrypted_static);
constexpr usize TIMESTAMP = __builtin_offsetof(wgx_msg_initiation, encrypted_timestamp);
constexpr usize MAC1 = __builtin_offsetof(wgx_msg_initiation, macs.mac1);
constexpr usize MAC2 = __builtin_offsetof(wgx_msg_initiation, macs.mac2);
static_assert(SENDER == 4 && EPHEMERAL == 8 && STATIC == 40 && TIMESTAMP == 88 && MAC1 == 116 && MAC2 == 132 &&
              sizeof(wgx_msg_initiation) == 148);
}  // namespace initiation

namespace response {
constexpr usize SENDER = __builtin_offsetof(wgx_msg_response, sender_index);
constexpr usize RECEIVER = __builtin_offsetof(wgx_msg_response, receiver_index);
constexpr usize EPHEMERAL = __builtin_offsetof(wgx_msg_response, unencrypted_ephemeral);
constexpr usize EMPTY = __builtin_offsetof(wgx_msg_response, encrypted_nothing);
constexpr usize MAC1 = __builtin_offsetof(wgx_msg_response, macs.mac1);
constexpr usize MAC2 = __builtin_offsetof(wgx_msg_response, macs.mac2);
static_assert(SENDER == 4 && RECEIVER == 8 && EPHEMERAL == 12 && EMPTY == 44 && MAC1 == 60 && MAC2 == 76 &&
              sizeof(wgx_msg_response) == 92);
}  // namespace response

namespace cookie_reply {
constexpr usize RECEIVER = __builtin_offsetof(wgx_msg_cookie_reply, receiver_index);
constexpr usize NONCE = __builtin_offsetof(wgx_msg_cookie_reply, nonce);
constexpr usize COOKIE = __builtin_offsetof(wgx_msg_cookie_reply, encrypted_cookie);
static_assert(RECEIVER == 4 && NONCE == 8 && COOKIE == 32 && sizeof(wgx_msg_cookie_reply) == 64);
}  // namespace cookie_reply

namespace transport {
constexpr usize RECEIVER = __builtin_offsetof(wgx_msg_transport, receiver_index);
constexpr usize COUNTER = __builtin_offsetof(wgx_msg_transport, counter);
constexpr usize DATA = sizeof(wgx_msg_transport);
static_assert(RECEIVER == 4 && COUNTER == 8 && DATA == 16);
}  // namespace transport

// Both handshake messages end in mac1 || mac2; the sender index sits at offset 4.
constexpr usize MACS_TAIL = 2 * MAC_LEN;
constexpr usize HANDSHAKE_SENDER = 4;
static_assert(initiation::SENDER == HANDSHAKE_SENDER && response::SENDER == HANDSHAKE_SENDER);
static_assert(initiation::MAC1 == INITIATION_LEN - MACS_TAIL && response::MAC1 == RESPONSE_LEN - MACS_TAIL);

/// Writes the 4-byte header: @type followed by three zero bytes.
inline void put_header(u8 *msg, u8 type)
{
    msg[0] = type;
    msg[1] = msg[2] = msg[3] = 0;
}

/// The message type if @data/@len is a well-formed message (exact length, zero
/// reserved bytes), else 0.
inline int classify(const u8 *data, usize len)
{
    if (!data || len < 4 || data[1] | data[2] | data[3])
        return 0;
    switch (data[0]) {
    case TYPE_INITIATION:
        return len == INITIATION_LEN ? TYPE_INITIATION : 0;
    case TYPE_RESPONSE:
        return len == RESPONSE_LEN ? TYPE_RESPONSE : 0;
    case TYPE_COOKIE_REPLY:
        return len == COOKIE_REPLY_LEN ? TYPE_COOKIE_REPLY : 0;
    case TYPE_TRANSPORT:
        return len >= TRANSPORT_MIN_LEN ? TYPE_TRANSPORT : 0;
    default:
        return 0;
    }
}

/// True for an initiation or a response: the messages carrying mac1/mac2.
inline bool is_handshake(const u8 *data, usize len)
{
    int t = classify(data, len);
    return t == TYPE_INITIATION || t == TYPE_RESPONSE;
}

}  // namespace wgx::msg
