// SPDX-License-Identifier: GPL-2.0
//
// transport.cpp - message classification and transport data encryption and
// decryption in a linear buffer (whitepaper 5.4.6): header (type 4, receiver
// index, counter), then ChaCha20-Poly1305 with the counter as nonce and no
// associated data over the plaintext zero-padded to a multiple of 16 bytes.
#include "transport.hpp"

#include <wgx/core_test.h>
#include <wgx/platform.h>

using namespace wgx;

int wgx_msg_classify(const u8 *data, usize len)
{
    return msg::classify(data, len);
}

bool wgx_msg_receiver_index(const u8 *data, usize len, u32 *index)
{
    usize off;
    switch (msg::classify(data, len)) {
    case msg::TYPE_RESPONSE:
        off = msg::response::RECEIVER;
        break;
    case msg::TYPE_COOKIE_REPLY:
        off = msg::cookie_reply::RECEIVER;
        break;
    case msg::TYPE_TRANSPORT:
        off = msg::transport::RECEIVER;
        break;
    default:
        return false;
    }
    if (!index)
        return false;
    *index = load_le32(data + off);
    return true;
}

usize wgx_transport_padded_len(usize len, u32 mtu)
{
    return transport::padded_len(len, mtu);
}

int wgx_transport_write_header(u8 *hdr, u32 receiver_index, u64 counter)
{
    if (!hdr)
        return -WGX_EINVAL;
    if (counter >= transport::REJECT_AFTER_MESSAGES)
        return -WGX_EKEYREJECTED;
    msg::put_header(hdr, msg::TYPE_TRANSPORT);
    store_le32(hdr + msg::transport::RECEIVER, receiver_index);
    store_le64(hdr + msg::transport::COUNTER, counter);
    return 0;
}

int wgx_transport_encrypt(u8 *out, usize out_cap, usize *out_len, const u8 *plain, usize plain_len, u32 mtu,
                          const u8 *key, u32 receiver_index, u64 counter)
{
    if (out_len)
        *out_len = 0;
    if (!out || !out_len || !key || (!plain && plain_len))
        return -WGX_EINVAL;
    if (counter >= transport::REJECT_AFTER_MESSAGES)
        return -WGX_EKEYREJECTED;
    const usize padded = transport::padded_len(plain_len, mtu);
    if (padded < plain_len || out_cap < msg::TRANSPORT_MIN_LEN || out_cap - msg::TRANSPORT_MIN_LEN < padded)
        return -WGX_EMSGSIZE;

    // Place the plaintext first (it may overlap the header), then the header.
    u8 *data = out + msg::transport::DATA;
    if (plain_len && plain != data)
        move_bytes(data, plain, plain_len);
    zero_bytes(data + plain_len, padded - plain_len);
    wgx_transport_write_header(out, receiver_index, counter);
    wgx_platform_chacha20poly1305_encrypt(data, data, padded, nullptr, 0, counter, key);
    *out_len = padded + msg::TRANSPORT_MIN_LEN;
    return 0;
}

int wgx_transport_decrypt(u8 *m, usize len, const u8 *key, u64 *counter, usize *plain_len)
{
    if (!key || !counter || !plain_len)
        return -WGX_EINVAL;
    if (msg::classify(m, len) != msg::TYPE_TRANSPORT)
        return -WGX_EINVAL;
    const u64 c = load_le64(m + msg::transport::COUNTER);
    if (c >= transport::REJECT_AFTER_MESSAGES)
        return -WGX_EKEYREJECTED;
    u8 *data = m + msg::transport::DATA;
    if (!wgx_platform_chacha20poly1305_decrypt(data, data, len - msg::transport::DATA, nullptr, 0, c, key))
        return -WGX_EBADMSG;
    *counter = c;
    *plain_len = len - msg::TRANSPORT_MIN_LEN;
    return 0;
}
