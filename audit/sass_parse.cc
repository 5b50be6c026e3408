#include "audit/sass_parse.h"

#include <cxxabi.h>

#include <cstdlib>
#include <sstream>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace flashscope::audit {
namespace {

std::string Demangle(const std::string& name) {
  int status = 0;
  char* d = abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status);
  std::string out = status == 0 && d != nullptr ? d : "";
  std::free(d);
  return out;
}

// "/work/main/kernels/attention/a10_fa2.cu" or "libfs_kernels.a:a10_fa2.cu.o" -> "a10_fa2".
std::string StemOf(std::string path) {
  if (size_t colon = path.rfind(':'); colon != std::string::npos) path = path.substr(colon + 1);
  if (size_t slash = path.rfind('/'); slash != std::string::npos) path = path.substr(slash + 1);
  for (const char* ext : {".o", ".cu", ".cc", ".cpp"}) {
    if (absl::EndsWith(path, ext)) path = path.substr(0, path.size() - std::string(ext).size());
  }
  return path;
}

struct Resources {
  int registers = -1, stack = -1, shared = -1, local = -1;
};

// " REG:166 STACK:0 SHARED:33792 LOCAL:0 CONSTANT[0]:592 TEXTURE:0 ..."
absl::StatusOr<Resources> ParseResources(absl::string_view line, int line_no) {
  Resources r;
  for (absl::string_view field : absl::StrSplit(line, ' ', absl::SkipEmpty())) {
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(field, absl::MaxSplits(':', 1));
    int* target = kv.first == "REG"      ? &r.registers
                  : kv.first == "STACK"  ? &r.stack
                  : kv.first == "SHARED" ? &r.shared
                  : kv.first == "LOCAL"  ? &r.local
                                         : nullptr;
    if (target == nullptr) continue;
    if (!absl::SimpleAtoi(kv.second, target)) {
      return absl::InvalidArgumentError(absl::StrCat("line ", line_no, ": resource usage field '",
                                                     field, "' is not NAME:number"));
    }
  }
  if (r.registers < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", line_no, ": resource usage line without REG: '", line, "'"));
  }
  return r;
}

}  // namespace

int SassFunction::Count(const std::string& opcode) const {
  auto it = opcodes.find(opcode);
  return it == opcodes.end() ? 0 : it->second;
}

std::string InstructionOfLine(const std::string& line) {
  // Instruction lines look like: "        /*0120*/   @!P0 HMMA.16816.F32 R4, R8, R12, R4 ;  /*
  // 0x... */"
  size_t open = line.find("/*");
  if (open == std::string::npos) return "";
  size_t close = line.find("*/", open + 2);
  if (close == std::string::npos) return "";
  absl::string_view addr(line.data() + open + 2, close - open - 2);
  if (addr.empty() || addr.size() > 8) return "";
  for (char ch : addr) {
    if (!absl::ascii_isxdigit(static_cast<unsigned char>(ch))) return "";
  }
  absl::string_view rest =
      absl::StripLeadingAsciiWhitespace(absl::string_view(line).substr(close + 2));
  if (absl::StartsWith(rest, "@")) {  // predicate guard
    const size_t space = rest.find(' ');
    rest = space == absl::string_view::npos ? ""
                                            : absl::StripLeadingAsciiWhitespace(rest.substr(space));
  }
  if (rest.empty() || rest[0] == '/') return "";
  return std::string(absl::StripTrailingAsciiWhitespace(rest.substr(0, rest.find(';'))));
}

std::string OpcodeOfLine(const std::string& line) {
  const std::string ins = InstructionOfLine(line);
  return ins.substr(0, ins.find_first_of(". "));
}

absl::StatusOr<std::vector<SassFunction>> ParseCuobjdumpSass(const std::string& text) {
  std::vector<SassFunction> out;
  // Resource usage comes before the code of each ELF; keyed by (arch, name).
  std::map<std::pair<std::string, std::string>, Resources> resources;
  std::string member, identifier, elf_arch, code_arch, pending_function;
  SassFunction* current = nullptr;
  int wait_all_then =
      0;  // 1: after a full wgmma wait, 2: and a WARPGROUP.ARRIVE (hgmma_serialized)
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    absl::string_view s = absl::StripAsciiWhitespace(line);
    if (absl::StartsWith(s, "member ")) {
      member = std::string(absl::StripSuffix(s.substr(7), ":"));
      identifier.clear();
      current = nullptr;
    } else if (absl::StartsWith(s, "identifier = ")) {
      identifier = std::string(s.substr(13));
    } else if (absl::StartsWith(s, "arch = ")) {
      elf_arch = std::string(s.substr(7));
    } else if (absl::StartsWith(s, "code for ")) {
      code_arch = std::string(s.substr(9));
      current = nullptr;
    } else if (absl::StartsWith(s, "Function : ")) {
      SassFunction f;
      f.name = std::string(s.substr(11));
      f.demangled = Demangle(f.name);
      f.arch = code_arch.empty() ? elf_arch : code_arch;
      f.source = StemOf(!identifier.empty() ? identifier : member);
      if (auto it = resources.find({elf_arch, f.name}); it != resources.end()) {
        f.registers = it->second.registers;
        f.stack_bytes = it->second.stack;
        f.shared_bytes = it->second.shared;
        f.local_bytes = it->second.local;
      }
      out.push_back(std::move(f));
      current = &out.back();
    } else if (absl::StartsWith(s, "Function ") && absl::EndsWith(s, ":")) {
      // "Function NAME:" inside a Resource usage block; the next line holds its resources.
      pending_function = std::string(absl::StripSuffix(s.substr(9), ":"));
    } else if (!pending_function.empty() && absl::StartsWith(s, "REG:")) {
      auto r = ParseResources(s, line_no);
      if (!r.ok()) return r.status();
      resources[{elf_arch, pending_function}] = *r;
      pending_function.clear();
    } else if (current != nullptr) {
      const std::string ins = InstructionOfLine(line);
      if (ins.empty()) continue;
      const std::string op = ins.substr(0, ins.find_first_of(". "));
      ++current->opcodes[op];
      ++current->instructions;
      if (wait_all_then == 2 && op == "HGMMA") ++current->hgmma_serialized;
      wait_all_then = absl::StartsWith(ins, "WARPGROUP.DEPBAR.LE gsb0, 0x0") ? 1
                      : wait_all_then == 1 && ins == "WARPGROUP.ARRIVE"      ? 2
                                                                             : 0;
    }
  }
  if (out.empty()) {
    return absl::InvalidArgumentError(
        "no \"Function :\" section: this is not the output of `cuobjdump -sass -res-usage` on a "
        "file holding device code (was it built with CUDA, for a real architecture?)");
  }
  return out;
}

}  // namespace flashscope::audit
