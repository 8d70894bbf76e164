#include "python/cpu_only.h"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace synclint::python {
namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// `word` (lower case) at `at` of `text`, in any case.
bool at_word(std::string_view text, std::size_t at, std::string_view word) {
  if (at + word.size() > text.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k)
    if (lower(text[at + k]) != word[k]) return false;
  return true;
}

std::size_t skip_blanks(std::string_view text, std::size_t i) {
  while (i < text.size() && (text[i] == ' ' || text[i] == '\n')) ++i;
  return i;
}

bool cpu_literal(std::string_view text, std::size_t i) {
  return at_word(text, i, "\"cpu\"") || at_word(text, i, "'cpu'");
}

// After `.to(`: a dtype (`torch.float32`, `dtype=torch.int64`) or the literal CPU device, which place
// nothing on a GPU.
bool harmless_to(std::string_view text, std::size_t args) {
  std::size_t i = skip_blanks(text, args);
  if (at_word(text, i, "dtype=") || cpu_literal(text, i)) return true;
  if (at_word(text, i, "torch.")) i += 6;
  static constexpr std::array<std::string_view, 12> kDtypes = {"float", "double", "half", "bfloat", "int",
                                                                "long", "short", "bool", "uint", "complex",
                                                                "cfloat", "cdouble"};
  return std::any_of(kDtypes.begin(), kDtypes.end(), [&](std::string_view d) { return at_word(text, i, d); });
}

// `device` at `at` is part of a literal CPU device: `device="cpu"`, `device = 'cpu'`, `torch.device("cpu")`.
bool cpu_device(std::string_view text, std::size_t at) {
  std::size_t i = at + 6;
  while (i < text.size() && text[i] == ' ') ++i;
  if (i < text.size() && (text[i] == '=' || text[i] == '(')) ++i;
  while (i < text.size() && text[i] == ' ') ++i;
  return cpu_literal(text, i);
}

// The words that name a device (see names_a_device), by their first character.
struct DeviceWord {
  std::string_view word;
  bool whole = false;  // only as a word of its own (not `dumps` or `stamps`)
};
constexpr std::array<DeviceWord, 18> kDeviceWords = {{
    // Anywhere, even inside a longer name (`is_cuda`, `num_gpus`, `DistributedDataParallel`).
    {"cuda"}, {"gpu"}, {"accelerat"}, {"distributed"}, {"dataparallel"}, {"lightning"}, {"deepspeed"},
    {"pin_memory"}, {"trainer"}, {"runner"}, {"fabric"}, {"horovod"}, {"colossalai"},
    {"mps", true}, {"xla", true}, {"tpu", true}, {"hpu", true}, {"npu", true}}};

// Whether a word at `at` names a device.
bool device_word_at(std::string_view text, std::size_t at) {
  const char c = lower(text[at]);
  if (c == 'd' && at_word(text, at, "device")) return !cpu_device(text, at);
  if (c == '.') return at_word(text, at, ".to(") && !harmless_to(text, at + 4);
  for (const DeviceWord& w : kDeviceWords)
    if (w.word[0] == c && at_word(text, at, w.word) &&
        (!w.whole || ((at == 0 || !letter(text[at - 1])) &&
                      (at + w.word.size() >= text.size() || !letter(text[at + w.word.size()])))))
      return true;
  return false;
}

// Whether byte `at` is inside a comment or a docstring (a statement that is a string alone).
bool in_comment_or_docstring(const SyntaxTree& tree, std::size_t at) {
  Node n = tree.root();
  for (;;) {
    Node inside;
    for (Node c = first_child(n); !null(c); c = next_sibling(c))
      if (start_byte(c) <= at && at < end_byte(c)) {
        inside = c;
        break;
      }
    if (null(inside)) return false;
    if (kind(inside) == K::Comment) return true;
    if (kind(inside) == K::ExpressionStatement && named_count(inside) == 1) {
      const K only = kind(*named_children(inside).begin());
      if (only == K::String || only == K::ConcatenatedString) return true;
    }
    n = inside;
  }
}

}  // namespace

bool names_a_device(const SyntaxTree& tree, std::string_view text) {
  // The characters a device word starts with (device_word_at), in either case.
  static const std::array<bool, 256> kFirst = [] {
    std::array<bool, 256> first{};
    first['d'] = first['D'] = first['.'] = true;
    for (const DeviceWord& w : kDeviceWords) {
      first[static_cast<unsigned char>(w.word[0])] = true;
      first[static_cast<unsigned char>(w.word[0] - 'a' + 'A')] = true;
    }
    return first;
  }();
  // One pass in text order: files that name a device usually do so near the top.
  for (std::size_t at = 0; at < text.size(); ++at)
    if (kFirst[static_cast<unsigned char>(text[at])] && device_word_at(text, at) && !in_comment_or_docstring(tree, at))
      return true;
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
    if (!device[f]) {
      const FileModel& fm = p.files[f];
      signed char known = fm.names_device ? fm.names_device->load(std::memory_order_relaxed) : -1;
      if (known < 0) {
        known = names_a_device(*fm.tree, fm.src->text()) ? 1 : 0;
        if (fm.names_device) fm.names_device->store(known, std::memory_order_relaxed);
      }
      device[f] = known ? 2 : 1;
    }
    return device[f] == 2;
  };
  std::vector<int> seen(n, -1), queue;
  for (std::size_t start = 0; start < n; ++start) {
    if (!wanted[start]) continue;
    const int mark = static_cast<int>(start);
    bool device_found = false, runs = false;
    auto visit = [&](int f) {
      seen[f] = mark;
      queue.push_back(f);
      device_found = names_device(f);
      runs = runs || (!device_found && runs_code(p.files[f]));
      return device_found;
    };
    // The file and the files that import it, then everything those import; the search ends at the first
    // file that names a device.
    queue.clear();
    visit(mark);
    for (std::size_t k = 0; k < queue.size() && !device_found; ++k)
      for (int up : importers[queue[k]])
        if (seen[up] != mark && visit(up)) break;
    for (std::size_t k = 0; k < queue.size() && !device_found; ++k)
      for (int down : imports[queue[k]])
        if (seen[down] != mark && visit(down)) break;
    result[start] = !device_found && runs;
  }
  return result;
}

}  // namespace synclint::python
