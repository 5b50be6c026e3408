#include "verify/buffer_slots.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace flashscope::verify {
namespace {

std::string Gib(double bytes) { return absl::StrFormat("%.2f GiB", bytes / (1ull << 30)); }
std::string Mib(double bytes) { return absl::StrFormat("%.1f MiB", bytes / (1ull << 20)); }

}  // namespace

BufferSizes BufferSizesOf(const Problem& p) {
  BufferSizes s;
  if (const auto* a = std::get_if<AttentionProblem>(&p)) {
    const int64_t e = static_cast<int64_t>(DTypeBytes(a->dtype));
    s.input_bytes[0] = a->QElements() * e;
    s.input_bytes[1] = s.input_bytes[2] = a->KElements() * e;
    s.output_elements = a->QElements();
    s.output_bytes =
        a->QElements() * static_cast<int64_t>(DTypeBytes(AttentionOutputDType(a->dtype)));
    s.lse_elements = a->want_lse ? a->LseElements() : 0;
  } else {
    const auto& g = std::get<GemmProblem>(p);
    const int64_t e = static_cast<int64_t>(DTypeBytes(g.dtype));
    s.input_bytes[0] = g.m * g.k * e;
    s.input_bytes[1] = g.k * g.n * e;
    s.output_elements = g.m * g.n;
    s.output_bytes = g.m * g.n * 4;
  }
  return s;
}

SlotPlan PlanSlots(int wanted, int64_t slot_bytes, int64_t base_bytes, int64_t free_bytes) {
  wanted = std::max(1, wanted);
  const double budget = kSlotBudgetFraction * static_cast<double>(std::max<int64_t>(0, free_bytes));
  int fit = 1;
  while (fit < wanted && static_cast<double>(base_bytes + fit * slot_bytes) <= budget) {
    ++fit;
  }
  SlotPlan plan;
  plan.slots = fit;
  const std::string each =
      absl::StrCat(Mib(static_cast<double>(slot_bytes)), " of inputs and outputs each");
  if (fit == wanted) {
    plan.note = absl::StrCat(fit, fit == 1 ? " buffer slot (" : " buffer slots (", each, ")");
    return plan;
  }
  plan.note = absl::StrCat(
      fit, fit == 1 ? " buffer slot" : " buffer slots", " of the ", wanted, " wanted (", each,
      "): ", fit + 1, " would need ", Gib(static_cast<double>(base_bytes + fit * slot_bytes)),
      ", over the rotation budget of ", Gib(budget), " (",
      static_cast<int>(kSlotBudgetFraction * 100), " % of the ",
      Gib(static_cast<double>(free_bytes)), " free; the rest stays for the kernel's own memory)");
  return plan;
}

}  // namespace flashscope::verify
