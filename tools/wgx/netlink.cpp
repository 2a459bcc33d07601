// SPDX-License-Identifier: GPL-2.0
#include "netlink.hpp"

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace wgx {

std::string Status::text() const
{
    std::string e = err ? strerror(err) : "Success";
    if (msg.empty())
        return e;
    return msg + " (" + e + ")";
}

// ---------------------------------------------------------------- NlMessage

NlMessage::NlMessage(std::uint16_t type, std::uint16_t flags, std::size_t capacity)
    : buf_(capacity < MNL_NLMSG_HDRLEN ? MNL_NLMSG_HDRLEN : capacity, 0)
{
    nlmsghdr *nlh = mnl_nlmsg_put_header(buf_.data());
    nlh->nlmsg_type = type;
    nlh->nlmsg_flags = flags;
}

std::vector<std::uint8_t> NlMessage::bytes() const
{
    return std::vector<std::uint8_t>(buf_.begin(), buf_.begin() + hdr()->nlmsg_len);
}

void *NlMessage::put_extra_header(std::size_t len)
{
    return mnl_nlmsg_put_extra_header(hdr(), len);
}

void NlMessage::put_genl_header(std::uint8_t cmd, std::uint8_t version)
{
    auto *g = static_cast<genlmsghdr *>(put_extra_header(sizeof(genlmsghdr)));
    g->cmd = cmd;
    g->version = version;
}

bool NlMessage::put(std::uint16_t type, const void *data, std::size_t len)
{
    return mnl_attr_put_check(hdr(), buf_.size(), type, len, data);
}

bool NlMessage::put_strz(std::uint16_t type, const std::string &s)
{
    return mnl_attr_put_strz_check(hdr(), buf_.size(), type, s.c_str());
}

nlattr *NlMessage::nest_start(std::uint16_t type)
{
    return mnl_attr_nest_start_check(hdr(), buf_.size(), type);
}

void NlMessage::nest_end(nlattr *nest)
{
    mnl_attr_nest_end(hdr(), nest);
}

void NlMessage::nest_cancel(nlattr *nest)
{
    mnl_attr_nest_cancel(hdr(), nest);
}

// ---------------------------------------------------------------- errors

Status parse_nlmsg_error(const nlmsghdr *nlh)
{
    const auto *payload = static_cast<const std::uint8_t *>(mnl_nlmsg_get_payload(nlh));
    std::size_t plen = nlh->nlmsg_len - MNL_NLMSG_HDRLEN;
    std::size_t tlv_off;
    int error;
    if (nlh->nlmsg_type == NLMSG_ERROR) {
        if (plen < sizeof(nlmsgerr))
            return Status::error(EBADMSG, "truncated netlink error message");
        const auto *e = reinterpret_cast<const nlmsgerr *>(payload);
        error = e->error;
        tlv_off = sizeof(nlmsgerr);
        if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
            tlv_off += e->msg.nlmsg_len >= sizeof(nlmsghdr) ? e->msg.nlmsg_len - sizeof(nlmsghdr) : 0;
    } else {
        if (plen < sizeof(int))
            return Status::ok();
        std::memcpy(&error, payload, sizeof(int));
        tlv_off = sizeof(int);
    }
    Status st;
    st.err = error < 0 ? -error : error;
    if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || tlv_off >= plen)
        return st;
    // Walk the TLVs by hand: mnl_attr_parse() wants them right after a fixed header.
    std::size_t off = MNL_ALIGN(tlv_off);
    std::string miss;
    while (off + sizeof(nlattr) <= plen) {
        const auto *a = reinterpret_cast<const nlattr *>(payload + off);
        if (a->nla_len < sizeof(nlattr) || off + a->nla_len > plen)
            break;
        const char *data = reinterpret_cast<const char *>(a) + MNL_ATTR_HDRLEN;
        std::size_t dlen = a->nla_len - MNL_ATTR_HDRLEN;
        switch (a->nla_type & NLA_TYPE_MASK) {
        case NLMSGERR_ATTR_MSG:
            st.msg.assign(data, strnlen(data, dlen));
            break;
        case NLMSGERR_ATTR_MISS_TYPE:
            if (dlen >= 4) {
                std::uint32_t t;
                std::memcpy(&t, data, 4);
                miss = "missing attribute " + std::to_string(t);
            }
            break;
        default:
            break;
        }
        off += MNL_ALIGN(a->nla_len);
    }
    if (!miss.empty())
        st.msg += (st.msg.empty() ? "" : " (") + miss + (st.msg.empty() ? "" : ")");
    return st;
}

// ---------------------------------------------------------------- NlSocket

NlSocket::~NlSocket()
{
    if (nl_)
        mnl_socket_close(nl_);
}

Status NlSocket::open(int bus)
{
    nl_ = mnl_socket_open(bus);
    if (!nl_)
        return Status::error(errno, "unable to open netlink socket");
    if (mnl_socket_bind(nl_, 0, MNL_SOCKET_AUTOPID) < 0)
        return Status::error(errno, "unable to bind netlink socket");
    int one = 1;
    // Best effort: older kernels lack them and then simply send less detail.
    mnl_socket_setsockopt(nl_, NETLINK_EXT_ACK, &one, sizeof(one));
    mnl_socket_setsockopt(nl_, NETLINK_CAP_ACK, &one, sizeof(one));
    portid_ = mnl_socket_get_portid(nl_);
    seq_ = static_cast<std::uint32_t>(time(nullptr));
    return Status::ok();
}

Status NlSocket::request(NlMessage &msg, const Callback &cb, bool *dump_interrupted)
{
    if (!nl_)
        return Status::error(EBADF, "netlink socket not open");
    nlmsghdr *req = msg.hdr();
    req->nlmsg_seq = ++seq_;
    req->nlmsg_pid = 0;
    const bool dump = req->nlmsg_flags & NLM_F_DUMP;
    if (!dump)
        req->nlmsg_flags |= NLM_F_ACK;  // the ACK is what ends the reply
    if (mnl_socket_sendto(nl_, req, req->nlmsg_len) < 0)
        return Status::error(errno, "unable to send netlink request");
    if (dump_interrupted)
        *dump_interrupted = false;

    std::vector<char> buf(65536);
    Status result;
    bool failed = false;
    for (;;) {
        ssize_t len = mnl_socket_recvfrom(nl_, buf.data(), buf.size());
        if (len < 0) {
            if (errno == EINTR)
                continue;
            return Status::error(errno, "unable to receive netlink reply");
        }
        const nlmsghdr *nlh = reinterpret_cast<const nlmsghdr *>(buf.data());
        int remaining = static_cast<int>(len);
        for (; mnl_nlmsg_ok(nlh, remaining); nlh = mnl_nlmsg_next(nlh, &remaining)) {
            if (nlh->nlmsg_seq != req->nlmsg_seq || nlh->nlmsg_pid != portid_)
                continue;  // not ours
            if ((nlh->nlmsg_flags & NLM_F_DUMP_INTR) && dump_interrupted)
                *dump_interrupted = true;
            if (nlh->nlmsg_type == NLMSG_ERROR) {
                Status st = parse_nlmsg_error(nlh);
                return failed ? result : st;  // error 0 is the ACK
            }
            if (nlh->nlmsg_type == NLMSG_DONE) {
                Status st = parse_nlmsg_error(nlh);
                if (failed)
                    return result;
                if (!st.is_ok() || dump)
                    return st;
                continue;  // a DONE ending a multipart reply to a non-dump; ACK follows
            }
            if (nlh->nlmsg_type == NLMSG_NOOP || nlh->nlmsg_type == NLMSG_OVERRUN)
                continue;
            if (!failed && cb) {
                Status st = cb(nlh);
                if (!st.is_ok()) {
                    // Keep reading until the end so the socket stays in sync.
                    result = st;
                    failed = true;
                }
            }
        }
    }
}

// ---------------------------------------------------------------- genl ctrl

bool parse_genl_family_reply(const nlmsghdr *nlh, std::uint16_t &id, std::uint32_t &maxattr)
{
    bool found = false;
    for_each_attr(nlh, sizeof(genlmsghdr), [&](const nlattr *a) {
        if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID && mnl_attr_validate(a, MNL_TYPE_U16) == 0) {
            id = mnl_attr_get_u16(a);
            found = true;
        }
        if (mnl_attr_get_type(a) == CTRL_ATTR_MAXATTR && mnl_attr_validate(a, MNL_TYPE_U32) == 0)
            maxattr = mnl_attr_get_u32(a);
    });
    return found;
}

Status genl_family_id(NlSocket &sock, const std::string &name, std::uint16_t &id, std::uint32_t *maxattr)
{
    NlMessage msg(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_ACK);
    msg.put_genl_header(CTRL_CMD_GETFAMILY, 1);
    msg.put_strz(CTRL_ATTR_FAMILY_NAME, name);
    bool found = false;
    std::uint32_t max = 0;
    Status st = sock.request(msg, [&](const nlmsghdr *nlh) {
        found |= parse_genl_family_reply(nlh, id, max);
        return Status::ok();
    });
    if (maxattr)
        *maxattr = max;
    if (!st.is_ok()) {
        if (st.err == ENOENT)
            st.msg = "generic netlink family `" + name + "' is not registered";
        return st;
    }
    if (!found)
        return Status::error(EPROTO, "no family id in the reply for `" + name + "'");
    return Status::ok();
}

bool parse_genl_family_named(const nlmsghdr *nlh, const std::string &name, std::uint16_t &id, std::uint32_t &maxattr)
{
    bool named = false;
    for_each_attr(nlh, sizeof(genlmsghdr), [&](const nlattr *a) {
        if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
            named = name == mnl_attr_get_str(a);
    });
    if (!named)
        return false;
    std::uint16_t i = 0;
    std::uint32_t max = 0;
    if (!parse_genl_family_reply(nlh, i, max))
        return false;
    id = i;
    maxattr = max;
    return true;
}

Status genl_family_id_registered(NlSocket &sock, const std::string &name, std::uint16_t &id, std::uint32_t *maxattr)
{
    NlMessage msg(GENL_ID_CTRL, NLM_F_REQUEST | NLM_F_DUMP);
    msg.put_genl_header(CTRL_CMD_GETFAMILY, 1);
    bool found = false;
    std::uint32_t max = 0;
    Status st = sock.request(msg, [&](const nlmsghdr *nlh) {
        found |= parse_genl_family_named(nlh, name, id, max);
        return Status::ok();
    });
    if (!st.is_ok())
        return st;
    if (!found)
        return Status::error(ENOENT, "generic netlink family `" + name + "' is not registered");
    if (maxattr)
        *maxattr = max;
    return Status::ok();
}

}  // namespace wgx
