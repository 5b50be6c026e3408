// Which plugin files a run loads (suites/plugin_paths.h): the suite's first, then the command
// line's or else the environment's; bare names through FLASHSCOPE_PLUGIN_PATH, then the plugin
// folder beside the worker; every file once.
#include "suites/plugin_paths.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace flashscope::suites {
namespace {

namespace fs = std::filesystem;

class PluginPaths : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("flashscope_plugin_paths_" + std::to_string(getpid()));
    fs::remove_all(root_);
    for (const char* dir : {"user", "install/lib/flashscope/plugins", "install/bin", "suite"}) {
      fs::create_directories(root_ / dir);
    }
    Touch("user/libmine.so");
    Touch("install/lib/flashscope/plugins/libmine.so");
    Touch("install/lib/flashscope/plugins/theirs.so");
    Touch("suite/libnext.so");
    Touch("a.so");
    Touch("b.so");
  }
  void TearDown() override { fs::remove_all(root_); }
  void Touch(const std::string& rel) { std::ofstream(root_ / rel) << "x"; }
  std::string P(const std::string& rel) const { return fs::canonical(root_ / rel).string(); }

  PluginSources Sources() const {
    PluginSources s;
    s.installed_dir = PluginDirBeside((root_ / "install/bin/flashscope-worker").string());
    return s;
  }

  fs::path root_;
};

TEST_F(PluginPaths, InstalledFolderIsBesideTheWorker) {
  EXPECT_EQ(PluginDirBeside("/opt/fs/bin/flashscope-worker"), "/opt/fs/lib/flashscope/plugins");
  EXPECT_EQ(PluginDirBeside(""), "");
}

TEST_F(PluginPaths, SuiteFirstThenCommandLineWhichOverridesTheEnvironment) {
  PluginSources s = Sources();
  s.suite = {(root_ / "suite/libnext.so").string()};
  s.command_line = {(root_ / "a.so").string()};
  s.env_plugins = (root_ / "b.so").string();
  auto got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{P("suite/libnext.so"), P("a.so")}));
  s.command_line.clear();
  got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{P("suite/libnext.so"), P("b.so")}))
      << "without --plugin, FLASHSCOPE_PLUGINS counts";
  s.env_plugins = (root_ / "a.so").string() + "::" + (root_ / "b.so").string();
  got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 3u) << "colon-separated, empty entries skipped";
}

TEST_F(PluginPaths, BareNamesUserPathBeforeTheInstalledFolder) {
  PluginSources s = Sources();
  s.command_line = {"mine", "theirs"};
  auto got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, (std::vector<std::string>{P("install/lib/flashscope/plugins/libmine.so"),
                                            P("install/lib/flashscope/plugins/theirs.so")}));
  s.env_plugin_path = (root_ / "user").string();
  got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ((*got)[0], P("user/libmine.so"));
}

TEST_F(PluginPaths, AFileNamedTwiceLoadsOnce) {
  PluginSources s = Sources();
  s.suite = {(root_ / "a.so").string()};
  s.command_line = {(root_ / "a.so").string(), (root_ / "suite/../a.so").string()};
  auto got = ResolvePlugins(s);
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->size(), 1u);
}

TEST_F(PluginPaths, MissingFilesAreExplained) {
  PluginSources s = Sources();
  s.command_line = {(root_ / "nope.so").string()};
  auto missing = ResolvePlugins(s);
  ASSERT_FALSE(missing.ok());
  const std::string m(missing.status().message());
  EXPECT_NE(m.find("nope.so (--plugin): no such file"), std::string::npos) << m;
  s.command_line = {"ghost"};
  auto bare = ResolvePlugins(s);
  ASSERT_FALSE(bare.ok());
  const std::string b(bare.status().message());
  EXPECT_NE(b.find("libghost.so"), std::string::npos) << b;
  EXPECT_NE(b.find("install/lib/flashscope/plugins"), std::string::npos) << b;
  EXPECT_NE(b.find("FLASHSCOPE_PLUGIN_PATH"), std::string::npos) << b;
}

}  // namespace
}  // namespace flashscope::suites
