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

// A bare name with a plugin's extension is looked up as itself only: the message names no
// "libnope.py.so" or "libx.so.so".
TEST_F(PluginPaths, NamesWithAnExtensionAreLookedUpAsThemselves) {
  PluginSources s = Sources();
  for (const std::string name : {"nope.py", "nope.so"}) {
    s.command_line = {name};
    auto got = ResolvePlugins(s);
    ASSERT_FALSE(got.ok()) << name;
    const std::string m(got.status().message());
    EXPECT_NE(m.find("no " + name + " in "), std::string::npos) << m;
    EXPECT_EQ(m.find("lib" + name), std::string::npos) << m;
    EXPECT_EQ(m.find(name + ".so"), std::string::npos) << m;
  }
  s.command_line = {"theirs.so"};
  auto found = ResolvePlugins(s);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, std::vector<std::string>{P("install/lib/flashscope/plugins/theirs.so")});
}

// Runs `body` with the current folder set to `dir`, then goes back.
template <typename Body>
void InFolder(const fs::path& dir, Body body) {
  const fs::path before = fs::current_path();
  fs::current_path(dir);
  body();
  fs::current_path(before);
}

// `--plugin a.so` names the file in the current folder, even where a plugin of that name is
// installed; a suite's bare name is still looked up (the suite's folder is not the current one).
TEST_F(PluginPaths, ACommandLineNameThatExistsHereIsAPath) {
  Touch("install/lib/flashscope/plugins/a.so");
  InFolder(root_, [&] {
    PluginSources s = Sources();
    s.command_line = {"a.so"};
    auto got = ResolvePlugins(s);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, std::vector<std::string>{P("a.so")});
    s.command_line.clear();
    s.env_plugins = "b.so";
    got = ResolvePlugins(s);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, std::vector<std::string>{P("b.so")});
    s.env_plugins.clear();
    s.suite = {"a.so"};
    got = ResolvePlugins(s);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, std::vector<std::string>{P("install/lib/flashscope/plugins/a.so")});
  });
}

// `--plugin ./build` (a folder) says it is a folder and names the plugin files in it.
TEST_F(PluginPaths, AFolderIsRefusedAsAFolder) {
  fs::create_directories(root_ / "build/sub");
  Touch("build/libmine.so");
  Touch("build/notes.txt");
  PluginSources s = Sources();
  s.command_line = {(root_ / "build").string()};
  auto got = ResolvePlugins(s);
  ASSERT_FALSE(got.ok());
  std::string m(got.status().message());
  EXPECT_NE(m.find("is a folder, not a plugin file"), std::string::npos) << m;
  EXPECT_NE(m.find("build/libmine.so"), std::string::npos) << m;
  EXPECT_EQ(m.find("notes.txt"), std::string::npos) << m;
  InFolder(root_, [&] {
    s.command_line = {"user"};  // a folder here, and no installed plugin of that name
    got = ResolvePlugins(s);
    ASSERT_FALSE(got.ok());
    m = std::string(got.status().message());
    EXPECT_NE(m.find("plugin user (--plugin) is a folder"), std::string::npos) << m;
    EXPECT_NE(m.find("libmine.so"), std::string::npos) << m;
    // A folder named like an installed plugin (its source folder) does not hide the plugin.
    fs::create_directories(root_ / "mine");
    s.command_line = {"mine"};
    got = ResolvePlugins(s);
    ASSERT_TRUE(got.ok()) << got.status();
    EXPECT_EQ(*got, std::vector<std::string>{P("install/lib/flashscope/plugins/libmine.so")});
  });
}

}  // namespace
}  // namespace flashscope::suites
