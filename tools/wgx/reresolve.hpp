// SPDX-License-Identifier: GPL-2.0
//
// reresolve.hpp - endpoints that follow DNS (`wgx reresolve IF [FILE]`): the
// host-name endpoints of a configuration file are resolved again for the
// peers that have no recent handshake, and a peer whose name now gives
// another address is moved there.  A peer with a recent handshake keeps its
// endpoint: it is reachable, and it may have roamed.
#pragma once

#include <ctime>
#include <string>
#include <vector>

#include "model.hpp"
#include "values.hpp"

namespace wgx {

/**
 * A latest handshake older than this (seconds) makes a peer's endpoint
 * worth resolving again: while traffic flows a session is renewed at least
 * every REKEY_AFTER_TIME (120 s); 135 s adds REKEY_TIMEOUT and
 * KEEPALIVE_TIMEOUT (whitepaper 6.1), the figure wireguard-tools'
 * reresolve-dns uses.
 */
constexpr std::int64_t kReresolveStaleSeconds = 135;

/** One peer endpoint `reresolve` changes. */
struct EndpointChange {
    Key public_key{};
    std::string name;  // the Endpoint as written in the file, "vpn.example.com:51820"
    Endpoint from;     // the interface's endpoint before (empty: none)
    Endpoint to;       // what the name resolves to now
};

/**
 * reresolve_parse_options - how `reresolve` reads the file: numeric
 * endpoints are parsed as usual, a host name is not resolved (the peer's
 * endpoint is left empty, its text in Peer::endpoint_text), so that only
 * the peers that need it are resolved, and one name that fails does not
 * stop the others.
 */
ParseOptions reresolve_parse_options();

/**
 * plan_reresolve - the endpoint changes for interface state @runtime from
 * the file @file read with reresolve_parse_options(): for each peer of the
 * file with a host-name endpoint that @runtime has, whose latest handshake
 * is older than kReresolveStaleSeconds at @now (wall-clock seconds) or never
 * happened, @resolve its name; an address other than the peer's current
 * endpoint is a change.  A name that does not resolve adds "PEER: unable to
 * resolve endpoint `NAME': REASON" to @errors and is skipped.  No I/O
 * besides @resolve.
 */
std::vector<EndpointChange> plan_reresolve(const Device &file, const Device &runtime, std::time_t now,
                                           const EndpointResolver &resolve, std::vector<std::string> &errors);

}  // namespace wgx
