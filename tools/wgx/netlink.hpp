// SPDX-License-Identifier: GPL-2.0
//
// netlink.hpp - a small request/response layer over libmnl shared by the
// generic netlink ("wgx"/"wireguard", "ethtool", "nlctrl") and rtnetlink
// code: socket setup with extended ACKs, a receive loop that understands
// multipart dumps, NLMSG_DONE error codes, NLM_F_DUMP_INTR and extack
// messages, and a message builder.
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netlink.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace wgx {

/** 0, or a positive errno with an optional human-readable detail (extack or context). */
struct Status {
    int err = 0;
    std::string msg;

    static Status ok() { return {}; }
    static Status error(int e, std::string m = {}) { return {e, std::move(m)}; }
    bool is_ok() const { return err == 0; }
    /** "strerror(err)", or "msg (strerror(err))" when there is a detail. */
    std::string text() const;
};

/** A netlink message under construction in its own buffer (libmnl layout). */
class NlMessage {
public:
    /** A message of @type/@flags with room for @capacity bytes in total. */
    NlMessage(std::uint16_t type, std::uint16_t flags, std::size_t capacity = 8192);
    NlMessage(NlMessage &&) = default;
    NlMessage &operator=(NlMessage &&) = default;

    nlmsghdr *hdr() { return reinterpret_cast<nlmsghdr *>(buf_.data()); }
    const nlmsghdr *hdr() const { return reinterpret_cast<const nlmsghdr *>(buf_.data()); }
    std::size_t capacity() const { return buf_.size(); }
    /** The bytes of the message as it stands (nlmsg_len). */
    std::vector<std::uint8_t> bytes() const;

    /** Appends a zeroed fixed header (genlmsghdr, ifinfomsg) of @len bytes. */
    void *put_extra_header(std::size_t len);
    /** Generic netlink header with @cmd and @version. */
    void put_genl_header(std::uint8_t cmd, std::uint8_t version);

    // The *_check forms return false (and add nothing) when the attribute
    // would not fit in the capacity.
    bool put(std::uint16_t type, const void *data, std::size_t len);
    bool put_u8(std::uint16_t type, std::uint8_t v) { return put(type, &v, sizeof(v)); }
    bool put_u16(std::uint16_t type, std::uint16_t v) { return put(type, &v, sizeof(v)); }
    bool put_u32(std::uint16_t type, std::uint32_t v) { return put(type, &v, sizeof(v)); }
    bool put_u64(std::uint16_t type, std::uint64_t v) { return put(type, &v, sizeof(v)); }
    bool put_strz(std::uint16_t type, const std::string &s);
    bool put_flag(std::uint16_t type) { return put(type, nullptr, 0); }
    /** Opens a nest (with NLA_F_NESTED); nullptr if it does not fit. */
    nlattr *nest_start(std::uint16_t type);
    void nest_end(nlattr *nest);
    /** Removes the nest and everything added after it. */
    void nest_cancel(nlattr *nest);

private:
    std::vector<std::uint8_t> buf_;
};

/** A netlink socket of one bus (NETLINK_GENERIC, NETLINK_ROUTE). */
class NlSocket {
public:
    NlSocket() = default;
    ~NlSocket();
    NlSocket(const NlSocket &) = delete;
    NlSocket &operator=(const NlSocket &) = delete;

    /** Opens and binds the socket and enables NETLINK_EXT_ACK / NETLINK_CAP_ACK. */
    Status open(int bus);

    /** Message callback: return a non-ok Status to abort. */
    using Callback = std::function<Status(const nlmsghdr *)>;

    /**
     * request - send @msg (seq and port id are filled in) and read replies
     * until NLMSG_DONE (dumps) or the ACK/NLMSG_ERROR (others), passing data
     * messages to @cb.  A kernel error is returned with its extack message.
     * @dump_interrupted, if given, is set when any reply had NLM_F_DUMP_INTR.
     */
    Status request(NlMessage &msg, const Callback &cb, bool *dump_interrupted = nullptr);

private:
    mnl_socket *nl_ = nullptr;
    std::uint32_t portid_ = 0;
    std::uint32_t seq_ = 0;
};

/** Calls @f(const nlattr *) for each attribute after the @offset-byte fixed header of @nlh. */
template <class F> void for_each_attr(const nlmsghdr *nlh, std::size_t offset, F &&f)
{
    const char *tail = static_cast<const char *>(mnl_nlmsg_get_payload_tail(nlh));
    const auto *a = static_cast<const nlattr *>(mnl_nlmsg_get_payload_offset(nlh, offset));
    while (mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char *>(a)))) {
        f(a);
        a = mnl_attr_next(a);
    }
}

/** Calls @f(const nlattr *) for each attribute nested in @nest. */
template <class F> void for_each_nested(const nlattr *nest, F &&f)
{
    const auto *a = static_cast<const nlattr *>(mnl_attr_get_payload(nest));
    const char *tail = reinterpret_cast<const char *>(a) + mnl_attr_get_payload_len(nest);
    while (mnl_attr_ok(a, static_cast<int>(tail - reinterpret_cast<const char *>(a)))) {
        f(a);
        a = mnl_attr_next(a);
    }
}

/**
 * parse_genl_family_reply - the family id (CTRL_ATTR_FAMILY_ID) and, when
 * present, the highest attribute number of the family's policy
 * (CTRL_ATTR_MAXATTR; 0 when its ops carry their own policies) from one
 * CTRL_CMD_NEWFAMILY reply.  False if it has no id.  Exposed for unit tests.
 */
bool parse_genl_family_reply(const nlmsghdr *nlh, std::uint16_t &id, std::uint32_t &maxattr);

/**
 * genl_family_id - resolve a generic netlink family name to its id
 * (CTRL_CMD_GETFAMILY); with @maxattr also the highest attribute number the
 * family's policy knows (CTRL_ATTR_MAXATTR, 0 if the reply has none).
 * ENOENT if the family is absent.
 */
Status genl_family_id(NlSocket &sock, const std::string &name, std::uint16_t &id, std::uint32_t *maxattr = nullptr);

/**
 * parse_genl_family_named - parse_genl_family_reply for one message of a
 * CTRL_CMD_GETFAMILY dump: true (with @id and @maxattr) only when the
 * message describes the family @name (CTRL_ATTR_FAMILY_NAME).  Exposed for
 * unit tests.
 */
bool parse_genl_family_named(const nlmsghdr *nlh, const std::string &name, std::uint16_t &id, std::uint32_t &maxattr);

/**
 * genl_family_id_registered - genl_family_id without loading a module: the
 * family is looked for in a dump of the registered families, where a
 * CTRL_CMD_GETFAMILY by name has the kernel load the module of an absent
 * family (request_module "net-pf-16-proto-16-family-NAME").  ENOENT if
 * @name is not registered.
 */
Status genl_family_id_registered(NlSocket &sock, const std::string &name, std::uint16_t &id,
                                 std::uint32_t *maxattr = nullptr);

/**
 * Parse the error payload of an NLMSG_ERROR / NLMSG_DONE message: the
 * (positive) errno and the extack text, if any.  Exposed for unit tests.
 */
Status parse_nlmsg_error(const nlmsghdr *nlh);

}  // namespace wgx
