// The partial re-walk of a file (walk_file_again): only the units whose reads changed are walked again;
// the others keep the earlier walk's output, merged back in walk order.
#include <algorithm>
#include <tuple>

#include "python/walker_internal.h"

namespace synclint::python::walk {

// The units of a file are the module body, and each top-level function or method with the functions nested
// in it (they start from its final environment): in f_.funcs (pre-order) a unit runs up to the next function
// without a parent.
void Walker::run_again(FileOutput& old, const std::vector<char>& dirty) {
  const int base = f_.module_func;
  const std::size_t n = f_.funcs.size() + 1;  // the module body is position 0, f_.funcs[k - 1] position k
  std::vector<char> walk(n, 0), changed(n, 0);
  std::vector<std::vector<std::size_t>> reads(n);  // earlier walks' reads of this file's summaries
  std::vector<char> found(n, 0);                   // functions with a finding of the earlier walk
  for (int f : old.finding_funcs) found[static_cast<std::size_t>(f - base)] = 1;
  for (const auto& [f, g] : old.read_funcs)
    if (g >= base && static_cast<std::size_t>(g - base) < n) reads[static_cast<std::size_t>(f - base)].push_back(g - base);
  auto walk_at = [&](std::size_t k) {
    const int fn = base + static_cast<int>(k);
    walk_function(fn);
    walk[k] = 1;
    changed[k] = result_differs(p_.prev.funcs[fn], p_.next.funcs[fn]);
  };
  bool all = false;
  if (dirty[base] || found[0]) {
    walk_at(0);
    // Every function reads the module's names: once they changed, the rest is walked as walk_file does.
    all = !same_env(p_.prev.globals[file_], p_.next.globals[file_]);
  }
  for (std::size_t k = 1; k < n;) {
    std::size_t end = k + 1;
    while (end < n && p_.funcs[base + static_cast<int>(end)].parent >= 0) ++end;
    bool w = all;
    for (std::size_t j = k; !w && j < end; ++j) {
      w = dirty[base + static_cast<int>(j)] || found[j];
      for (std::size_t g : reads[j]) w = w || (walk[g] && changed[g]);
    }
    for (std::size_t j = k; j < end; ++j) {
      if (w) walk_at(j);
      else walked_.insert(base + static_cast<int>(j));  // its summary in p_.next is the earlier walk's
    }
    k = end;
  }

  // The output in walk order: the earlier walk's for the functions not walked now.
  // Every function with an earlier finding was walked now: the findings are the new ones.
  FileOutput merged;
  merged.findings = std::move(out_.findings);
  merged.finding_funcs = std::move(out_.finding_funcs);
  merged.chain_parts = std::move(out_.chain_parts);
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
}

}  // namespace synclint::python::walk
