// SPDX-License-Identifier: GPL-2.0
//
// libFuzzer harness for the replay window (wgx_replay_check): the input is a
// program of counters, each relative to the greatest accepted one or
// absolute, checked call by call against a naive model (set of accepted
// counters + maximum).  Any mismatch aborts.
//
//   build: CC=clang CXX=clang++ cmake -S . -B build-fuzz -DWGX_FUZZ=ON && cmake --build build-fuzz
//   run:   build-fuzz/fuzz/fuzz_replay -max_total_time=60

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <wgx/core.h>

namespace {

struct Reader {
    const uint8_t *p;
    size_t n;
    uint64_t take(size_t bytes)
    {
        uint64_t v = 0;
        for (size_t i = 0; i < bytes && n; ++i, --n)
            v = v << 8 | *p++;
        return v;
    }
};

constexpr uint64_t W = WGX_REPLAY_WINDOW;
constexpr uint64_t REJECT = WGX_TRANSPORT_REJECT_AFTER_MESSAGES;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    Reader in{data, size};
    wgx_replay r;
    wgx_replay_init(&r);
    std::set<uint64_t> seen;
    bool any = false;
    uint64_t max = 0;
    while (in.n) {
        const unsigned op = unsigned(in.take(1));
        uint64_t c;
        switch (op % 8) {
        case 0:
            c = max + 1 + in.take(1);
            break;
        case 1:
            c = max + in.take(2);
            break;
        case 2: {  // behind the maximum, around the window edge
            const uint64_t back = in.take(2) % (W + 300);
            c = back > max ? 0 : max - back;
            break;
        }
        case 3:
            c = max - W - 2 + in.take(1) % 5;
            break;  // exactly at the edge (wraps when max < W)
        case 4:
            c = in.take(8);
            break;  // absolute
        case 5:
            c = REJECT - 1 - in.take(2) % 20000 + in.take(1) % 4;
            break;  // near the limit
        case 6:
            c = max - in.take(1);
            break;
        default:
            c = max + in.take(4);
            break;
        }
        bool want = c < REJECT && !(any && c + W < max) && !seen.count(c);
        if (want) {
            seen.insert(c);
            if (!any || c > max) {
                max = c;
                any = true;
                if (max > W)
                    seen.erase(seen.begin(), seen.lower_bound(max - W));
            }
        }
        if (wgx_replay_check(&r, c) != want) {
            fprintf(stderr, "replay mismatch: counter %llu, max %llu, want %d\n", (unsigned long long)c,
                    (unsigned long long)max, want);
            abort();
        }
    }
    return 0;
}
