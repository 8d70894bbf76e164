#include "python/cpu_only.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace synclint::python {
namespace {

bool letter(char c) { return std::isalpha(static_cast<unsigned char>(c)) != 0; }

// `word` at `at` of `lower`, not inside a longer word of letters (digits and `_` end a word).
bool whole_word(const std::string& lower, std::size_t at, std::size_t size) {
  return (at == 0 || !letter(lower[at - 1])) && (at + size >= lower.size() || !letter(lower[at + size]));
}

bool starts_with_at(const std::string& s, std::size_t at, std::string_view prefix) {
  return s.compare(at, prefix.size(), prefix) == 0;
}

// After `.to(`: a dtype (`torch.float32`, `dtype=torch.int64`) or the literal CPU device, which place
// nothing on a GPU.
bool harmless_to(const std::string& lower, std::size_t args) {
  std::size_t i = args;
  while (i < lower.size() && (lower[i] == ' ' || lower[i] == '\n')) ++i;
  if (starts_with_at(lower, i, "dtype=")) return true;
  if (starts_with_at(lower, i, "\"cpu\"") || starts_with_at(lower, i, "'cpu'")) return true;
  if (starts_with_at(lower, i, "torch.")) i += 6;
  static constexpr std::array<std::string_view, 12> kDtypes = {"float", "double", "half", "bfloat", "int",
                                                                "long", "short", "bool", "uint", "complex",
                                                                "cfloat", "cdouble"};
  for (std::string_view d : kDtypes)
    if (starts_with_at(lower, i, d)) return true;
  return false;
}

// `device` at `at` is part of a literal CPU device: `device="cpu"`, `device = 'cpu'`, `torch.device("cpu")`.
bool cpu_device(const std::string& lower, std::size_t at) {
  std::size_t i = at + 6;
  while (i < lower.size() && lower[i] == ' ') ++i;
  if (i < lower.size() && (lower[i] == '=' || lower[i] == '(')) ++i;
  while (i < lower.size() && lower[i] == ' ') ++i;
  return starts_with_at(lower, i, "\"cpu\"") || starts_with_at(lower, i, "'cpu'");
}

}  // namespace

bool names_a_device(const SyntaxTree& tree, std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Comments and docstrings (a statement that is a string alone) say nothing the program does.
  for (std::uint32_t i = 0; i < tree.size(); ++i) {
    const Node n{&tree, i};
    Node blank;
    if (kind(n) == K::Comment) blank = n;
    else if (kind(n) == K::ExpressionStatement && named_count(n) == 1) {
      const Node only = *named_children(n).begin();
      if (kind(only) == K::String || kind(only) == K::ConcatenatedString) blank = only;
    }
    if (null(blank)) continue;
    const std::size_t end = std::min<std::size_t>(end_byte(blank), lower.size());
    for (std::size_t b = start_byte(blank); b < end; ++b) lower[b] = ' ';
  }
  // Anywhere, even inside a longer name (`is_cuda`, `num_gpus`, `DistributedDataParallel`).
  static constexpr std::array<std::string_view, 13> kAnywhere = {
      "cuda", "gpu", "accelerat", "distributed", "dataparallel", "lightning", "deepspeed", "pin_memory",
      "trainer", "runner", "fabric", "horovod", "colossalai"};
  for (std::string_view w : kAnywhere)
    if (lower.find(w) != std::string::npos) return true;
  // Short names, as words of their own (not `dumps` or `stamps`).
  static constexpr std::array<std::string_view, 5> kWords = {"mps", "xla", "tpu", "hpu", "npu"};
  for (std::string_view w : kWords)
    for (std::size_t at = lower.find(w); at != std::string::npos; at = lower.find(w, at + 1))
      if (whole_word(lower, at, w.size())) return true;
  for (std::size_t at = lower.find("device"); at != std::string::npos; at = lower.find("device", at + 1))
    if (!cpu_device(lower, at)) return true;
  for (std::size_t at = lower.find(".to("); at != std::string::npos; at = lower.find(".to(", at + 1))
    if (!harmless_to(lower, at + 4)) return true;
  return false;
}

bool runs_code(const FileModel& file) {
  const SourceText& src = *file.src;
  for (Node n : named_children(file.tree->root())) {
    switch (kind(n)) {
      case K::ForStatement:
      case K::WhileStatement:
        return true;
      case K::IfStatement:
        if (src.text(field(n, "condition")).find("__name__") != std::string_view::npos) return true;
        break;
      case K::ExpressionStatement:
        for (Node e : named_children(n))
          if (kind(e) == K::Call) return true;
        break;
      default:
        break;
    }
  }
  return false;
}

std::vector<char> cpu_only_programs(const Project& p, const std::vector<char>& wanted) {
  const std::size_t n = p.files.size();
  std::vector<char> result(n, 0);
  if (std::find(wanted.begin(), wanted.end(), 1) == wanted.end()) return result;
  std::vector<std::vector<int>> imports(n), importers(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& [alias, b] : p.files[i].imports)
      if (b.file >= 0 && static_cast<std::size_t>(b.file) != i) imports[i].push_back(b.file);
    std::sort(imports[i].begin(), imports[i].end());
    imports[i].erase(std::unique(imports[i].begin(), imports[i].end()), imports[i].end());
    for (int j : imports[i]) importers[j].push_back(static_cast<int>(i));
  }
  // 0: not looked at yet, 1: names no device, 2: names one.
  std::vector<char> device(n, 0);
  auto names_device = [&](int f) {
    if (!device[f]) device[f] = names_a_device(*p.files[f].tree, p.files[f].src->text()) ? 2 : 1;
    return device[f] == 2;
  };
  std::vector<int> seen(n, -1), stack;
  for (std::size_t start = 0; start < n; ++start) {
    if (!wanted[start] || names_device(static_cast<int>(start))) continue;
    const int mark = static_cast<int>(start);
    // The file and the files that import it, then everything those import.
    std::vector<int> roots{mark};
    seen[start] = mark;
    for (std::size_t k = 0; k < roots.size(); ++k)
      for (int up : importers[roots[k]])
        if (seen[up] != mark) {
          seen[up] = mark;
          roots.push_back(up);
        }
    bool device_found = false, runs = false;
    stack = roots;
    std::vector<int> members = roots;
    while (!stack.empty()) {
      const int f = stack.back();
      stack.pop_back();
      for (int d : imports[f])
        if (seen[d] != mark) {
          seen[d] = mark;
          members.push_back(d);
          stack.push_back(d);
        }
    }
    for (int f : members) {
      if (names_device(f)) {
        device_found = true;
        break;
      }
      runs = runs || runs_code(p.files[f]);
    }
    result[start] = !device_found && runs;
  }
  return result;
}

}  // namespace synclint::python
