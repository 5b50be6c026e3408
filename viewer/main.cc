// flashscope-view REPORT [MORE...]: the interactive viewer (GLFW + OpenGL 3 + Dear ImGui 1.86).
// Headless: --screenshot FILE --view NAME [--case ID] [--heatmap KIND] renders a few frames into
// the window and writes a PNG (run under xvfb-run where there is no display). --frame-stats N
// renders N more frames first and prints frame times, which is how the 16 ms budget is measured.
//
// Exit codes: 0 success (also when a report failed to load: the error panel is drawn and, in
// screenshot mode, captured); 2 bad command line; 3 no window or OpenGL context (no display?);
// 4 the PNG could not be written.
#include <GLFW/glfw3.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>
#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cfloat>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "analysis/gate.h"
#include "git_revision.h"  // generated at build time: cmake/GitRevision.cmake
#include "viewer/screenshot.h"
#include "viewer/session.h"
#include "viewer/viewer_state.h"

namespace fv = flashscope::viewer;

namespace {

struct Options {
  std::vector<std::string> reports;
  std::string screenshot;
  std::string view = "results";
  std::string case_id;
  std::string heatmap;   // the heatmap kind the case view (or the side-by-side pair) opens on
  std::string policy;    // gate policy for the compare view; "" for the built-in defaults
  std::string history;   // --history DB: the history view's database
  int open_change = -1;  // --open-change N: open the compare view of the history's Nth change
  int width = 1280, height = 800;
  int frame_stats = 0;
};

constexpr const char* kUsage =
    "usage: flashscope-view REPORT.json [MORE.json...] | --history DB [REPORT.json...]\n"
    "         [--screenshot FILE.png --view results|case|ladder|compare|roofline|errors|history\n"
    "          [--case INDEX|KEY|KERNEL_ID] [--heatmap KIND] [--size WxH] [--frame-stats N]]\n"
    "         [--policy GATE_POLICY.json]\n"
    "       flashscope-view --version | --help\n"
    "The first report is the base of the compare view, which judges each pair as `flashscope\n"
    "gate` does (with --policy, under that policy). In the compare view --case KEY selects a\n"
    "pair and opens its heatmaps side by side. --heatmap opens the case's (or pair's) heatmap of\n"
    "that kind (position_x_dim, sequence_profile, tile_fold, per_head; gemm: position...).\n"
    "Reports are reloaded when they change. --history DB (an SQLite file or a postgresql://\n"
    "URL, docs/history.md) fills the history view; a click on a change point, or\n"
    "--open-change N (the Nth change point of the history, from 0), opens the compare view of\n"
    "the two runs around it.\n";

bool ParseArgs(int argc, char** argv, Options* o, std::string* err) {
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        *err = std::string(name) + " needs a value";
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else if (a == "--version") {
      std::printf("flashscope-view %s (git %s)\n", FLASHSCOPE_VERSION, FLASHSCOPE_GIT_REVISION);
      std::exit(0);
    } else if (a == "--screenshot") {
      const char* v = value("--screenshot");
      if (!v) return false;
      o->screenshot = v;
    } else if (a == "--view") {
      const char* v = value("--view");
      if (!v) return false;
      o->view = v;
      if (!fv::ParseViewName(o->view)) {
        *err = "unknown view '" + o->view +
               "' (results, case, ladder, compare, roofline, errors, history)";
        return false;
      }
    } else if (a == "--policy") {
      const char* v = value("--policy");
      if (!v) return false;
      o->policy = v;
    } else if (a == "--history") {
      const char* v = value("--history");
      if (!v) return false;
      o->history = v;
    } else if (a == "--open-change") {
      const char* v = value("--open-change");
      if (!v || (o->open_change = std::atoi(v)) < 0 ||
          !std::isdigit(static_cast<unsigned char>(*v))) {
        *err = "--open-change wants a change point's index, from 0";
        return false;
      }
    } else if (a == "--case") {
      const char* v = value("--case");
      if (!v) return false;
      o->case_id = v;
    } else if (a == "--heatmap") {
      const char* v = value("--heatmap");
      if (!v) return false;
      o->heatmap = v;
    } else if (a == "--size") {
      const char* v = value("--size");
      if (!v || std::sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 200 ||
          o->height < 150) {
        *err = "--size wants WxH of at least 200x150, e.g. 1280x800";
        return false;
      }
    } else if (a == "--frame-stats") {
      const char* v = value("--frame-stats");
      if (!v || (o->frame_stats = std::atoi(v)) <= 0) {
        *err = "--frame-stats wants a positive frame count";
        return false;
      }
    } else if (!a.empty() && a[0] == '-') {
      *err = "unknown option " + a;
      return false;
    } else {
      o->reports.push_back(a);
    }
  }
  if (o->reports.empty() && o->history.empty()) {
    *err = "no report given (and no --history DB)";
    return false;
  }
  if (o->open_change >= 0 && o->history.empty()) {
    *err = "--open-change needs --history DB";
    return false;
  }
  return true;
}

double Now() {
  using namespace std::chrono;
  return duration<double>(steady_clock::now().time_since_epoch()).count();
}

struct FrameTimes {
  std::vector<double> build_ms, total_ms;
};

// One frame: build the UI, render it, and (for stats) wait for the GL work to finish.
void RenderFrame(GLFWwindow* win, fv::ViewerState& s, FrameTimes* times) {
  double t0 = Now();
  glfwPollEvents();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  // Screenshots must not depend on where Xvfb left the pointer (tooltips, hover colours).
  if (s.headless) ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);
  ImGui::NewFrame();
  fv::DrawApp(s, glfwGetTime());
  ImGui::Render();
  double t1 = Now();
  int w, h;
  glfwGetFramebufferSize(win, &w, &h);
  glViewport(0, 0, w, h);
  glClearColor(0.08f, 0.08f, 0.1f, 1.f);
  glClear(GL_COLOR_BUFFER_BIT);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  if (times) {
    glFinish();
    double t2 = Now();
    times->build_ms.push_back((t1 - t0) * 1e3);
    times->total_ms.push_back((t2 - t0) * 1e3);
  }
}

void PrintStats(const char* what, std::vector<double> v) {
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  std::printf(
      "frame time %s: mean %.2f ms, median %.2f ms, p95 %.2f ms, max %.2f ms over %zu frames\n",
      what, sum / double(v.size()), v[v.size() / 2], v[std::min(v.size() - 1, v.size() * 95 / 100)],
      v.back(), v.size());
}

// The window and its OpenGL 3.2 context, or null (with the reason printed).
GLFWwindow* OpenWindow(const Options& opt) {
  glfwSetErrorCallback([](int code, const char* msg) {
    std::fprintf(stderr, "flashscope-view: GLFW error %d: %s\n", code, msg);
  });
  if (!glfwInit()) {
    std::fprintf(stderr,
                 "flashscope-view: cannot initialise GLFW (no display? run under "
                 "xvfb-run -a for headless use)\n");
    return nullptr;
  }
  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 2);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GL_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, opt.screenshot.empty() ? GLFW_TRUE : GLFW_FALSE);
  GLFWwindow* win = glfwCreateWindow(opt.width, opt.height, "flashscope-view", nullptr, nullptr);
  if (!win) {
    std::fprintf(stderr,
                 "flashscope-view: cannot create a %dx%d OpenGL 3.2 window (no display, "
                 "or no OpenGL 3 driver; try xvfb-run -a with Mesa)\n",
                 opt.width, opt.height);
    glfwTerminate();
  }
  return win;
}

// --heatmap KIND: the selected case (compare: the selected pair) opens on that heatmap. Returns 0,
// or 2 when it has none of that kind.
int OpenHeatmapKind(const std::string& kind, bool compare, fv::ViewerState* state) {
  const flashscope::reports::CaseResult* c =
      compare ? fv::SelectedPairBase(*state) : state->SelectedCase();
  std::string kinds;
  const int index = c != nullptr ? fv::HeatmapIndexOfKind(*c, kind, &kinds) : -1;
  if (index >= 0) {
    (compare ? state->side_base : state->heatmap).index = index;
    return 0;
  }
  std::fprintf(stderr, "flashscope-view: --heatmap %s: %s\n", kind.c_str(),
               c == nullptr    ? "no case is selected (name one with --case)"
               : kinds.empty() ? "the selected case has no heatmaps"
                               : ("the selected case has " + kinds).c_str());
  return 2;
}

// --history DB read into the history view, and --open-change N opened. Returns 0, or 2 when the
// history cannot be read or has no such change point.
int SetUpHistory(const Options& opt, fv::ViewerState* state) {
  if (opt.history.empty()) return 0;
  if (!state->history.Load(opt.history, state->policy)) {
    std::fprintf(stderr, "flashscope-view: --history %s: %s\n", opt.history.c_str(),
                 state->history.error().c_str());
    return 2;
  }
  state->history_series = state->history.FirstSeriesToShow();
  if (opt.open_change < 0) return 0;
  int n = opt.open_change;
  const auto& series = state->history.series();
  for (size_t i = 0; i < series.size(); ++i) {
    if (n < int(series[i].changes.size())) {
      state->history_series = int(i);
      if (fv::OpenHistoryChange(*state, int(i), n)) return 0;
      std::fprintf(stderr, "flashscope-view: --open-change %d: %s\n", opt.open_change,
                   state->history.error().c_str());
      return 2;
    }
    n -= int(series[i].changes.size());
  }
  std::fprintf(stderr, "flashscope-view: --open-change %d: the history has %d change points\n",
               opt.open_change, opt.open_change - n);
  return 2;
}

// The first report that loaded is shown; --case and --policy applied. Returns 0 or 2 (usage).
int SetUpState(const Options& opt, fv::Session& session, fv::ViewerState* state) {
  state->session = &session;
  state->headless = !opt.screenshot.empty();
  // Show the first report that loaded (the compare view still uses the first two as given).
  for (size_t i = 0; i < session.reports().size(); ++i) {
    if (session.reports()[i].report) {
      state->report_index = int(i);
      break;
    }
  }
  state->request_view = fv::ParseViewName(opt.view);
  if (!opt.policy.empty()) {
    auto p = flashscope::reports::ReadGatePolicyFile(opt.policy);
    if (!p.ok()) {
      std::fprintf(stderr, "flashscope-view: --policy: %s\n",
                   std::string(p.status().message()).c_str());
      return 2;
    }
    state->policy = *p;
  }
  if (int rc = SetUpHistory(opt, state); rc != 0) return rc;
  const bool compare = opt.view == "compare";
  if (!opt.case_id.empty() && !(compare ? fv::SelectPairById(*state, opt.case_id)
                                        : fv::SelectCaseById(*state, opt.case_id))) {
    std::fprintf(stderr,
                 "flashscope-view: no %s matches --case '%s' (use an index, a key "
                 "\"KERNEL PROBLEM\", or a kernel id)\n",
                 compare ? "pair of the compared reports" : "case", opt.case_id.c_str());
    return 2;
  }
  if (opt.case_id.empty() && state->CurrentReport() && !state->CurrentReport()->cases.empty()) {
    state->selected_case = 0;
  }
  return opt.heatmap.empty() ? 0 : OpenHeatmapKind(opt.heatmap, compare, state);
}

// Warm-up frames, the frame statistics if asked, then the captured frame as a PNG.
int Screenshot(GLFWwindow* win, const Options& opt, fv::ViewerState& state) {
  fv::ViewId view = *fv::ParseViewName(opt.view);
  FrameTimes times;
  // Warm-up frames: ImGui lays out tables and tabs over the first frames.
  for (int i = 0; i < 4; ++i) {
    state.request_view = view;
    RenderFrame(win, state, nullptr);
    glfwSwapBuffers(win);
  }
  for (int i = 0; i < opt.frame_stats; ++i) {
    RenderFrame(win, state, &times);
    glfwSwapBuffers(win);
  }
  if (opt.frame_stats > 0) {
    std::printf("view %s, %zu cases\n", opt.view.c_str(),
                state.CurrentReport() ? state.CurrentReport()->cases.size() : size_t(0));
    PrintStats("(UI build, CPU)", times.build_ms);
    PrintStats("(UI build + GL render, glFinish)", times.total_ms);
  }
  RenderFrame(win, state, nullptr);  // the frame that is captured, before the swap
  int w, h;
  glfwGetFramebufferSize(win, &w, &h);
  std::string gl_err;
  std::vector<uint8_t> rgb = fv::ReadFramebufferRgb(w, h, &gl_err);
  std::string png_err = gl_err.empty() ? fv::WritePng(opt.screenshot, w, h, rgb) : gl_err;
  if (!png_err.empty()) {
    std::fprintf(stderr, "flashscope-view: %s\n", png_err.c_str());
    return 4;
  }
  std::printf("wrote %s (%dx%d, view %s)\n", opt.screenshot.c_str(), w, h, opt.view.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  std::string err;
  if (!ParseArgs(argc, argv, &opt, &err)) {
    std::fprintf(stderr, "flashscope-view: %s\n%s", err.c_str(), kUsage);
    return 2;
  }
  fv::Session session(opt.reports);
  if (session.LoadAll() > 0) {
    for (const auto& r : session.reports()) {
      if (!r.error.empty()) std::fprintf(stderr, "flashscope-view: %s\n", r.error.c_str());
    }
  }
  GLFWwindow* win = OpenWindow(opt);
  if (!win) return 3;
  glfwMakeContextCurrent(win);
  glfwSwapInterval(opt.screenshot.empty() ? 1 : 0);
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGui::GetIO().IniFilename = nullptr;  // no imgui.ini litter in the working directory
  ImGui::StyleColorsDark();
  ImGui_ImplGlfw_InitForOpenGL(win, true);
  ImGui_ImplOpenGL3_Init("#version 150");
  int rc = 0;
  {
    fv::ViewerState state;
    rc = SetUpState(opt, session, &state);
    if (rc == 0 && !opt.screenshot.empty()) {
      rc = Screenshot(win, opt, state);
    } else if (rc == 0) {
      while (!glfwWindowShouldClose(win)) {
        RenderFrame(win, state, nullptr);
        glfwSwapBuffers(win);
      }
    }
    state.textures.Clear();  // while the GL context still exists
  }
  ImGui_ImplOpenGL3_Shutdown();
  ImGui_ImplGlfw_Shutdown();
  ImGui::DestroyContext();
  glfwDestroyWindow(win);
  glfwTerminate();
  return rc;
}
