#include "reports/text_table.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "reports/text_safety.h"

namespace flashscope::reports::text {

std::string Paint(const std::string& s, const char* code, bool color) {
  if (!color || code == nullptr || s.empty()) return s;
  return absl::StrCat(code, s, kReset);
}

void Table::AddColumn(std::string header, Align align) {
  headers_.push_back(TerminalSafe(header));
  aligns_.push_back(align);
}

void Table::AddRow(std::vector<Cell> cells) {
  cells.resize(headers_.size());
  for (Cell& c : cells) c.text = TerminalSafe(c.text);  // report strings: never raw
  rows_.push_back(std::move(cells));
}

void Table::DropEmptyColumns() {
  for (size_t c = headers_.size(); c-- > 0;) {
    bool empty = true;
    for (const auto& row : rows_) empty = empty && (row[c].text.empty() || row[c].text == "-");
    if (!empty) continue;
    headers_.erase(headers_.begin() + c);
    aligns_.erase(aligns_.begin() + c);
    for (auto& row : rows_) row.erase(row.begin() + c);
  }
}

std::string Table::Render(bool color) const {
  std::vector<size_t> width(headers_.size());
  for (size_t c = 0; c < headers_.size(); ++c) {
    width[c] = headers_[c].size();
    for (const auto& row : rows_) width[c] = std::max(width[c], row[c].text.size());
  }
  auto line = [&](const std::vector<Cell>& cells, const char* override_color) {
    std::string out;
    for (size_t c = 0; c < cells.size(); ++c) {
      const bool last = c + 1 == cells.size();
      const std::string& t = cells[c].text;
      std::string pad(width[c] - t.size(), ' ');
      std::string painted = Paint(t, override_color ? override_color : cells[c].color, color);
      if (aligns_[c] == Align::kRight) {
        absl::StrAppend(&out, pad, painted);
      } else {
        absl::StrAppend(&out, painted, last ? "" : pad);
      }
      if (!last) out += "  ";
    }
    // Trailing spaces of right-aligned or empty last cells are noise in terminals and diffs.
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::vector<Cell> header_cells;
  for (const auto& h : headers_) header_cells.push_back({h, nullptr});
  std::string out = line(header_cells, kBold);
  size_t total = 0;
  // The rule stops at the last header: free text in the last column may run far to the right.
  for (size_t c = 0; c + 1 < width.size(); ++c) total += width[c] + 2;
  if (!headers_.empty()) total += headers_.back().size();
  out += std::string(total, '-') + "\n";
  for (const auto& row : rows_) out += line(row, nullptr);
  return out;
}

std::string Ms(double ms) {
  if (std::isnan(ms)) return "-";
  if (std::fabs(ms) >= 100) return absl::StrFormat("%.1f", ms);
  if (std::fabs(ms) >= 1) return absl::StrFormat("%.3f", ms);
  return absl::StrFormat("%.4f", ms);
}

std::string Fixed(double v, int decimals) {
  if (std::isnan(v)) return "-";
  return absl::StrFormat("%.*f", decimals, v);
}

std::string Sci(double v) {
  if (std::isnan(v)) return "-";
  return absl::StrFormat("%.2e", v);
}

std::string SignedPct(double pct) {
  if (std::isnan(pct)) return "-";
  return absl::StrFormat("%+.1f%%", pct);
}

}  // namespace flashscope::reports::text
