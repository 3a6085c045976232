#include "plugin_library.h"
#include "plugin_scanner.h"
#include "test_support.h"

#include <gtest/gtest.h>

#include <boost/filesystem.hpp>

#include <cstdlib>
#include <fstream>

using namespace envhost;

namespace {

std::string load_error(const std::string& path) {
    try {
        PluginLibrary::load(path);
    } catch (const PluginLoadError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST(PluginLoading, LoadsAGoodPluginAndReadsItsDescriptor) {
    auto lib = PluginLibrary::load(test::echo_plugin());
    const PluginDescriptor& d = lib->descriptor();
    EXPECT_EQ(d.name, "echo_env");
    EXPECT_TRUE(d.concurrency_safe);
    EXPECT_EQ(d.default_max_sessions, 8u);
    ASSERT_EQ(d.tools.size(), 2u);
    EXPECT_EQ(d.tools[0].name, "echo_message");
    EXPECT_TRUE(d.action_schema.is_object());
}

TEST(PluginLoading, LoadsAPlainCPlugin) {
    auto lib = PluginLibrary::load(test::example_plugin("c_counter.so"));
    EXPECT_EQ(lib->descriptor().name, "c_counter");
    EXPECT_FALSE(lib->descriptor().concurrency_safe);
}

TEST(PluginLoading, LoadsAStrippedPlugin) {
    namespace fs = boost::filesystem;
    const fs::path copy = fs::temp_directory_path() / fs::unique_path("envhost-stripped-%%%%%%.so");
    fs::copy_file(test::echo_plugin(), copy);
    ASSERT_EQ(std::system(("strip --strip-all " + copy.string()).c_str()), 0);
    EXPECT_EQ(PluginLibrary::load(copy.string())->descriptor().name, "echo_env");
    fs::remove(copy);
}

TEST(PluginLoading, RejectsAFileThatIsNotASharedLibrary) {
    EXPECT_NE(load_error(test::test_plugin("not_a_library.so")).find("not a shared library"), std::string::npos);
}

TEST(PluginLoading, RejectsALibraryWithoutTheEntrySymbol) {
    EXPECT_NE(load_error(test::test_plugin("no_entry_lib.so")).find("envhost_plugin_entry"), std::string::npos);
}

TEST(PluginLoading, RejectsAnotherAbiVersion) {
    EXPECT_NE(load_error(test::test_plugin("bad_abi_env.so")).find("ABI version 999"), std::string::npos);
}

TEST(PluginLoading, RejectsAReservedToolName) {
    EXPECT_NE(load_error(test::test_plugin("reserved_tool_env.so")).find("reserved tool name 'step'"), std::string::npos);
}

TEST(PluginLoading, RejectsAMissingFile) {
    EXPECT_FALSE(load_error("/nonexistent/dir/x.so").empty());
}

TEST(PluginScanner, ServesTheGoodAndSkipsTheBadWithReasons) {
    namespace fs = boost::filesystem;
    const fs::path dir = fs::temp_directory_path() / fs::unique_path("envhost-scan-%%%%%%");
    fs::create_directories(dir);
    for (const char* f : {"test_env.so", "bad_abi_env.so", "no_entry_lib.so", "reserved_tool_env.so", "not_a_library.so"})
        fs::copy_file(test::test_plugin(f), dir / f);
    fs::copy_file(test::echo_plugin(), dir / "echo_env.so");
    fs::copy_file(test::echo_plugin(), dir / "zz_echo_again.so"); // same environment name twice
    std::ofstream(dir / "README.txt") << "not a plugin, and not named like one";

    ScanResult r = scan_plugin_dirs({dir.string(), (dir / "missing").string()});
    std::vector<std::string> names;
    for (auto& lib : r.loaded) names.push_back(lib->descriptor().name);
    EXPECT_EQ(names, (std::vector<std::string>{"echo_env", "test_env"}));
    ASSERT_EQ(r.skipped.size(), 6u);
    auto reason_for = [&](const std::string& needle) {
        for (auto& s : r.skipped)
            if (s.path.find(needle) != std::string::npos) return s.reason;
        return std::string();
    };
    EXPECT_NE(reason_for("bad_abi").find("ABI"), std::string::npos);
    EXPECT_NE(reason_for("no_entry").find("symbol"), std::string::npos);
    EXPECT_NE(reason_for("reserved").find("reserved"), std::string::npos);
    EXPECT_NE(reason_for("not_a_library").find("shared library"), std::string::npos);
    EXPECT_NE(reason_for("zz_echo_again").find("already loaded"), std::string::npos);
    EXPECT_NE(reason_for("missing").find("not a directory"), std::string::npos);
    fs::remove_all(dir);
}
