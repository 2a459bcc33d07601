// SPDX-License-Identifier: GPL-2.0
#include "ethtool.hpp"

#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>

#include <cerrno>

namespace wgx {

NlMessage build_features_get_request(std::uint16_t family, const std::string &ifname)
{
    NlMessage m(family, NLM_F_REQUEST | NLM_F_ACK, 512);
    m.put_genl_header(ETHTOOL_MSG_FEATURES_GET, ETHTOOL_GENL_VERSION);
    nlattr *h = m.nest_start(ETHTOOL_A_FEATURES_HEADER);
    m.put_strz(ETHTOOL_A_HEADER_DEV_NAME, ifname);
    m.nest_end(h);
    return m;
}

NlMessage build_features_set_request(std::uint16_t family, const std::string &ifname, const FeatureRequest &req)
{
    NlMessage m(family, NLM_F_REQUEST | NLM_F_ACK, 4096);
    m.put_genl_header(ETHTOOL_MSG_FEATURES_SET, ETHTOOL_GENL_VERSION);
    nlattr *h = m.nest_start(ETHTOOL_A_FEATURES_HEADER);
    m.put_strz(ETHTOOL_A_HEADER_DEV_NAME, ifname);
    m.put_u32(ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_OMIT_REPLY);
    m.nest_end(h);
    nlattr *wanted = m.nest_start(ETHTOOL_A_FEATURES_WANTED);
    nlattr *bits = m.nest_start(ETHTOOL_A_BITSET_BITS);
    for (const auto &[name, on] : req) {
        nlattr *bit = m.nest_start(ETHTOOL_A_BITSET_BITS_BIT);
        m.put_strz(ETHTOOL_A_BITSET_BIT_NAME, name);
        if (on)
            m.put_flag(ETHTOOL_A_BITSET_BIT_VALUE);
        m.nest_end(bit);
    }
    m.nest_end(bits);
    m.nest_end(wanted);
    return m;
}

namespace {

// Verbose bitset: with NOMASK every listed bit is set; otherwise a listed bit
// is set iff it carries ETHTOOL_A_BITSET_BIT_VALUE.
void parse_bitset(const nlattr *set, FeatureMap &out, bool FeatureState::*field)
{
    bool nomask = false;
    for_each_nested(set, [&](const nlattr *a) {
        if (mnl_attr_get_type(a) == ETHTOOL_A_BITSET_NOMASK)
            nomask = true;
    });
    for_each_nested(set, [&](const nlattr *a) {
        if (mnl_attr_get_type(a) != ETHTOOL_A_BITSET_BITS)
            return;
        for_each_nested(a, [&](const nlattr *bit) {
            if (mnl_attr_get_type(bit) != ETHTOOL_A_BITSET_BITS_BIT)
                return;
            std::string name;
            bool value = nomask;
            for_each_nested(bit, [&](const nlattr *b) {
                if (mnl_attr_get_type(b) == ETHTOOL_A_BITSET_BIT_NAME && mnl_attr_validate(b, MNL_TYPE_STRING) == 0)
                    name = mnl_attr_get_str(b);
                else if (mnl_attr_get_type(b) == ETHTOOL_A_BITSET_BIT_VALUE)
                    value = true;
            });
            if (!name.empty())
                out[name].*field = value;
        });
    });
}

}  // namespace

Status parse_features_reply(const nlmsghdr *nlh, FeatureMap &out)
{
    bool any = false;
    for_each_attr(nlh, sizeof(genlmsghdr), [&](const nlattr *a) {
        switch (mnl_attr_get_type(a)) {
        case ETHTOOL_A_FEATURES_HW:
            parse_bitset(a, out, &FeatureState::hw);
            any = true;
            break;
        case ETHTOOL_A_FEATURES_WANTED:
            parse_bitset(a, out, &FeatureState::wanted);
            break;
        case ETHTOOL_A_FEATURES_ACTIVE:
            parse_bitset(a, out, &FeatureState::active);
            any = true;
            break;
        case ETHTOOL_A_FEATURES_NOCHANGE:
            parse_bitset(a, out, &FeatureState::nochange);
            break;
        default:
            break;
        }
    });
    if (!any)
        return Status::error(EBADMSG, "ethtool features reply without feature bitsets");
    return Status::ok();
}

Status map_offloads(const std::vector<OffloadSetting> &offloads, const FeatureMap &features, const std::string &ifname,
                    FeatureRequest &out)
{
    out.clear();
    auto state = [&](const std::string &f) -> const FeatureState * {
        auto it = features.find(f);
        return it == features.end() ? nullptr : &it->second;
    };
    for (const OffloadSetting &o : offloads) {
        std::vector<std::string> names;
        if (o.name == "gso")
            names = {"tx-generic-segmentation"};
        else if (o.name == "gro")
            names = {"rx-gro"};
        else if (o.name == "rx-checksum")
            names = {"rx-checksum"};
        else if (o.name == "tx-checksum") {
            const FeatureState *g = state("tx-checksum-ip-generic");
            if (g && (g->hw || g->active))
                names = {"tx-checksum-ip-generic"};
            else
                names = {"tx-checksum-ipv4", "tx-checksum-ipv6"};
        } else {
            return Status::error(EINVAL,
                                 "unknown offload `" + o.name + "': expected gso, gro, tx-checksum or rx-checksum");
        }
        bool any_known = false;
        for (const std::string &n : names) {
            const FeatureState *s = state(n);
            if (!s)
                continue;
            any_known = true;
            if (s->active == o.on && !s->hw)
                continue;  // fixed, but already as requested
            if (!s->hw || s->nochange)
                return Status::error(EOPNOTSUPP, "offload " + o.name + " cannot be turned " + (o.on ? "on" : "off") +
                                                     " on " + ifname + ": feature " + n + " is fixed by the driver");
            out.emplace_back(n, o.on);
        }
        if (!any_known && o.on)
            return Status::error(EOPNOTSUPP, "offload " + o.name + " is not supported by " + ifname + " (no feature " +
                                                 names[0] + ")");
    }
    return Status::ok();
}

namespace {

Status open_ethtool(NlSocket &sock, std::uint16_t &family)
{
    Status st = sock.open(NETLINK_GENERIC);
    if (!st.is_ok())
        return st;
    st = genl_family_id(sock, ETHTOOL_GENL_NAME, family);
    if (!st.is_ok() && st.err == ENOENT)
        st.msg = "ethtool netlink is not available (kernel without CONFIG_ETHTOOL_NETLINK?)";
    return st;
}

Status get_features(NlSocket &sock, std::uint16_t family, const std::string &ifname, FeatureMap &out)
{
    out.clear();
    NlMessage req = build_features_get_request(family, ifname);
    Status parsed = Status::error(EBADMSG, "no ethtool features reply");
    Status st = sock.request(req, [&](const nlmsghdr *nlh) {
        parsed = parse_features_reply(nlh, out);
        return Status::ok();
    });
    return st.is_ok() ? parsed : st;
}

}  // namespace

Status ethtool_get_features(const std::string &ifname, FeatureMap &out)
{
    NlSocket sock;
    std::uint16_t family;
    Status st = open_ethtool(sock, family);
    if (!st.is_ok())
        return st;
    return get_features(sock, family, ifname, out);
}

Status ethtool_check_offloads(const std::string &ifname, const std::vector<OffloadSetting> &offloads)
{
    FeatureMap features;
    Status st = ethtool_get_features(ifname, features);
    if (!st.is_ok())
        return st;
    FeatureRequest req;
    return map_offloads(offloads, features, ifname, req);
}

Status ethtool_apply_offloads(const std::string &ifname, const std::vector<OffloadSetting> &offloads)
{
    NlSocket sock;
    std::uint16_t family;
    Status st = open_ethtool(sock, family);
    if (!st.is_ok())
        return st;
    FeatureMap features;
    if (!(st = get_features(sock, family, ifname, features)).is_ok())
        return st;
    FeatureRequest req;
    if (!(st = map_offloads(offloads, features, ifname, req)).is_ok())
        return st;
    if (req.empty())
        return Status::ok();
    NlMessage set = build_features_set_request(family, ifname, req);
    if (!(st = sock.request(set, nullptr)).is_ok())
        return st;
    if (!(st = get_features(sock, family, ifname, features)).is_ok())
        return st;
    for (const auto &[name, on] : req) {
        auto it = features.find(name);
        bool active = it != features.end() && it->second.active;
        if (active != on)
            return Status::error(EOPNOTSUPP, "the kernel left feature " + name + " " + (active ? "on" : "off") +
                                                 " on " + ifname + " (it depends on another feature)");
    }
    return Status::ok();
}

}  // namespace wgx
