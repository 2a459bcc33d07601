// SPDX-License-Identifier: GPL-2.0
//
// values.hpp - the single values of wg(8) configuration files and of `wgx
// set` arguments (ports, fwmarks, keepalive intervals, MTUs, allowed IPs,
// endpoints, key files), the options and result both whole-input parsers
// share (config.hpp for files, set_args.hpp for `set`), and their small
// text helpers.  Pure functions over the data model; the only outside world
// they touch is the endpoint resolver (which callers may replace) and the
// key files named on the command line.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "model.hpp"

namespace wgx {

/**
 * Resolves @host/@port (as written, brackets removed) to an endpoint.
 * Returns false with a human-readable reason in @error on failure.
 */
using EndpointResolver =
    std::function<bool(const std::string &host, const std::string &port, Endpoint &out, std::string &error)>;

/**
 * The default resolver: getaddrinfo(AF_UNSPEC, SOCK_DGRAM), first result;
 * transient failures (EAI_AGAIN...) are retried with back-off up to
 * $WG_ENDPOINT_RESOLUTION_RETRIES times (default 15, "infinity" allowed), as
 * wg does.
 */
bool resolve_endpoint_getaddrinfo(const std::string &host, const std::string &port, Endpoint &out, std::string &error);

/** Options of parse_config() and parse_set_args(). */
struct ParseOptions {
    /** addconf: keep unspecified device values and existing peers. */
    bool append = false;
    /** Hostname resolution for Endpoint values; default getaddrinfo. */
    EndpointResolver resolve = resolve_endpoint_getaddrinfo;
};

/** What parse_config() and parse_set_args() return. */
struct ParseResult {
    Device device;
    std::vector<std::string> errors;    // complete messages, "FILE:LINE: ..."
    std::vector<std::string> warnings;  // e.g. host bits set in an allowed IP
    bool ok() const { return errors.empty(); }
};

// ---- single values.  Each returns false and sets @expected to a phrase
// ---- "expected ..." describing valid input.

/** Port: decimal 0-65535, "off" (= 0, random port; a wgx extension), or a UDP service name. */
bool parse_port(std::string_view v, std::uint16_t &out, std::string &expected);
/** ListenPorts (wgx): auto (0, the default) or decimal 1-WGX_MAX_LISTEN_PORTS, consecutive UDP ports from ListenPort. */
bool parse_listen_ports(std::string_view v, std::uint16_t &out, std::string &expected);
/** RxSpread (wgx): "auto", "on" or "off" (case-insensitive). */
bool parse_rx_spread(std::string_view v, RxSpread &out, std::string &expected);
/** DSCP (wgx): "copy" (outer DSCP = inner) or "clear" (0, WireGuard's), case-insensitive. */
bool parse_dscp_mode(std::string_view v, bool &copy, std::string &expected);
/**
 * PriorityDSCP (wgx): a comma-separated list of DSCP values, each a name (EF,
 * CS0-CS7, AF11-AF43, case-insensitive) or decimal 0-63; or "none" (the
 * empty set).  @out: bit n set for DSCP n.  Duplicates are allowed.
 */
bool parse_dscp_set(std::string_view v, std::uint64_t &out, std::string &expected);
/** The inverse of parse_dscp_set(): names where they exist, ascending by value, "," separated; "none" for 0. */
std::string format_dscp_set(std::uint64_t set);
/**
 * HandshakeBudget (wgx): handshake initiations per second the device sends,
 * decimal 0-WGX_MAX_HANDSHAKE_BUDGET, or "auto" (= 0, derived from the
 * online CPUs by the kernel).
 */
bool parse_handshake_budget(std::string_view v, std::uint32_t &out, std::string &expected);
/**
 * KeyGrace (wgx): seconds a private key change keeps the previous key valid,
 * 0..WGX_MAX_KEY_GRACE (0 = WireGuard's behaviour; docs/rotation.md).
 */
bool parse_key_grace(std::string_view v, std::uint32_t &out, std::string &expected);
/** FwMark: "off", or decimal / 0x-hexadecimal 0-0xffffffff. */
bool parse_fwmark(std::string_view v, std::uint32_t &out, std::string &expected);
/** A key in a file (PrivateKey, PublicKey, PresharedKey): 44 base64 characters, as wg reads it. */
bool parse_key(std::string_view v, Key &out, std::string &expected);
/** PersistentKeepalive: "off" or decimal seconds 0-65535 (0 = off). */
bool parse_keepalive(std::string_view v, std::uint16_t &out, std::string &expected);
/** MTU: decimal bytes 68-65535. */
bool parse_mtu(std::string_view v, std::uint32_t &out, std::string &expected);

/**
 * A peer's MTU (`set ... peer KEY mtu`, `MTU =` in [Peer]): "auto" (out = 0)
 * or decimal inner bytes WGX_MIN_PEER_MTU-WGX_MAX_PEER_MTU (576-65455).
 */
bool parse_peer_mtu(std::string_view v, std::uint32_t &out, std::string &expected);
/**
 * One allowed-IP entry "ADDR[/CIDR]" with optional leading `+`/`-`
 * (@sign set to '+', '-' or 0).  @host_bits is set when the address has bits
 * set beyond the prefix (wg warns and the kernel clears them).
 */
bool parse_allowed_ip(std::string_view v, AllowedIp &out, char &sign, bool &host_bits, std::string &expected);
/**
 * Endpoint "HOST:PORT", "[IPV6]:PORT" or "IPV6:PORT" (split at the last
 * colon); PORT is a number 1-65535 or a UDP service name.  Syntax errors
 * and numeric ports out of range set @expected; resolver failures set
 * @error (and leave @expected empty).
 */
bool parse_endpoint(std::string_view v, Endpoint &out, const EndpointResolver &resolve, std::string &expected,
                    std::string &error);

/**
 * read_key_file - read a key file as `wg set ... private-key FILE` does:
 * 44 base64 characters optionally followed by whitespace; an empty file
 * yields the all-zero key (which removes the key).  A regular file that is
 * world accessible adds a warning.  Returns false with a message naming
 * @path on any error.
 */
bool read_key_file(const std::string &path, Key &out, std::string &error, std::vector<std::string> &warnings);

/** "Warning: `PATH' is world accessible" if @mode grants anything to others on a regular file. */
std::string world_accessible_warning(const std::string &path, unsigned mode, bool regular);

// ---- text helpers of the parsers

/** ASCII case-insensitive equality (section names and keys). */
bool iequals(std::string_view a, std::string_view b);
/** @s without any whitespace (space, tab, CR, LF, VT, FF), as wg reads a config line. */
std::string strip_spaces(std::string_view s);
/** @v tick-quoted as wg prints values in messages: `value'. */
std::string quoted(std::string_view v);

}  // namespace wgx
