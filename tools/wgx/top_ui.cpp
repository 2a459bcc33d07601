// SPDX-License-Identifier: GPL-2.0
//
// `wgx top`: the command line, `--once`, and the live view.  The live view
// uses ncurses: terminfo gives the right sequences for whatever terminal it
// runs in, keypad decoding (arrows, PgUp/PgDn) and resizing come with it,
// and only the rows on screen are drawn, which keeps a 10,000-peer table
// cheap to refresh.  `--once` never touches the terminal.
#include <curses.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>

#include "subcommands.hpp"
#include "telemetry.hpp"

namespace wgx {
namespace {

struct TopOptions {
    std::vector<std::string> ifaces;
    bool once = false;
    TopSort sort = TopSort::Rx;
    double interval = 1.0;  // seconds
};

/** The sort key bound to @ch in the live view (the keys of top_usage()), nullopt for others. */
std::optional<TopSort> sort_for_key(int ch)
{
    static constexpr struct {
        int key;
        TopSort sort;
    } keys[] = {
        {'r', TopSort::Rx},      {'t', TopSort::Tx},    {'m', TopSort::Rtt},       {'l', TopSort::Loss},
        {'x', TopSort::Retrans}, {'d', TopSort::Drops}, {'h', TopSort::Handshake}, {'n', TopSort::Name},
    };
    for (const auto &k : keys)
        if (k.key == ch)
            return k.sort;
    return std::nullopt;
}

void top_usage(FILE *f, const char *cmd)
{
    fprintf(f,
            "Usage: %s %s [<interface>...] [--once] [--sort rx|tx|rtt|loss|retrans|drops|"
            "handshake|name] [--interval <seconds>]\n"
            "Live per-peer view of every wgx and WireGuard interface (or those named), refreshed\n"
            "every interval (default 1 s, 0.1-3600): rx/tx Mbit/s and packets/s derived from the\n"
            "counters, smoothed TCP and handshake RTT, loss %%, TCP retransmits/s, drops, latest\n"
            "handshake.  Keys: r t m l x d h n sort by rx, tx, rtt, loss, retrans, drops, handshake,\n"
            "name; i invert; arrows, PgUp/PgDn, Home/End scroll; q quits.\n"
            "--once prints one table (two samples an interval apart) as plain text and exits.\n",
            prog_name, cmd);
}

}  // namespace

const std::vector<std::string> &top_options()
{
    static const std::vector<std::string> o = {"--once", "--sort", "--interval"};
    return o;
}

namespace {

// Parses the arguments after "top"; prints the reason and returns false on error.
bool parse_top_args(int argc, const char *argv[], TopOptions &o)
{
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        std::string value;
        bool has_value = false;
        std::size_t eq = a.find('=');
        if (a.rfind("--", 0) == 0 && eq != std::string::npos) {
            value = a.substr(eq + 1);
            a.resize(eq);
            has_value = true;
        }
        auto need = [&](const char *what) -> bool {
            if (has_value)
                return true;
            if (i + 1 >= argc) {
                fprintf(stderr, "%s top: %s needs a value (%s)\n", prog_name, a.c_str(), what);
                return false;
            }
            value = argv[++i];
            return true;
        };
        if (!a.empty() && a[0] == '-' &&
            std::find(top_options().begin(), top_options().end(), a) == top_options().end()) {
            fprintf(stderr, "%s top: unknown option `%s'\n", prog_name, argv[i]);
            return false;
        }
        if (a == "--once") {
            o.once = true;
        } else if (a == "--sort") {
            if (!need("rx, tx, rtt, loss, retrans, drops, handshake or name"))
                return false;
            auto s = parse_top_sort(value);
            if (!s) {
                fprintf(stderr,
                        "%s top: invalid --sort `%s': expected rx, tx, rtt, loss, retrans, drops, "
                        "handshake or name\n",
                        prog_name, value.c_str());
                return false;
            }
            o.sort = *s;
        } else if (a == "--interval") {
            if (!need("seconds"))
                return false;
            char *end = nullptr;
            errno = 0;
            double v = strtod(value.c_str(), &end);
            if (value.empty() || *end || errno || !std::isfinite(v) || v < 0.1 || v > 3600) {
                fprintf(stderr, "%s top: invalid --interval `%s': expected seconds from 0.1 to 3600\n", prog_name,
                        value.c_str());
                return false;
            }
            o.interval = v;
        } else if (!a.empty() && a[0] == '-') {
            fprintf(stderr, "%s top: unknown option `%s'\n", prog_name, argv[i]);
            return false;
        } else {
            if (a.size() > 15) {
                fprintf(stderr, "Invalid interface name `%s': at most 15 characters\n", a.c_str());
                return false;
            }
            o.ifaces.push_back(a);
        }
    }
    return true;
}

double monotonic_seconds()
{
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

void sleep_seconds(double s)
{
    timespec ts;
    ts.tv_sec = static_cast<time_t>(s);
    ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
    while (nanosleep(&ts, &ts) && errno == EINTR) {
    }
}

struct Snapshot {
    std::vector<Device> devs;
    double at = 0;  // monotonic seconds
};

Status take(const TopOptions &o, Snapshot &s)
{
    Status st = read_devices(o.ifaces, s.devs);
    s.at = monotonic_seconds();
    return st;
}

int top_once(const TopOptions &o)
{
    Snapshot a, b;
    Status st = take(o, a);
    if (st.is_ok()) {
        sleep_seconds(o.interval);
        st = take(o, b);
    }
    if (!st.is_ok()) {
        fprintf(stderr, "%s top: %s\n", prog_name, st.text().c_str());
        return 1;
    }
    std::vector<TopRow> rows = top_rows(a.devs, b.devs, b.at - a.at, time(nullptr));
    top_sort(rows, o.sort);
    fputs(top_once_text(rows).c_str(), stdout);
    return 0;
}

volatile sig_atomic_t g_stop = 0;

void on_signal(int)
{
    g_stop = 1;
}

int top_live(TopOptions o)
{
    if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO)) {
        fprintf(stderr, "%s top: not a terminal; use --once for a plain-text table\n", prog_name);
        return 1;
    }
    Snapshot prev, cur;
    Status st = take(o, cur);
    if (!st.is_ok()) {  // a bad interface name: say so before the screen is taken
        fprintf(stderr, "%s top: %s\n", prog_name, st.text().c_str());
        return 1;
    }
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    sigaction(SIGHUP, &sa, nullptr);

    if (!initscr()) {
        fprintf(stderr, "%s top: unable to initialise the terminal\n", prog_name);
        return 1;
    }
    cbreak();
    noecho();
    keypad(stdscr, TRUE);
    curs_set(0);

    std::vector<TopRow> rows = top_rows({}, cur.devs, 1, time(nullptr));
    bool reverse = false;
    std::size_t offset = 0, hoffset = 0;
    std::string error;
    double next = cur.at + o.interval;
    while (!g_stop) {
        top_sort(rows, o.sort, reverse);
        int body = LINES - 3 > 0 ? LINES - 3 : 0;  // status, header, help lines
        std::size_t max_off =
            rows.size() > static_cast<std::size_t>(body) ? rows.size() - static_cast<std::size_t>(body) : 0;
        if (offset > max_off)
            offset = max_off;
        auto line = [&](int y, const std::string &text) {
            std::string t = hoffset < text.size() ? text.substr(hoffset) : std::string();
            mvaddnstr(y, 0, t.c_str(), COLS);
        };
        erase();
        char status[256];
        time_t now = time(nullptr);
        char clock[16];
        strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
        snprintf(status, sizeof(status),
                 "wgx top  %s  %zu peers on %zu interfaces  sort: %s%s  every %.1f s  rows "
                 "%zu-%zu",
                 clock, rows.size(), cur.devs.size(), top_sort_name(o.sort), reverse ? " (inverted)" : "", o.interval,
                 rows.empty() ? 0 : offset + 1, std::min(rows.size(), offset + static_cast<std::size_t>(body)));
        mvaddnstr(0, 0, status, COLS);
        if (!error.empty()) {
            attron(A_BOLD);
            addnstr(("  " + error).c_str(), COLS);
            attroff(A_BOLD);
        }
        attron(A_REVERSE);
        std::string header = top_header();
        if (static_cast<int>(header.size()) < COLS + static_cast<int>(hoffset))
            header.resize(static_cast<std::size_t>(COLS) + hoffset, ' ');
        line(1, header);
        attroff(A_REVERSE);
        for (int y = 0; y < body && offset + static_cast<std::size_t>(y) < rows.size(); ++y)
            line(2 + y, top_format_row(rows[offset + static_cast<std::size_t>(y)]));
        attron(A_DIM);
        mvaddnstr(LINES - 1, 0,
                  "q quit  sort: r rx  t tx  m rtt  l loss  x retrans  d drops  h handshake  "
                  "n name  i invert  scroll: arrows PgUp PgDn Home End",
                  COLS);
        attroff(A_DIM);
        refresh();

        double wait = next - monotonic_seconds();
        timeout(wait <= 0 ? 0 : std::min(200, static_cast<int>(wait * 1000) + 1));
        int ch = getch();
        switch (ch) {
        case 'q':
        case 'Q':
        case 27:
            g_stop = 1;
            break;
        case 'i':
            reverse = !reverse;
            break;
        case KEY_UP:
        case 'k':
            offset = offset ? offset - 1 : 0;
            break;
        case KEY_DOWN:
        case 'j':
            offset = std::min(max_off, offset + 1);
            break;
        case KEY_PPAGE:
            offset = offset > static_cast<std::size_t>(body) ? offset - body : 0;
            break;
        case KEY_NPAGE:
        case ' ':
            offset = std::min(max_off, offset + body);
            break;
        case KEY_HOME:
        case 'g':
            offset = 0;
            break;
        case KEY_END:
        case 'G':
            offset = max_off;
            break;
        case KEY_LEFT:
            hoffset = hoffset >= 8 ? hoffset - 8 : 0;
            break;
        case KEY_RIGHT:
            hoffset += 8;
            break;
        default:
            if (auto sort = sort_for_key(ch))
                o.sort = *sort;
            break;
        }
        if (monotonic_seconds() >= next) {
            prev = std::move(cur);
            cur = Snapshot{};
            st = take(o, cur);
            if (st.is_ok()) {
                error.clear();
                rows = top_rows(prev.devs, cur.devs, cur.at - prev.at, time(nullptr));
            } else {
                error = st.text();
                cur = std::move(prev);  // keep the last good sample as the base
            }
            next += o.interval;
            if (next < monotonic_seconds())
                next = monotonic_seconds() + o.interval;  // fell behind: do not burst
        }
    }
    endwin();
    return 0;
}

}  // namespace

int top_main(int argc, const char *argv[])
{
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        top_usage(stdout, argv[0]);
        return 0;
    }
    TopOptions o;
    if (!parse_top_args(argc, argv, o)) {
        top_usage(stderr, argv[0]);
        return 1;
    }
    return o.once ? top_once(o) : top_live(std::move(o));
}

}  // namespace wgx
