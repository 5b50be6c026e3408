#include "supervisor/case_queue.h"

#include <algorithm>

namespace flashscope::suites {

CaseQueue::CaseQueue(const std::vector<QueuedCase>& cases) {
  std::map<std::string, size_t> index;
  for (const QueuedCase& c : cases) {
    auto [it, added] = index.emplace(c.problem, problems_.size());
    if (added) problems_.push_back({c.problem, {}, false, 0});
    problems_[it->second].cases.push_back(c.key);
  }
}

std::optional<size_t> CaseQueue::Pick(int device) const {
  if (auto on = on_.find(device); on != on_.end() && !problems_[on->second].cases.empty()) {
    return on->second;
  }
  for (size_t i = 0; i < problems_.size(); ++i) {  // orphaned
    if (problems_[i].started && problems_[i].gpus == 0 && !problems_[i].cases.empty()) return i;
  }
  for (size_t i = 0; i < problems_.size(); ++i) {  // untouched
    if (!problems_[i].started && !problems_[i].cases.empty()) return i;
  }
  std::optional<size_t> most;  // shared with the GPU already on it
  for (size_t i = 0; i < problems_.size(); ++i) {
    if (problems_[i].cases.size() >= 2 &&
        (!most || problems_[i].cases.size() > problems_[*most].cases.size())) {
      most = i;
    }
  }
  return most;
}

QueuedCase CaseQueue::Take(int device, size_t problem, bool from_back) {
  Leave(device);
  Problem& p = problems_[problem];
  p.started = true;
  ++p.gpus;
  on_[device] = problem;
  std::string key = from_back ? p.cases.back() : p.cases.front();
  from_back ? p.cases.pop_back() : p.cases.pop_front();
  return {key, p.key};
}

std::optional<QueuedCase> CaseQueue::Next(int device) {
  const std::optional<size_t> pick = Pick(device);
  if (!pick) return std::nullopt;
  auto on = on_.find(device);
  const bool own = on != on_.end() && on->second == *pick;
  // Joining a problem another GPU is on: take from the back, leaving it its next cases.
  const bool shared = !own && problems_[*pick].gpus > 0;
  if (own) {
    Problem& p = problems_[*pick];
    std::string key = p.cases.front();
    p.cases.pop_front();
    return QueuedCase{key, p.key};
  }
  return Take(device, *pick, shared);
}

void CaseQueue::PutBack(const QueuedCase& c) {
  for (Problem& p : problems_) {
    if (p.key == c.problem) {
      p.cases.push_front(c.key);
      return;
    }
  }
  problems_.push_back({c.problem, {c.key}, true, 0});
}

void CaseQueue::Leave(int device) {
  auto on = on_.find(device);
  if (on == on_.end()) return;
  --problems_[on->second].gpus;
  on_.erase(on);
}

std::vector<QueuedCase> CaseQueue::Remove(const std::set<std::string>& keys) {
  std::vector<QueuedCase> removed;
  for (Problem& p : problems_) {
    auto gone = std::stable_partition(p.cases.begin(), p.cases.end(),
                                      [&](const std::string& k) { return !keys.count(k); });
    for (auto it = gone; it != p.cases.end(); ++it) removed.push_back({*it, p.key});
    p.cases.erase(gone, p.cases.end());
  }
  return removed;
}

size_t CaseQueue::size() const {
  size_t n = 0;
  for (const Problem& p : problems_) n += p.cases.size();
  return n;
}

}  // namespace flashscope::suites
