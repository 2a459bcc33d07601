// SPDX-License-Identifier: GPL-2.0
//
// config.hpp - parsing of wg(8) configuration files, of `wgx set` arguments
// and of the individual values both share.  Pure functions over the data
// model; the only outside world they touch is the endpoint resolver (which
// callers may replace) and, for `set`, the key files named on the command
// line.
//
// File grammar (wg(8) "CONFIGURATION FILE FORMAT"): lines; `#` starts a
// comment anywhere; all whitespace (space, tab, CR, ...) is removed before a
// line is interpreted, so CRLF files and "Allowed IPs"-style spacing work;
// `[Interface]` / `[Peer]` sections and `Key = Value` pairs, both matched
// case-insensitively.  [Interface]: PrivateKey, ListenPort, FwMark and, as a
// wgx extension, MTU.  [Peer]: PublicKey, PresharedKey, AllowedIPs
// (repeatable, comma separated, each entry optionally prefixed by `+` (add
// without replacing) or `-` (remove)), Endpoint, PersistentKeepalive.  The
// wg-quick keys Address, DNS, Table, PreUp, PostUp, PreDown, PostDown and
// SaveConfig are refused with a message saying so.
#pragma once

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
    std::function<bool(const std::string &host, const std::string &port, Endpoint &out,
                       std::string &error)>;

/**
 * The default resolver: getaddrinfo(AF_UNSPEC, SOCK_DGRAM), first result;
 * transient failures (EAI_AGAIN...) are retried with back-off up to
 * $WG_ENDPOINT_RESOLUTION_RETRIES times (default 15, "infinity" allowed), as
 * wg does.
 */
bool resolve_endpoint_getaddrinfo(const std::string &host, const std::string &port,
                                  Endpoint &out, std::string &error);

struct ParseOptions {
    /** addconf: keep unspecified device values and existing peers. */
    bool append = false;
    /** Hostname resolution for Endpoint values; default getaddrinfo. */
    EndpointResolver resolve = resolve_endpoint_getaddrinfo;
};

// ---- single values.  Each returns false and sets @expected to a phrase
// ---- "expected ..." describing valid input.

/** Port: decimal 0-65535, "off" (= 0, random port; a wgx extension), or a UDP service name. */
bool parse_port(std::string_view v, std::uint16_t &out, std::string &expected);
/** ListenPorts (wgx): decimal 1-WGX_MAX_LISTEN_PORTS, consecutive UDP ports from ListenPort. */
bool parse_listen_ports(std::string_view v, std::uint16_t &out, std::string &expected);
/** FwMark: "off", or decimal / 0x-hexadecimal 0-0xffffffff. */
bool parse_fwmark(std::string_view v, std::uint32_t &out, std::string &expected);
/** PersistentKeepalive: "off" or decimal seconds 0-65535 (0 = off). */
bool parse_keepalive(std::string_view v, std::uint16_t &out, std::string &expected);
/** MTU: decimal bytes 68-65535. */
bool parse_mtu(std::string_view v, std::uint32_t &out, std::string &expected);
/**
 * One allowed-IP entry "ADDR[/CIDR]" with optional leading `+`/`-`
 * (@sign set to '+', '-' or 0).  @host_bits is set when the address has bits
 * set beyond the prefix (wg warns and the kernel clears them).
 */
bool parse_allowed_ip(std::string_view v, AllowedIp &out, char &sign, bool &host_bits,
                      std::string &expected);
/**
 * Endpoint "HOST:PORT", "[IPV6]:PORT" or "IPV6:PORT" (split at the last
 * colon).  Syntax errors set @expected; resolver failures set @error (and
 * leave @expected empty).
 */
bool parse_endpoint(std::string_view v, Endpoint &out, const EndpointResolver &resolve,
                    std::string &expected, std::string &error);

/**
 * read_key_file - read a key file as `wg set ... private-key FILE` does:
 * 44 base64 characters optionally followed by whitespace; an empty file
 * yields the all-zero key (which removes the key).  A regular file that is
 * world accessible adds a warning.  Returns false with a message naming
 * @path on any error.
 */
bool read_key_file(const std::string &path, Key &out, std::string &error,
                   std::vector<std::string> &warnings);

/** "Warning: `PATH' is world accessible" if @mode grants anything to others on a regular file. */
std::string world_accessible_warning(const std::string &path, unsigned mode, bool regular);

// ---- whole inputs

struct ParseResult {
    Device device;
    std::vector<std::string> errors;	// complete messages, "FILE:LINE: ..."
    std::vector<std::string> warnings;	// e.g. host bits set in an allowed IP
    bool ok() const { return errors.empty(); }
};

/**
 * parse_config - parse configuration text @text read from @filename (used
 * only in messages).  Every problem is reported, each naming
 * `filename:line`, the offending value and what was expected; the result is
 * usable only when ok().  Without options.append the device is marked to
 * replace all peers and to reset private key, listen port and fwmark to
 * "none/0" when the file does not set them (setconf semantics).
 */
ParseResult parse_config(std::string_view text, std::string_view filename,
                         const ParseOptions &opts = {});

/**
 * parse_set_args - parse the arguments of `wgx set IF ...` after the
 * interface name: listen-port N, fwmark N, private-key FILE, mtu N,
 * offload gso|gro|tx-checksum|rx-checksum on|off, then any number of
 * `peer KEY [remove] [preshared-key FILE] [endpoint H:P]
 * [persistent-keepalive N|off] [allowed-ips LIST]`.  On error, errors holds
 * one message naming the argument and what was expected.
 */
ParseResult parse_set_args(const std::vector<std::string> &args, const ParseOptions &opts = {});

/**
 * sync_config - turn the parsed file @file (setconf semantics) into the
 * minimal change that makes the interface match it without disturbing peers
 * it keeps, as `wg syncconf` does: when both the file and the running device
 * @runtime have peers, replace-peers is dropped, each running peer missing
 * from the file gets a remove entry (placed first), and a kept peer whose
 * preshared key or persistent keepalive the file no longer sets gets them
 * cleared explicitly.  A file without peers keeps replace-peers (removing
 * all).
 */
void sync_config(Device &file, const Device &runtime);

/** The offload names accepted by `set ... offload` (gso, gro, tx-checksum, rx-checksum). */
const std::vector<std::string> &offload_names();

}  // namespace wgx
