// Internal: a plain-text table whose column widths follow the contents, with optional ANSI
// colour per cell (colour codes never count toward widths). Used by the terminal renderers. Cell
// texts pass through TerminalSafe (text_safety.h): a report string never reaches the terminal raw.
#pragma once

#include <string>
#include <vector>

namespace flashscope::reports::text {

inline constexpr char kReset[] = "\033[0m";
inline constexpr char kBold[] = "\033[1m";
inline constexpr char kRed[] = "\033[31m";
inline constexpr char kBoldRed[] = "\033[1;31m";
inline constexpr char kGreen[] = "\033[32m";
inline constexpr char kYellow[] = "\033[33m";
inline constexpr char kMagenta[] = "\033[35m";
inline constexpr char kDim[] = "\033[2m";

// `s` wrapped in `code` ... reset when `color`, else `s` unchanged.
std::string Paint(const std::string& s, const char* code, bool color);

struct Cell {
  std::string text;
  const char* color = nullptr;  // ANSI code or nullptr
};

class Table {
 public:
  enum class Align { kLeft, kRight };
  // The last column is never padded (it holds free text such as reasons).
  void AddColumn(std::string header, Align align);
  void AddRow(std::vector<Cell> cells);  // one cell per column
  size_t rows() const { return rows_.size(); }
  // Drops columns whose cells are all empty or "-" (e.g. metrics nobody measured).
  void DropEmptyColumns();
  std::string Render(bool color) const;

 private:
  std::vector<std::string> headers_;
  std::vector<Align> aligns_;
  std::vector<std::vector<Cell>> rows_;
};

// Number formatting shared by the renderers; "-" for NaN.
std::string Ms(double ms);  // 0.0123, 1.234, 123.4
std::string Fixed(double v, int decimals);
std::string Sci(double v);          // 1.23e-03
std::string SignedPct(double pct);  // +3.1%, -0.4%

}  // namespace flashscope::reports::text
