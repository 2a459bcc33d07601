// SPDX-License-Identifier: GPL-2.0
//
// allowedips.cpp - cryptokey routing table (whitepaper section 2): a binary,
// path-compressed trie per address family.
//
// Every node holds a prefix (its bits masked to its cidr, immutable once the
// node is published) and a peer pointer; nodes with a NULL peer are branch
// points that only exist to join two subtrees.  A child's cidr is always
// greater than its parent's, and the child slot below a node is chosen by the
// key bit just past the node's prefix.
//
// Readers (wgx_allowedips_lookup) never lock: they load the root, child and
// peer pointers with acquire loads.  The single writer (serialized by the
// glue) follows three rules so a concurrent reader always sees a well-formed
// trie, old or new:
//   1. a node is fully initialized (prefix, children, peer) before the release
//      store that makes it reachable;
//   2. a published node's prefix never changes; its peer and child pointers
//      only change by single release stores;
//   3. an unlinked node keeps its child pointers and is freed with
//      wgx_platform_free_deferred(), so a reader standing on it can go on.
// Writer-only bookkeeping (parent pointers, the per-peer lists and the
// peer -> list index) is never read by lookups.
//
// The peer index is an open-addressing hash table keyed by the peer pointer,
// holding the head/tail of that peer's list of nodes (insertion order) and its
// count; it makes remove_by_peer, count and the walks O(entries of the peer)
// instead of O(table).  A walk resumes in O(1) from a cursor holding the next
// node, which stays valid while the table's seq is unchanged (every change
// bumps seq; nodes of a peer list are only freed by a change).

#include "allowedips.hpp"

#include <wgx/platform.h>

namespace wgx::aip {

struct Node;

/// Writer-only links of a node; dead once the node is unlinked, so the
/// deferred free's head overlays them (readers never load them).
struct Links {
    Node *parent;
    Node *peer_prev;  // list of the peer's nodes, insertion order
    Node *peer_next;
};

struct Node {
    Node *child[2];  // published with release stores
    void *peer;      // published with release stores; nullptr = branch point
    union {
        Links w;           // writer only, while linked
        wgx_rcu_head rcu;  // for wgx_platform_node_free_deferred(), once unlinked
    };
    u8 bits[16];  // prefix, masked to cidr; immutable after publication
    u8 cidr;      // immutable
    u8 fam;       // immutable: 0 = IPv4, 1 = IPv6
};
static_assert(sizeof(Links) == sizeof(wgx_rcu_head));
static_assert(sizeof(Node) <= WGX_PLATFORM_NODE_SIZE);

struct PeerSlot {
    void *peer;  // nullptr = empty slot
    Node *head;
    Node *tail;
    usize count;
};

constexpr usize MIN_SLOTS = 16;

template <typename T> inline T load_acquire(const T *p)
{
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
template <typename T> inline void store_release(T *p, T v)
{
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}

/// Bit @i of a big-endian bit string (bit 0 = most significant bit of byte 0).
inline unsigned bit_at(const u8 *a, unsigned i)
{
    return (a[i >> 3] >> (7 - (i & 7))) & 1;
}

/// True when the first @cidr bits of @prefix and @key agree.
inline bool prefix_matches(const u8 *prefix, const u8 *key, unsigned cidr)
{
    const unsigned full = cidr >> 3;
    for (unsigned i = 0; i < full; ++i)
        if (prefix[i] != key[i])
            return false;
    const unsigned rem = cidr & 7;
    if (!rem)
        return true;
    const u8 mask = u8(0xff << (8 - rem));
    return ((prefix[full] ^ key[full]) & mask) == 0;
}

/// Length of the common leading bit string of @a and @b, at most @limit bits.
inline unsigned common_bits(const u8 *a, const u8 *b, unsigned limit)
{
    for (unsigned i = 0; i * 8 < limit; ++i) {
        const unsigned x = a[i] ^ b[i];
        if (x) {
            const unsigned c = i * 8 + unsigned(__builtin_clz(x)) - 24;
            return c < limit ? c : limit;
        }
    }
    return limit;
}

/// @dst (16 bytes) = the first @cidr bits of @src (@len bytes), the rest zero.
inline void mask_prefix(u8 *dst, const u8 *src, unsigned cidr, usize len)
{
    zero_bytes(dst, 16);
    copy_bytes(dst, src, len);
    const unsigned full = cidr >> 3;
    if (full < 16) {
        if (cidr & 7)
            dst[full] &= u8(0xff << (8 - (cidr & 7)));
        for (unsigned i = full + ((cidr & 7) ? 1 : 0); i < 16; ++i)
            dst[i] = 0;
    }
}

inline usize hash_ptr(const void *p)
{
    u64 x = u64(reinterpret_cast<__UINTPTR_TYPE__>(p));
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    return usize(x);
}

/// Family -> trie index (0/1) and address length; false for an unknown family.
inline bool family_info(int family, unsigned &fam, usize &len)
{
    len = family_addr_len(family);
    fam = family == WGX_AF_INET6 ? 1 : 0;
    return len != 0;
}

/// @key (16 bytes) = the prefix @addr/@cidr masked, with its family's trie index and address
/// length; false when the family is unknown or @cidr longer than its addresses.
inline bool prefix_key(int family, const u8 *addr, u8 cidr, unsigned &fam, usize &len, u8 *key)
{
    if (!addr || !family_info(family, fam, len) || cidr > len * 8)
        return false;
    mask_prefix(key, addr, cidr, len);
    return true;
}

}  // namespace wgx::aip

struct wgx_allowedips {
    wgx::aip::Node *root[2];  // IPv4, IPv6; published with release stores
    wgx::aip::PeerSlot *slots;
    wgx::usize slot_cap;  // 0 or a power of two
    wgx::usize slot_used;
    wgx::usize total;
    wgx::u64 seq;
    wgx_rcu_head rcu;
};

namespace wgx::aip {
namespace {

PeerSlot *find_slot(const wgx_allowedips *t, const void *peer)
{
    if (!t->slot_cap)
        return nullptr;
    const usize mask = t->slot_cap - 1;
    for (usize i = hash_ptr(peer) & mask;; i = (i + 1) & mask) {
        if (t->slots[i].peer == peer)
            return &t->slots[i];
        if (!t->slots[i].peer)
            return nullptr;
    }
}

/// Place @peer in a table known to have a free slot and not to hold @peer.
PeerSlot *place_slot(PeerSlot *slots, usize cap, void *peer)
{
    const usize mask = cap - 1;
    usize i = hash_ptr(peer) & mask;
    while (slots[i].peer)
        i = (i + 1) & mask;
    slots[i].peer = peer;
    return &slots[i];
}

/// Make room for one more peer (load kept <= 3/4: the table is a per-peer
/// cost, 32 bytes a slot, and only the writer probes it).  False when out of memory.
bool reserve_slot(wgx_allowedips *t, bool may_sleep)
{
    if ((t->slot_used + 1) * 4 <= t->slot_cap * 3)
        return true;
    const usize cap = t->slot_cap ? t->slot_cap * 2 : MIN_SLOTS;
    auto *slots = static_cast<PeerSlot *>(wgx_platform_zalloc(cap * sizeof(PeerSlot), may_sleep));
    if (!slots)
        return false;
    for (usize i = 0; i < t->slot_cap; ++i) {
        const PeerSlot &old = t->slots[i];
        if (old.peer)
            *place_slot(slots, cap, old.peer) = old;
    }
    wgx_platform_free(t->slots);  // writer-only memory: readers never see it
    t->slots = slots;
    t->slot_cap = cap;
    return true;
}

PeerSlot *get_slot(wgx_allowedips *t, void *peer)
{
    PeerSlot *s = find_slot(t, peer);
    if (s)
        return s;
    ++t->slot_used;
    return place_slot(t->slots, t->slot_cap, peer);
}

/// Delete slot @s with backward-shift deletion (keeps probe chains intact).
void drop_slot(wgx_allowedips *t, PeerSlot *s)
{
    const usize mask = t->slot_cap - 1;
    usize hole = usize(s - t->slots);
    for (usize j = (hole + 1) & mask; t->slots[j].peer; j = (j + 1) & mask) {
        const usize home = hash_ptr(t->slots[j].peer) & mask;
        // The entry at j may move into the hole unless its home lies cyclically in (hole, j].
        const bool home_between = hole <= j ? (home > hole && home <= j) : (home > hole || home <= j);
        if (!home_between) {
            t->slots[hole] = t->slots[j];
            hole = j;
        }
    }
    t->slots[hole] = PeerSlot{};
    --t->slot_used;
}

void list_append(PeerSlot *s, Node *n)
{
    n->w.peer_next = nullptr;
    n->w.peer_prev = s->tail;
    if (s->tail)
        s->tail->w.peer_next = n;
    else
        s->head = n;
    s->tail = n;
    ++s->count;
}

void list_unlink(PeerSlot *s, Node *n)
{
    if (n->w.peer_prev)
        n->w.peer_prev->w.peer_next = n->w.peer_next;
    else
        s->head = n->w.peer_next;
    if (n->w.peer_next)
        n->w.peer_next->w.peer_prev = n->w.peer_prev;
    else
        s->tail = n->w.peer_prev;
    n->w.peer_prev = n->w.peer_next = nullptr;
    --s->count;
}

Node **slot_of(wgx_allowedips *t, Node *n)
{
    Node *p = n->w.parent;
    return p ? &p->child[bit_at(n->bits, p->cidr)] : &t->root[n->fam];
}

/// Unlink @n and its ancestors while they are branch points (no peer) with fewer
/// than two children.  Unlinked nodes keep their child pointers for readers.
void prune(wgx_allowedips *t, Node *n)
{
    while (n && !n->peer) {
        Node *c0 = n->child[0], *c1 = n->child[1];
        if (c0 && c1)
            return;
        Node *only = c0 ? c0 : c1;
        Node *parent = n->w.parent;
        store_release(slot_of(t, n), only);
        if (only)
            only->w.parent = parent;
        wgx_platform_node_free_deferred(n, &n->rcu);
        if (only)
            return;  // the parent keeps as many children as before
        n = parent;
    }
}

/// Find the node holding exactly the masked prefix @key/@cidr (writer side).
Node *find_exact(const wgx_allowedips *t, unsigned fam, const u8 *key, unsigned cidr)
{
    Node *n = t->root[fam];
    while (n && n->cidr <= cidr && prefix_matches(n->bits, key, n->cidr)) {
        if (n->cidr == cidr)
            return n;
        n = n->child[bit_at(key, n->cidr)];
    }
    return nullptr;
}

void free_subtree(Node *n)
{
    // Iterative post-order walk over parent pointers; no recursion in kernel stacks.
    while (n) {
        if (n->child[0]) {
            Node *c = n->child[0];
            store_release(&n->child[0], static_cast<Node *>(nullptr));
            n = c;
        } else if (n->child[1]) {
            Node *c = n->child[1];
            store_release(&n->child[1], static_cast<Node *>(nullptr));
            n = c;
        } else {
            Node *p = n->w.parent;
            wgx_platform_node_free_deferred(n, &n->rcu);
            n = p;
        }
    }
}

/// The node at position @index of @s's list (nullptr past the end).  O(index).
const Node *node_at(const PeerSlot *s, usize index)
{
    const Node *n = s->head;
    for (; n && index; --index)
        n = n->w.peer_next;
    return n;
}

/// Call @fn for @n and the nodes after it, @i counting their positions, until
/// @fn refuses one; returns that node (with @i its position), or nullptr at the
/// end (@i = the list's length).
const Node *walk_list(const Node *n, usize &i, wgx_allowedips_walk_fn fn, void *ctx)
{
    for (; n; n = n->w.peer_next, ++i)
        if (fn(ctx, n->fam ? WGX_AF_INET6 : WGX_AF_INET, n->bits, n->cidr))
            return n;
    return nullptr;
}

}  // namespace
}  // namespace wgx::aip

using namespace wgx;
using namespace wgx::aip;

extern "C" {

struct wgx_allowedips *wgx_allowedips_create(void)
{
    return static_cast<wgx_allowedips *>(wgx_platform_zalloc(sizeof(wgx_allowedips), true));
}

void wgx_allowedips_destroy(struct wgx_allowedips *t)
{
    if (!t)
        return;
    for (int fam = 0; fam < 2; ++fam) {
        Node *root = t->root[fam];
        store_release(&t->root[fam], static_cast<Node *>(nullptr));
        free_subtree(root);
    }
    wgx_platform_free(t->slots);
    wgx_platform_free_deferred(t, &t->rcu);
}

int wgx_allowedips_insert(struct wgx_allowedips *t, int family, const wgx_u8 *addr, wgx_u8 cidr, void *peer,
                          bool may_sleep)
{
    unsigned fam;
    usize len;
    u8 key[16];
    if (!t || !peer || !prefix_key(family, addr, cidr, fam, len, key))
        return -WGX_EINVAL;

    // Find the exact node, or the link (*link, currently pointing at @n) where the prefix goes.
    Node **link = &t->root[fam];
    Node *parent = nullptr;
    Node *n = *link;
    bool exact = false;
    while (n && n->cidr <= cidr && prefix_matches(n->bits, key, n->cidr)) {
        if (n->cidr == cidr) {
            exact = true;
            break;
        }
        parent = n;
        link = &n->child[bit_at(key, n->cidr)];
        n = *link;
    }
    if (exact && n->peer == peer)
        return 0;

    // Allocate everything first, so a failure leaves the table untouched.
    if (!find_slot(t, peer) && !reserve_slot(t, may_sleep))
        return -WGX_ENOMEM;

    if (exact) {
        // Move the prefix (or give a branch point its first peer): one atomic store for readers.
        PeerSlot *old = n->peer ? find_slot(t, n->peer) : nullptr;
        if (old)
            list_unlink(old, n);
        else
            ++t->total;
        list_append(get_slot(t, peer), n);
        store_release(&n->peer, peer);
        if (old && !old->count)
            drop_slot(t, old);  // last: dropping may shift other slots
        ++t->seq;
        return 0;
    }

    unsigned common = 0;
    bool need_branch = false;
    if (n) {
        common = common_bits(n->bits, key, n->cidr < cidr ? n->cidr : cidr);
        need_branch = common < cidr;
    }
    auto *leaf = static_cast<Node *>(wgx_platform_node_zalloc(may_sleep));
    Node *branch = nullptr;
    if (leaf && need_branch)
        branch = static_cast<Node *>(wgx_platform_node_zalloc(may_sleep));
    if (!leaf || (need_branch && !branch)) {
        wgx_platform_node_free(leaf);
        return -WGX_ENOMEM;
    }

    copy_bytes(leaf->bits, key, sizeof(key));
    leaf->cidr = cidr;
    leaf->fam = u8(fam);
    leaf->peer = peer;
    if (!n) {
        // Empty link: hang the leaf there.
        leaf->w.parent = parent;
        store_release(link, leaf);
    } else if (!need_branch) {
        // The new prefix contains @n: the leaf goes between @parent and @n.
        leaf->child[bit_at(n->bits, cidr)] = n;
        leaf->w.parent = parent;
        store_release(link, leaf);
        n->w.parent = leaf;
    } else {
        // The prefixes diverge at bit @common: a branch point holds both.
        mask_prefix(branch->bits, key, common, len);
        branch->cidr = u8(common);
        branch->fam = u8(fam);
        branch->child[bit_at(key, common)] = leaf;
        branch->child[bit_at(n->bits, common)] = n;
        branch->w.parent = parent;
        leaf->w.parent = branch;
        store_release(link, branch);
        n->w.parent = branch;
    }
    list_append(get_slot(t, peer), leaf);
    ++t->total;
    ++t->seq;
    return 0;
}

int wgx_allowedips_remove(struct wgx_allowedips *t, int family, const wgx_u8 *addr, wgx_u8 cidr, const void *peer)
{
    unsigned fam;
    usize len;
    u8 key[16];
    if (!t || !peer || !prefix_key(family, addr, cidr, fam, len, key))
        return -WGX_EINVAL;
    Node *n = find_exact(t, fam, key, cidr);
    if (!n || !n->peer || n->peer != peer)
        return -WGX_ENOENT;
    PeerSlot *s = find_slot(t, peer);
    list_unlink(s, n);
    if (!s->count)
        drop_slot(t, s);
    store_release(&n->peer, static_cast<void *>(nullptr));
    --t->total;
    ++t->seq;
    prune(t, n);
    return 0;
}

wgx_size wgx_allowedips_remove_by_peer(struct wgx_allowedips *t, const void *peer)
{
    if (!t || !peer)
        return 0;
    PeerSlot *s = find_slot(t, peer);
    if (!s)
        return 0;
    const usize count = s->count;
    Node *n = s->head;
    drop_slot(t, s);
    while (n) {
        Node *next = n->w.peer_next;
        n->w.peer_prev = n->w.peer_next = nullptr;
        store_release(&n->peer, static_cast<void *>(nullptr));
        prune(t, n);  // frees only branch points, never a later node of this list
        n = next;
    }
    t->total -= count;
    ++t->seq;
    return count;
}

void *wgx_allowedips_lookup(const struct wgx_allowedips *t, int family, const wgx_u8 *addr)
{
    unsigned fam;
    usize len;
    if (!t || !addr || !family_info(family, fam, len))
        return nullptr;
    const unsigned max_bits = unsigned(len * 8);
    void *best = nullptr;
    const Node *n = load_acquire(&t->root[fam]);
    while (n && prefix_matches(n->bits, addr, n->cidr)) {
        void *p = load_acquire(&n->peer);
        if (p)
            best = p;
        if (n->cidr >= max_bits)
            break;
        n = load_acquire(&n->child[bit_at(addr, n->cidr)]);
    }
    return best;
}

wgx_size wgx_allowedips_count(const struct wgx_allowedips *t, const void *peer)
{
    if (!t)
        return 0;
    if (!peer)
        return t->total;
    const PeerSlot *s = find_slot(t, peer);
    return s ? s->count : 0;
}

wgx_size wgx_allowedips_walk(const struct wgx_allowedips *t, const void *peer, wgx_size start,
                             wgx_allowedips_walk_fn fn, void *ctx)
{
    if (!t || !peer || !fn)
        return 0;
    const PeerSlot *s = find_slot(t, peer);
    if (!s)
        return 0;
    usize i = start < s->count ? start : s->count;
    walk_list(node_at(s, i), i, fn, ctx);
    return i;
}

bool wgx_allowedips_walk_from(const struct wgx_allowedips *t, const void *peer, struct wgx_allowedips_cursor *cur,
                              wgx_allowedips_walk_fn fn, void *ctx)
{
    if (!t || !peer || !cur || !fn)
        return true;
    const PeerSlot *s = find_slot(t, peer);
    const Node *n = nullptr;
    usize i = 0;
    if (s) {
        // Follow the cursor's node only while nothing changed (so it is not
        // freed) and it is this peer's; otherwise go by position.
        const auto *held = static_cast<const Node *>(cur->node);
        if (cur->seq == t->seq && cur->index <= s->count && (held ? held->peer == peer : cur->index == s->count)) {
            n = held;
            i = cur->index;
        } else {
            i = cur->index < s->count ? cur->index : s->count;
            n = node_at(s, i);
        }
        n = walk_list(n, i, fn, ctx);
    }
    cur->node = n;
    cur->seq = t->seq;
    cur->index = i;
    return !n;
}

wgx_u64 wgx_allowedips_seq(const struct wgx_allowedips *t)
{
    return t ? t->seq : 0;
}

}  // extern "C"
