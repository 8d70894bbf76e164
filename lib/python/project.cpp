#include "python/project.h"

#include <algorithm>

namespace synclint::python {

namespace {
std::string dir_of(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}
std::size_t common_prefix(const std::string& a, const std::string& b) {
  std::size_t i = 0;
  while (i < a.size() && i < b.size() && a[i] == b[i]) ++i;
  return i;
}
}  // namespace

void read_function(FuncInfo& fi, Node def, const SourceText& src) {
  fi.node = def;
  fi.params.clear();
  fi.defaults.clear();
  for (Node p : named_children(field(def, "parameters"))) {
    Node name{}, value{};
    switch (kind(p)) {
      case K::Identifier: name = p; break;
      case K::TypedParameter: name = named_count(p) > 0 ? named(p, 0) : Node{}; break;
      case K::DefaultParameter:
      case K::TypedDefaultParameter:
        name = field(p, "name");
        value = field(p, "value");
        break;
      default: break;
    }
    if (null(name) || kind(name) != K::Identifier) continue;
    fi.params.emplace_back(src.text(name));
    fi.defaults.push_back(value);
  }
}

bool result_differs(const FuncSummary& a, const FuncSummary& b) {
  const Value ra = a.returns ? a.ret : Value{}, rb = b.returns ? b.ret : Value{};
  return !ra.same(rb) || a.gpu_work != b.gpu_work || a.syncs != b.syncs || a.batch_loop != b.batch_loop;
}

bool same_env(const Env& a, const Env& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end() || !it->second.same(v)) return false;
  }
  return true;
}

int Project::find_module(const std::string& dotted, int importer) const {
  auto it = module_index.find(dotted);
  if (it == module_index.end() || it->second.empty()) return -1;
  if (it->second.size() == 1 || importer < 0) return it->second.front();
  const std::string dir = dir_of(files[importer].path);
  int best = it->second.front();
  std::size_t best_len = 0;
  for (int f : it->second) {
    const std::size_t len = common_prefix(dir, dir_of(files[f].path));
    if (len > best_len) {
      best_len = len;
      best = f;
    }
  }
  return best;
}

int Project::find_method(int cls, std::string_view name) const {
  for (int depth = 0; cls >= 0 && depth < 16; ++depth) {
    const ClassInfo& c = classes[cls];
    auto it = c.methods.find(std::string(name));
    if (it != c.methods.end()) return it->second;
    cls = c.base_ids.empty() ? -1 : c.base_ids.front();
  }
  return -1;
}

const Value* Project::class_attr(int cls, const std::string& name) const {
  for (int depth = 0; cls >= 0 && depth < 16; ++depth) {
    if (static_cast<std::size_t>(cls) < prev.class_attrs.size()) {
      const auto& attrs = prev.class_attrs[cls];
      auto it = attrs.find(name);
      if (it != attrs.end()) return &it->second;
    }
    const ClassInfo& c = classes[cls];
    cls = c.base_ids.empty() ? -1 : c.base_ids.front();
  }
  return nullptr;
}

SourceRange Project::range(const CallEdge& e, const Span& s) const {
  return SourceRange{files[funcs[e.caller].file].path, s.begin, s.end};
}

std::string Project::where(const SourceRange& r) const {
  auto it = display_of.find(r.path);
  return (it == display_of.end() ? r.path : it->second) + ":" + std::to_string(r.begin.line);
}

}  // namespace synclint::python
