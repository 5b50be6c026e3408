// The cases of a run still to hand out to the workers of its GPUs (supervisor/device_scheduler.h),
// problem-major: a worker keeps to one problem while it has cases, because a worker makes a
// problem's inputs and reference once and reuses them for every kernel of that problem. When a
// GPU runs out of work it takes, in this order:
//   1. the next case of the problem it is on;
//   2. a problem that was started but that no GPU is on any more (its worker died), from the
//      front, so that a fault costs only the case it hit;
//   3. the first problem no GPU has started, in plan order;
//   4. a case from the back of the problem with the most cases left, if at least two are left
//      (its own GPU keeps the next one): a GPU that would idle makes that problem's reference
//      once more instead, and the run's tail is one case long, not one problem.
// Pure bookkeeping, no processes: tested on its own.
#pragma once

#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace flashscope::suites {

struct QueuedCase {
  std::string key;      // kernel id + " " + problem key
  std::string problem;  // the problem key: cases with the same one share inputs and reference
};

class CaseQueue {
 public:
  // `cases` in plan order.
  explicit CaseQueue(const std::vector<QueuedCase>& cases);

  // The next case for GPU `device` (see above); nullopt when nothing is left for it.
  std::optional<QueuedCase> Next(int device);
  // Whether Next(device) would give it a case.
  bool HasCaseFor(int device) const { return Pick(device).has_value(); }
  // A case handed out that its worker did not finish, dying in another case or before starting
  // it (docs/devices.md, "A window of cases per worker"): back at the front.
  void PutBack(const QueuedCase& c);
  // GPU `device` is on no problem any more (its worker ended).
  void Leave(int device);
  // Takes these cases out (recorded without running); returns those that were still queued.
  std::vector<QueuedCase> Remove(const std::set<std::string>& keys);

  size_t size() const;
  bool empty() const { return size() == 0; }

 private:
  struct Problem {
    std::string key;
    std::deque<std::string> cases;
    bool started = false;
    int gpus = 0;  // GPUs on it now
  };
  QueuedCase Take(int device, size_t problem, bool from_back);
  std::optional<size_t> Pick(int device) const;

  std::vector<Problem> problems_;  // plan order
  std::map<int, size_t> on_;       // GPU -> the problem it is on
};

}  // namespace flashscope::suites
