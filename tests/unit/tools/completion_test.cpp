// SPDX-License-Identifier: GPL-2.0
// dist/bash-completion/wgx against the tool's own lists of subcommands,
// show fields and options, set keywords, the values of the settings of
// options.hpp and the options of top and exporter: the completion is run in
// a real bash with bash-completion's _init_completion, and every word the
// tool accepts at a position must be offered there, so a keyword added to
// the tool without its completion fails.
#include <sys/wait.h>

#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "../../../tools/wgx/format.hpp"
#include "../../../tools/wgx/options.hpp"
#include "../../../tools/wgx/subcommands.hpp"
#include "../../../tools/wgx/telemetry.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

constexpr const char *kBashCompletion = "/usr/share/bash-completion/bash_completion";

std::string shell_quote(const std::string &s)
{
    std::string q = "'";
    for (char c : s)
        q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

// The words _wgx offers for the command line @words, the last one being the
// word under the cursor ("" for a fresh word).
std::set<std::string> complete(const std::vector<std::string> &words)
{
    std::string line, array;
    for (const std::string &w : words) {
        line += (line.empty() ? "" : " ") + w;
        array += shell_quote(w) + " ";
    }
    std::string script = std::string("source ") + kBashCompletion + " || exit 2\n" + "source " +
                         shell_quote(std::string(WGX_SOURCE_DIR) + "/dist/bash-completion/wgx") + " || exit 3\n" +
                         "_wgx_interfaces() { :; }\n" +  // not this host's interfaces

                         "COMP_WORDS=(" + array + ")\n" + "COMP_CWORD=" + std::to_string(words.size() - 1) + "\n" +
                         "COMP_LINE=" + shell_quote(line) + "\n" + "COMP_POINT=${#COMP_LINE}\n" + "_wgx wgx " +
                         shell_quote(words.back()) + " " + shell_quote(words[words.size() - 2]) + "\n" +
                         "printf '%s\\n' \"${COMPREPLY[@]}\"\n";
    test::TempFile file(script);
    // The wgx of this build: the completion reads the keywords of `set` from its usage.
    std::string cmd = "env PATH=" + shell_quote(std::string(WGX_BINARY_DIR) + "/tools") +
                      ":/usr/bin:/bin bash --noprofile --norc " + file.path() + " 2>&1";
    FILE *p = popen(cmd.c_str(), "r");
    EXPECT_NE(p, nullptr);
    std::set<std::string> out;
    if (!p)
        return out;
    char buf[512];
    while (fgets(buf, sizeof(buf), p)) {
        std::string w(buf);
        if (!w.empty() && w.back() == '\n')
            w.pop_back();
        if (!w.empty())
            out.insert(w);
    }
    int status = pclose(p);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "bash exited with status " << status;
    return out;
}

// The space-separated words of @text.
std::vector<std::string> words(const std::string &text)
{
    std::vector<std::string> w;
    std::istringstream in(text);
    for (std::string word; in >> word;)
        w.push_back(word);
    return w;
}

void expect_offered(const std::vector<std::string> &words, const std::vector<std::string> &wanted)
{
    std::set<std::string> got = complete(words);
    std::string line;
    for (const std::string &w : words)
        line += w + " ";
    for (const std::string &w : wanted)
        EXPECT_TRUE(got.count(w)) << "`" << line << "' does not complete `" << w << "'";
}

TEST(ToolCompletion, OffersEveryWordTheToolAccepts)
{
    if (access(kBashCompletion, R_OK))
        GTEST_SKIP() << kBashCompletion << " missing (package bash-completion)";

    std::vector<std::string> subs = subcommand_names();
    subs.insert(subs.end(), {"--help", "--version"});
    expect_offered({"wgx", ""}, subs);

    std::vector<std::string> show_first = show_options();
    show_first.insert(show_first.end(), {"all", "interfaces"});
    expect_offered({"wgx", "show", ""}, show_first);
    expect_offered({"wgx", "show", "wgx0", ""}, show_fields());
    expect_offered({"wgx", "show", "--prometheus", "wgx0", ""}, show_fields());

    std::vector<std::string> device, peer;
    for (const SetKeyword &k : set_keywords())
        (k.peer ? peer : device).push_back(k.name);
    peer.push_back("peer");  // the next peer
    expect_offered({"wgx", "set", "wgx0", ""}, device);
    expect_offered({"wgx", "set", "wgx0", "listen-port", "1", ""}, device);
    expect_offered({"wgx", "set", "wgx0", "peer", test::kPub2, ""}, peer);
    expect_offered({"wgx", "set", "wgx0", "offload", ""}, offload_names());
    expect_offered({"wgx", "set", "wgx0", "offload", "gso", ""}, {"on", "off"});
    // The value words of every setting of the table (options.hpp).
    for (const DeviceOption &o : device_options())
        expect_offered({"wgx", "set", "wgx0", o.keyword, ""}, words(o.completion));
    for (const PeerOption &o : peer_options())
        expect_offered({"wgx", "set", "wgx0", "peer", test::kPub2, o.keyword, ""}, words(o.completion));

    expect_offered({"wgx", "top", ""}, top_options());
    expect_offered({"wgx", "top", "--once", ""}, top_options());
    std::vector<std::string> sorts;
    for (TopSort s = TopSort::Rx;; s = static_cast<TopSort>(static_cast<int>(s) + 1)) {
        sorts.push_back(top_sort_name(s));
        if (s == TopSort::Name)
            break;
    }
    expect_offered({"wgx", "top", "--sort", ""}, sorts);
    expect_offered({"wgx", "exporter", ""}, exporter_options());
}

// The test above can fail: a word the completion does not offer is reported.
TEST(ToolCompletion, NoticesAMissingWord)
{
    if (access(kBashCompletion, R_OK))
        GTEST_SKIP() << kBashCompletion << " missing (package bash-completion)";
    std::set<std::string> got = complete({"wgx", "set", "wgx0", ""});
    EXPECT_FALSE(got.empty());
    EXPECT_FALSE(got.count("no-such-keyword"));
    EXPECT_FALSE(got.count("remove"));  // a peer keyword, not before `peer'
}

// After a keyword without a value the next keyword completes; after one
// whose value is free text (a port), nothing does.
TEST(ToolCompletion, KeywordValuesComeFromTheUsage)
{
    if (access(kBashCompletion, R_OK))
        GTEST_SKIP() << kBashCompletion << " missing (package bash-completion)";
    std::set<std::string> got = complete({"wgx", "set", "wgx0", "peer", test::kPub2, "remove", ""});
    EXPECT_TRUE(got.count("endpoint"));
    EXPECT_FALSE(got.count("listen-port"));  // an interface keyword, not after `peer'
    EXPECT_EQ(complete({"wgx", "set", "wgx0", "listen-port", ""}), std::set<std::string>{});
    EXPECT_EQ(complete({"wgx", "set", "wgx0", "peer", test::kPub2, "allowed-ips", ""}), std::set<std::string>{});
    EXPECT_EQ(complete({"wgx", "set", "wgx0", "mtu", "1400", "peer", test::kPub2, "mtu", ""}),
              std::set<std::string>{"auto"});
}

}  // namespace
}  // namespace wgx
