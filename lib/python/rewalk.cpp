// The partial re-walk of a file (walk_file_again from the last round's walk, walk_file_from from an earlier
// analysis's): only the units whose reads changed are walked again; the others keep the earlier walk's
// output, merged back in walk order.
#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "python/walker_internal.h"

namespace synclint::python::walk {

namespace {
// Whether the calling chain that `part` holds in `out` reads otherwise in `p` now.
bool chain_differs(const Project& p, const FileOutput& out, const FileOutput::ChainPart& part) {
  const Finding& f = out.findings[part.finding];
  std::string called;
  std::vector<RelatedLocation> related;
  call_chain(p, out.finding_funcs[part.finding], called, related, part.heat);
  if (!std::equal(related.begin(), related.end(), f.related.begin() + part.related_at,
                  f.related.begin() + part.related_at + part.related_length))
    return true;
  if (!part.in_message) return false;
  const std::string text = part.colon && !called.empty() ? ": " + called : called;
  return std::string_view(f.message).substr(part.message_at, part.message_length) != text;
}
}  // namespace

std::size_t Walker::run_again(FileOutput& old, const char* dirty, const FuncSummary* before,
                              const Env& before_globals) {
  const int base = f_.module_func;
  const std::size_t n = f_.funcs.size() + 1;  // the module body is position 0, f_.funcs[k - 1] position k
  const std::vector<std::size_t> unit = unit_starts(p_, base, n);
  std::vector<char> walk(n, 0), changed(n, 0);
  std::vector<std::vector<std::size_t>> reads(n);  // earlier walks' reads of this file's summaries
  // Functions whose findings of the earlier walk tell a calling chain that reads otherwise now. (The
  // findings also tell the function's heat: when it changed, the function is marked in `dirty`.)
  std::vector<char> found(n, 0);
  for (const FileOutput::ChainPart& part : old.chain_parts) {
    const std::size_t k = static_cast<std::size_t>(old.finding_funcs[part.finding] - base);
    if (!found[k] && chain_differs(p_, old, part)) found[k] = 1;
  }
  for (const auto& [f, g] : old.read_funcs)
    if (g >= base && static_cast<std::size_t>(g - base) < n) reads[static_cast<std::size_t>(f - base)].push_back(g - base);
  auto walk_at = [&](std::size_t k) {
    const int fn = base + static_cast<int>(k);
    walk_function(fn);
    walk[k] = 1;
    changed[k] = result_differs(before[k], p_.next.funcs[fn]);
  };
  bool all = false;
  if (dirty[0] || found[0]) {
    walk_at(0);
    // Every function reads the module's names: once they changed, the rest is walked as walk_file does.
    all = !same_env(before_globals, p_.next.globals[file_]);
  }
  for (std::size_t k = 1; k < n;) {
    std::size_t end = k + 1;
    while (end < n && unit[end] == k) ++end;
    bool w = all;
    for (std::size_t j = k; !w && j < end; ++j) {
      w = dirty[j] || found[j];
      for (std::size_t g : reads[j]) w = w || (walk[g] && changed[g]);
    }
    for (std::size_t j = k; j < end; ++j) {
      if (w) walk_at(j);
      else walked_.insert(base + static_cast<int>(j));  // its summary in p_.next is the earlier walk's
    }
    k = end;
  }

  // The output in walk order: the earlier walk's for the functions not walked now.
  FileOutput merged;
  merge_findings(old, walk, merged);
  merged.depth_cut_line = std::min(out_.depth_cut_line - 1, old.depth_cut_line - 1) + 1;  // 0 (none) is the largest
  // Both outputs hold each function's items together and in walk order: merged function by function.
  auto merge = [&](auto& now, auto& before, auto& to, auto func_of) {
    std::size_t i_now = 0, i_before = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const int fn = base + static_cast<int>(k);
      auto& src = walk[k] ? now : before;
      auto& other = walk[k] ? before : now;
      std::size_t& i = walk[k] ? i_now : i_before;
      std::size_t& j = walk[k] ? i_before : i_now;
      while (i < src.size() && func_of(src[i]) == fn) to.push_back(std::move(src[i++]));
      while (j < other.size() && func_of(other[j]) == fn) ++j;
    }
  };
  merge(out_.edges, old.edges, merged.edges, [](const CallEdge& e) { return e.caller; });
  merge(out_.attr_writes, old.attr_writes, merged.attr_writes, [](const FileOutput::AttrWrite& w) { return w.func; });
  auto keep_old = [&](int f) { return !walk[static_cast<std::size_t>(f - base)]; };
  for (auto& r : old.read_classes)
    if (keep_old(std::get<0>(r))) merged.read_classes.insert(r);
  for (auto& r : old.read_globals)
    if (keep_old(std::get<0>(r))) merged.read_globals.insert(r);
  for (auto& r : old.read_funcs)
    if (keep_old(r.first)) merged.read_funcs.insert(r);
  merged.read_classes.merge(out_.read_classes);
  merged.read_globals.merge(out_.read_globals);
  merged.read_funcs.merge(out_.read_funcs);

  // The file's class attributes, joined again from all writes in walk order.
  for (const auto& w : merged.attr_writes) p_.next.class_attrs[w.cls].clear();
  for (const auto& w : merged.attr_writes) add_class_attr(p_.next.class_attrs[w.cls], w.name, w.value);
  out_ = std::move(merged);
  return static_cast<std::size_t>(std::count(walk.begin(), walk.end(), 0));
}

// The findings of the functions walked now and the earlier walk's of the others, in walk order, with their
// functions and chain parts.
void Walker::merge_findings(FileOutput& old, const std::vector<char>& walk, FileOutput& merged) {
  const int base = f_.module_func;
  constexpr std::uint32_t kLeft = UINT32_MAX;
  std::vector<std::uint32_t> at_now(out_.findings.size(), kLeft), at_old(old.findings.size(), kLeft);
  std::size_t i_now = 0, i_old = 0;
  for (std::size_t k = 0; k < walk.size(); ++k) {
    const int fn = base + static_cast<int>(k);
    // Each output holds a function's findings together: those of `from` at i on are taken or passed.
    auto take = [&](FileOutput& from, std::vector<std::uint32_t>& at, std::size_t& i, bool keep) {
      for (; i < from.findings.size() && from.finding_funcs[i] == fn; ++i) {
        if (!keep) continue;
        at[i] = static_cast<std::uint32_t>(merged.findings.size());
        merged.findings.push_back(std::move(from.findings[i]));
        merged.finding_funcs.push_back(fn);
      }
    };
    take(out_, at_now, i_now, walk[k]);
    take(old, at_old, i_old, !walk[k]);
  }
  for (auto [parts, at] : {std::pair{&out_.chain_parts, &at_now}, std::pair{&old.chain_parts, &at_old}})
    for (FileOutput::ChainPart part : *parts)
      if ((*at)[part.finding] != kLeft) {
        part.finding = (*at)[part.finding];
        merged.chain_parts.push_back(part);
      }
  std::sort(merged.chain_parts.begin(), merged.chain_parts.end(),
            [](const FileOutput::ChainPart& a, const FileOutput::ChainPart& b) { return a.finding < b.finding; });
}

}  // namespace synclint::python::walk
