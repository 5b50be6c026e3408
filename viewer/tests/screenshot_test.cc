// Headless end-to-end tests of flashscope-view: each view is rendered under Xvfb (Mesa llvmpipe)
// from reports written by the reports library, captured with --screenshot, and the PNG is
// checked for that view's elements by counting pixels of the viewer's signature colours
// (viewer/palette.h). Skipped, saying why, when xvfb-run is not installed.
#include <gtest/gtest.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "history/store.h"
#include "history/tests/synthetic_history.h"
#include "reports/report_json.h"
#include "viewer/colormap.h"
#include "viewer/palette.h"
#include "viewer/tests/synthetic_report.h"

#ifndef FLASHSCOPE_VIEW_BIN
#error "FLASHSCOPE_VIEW_BIN must name the flashscope-view binary"
#endif

namespace flashscope::viewer {
namespace {

namespace fs = std::filesystem;

struct Image {
  int w = 0, h = 0;
  std::vector<uint8_t> rgb;
  int64_t Count(Rgb c) const {
    int64_t n = 0;
    for (size_t i = 0; i + 2 < rgb.size(); i += 3) {
      n += rgb[i] == c.r && rgb[i + 1] == c.g && rgb[i + 2] == c.b;
    }
    return n;
  }
  template <class Pred>
  int64_t CountIf(Pred p) const {
    int64_t n = 0;
    for (size_t i = 0; i + 2 < rgb.size(); i += 3) n += p(rgb[i], rgb[i + 1], rgb[i + 2]);
    return n;
  }
  size_t DistinctColours() const {
    std::set<uint32_t> s;
    for (size_t i = 0; i + 2 < rgb.size(); i += 3) {
      s.insert(uint32_t(rgb[i]) << 16 | uint32_t(rgb[i + 1]) << 8 | rgb[i + 2]);
    }
    return s.size();
  }
};

struct RunResult {
  int exit_code = -1;
  std::string output;
};

// One case whose position map spans S = 500 query rows (not a multiple of the 64-row tile) of a
// causal problem with 32-key tiles: tile boundaries, a last partial tile and diagonal crossings.
reports::Report TilesReport() {
  reports::Report r = testing::MakeSyntheticReport(10, 21);
  reports::CaseResult& c = r.cases[3];
  c.params["Sq"] = c.params["Sk"] = "500";
  c.params["causal"] = "true";
  c.tile = reports::TileRecord{64, 32};
  for (auto& h : c.verification->heatmaps) {
    if (h.kind == "position_x_dim") h.src_rows = 500;
  }
  return r;
}

// TilesReport with the lower half of case 3's position map never written: the cells hold the
// largest float, as verify/ writes for a poisoned, NaN or Inf element.
reports::Report UnwrittenReport() {
  reports::Report r = TilesReport();
  for (auto& h : r.cases[3].verification->heatmaps) {
    if (h.kind != "position_x_dim") continue;
    for (size_t i = h.max.size() / 2; i < h.max.size(); ++i) {
      h.max[i] = h.mean[i] = std::numeric_limits<float>::max();
    }
  }
  return r;
}

bool InColormap(Rgb c) {
  for (Rgb t : ColormapTable()) {
    if (t.r == c.r && t.g == c.g && t.b == c.b) return true;
  }
  return false;
}

// A history of 20 revisions (history/tests/synthetic_history.h) in an SQLite file: one kernel
// 6 % slower from rev10, one flat.
absl::Status WriteHistory(const std::string& path) {
  auto store = history::HistoryStore::Open(path);
  if (!store.ok()) return store.status();
  std::mt19937_64 rng(3);
  const std::vector<history::testing::PlantedSeries> planted = {{"attn.step", {{10, 0.06}}},
                                                                {"attn.flat", {}}};
  for (int i = 0; i < 20; ++i) {
    auto added = store->Add(history::testing::SyntheticHistoryReport(i, planted, 0.005, rng), {});
    if (!added.ok()) return added.status();
  }
  return absl::OkStatus();
}

// Pixels of the colour map in the left and right halves of the image.
std::pair<int64_t, int64_t> HeatPixels(const struct Image& img);

class ScreenshotTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ =
        new fs::path(fs::temp_directory_path() / ("fs_viewer_shots_" + std::to_string(::getpid())));
    fs::create_directories(*dir_);
  }
  static void TearDownTestSuite() {
    if (!std::getenv("FLASHSCOPE_KEEP_SHOTS")) fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (std::system("command -v xvfb-run > /dev/null 2>&1") != 0) {
      GTEST_SKIP() << "xvfb-run is not installed (apt-get install xvfb xauth); the viewer's "
                      "screenshot tests need a virtual X server";
    }
  }
  static std::string P(const char* name) { return (*dir_ / name).string(); }

  // The input reports, written through the reports library when a test first needs them (ctest
  // runs each test in its own process, so nothing is made that the test does not use).
  static std::string R(const std::string& name) {
    fs::path path = *dir_ / name;
    if (fs::exists(path)) return path.string();
    absl::Status st;
    if (name == "base.json") {
      st = reports::WriteReportFileAtomic(testing::MakeSyntheticReport(200, 11), path.string());
    } else if (name == "faster.json") {
      st =
          reports::WriteReportFileAtomic(testing::MakeSyntheticReport(200, 12, 1.5), path.string());
    } else if (name == "big.json") {
      st = reports::WriteReportFileAtomic(testing::MakeSyntheticReport(2000, 13, 1.0, 50),
                                          path.string());
    } else if (name == "slower.json") {
      st =
          reports::WriteReportFileAtomic(testing::MakeSyntheticReport(200, 12, 0.8), path.string());
    } else if (name == "lenient.json") {
      std::ofstream(path) << R"({"schema": "flashscope.gate_policy", "allowed_slowdown": 0.5,
                                 "verification_required": false})";
    } else if (name == "tiles.json") {
      st = reports::WriteReportFileAtomic(TilesReport(), path.string());
    } else if (name == "unwritten.json") {
      st = reports::WriteReportFileAtomic(UnwrittenReport(), path.string());
    } else if (name == "history.sqlite") {
      st = WriteHistory(path.string());
    } else if (name == "broken.json") {
      std::ofstream(path) << "{\"schema\": \"flashscope.report\", \"schema_ver";
    }
    EXPECT_TRUE(st.ok()) << st;
    return path.string();
  }

  // xvfb-run itself fails now and then when several start at once (a display number taken
  // between its check and Xvfb's start, its temporary folder gone at clean-up): it then says
  // "xvfb-run: error", which the viewer never prints, and the run is tried again.
  static RunResult Run(const std::string& args) {
    RunResult r;
    for (int attempt = 0; attempt < 3; ++attempt) {
      std::string out = P("run.log");
      std::string cmd = "xvfb-run -a -s '-screen 0 1600x1000x24' " FLASHSCOPE_VIEW_BIN " " + args +
                        " > " + out + " 2>&1";
      int status = std::system(cmd.c_str());
      r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      std::ifstream in(out);
      std::stringstream ss;
      ss << in.rdbuf();
      r.output = ss.str();
      if (r.output.find("xvfb-run: error") == std::string::npos) break;
    }
    return r;
  }

  static Image Shot(const std::string& reports, const std::string& view, const char* png,
                    const std::string& extra = "") {
    RunResult r = Run(reports + " --screenshot " + P(png) + " --view " + view + " " + extra);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    Image img;
    int n = 0;
    std::unique_ptr<uint8_t, void (*)(void*)> data(stbi_load(P(png).c_str(), &img.w, &img.h, &n, 3),
                                                   stbi_image_free);
    EXPECT_TRUE(data) << "no PNG at " << P(png) << "\n" << r.output;
    if (data) img.rgb.assign(data.get(), data.get() + size_t(img.w) * size_t(img.h) * 3);
    EXPECT_GT(img.DistinctColours(), 8u) << view << " rendered (nearly) blank";
    return img;
  }

  static fs::path* dir_;
};

fs::path* ScreenshotTest::dir_ = nullptr;

std::pair<int64_t, int64_t> HeatPixels(const Image& img) {
  std::set<uint32_t> table;
  for (Rgb c : ColormapTable()) table.insert(uint32_t(c.r) << 16 | uint32_t(c.g) << 8 | c.b);
  int64_t left = 0, right = 0;
  for (int y = 0; y < img.h; ++y) {
    for (int x = 0; x < img.w; ++x) {
      const size_t i = (size_t(y) * size_t(img.w) + size_t(x)) * 3;
      const uint32_t c =
          uint32_t(img.rgb[i]) << 16 | uint32_t(img.rgb[i + 1]) << 8 | img.rgb[i + 2];
      if (table.count(c)) (x < img.w / 2 ? left : right) += 1;
    }
  }
  return {left, right};
}

TEST_F(ScreenshotTest, ResultsTableColouredByStatus) {
  Image img = Shot(R("base.json"), "results", "results.png");
  EXPECT_EQ(img.w, 1280);
  EXPECT_GT(img.Count(palette::kRowPassed), 20000);
  EXPECT_GT(img.Count(palette::kRowFailed), 1000);
  EXPECT_GT(img.Count(palette::kRowSkipped), 1000);
  EXPECT_GT(img.Count(palette::kRowSelected), 1000);  // case 0 is selected at start
}

TEST_F(ScreenshotTest, CaseViewShowsHeatmapHistogramAndMetricBars) {
  Image img = Shot(R("base.json"), "case", "case.png", "--case 3");
  // The heatmap texture: many cells drawn in colours of the colour map.
  std::set<uint32_t> table;
  for (Rgb c : ColormapTable()) table.insert(uint32_t(c.r) << 16 | uint32_t(c.g) << 8 | c.b);
  std::set<uint32_t> used;
  int64_t heat = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3) {
    uint32_t c = uint32_t(img.rgb[i]) << 16 | uint32_t(img.rgb[i + 1]) << 8 | img.rgb[i + 2];
    if (table.count(c)) ++heat, used.insert(c);
  }
  EXPECT_GT(heat, 50000);
  EXPECT_GT(used.size(), 40u);
  EXPECT_GT(img.Count(palette::kHistogram), 2000);
  EXPECT_GT(img.Count(palette::kBar), 1000);  // metric bars out of 100 %
}

TEST_F(ScreenshotTest, CaseByKernelIdAndUnknownCaseIsAUsageError) {
  Shot(R("base.json"), "case", "case_by_id.png", "--case attn.a05_ldmatrix");
  RunResult r = Run(R("base.json") + " --screenshot " + P("x.png") + " --view case --case nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no case matches --case 'nope'"), std::string::npos) << r.output;
}

TEST_F(ScreenshotTest, LadderBarsAndPeerLines) {
  Image img = Shot(R("base.json"), "ladder", "ladder.png");
  EXPECT_GT(img.Count(palette::kBar), 5000);
  EXPECT_GT(img.Count(palette::kPeerLine), 1000);
}

TEST_F(ScreenshotTest, RooflineCeilingsAndPoints) {
  Image img = Shot(R("base.json"), "roofline", "roofline.png");
  EXPECT_GT(img.Count(palette::kCeiling), 1000);
  EXPECT_GT(img.Count(Rgb{80, 220, 120}), 200);  // passed cases
}

// The compare view shows per pair the gate's verdict, coloured by its decision: a faster run is
// green, a 20 % slower one fails the built-in policy (red), and under a policy that allows 50 %
// the same run is slower but passes (the slower tone).
TEST_F(ScreenshotTest, CompareShowsTheGatesVerdicts) {
  Image faster = Shot(R("base.json") + " " + R("faster.json"), "compare", "compare.png");
  EXPECT_GT(faster.Count(palette::kBetter), 20000);
  EXPECT_EQ(faster.Count(palette::kSlower), 0);
  Image slower = Shot(R("base.json") + " " + R("slower.json"), "compare", "compare_slower.png");
  EXPECT_GT(slower.Count(palette::kWorse), 40000);
  EXPECT_EQ(slower.Count(palette::kBetter), 0);
  Image lenient = Shot(R("base.json") + " " + R("slower.json"), "compare", "compare_lenient.png",
                       "--policy " + R("lenient.json"));
  EXPECT_GT(lenient.Count(palette::kSlower), 20000);
  EXPECT_LT(lenient.Count(palette::kWorse), slower.Count(palette::kWorse) / 4);
  RunResult bad = Run(R("base.json") + " " + R("slower.json") + " --screenshot " + P("x.png") +
                      " --view compare --policy " + P("no_such_policy.json"));
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--policy"), std::string::npos) << bad.output;
}

// A pair selected by key opens its two heatmaps side by side: heatmap cells on both halves.
TEST_F(ScreenshotTest, ComparePairHeatmapsSideBySide) {
  const std::string key = "\"attn.a04_mma attention_fwd{B=1,H=16,S=512,D=64,fp16}\"";
  Image img =
      Shot(R("base.json") + " " + R("slower.json"), "compare", "compare_side.png", "--case " + key);
  const auto [left, right] = HeatPixels(img);
  EXPECT_GT(left, 20000);
  EXPECT_GT(right, 20000);
  RunResult r = Run(R("base.json") + " " + R("slower.json") + " --screenshot " + P("x.png") +
                    " --view compare --case nope");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no pair of the compared reports matches"), std::string::npos)
      << r.output;
}

// The kernel's structure over the heatmap: tile boundaries, the causal diagonal's key-tile
// crossings and the last partial tile, each in its own opaque colour (none in the colour map).
TEST_F(ScreenshotTest, HeatmapDrawsTilesDiagonalAndPartialTile) {
  for (Rgb c : {palette::kTileLine, palette::kDiagonal, palette::kPartialTile}) {
    ASSERT_FALSE(InColormap(c));
  }
  Image img = Shot(R("tiles.json"), "case", "tiles.png", "--case 3");
  EXPECT_GT(img.Count(palette::kTileLine), 2000);    // 7 boundaries across the map
  EXPECT_GT(img.Count(palette::kDiagonal), 2000);    // 15 dashed crossings
  EXPECT_GT(img.Count(palette::kPartialTile), 500);  // the outline of rows 448..499
  Image plain = Shot(R("base.json"), "case", "no_tiles.png", "--case 3");
  EXPECT_EQ(plain.Count(palette::kDiagonal), 0);  // not causal
  EXPECT_EQ(plain.Count(palette::kPartialTile), 0);
}

// --heatmap opens the tile fold: the fold's missing rows shaded, no diagonal (the fold has no
// sequence axis); a kind the case lacks is a usage error that lists the kinds it has.
TEST_F(ScreenshotTest, HeatmapKindChosenOnTheCommandLine) {
  Image fold = Shot(R("tiles.json"), "case", "fold.png", "--case 3 --heatmap tile_fold");
  EXPECT_GT(fold.Count(palette::kPartialTile), 500);
  EXPECT_EQ(fold.Count(palette::kDiagonal), 0);
  RunResult r =
      Run(R("tiles.json") + " --screenshot " + P("x.png") + " --view case --case 3 --heatmap nope");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--heatmap nope: the selected case has position_x_dim, sequence_profile"),
            std::string::npos)
      << r.output;
}

// Never-written cells are drawn in their own colour and left out of the scale: the written half
// of the map still spans the colour map instead of collapsing into its bottom colour.
TEST_F(ScreenshotTest, NeverWrittenCellsKeepTheScaleOfTheRest) {
  ASSERT_FALSE(InColormap(palette::kSaturated));
  Image img = Shot(R("unwritten.json"), "case", "unwritten.png", "--case 3");
  EXPECT_GT(img.Count(palette::kSaturated), 20000);
  // Were the scale stretched to the largest float, the written half would all be the bottom
  // colour (~90,000 pixels); the colour bar and the smallest cells hold a few hundred.
  EXPECT_LT(img.Count(ColormapTable()[0]), 5000);
  EXPECT_GT(HeatPixels(img).first + HeatPixels(img).second, 20000);
}

TEST_F(ScreenshotTest, EmptyErrorsViewSaysThereAreNone) {
  Image img = Shot(R("base.json") + " " + R("faster.json"), "errors", "no_errors.png");
  EXPECT_GT(img.Count(palette::kOkText), 50);  // "No errors: all 2 reports loaded completely."
  EXPECT_EQ(img.Count(palette::kErrorPanel), 0);
}

TEST_F(ScreenshotTest, BrokenReportShowsErrorPanelAndExitsZero) {
  Image img = Shot(R("broken.json") + " " + R("base.json"), "errors", "errors.png");
  EXPECT_GT(img.Count(palette::kErrorPanel), 10000);
  Image only = Shot(R("broken.json"), "results", "errors_only.png");
  EXPECT_GT(only.Count(palette::kErrorPanel), 10000);
  Image missing = Shot(P("does_not_exist.json"), "case", "missing.png");
  EXPECT_GT(missing.Count(palette::kErrorPanel), 5000);
}

// The budget applies to the viewer's own work per frame: building the UI (table clipping,
// cached order, cached textures). Rasterising it is the GL driver's work; under Xvfb that is Mesa
// llvmpipe on the CPU, which is measured and printed (UI build + GL render) but not asserted: it
// depends on the machine's cores, not on the viewer (on a 2-core machine it is ~30-90 ms for any
// full 1280x800 frame, including a nearly empty one).
TEST_F(ScreenshotTest, FrameTimeWith2000CasesUnder16ms) {
  for (const char* view : {"results", "case"}) {
    RunResult r = Run(R("big.json") + " --screenshot " + P("big.png") + " --view " + view +
                      " --frame-stats 30");
    ASSERT_EQ(r.exit_code, 0) << r.output;
    std::smatch m;
    std::regex re(R"(\(UI build, CPU\): mean ([0-9.]+) ms, median ([0-9.]+) ms)");
    ASSERT_TRUE(std::regex_search(r.output, m, re)) << r.output;
    double mean = std::stod(m[1]), median = std::stod(m[2]);
    std::printf("[frame time] %s", r.output.c_str());
    EXPECT_LT(median, 16.0) << view;
    EXPECT_LT(mean, 16.0) << view;
  }
}

}  // namespace
}  // namespace flashscope::viewer

namespace flashscope::viewer {
namespace {

// The history view opens on the first series with a change point: its line and the change's rule;
// --open-change opens the compare view of the runs around the change (rev09 against rev10), the
// slowdown beyond the gate's allowance drawn in its red.
TEST_F(ScreenshotTest, HistoryViewDrawsTheSeriesAndOpensTheComparisonOfAChange) {
  Image view = Shot("--history " + R("history.sqlite"), "history", "history.png");
  EXPECT_GT(view.Count(palette::kSeriesLine), 300);
  EXPECT_GT(view.Count(palette::kChangePoint), 400);
  Image opened =
      Shot("--history " + R("history.sqlite") + " --open-change 0", "compare", "history_cmp.png");
  EXPECT_GT(opened.Count(palette::kWorse), 1000);
  RunResult bad = Run("--history " + R("history.sqlite") + " --open-change 5 --screenshot " +
                      P("y.png") + " --view history");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("the history has 1 change points"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace flashscope::viewer
