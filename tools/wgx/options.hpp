// SPDX-License-Identifier: GPL-2.0
//
// options.hpp - the one table of the device and peer settings: for each,
// its `set` keyword, its config-file key, its value parser (values.hpp),
// the model field it fills (model.hpp), its showconf formatter, its usage
// text, its generic netlink attribute, its line in `show` and members in
// `show --json`, and what a WireGuard device makes of it.  config.cpp,
// set_args.cpp, showconf.cpp, the usage of `set` and of the tool, wgnl.cpp's
// SET_DEVICE builder and GET_DEVICE parser, show.cpp, json.cpp, ipc.cpp's
// checks for a WireGuard device and the completion test are made from it.
// The settings with a grammar of their own (peer, remove, public-key,
// preshared-key, endpoint, allowed-ips, offload) stay with their parsers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "json_writer.hpp"
#include "model.hpp"
#include "netlink.hpp"

namespace wgx {

/** How one setting of a T (Device or Peer) travels in its generic netlink attribute. */
template <class T> struct Wire {
    std::uint16_t attr;  // WGX_DEVICE_A_* / WGX_PEER_A_* (the same numbers in the "wireguard" family)
    /** True when @obj's field is set: a SET_DEVICE carries it. */
    bool (*has)(const T &obj);
    /** Unset @obj's field. */
    void (*clear)(T &obj);
    /** Add the attribute of @obj's field (which has() says is set) to @m; false when @m has no room. */
    bool (*put)(NlMessage &m, const T &obj);
    /** Read attribute @a of a GET_DEVICE reply (or a SET_DEVICE message) into @obj; a malformed one is ignored. */
    void (*get)(const nlattr *a, T &obj);
};

/**
 * One setting of a device (T = Device) or of a peer (T = Peer).  The value
 * parser and formatter are inverses: parse(format(x)) gives x back.
 */
template <class T> struct Option {
    const char *keyword = nullptr;     // `wgx set` keyword: "listen-ports"
    const char *config_key = nullptr;  // config-file key, as showconf prints it: "ListenPorts"
    const char *usage = nullptr;       // the value in usage text: "<count>", "auto|on|off"
    const char *purpose = nullptr;     // what a wgx extension is for, in `wgx --help`; nullptr for wg(8)'s own
    const char *completion = "";       // words completion offers for the value (the test checks; most from usage)
    const char *example = nullptr;     // a valid value other than the default (tests, docs)
    bool key_file = false;             // `set` names a file holding the value (a key), as wg set reads it
    /** Parse @value into @obj's field; false with @expected ("expected ...") if invalid. */
    bool (*parse)(std::string_view value, T &obj, std::string &expected) = nullptr;
    /** The value as showconf prints it; "" when @obj's field is unset or the default (not printed). */
    std::string (*format)(const Device &dev, const T &obj) = nullptr;
    /** Set @obj's field to what a configuration file without the key means (setconf); nullptr: left unset. */
    void (*reset)(T &obj) = nullptr;
    Wire<T> wire{};  // its generic netlink attribute
    /**
     * Its line in `show`: the label ("rx spread") and the text after it, ""
     * when not shown (unset or the default).  nullptr: show.cpp prints the
     * setting where wg(8) does (keys, ports, fwmark, keepalive).
     */
    const char *show_label = nullptr;
    std::string (*show)(const Device &dev, const T &obj) = nullptr;
    /**
     * Write its members of `show --json` (format.hpp: always present, a
     * default when unset); nullptr: json.cpp writes them where wg's go.
     */
    void (*json)(JsonWriter &w, const T &obj) = nullptr;
    /**
     * For a WireGuard device (which has no wgx extension): "" when @obj's
     * value is WireGuard's behaviour (then the field is dropped), else the
     * refusal ("dscp copy: copying the inner DSCP is a wgx extension").
     * nullptr: a setting wg(8) has too.
     */
    std::string (*refusal)(const T &obj) = nullptr;
};

using DeviceOption = Option<Device>;
using PeerOption = Option<Peer>;

/** The device settings, in the order of wg's `set` usage and showconf. */
const std::vector<DeviceOption> &device_options();
/** The peer settings of the table, in usage and showconf order. */
const std::vector<PeerOption> &peer_options();

/** The device option whose `set` keyword is @keyword, or nullptr. */
const DeviceOption *find_device_option(std::string_view keyword);
/** The peer option whose `set` keyword is @keyword, or nullptr. */
const PeerOption *find_peer_option(std::string_view keyword);
/** The device option whose config key is @key (case-insensitive, as wg reads keys), or nullptr. */
const DeviceOption *find_device_config_key(std::string_view key);
/** The peer option whose config key is @key (case-insensitive), or nullptr. */
const PeerOption *find_peer_config_key(std::string_view key);

/** The device option carried in attribute @attr (WGX_DEVICE_A_*), or nullptr. */
const DeviceOption *find_device_attr(std::uint16_t attr);
/** The peer option carried in attribute @attr (WGX_PEER_A_*), or nullptr. */
const PeerOption *find_peer_attr(std::uint16_t attr);

/**
 * wireguard_settings - make @dev a request a WireGuard device can take:
 * drop the wgx settings whose value is WireGuard's own behaviour (setconf's
 * defaults), and refuse any other with EOPNOTSUPP naming the setting and
 * @dev.  Peers' re-keys are not checked here.
 */
Status wireguard_settings(Device &dev);

/**
 * The `KEY = VALUE` lines of every option of @obj that showconf prints, in
 * table order ("" when none).
 */
std::string format_config_lines(const Device &dev, const Device &obj);
std::string format_config_lines(const Device &dev, const Peer &obj);

}  // namespace wgx
