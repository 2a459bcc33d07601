// SPDX-License-Identifier: GPL-2.0
//
// wgnl.hpp - building and parsing GET_DEVICE / SET_DEVICE messages of the
// "wgx" and "wireguard" generic netlink families (identical layouts, see
// include/uapi/linux/wgx.h).  Pure functions over NlMessage and the model,
// unit-tested without a kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "model.hpp"
#include "netlink.hpp"

namespace wgx {

/** Default capacity of one SET_DEVICE message (bytes), as wg uses: one page, at most 8 KiB. */
std::size_t default_set_message_size();

/**
 * build_get_device_request - GET_DEVICE dump request for @ifname to generic
 * netlink family @family, with WGX_DEVICE_A_GET_FLAGS = @get_flags (enum
 * wgx_get_flag) unless it is 0.  Only the "wgx" family knows that attribute:
 * pass 0 for "wireguard".
 */
NlMessage build_get_device_request(std::uint16_t family, const std::string &ifname, std::uint32_t get_flags = 0);

/**
 * build_set_device_messages - encode @dev (name, private key, listen port,
 * fwmark, replace-peers, peers with their flags) as SET_DEVICE requests of at
 * most @max_len bytes each.  The first message carries the device-level
 * attributes; peers and allowed IPs that do not fit continue in further
 * messages, a continued peer repeating its public key (and REMOVE_ME /
 * UPDATE_ONLY) but not REPLACE_ALLOWEDIPS or its other attributes, as the
 * uapi describes.  A peer with a new public key (re-key in place) is sent as
 * its other settings with UPDATE_ONLY, then an entry of only
 * WGX_PEER_A_PUBLIC_KEY and WGX_PEER_A_NEW_PUBLIC_KEY.  Returns EMSGSIZE if a
 * single element cannot fit an empty message.
 */
Status build_set_device_messages(const Device &dev, std::uint16_t family, std::size_t max_len,
                                 std::vector<NlMessage> &out);

/**
 * parse_get_device_message - merge one GET_DEVICE reply into @dev: device
 * attributes when present, peers appended in order.  Malformed content
 * (peer without public key, bad allowed IP) returns EBADMSG with a reason.
 * Call coalesce_peers() after the last message.
 */
Status parse_get_device_message(const nlmsghdr *nlh, Device &dev);

/** Merge adjacent peers with equal public keys (a peer split across dump messages). */
void coalesce_peers(Device &dev);

/**
 * parse_set_device_message - decode a SET_DEVICE request back into a model
 * (device attributes, flags, peers with their flags).  For tests and
 * debugging: lets message construction be checked by round trip.
 */
Status parse_set_device_message(const nlmsghdr *nlh, Device &dev);

/** True if @dev asks for any generic netlink change (keys, port, fwmark, peers, flags). */
bool has_genl_changes(const Device &dev);

}  // namespace wgx
