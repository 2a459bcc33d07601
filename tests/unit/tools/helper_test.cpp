// SPDX-License-Identifier: GPL-2.0
// The programs of `wgx top` and `wgx exporter` (tools/wgx/helper.hpp): wgx
// itself links neither ncurses nor libmicrohttpd (whose gnutls, p11-kit, ...
// every start of wgx would load), finds wgx-top and wgx-exporter next to
// itself or in ../libexec/wgx/, runs them with its command line, and names
// the path when one is missing.
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include "../../../tools/wgx/helper.hpp"
#include "tool_test_util.hpp"

namespace wgx {
namespace {

// The DT_NEEDED entries of the ELF file @path (readelf -d).
std::set<std::string> needed(const std::string &path)
{
    std::set<std::string> libs;
    FILE *p = popen(("LC_ALL=C readelf -d '" + path + "' 2>&1").c_str(), "r");
    EXPECT_NE(p, nullptr);
    if (!p)
        return libs;
    char line[512];
    while (fgets(line, sizeof(line), p)) {
        std::string l(line);
        std::size_t at = l.find("(NEEDED)");
        std::size_t open = l.find('[', at), close = l.find(']', open);
        if (at != std::string::npos && open != std::string::npos && close != std::string::npos)
            libs.insert(l.substr(open + 1, close - open - 1));
    }
    EXPECT_EQ(pclose(p), 0) << "readelf -d " << path;
    return libs;
}

bool needs(const std::set<std::string> &libs, const std::string &prefix)
{
    for (const std::string &l : libs)
        if (l.rfind(prefix, 0) == 0)
            return true;
    return false;
}

TEST(ToolHelper, WgxLinksNeitherMicrohttpdNorNcurses)
{
    std::set<std::string> libs = needed(test::built_wgx());
    ASSERT_TRUE(needs(libs, "libmnl.so")) << "no NEEDED entries read from " << test::built_wgx();
    for (const char *lib : {"libmicrohttpd.so", "libgnutls.so", "libncurses.so", "libncursesw.so", "libtinfo.so"})
        EXPECT_FALSE(needs(libs, lib)) << test::built_wgx() << " links " << lib;
    // The libraries went to the subcommands' programs, and only there.
    std::set<std::string> exporter = needed(std::string(WGX_BINARY_DIR) + "/tools/wgx-exporter");
    EXPECT_TRUE(needs(exporter, "libmicrohttpd.so"));
    EXPECT_FALSE(needs(exporter, "libncurses.so"));
    std::set<std::string> top = needed(std::string(WGX_BINARY_DIR) + "/tools/wgx-top");
    EXPECT_TRUE(needs(top, "libncurses.so"));
    EXPECT_FALSE(needs(top, "libmicrohttpd.so"));
}

TEST(ToolHelper, PathsNextToWgxThenItsLibexecDir)
{
    EXPECT_EQ(helper_paths("/usr/bin/wgx", "top"),
              (std::vector<std::string>{"/usr/bin/wgx-top", "/usr/libexec/wgx/wgx-top"}));
    EXPECT_EQ(helper_paths("/usr/local/bin/wgx", "exporter"),
              (std::vector<std::string>{"/usr/local/bin/wgx-exporter", "/usr/local/libexec/wgx/wgx-exporter"}));
    EXPECT_EQ(helper_paths("/src/wgx/build/tools/wgx", "top"),
              (std::vector<std::string>{"/src/wgx/build/tools/wgx-top", "/src/wgx/build/libexec/wgx/wgx-top"}));
    EXPECT_EQ(helper_paths("/bin/wgx", "top"), (std::vector<std::string>{"/bin/wgx-top", "/libexec/wgx/wgx-top"}));
}

TEST(ToolHelper, TopAndExporterRunThroughWgxWithItsCommandLine)
{
    for (const char *sub : {"top", "exporter"}) {
        // argv[0] names the program in the messages, as when wgx ran the subcommand itself
        test::ProgramRun r = test::run_program(test::built_wgx(), {"/some/where/wgx", sub, "--help"});
        EXPECT_EQ(r.rc, 0) << sub << ": " << r.err;
        EXPECT_EQ(r.out.rfind(std::string("Usage: wgx ") + sub + " [", 0), 0u) << r.out;
        EXPECT_TRUE(r.err.empty()) << r.err;
        r = test::run_program(test::built_wgx(), {"wgx", sub, "--frobnicate"});
        EXPECT_EQ(r.rc, 1);
        EXPECT_EQ(r.err.rfind(std::string("wgx ") + sub + ": unknown option `--frobnicate'\nUsage: wgx " + sub, 0), 0u)
            << r.err;
        EXPECT_TRUE(r.out.empty()) << r.out;
    }
}

TEST(ToolHelper, MissingProgramIsNamed)
{
    // A wgx alone in a directory: neither next to it nor in ../libexec/wgx/.
    char tmpl[] = "/tmp/wgx-unit-helper-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    const std::string dir = tmpl, bin = dir + "/bin", wgx = bin + "/wgx";
    ASSERT_EQ(mkdir(bin.c_str(), 0755), 0);
    ASSERT_EQ(system(("cp '" + test::built_wgx() + "' '" + wgx + "'").c_str()), 0);
    test::ProgramRun r = test::run_program(wgx, {"wgx", "top", "--help"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "wgx top: its program " + dir + "/libexec/wgx/wgx-top is missing (also looked for " + bin +
                         "/wgx-top); reinstall wgx\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
    // The other subcommands do not need them.
    r = test::run_program(wgx, {"wgx", "genkey"});
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.out.size(), 45u) << r.out;
    unlink(wgx.c_str());
    rmdir(bin.c_str());
    rmdir(dir.c_str());
}

TEST(ToolHelper, ProgramRunByHandIsRefused)
{
    const std::string top = std::string(WGX_BINARY_DIR) + "/tools/wgx-top";
    test::ProgramRun r = test::run_program(top, {"wgx-top", "--once"});
    EXPECT_EQ(r.rc, 1);
    EXPECT_EQ(r.err, "wgx-top is run by wgx: use `wgx top' instead\n");
    EXPECT_TRUE(r.out.empty()) << r.out;
}

}  // namespace
}  // namespace wgx
