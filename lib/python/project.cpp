// The project index's lookups (modules, methods, class attributes) and its links: module names, imports
// resolved to project files, and class bases resolved to project classes.
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

std::string module_of_path(const std::string& path, std::vector<std::string>& parts) {
  parts.clear();
  std::string p = path;
  if (p.ends_with(".py")) p.resize(p.size() - 3);
  std::size_t start = 0;
  while (start <= p.size()) {
    const auto slash = p.find('/', start);
    std::string part = p.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!part.empty() && part != ".") parts.push_back(part);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  if (!parts.empty() && parts.back() == "__init__") parts.pop_back();
  return parts.empty() ? std::string() : parts.back();
}

bool is_module_base(const std::string& base) {
  return base.ends_with("Module") || base.ends_with("LightningModule") || base == "nn.Module";
}

void resolve_imports(Project& p, int file, const std::unordered_map<std::string, int>& by_path) {
  FileModel& fm = p.files[file];
  auto file_at = [&](const std::string& base) -> int {
    for (const char* suffix : {".py", "/__init__.py"}) {
      auto it = by_path.find(base + suffix);
      if (it != by_path.end()) return it->second;
    }
    return -1;
  };
  for (const auto& ri : fm.raw_imports) {
    Binding b;
    if (ri.level > 0) {
      std::string base = dir_of(fm.path);
      for (int i = 1; i < ri.level; ++i) base = dir_of(base);
      std::string rel = ri.module;
      std::replace(rel.begin(), rel.end(), '.', '/');
      const std::string mod_path = rel.empty() ? base : (base.empty() ? rel : base + "/" + rel);
      std::string sym_rel = ri.symbol;
      std::replace(sym_rel.begin(), sym_rel.end(), '.', '/');
      const int as_module = ri.symbol.empty() ? -1 : file_at(mod_path.empty() ? sym_rel : mod_path + "/" + sym_rel);
      std::vector<std::string> parts;
      if (as_module >= 0) {
        b.file = as_module;
        b.dotted = module_of_path(p.files[as_module].path, parts);
      } else {
        b.file = file_at(mod_path);
        b.symbol = ri.symbol;
        const std::string m = b.file >= 0 ? module_of_path(p.files[b.file].path, parts) : ri.module;
        b.dotted = ri.symbol.empty() ? m : m + "." + ri.symbol;
      }
    } else if (ri.symbol.empty()) {
      b.dotted = ri.module;
      b.file = p.find_module(ri.module, file);
    } else {
      b.dotted = ri.module + "." + ri.symbol;
      const int sub = p.find_module(b.dotted, file);
      if (sub >= 0) {
        b.file = sub;
      } else {
        b.file = p.find_module(ri.module, file);
        if (b.file >= 0) b.symbol = ri.symbol;
      }
    }
    if (b.file == file && b.symbol.empty()) b.file = -1;  // `import x` of itself: nothing to learn
    fm.imports[ri.alias] = std::move(b);
  }
}

}  // namespace

const FuncInfo::Signature FuncInfo::kNoSignature;

void read_function(FuncInfo& fi, Node def, const SourceText& src) {
  fi.node = def;
  auto signature = std::make_shared<FuncInfo::Signature>();
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
    signature->params.emplace_back(src.text(name));
    signature->defaults.push_back(value);
  }
  fi.signature = std::move(signature);
}

bool result_differs(const FuncSummary& a, const FuncSummary& b) {
  const Value ra = a.returns ? a.ret : Value{}, rb = b.returns ? b.ret : Value{};
  return !ra.same(rb) || a.gpu_work != b.gpu_work || a.syncs != b.syncs || a.batch_loop != b.batch_loop ||
         a.periodic_return != b.periodic_return;
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

bool abstract_body(const Project& p, int fn) {
  const FuncInfo& fi = p.funcs[fn];
  const SourceText& src = *p.files[fi.file].src;
  auto text = [&](Node n) { return src.text(n); };
  Node body = field(fi.node, "body");
  if (null(body)) return false;
  for (Node s : children(body)) {
    if (!is_named(s) || kind(s) == K::Comment) continue;
    const std::string_view t = text(s);
    if (t == "pass" || t == "...") continue;
    if (kind(s) == K::ExpressionStatement && named_count(s) == 1 && kind(named(s, 0)) == K::String) continue;
    if (kind(s) == K::RaiseStatement && t.find("NotImplementedError") != std::string_view::npos) continue;
    return false;
  }
  return true;
}

void link_project(Project& p) {
  auto places = std::make_shared<FilePlaces>();
  places->reserve(p.files.size());
  for (const FileModel& fm : p.files) places->push_back({fm.path, fm.display});
  p.places = std::move(places);
  std::unordered_map<std::string, int> by_path;
  for (std::size_t i = 0; i < p.files.size(); ++i) {
    by_path[p.files[i].path] = static_cast<int>(i);
    std::vector<std::string> parts;
    module_of_path(p.files[i].path, parts);
    std::string dotted;
    for (std::size_t k = 0; k < parts.size() && k < 4; ++k) {
      const std::string& part = parts[parts.size() - 1 - k];
      dotted = dotted.empty() ? part : part + "." + dotted;
      p.module_index[dotted].push_back(static_cast<int>(i));
    }
  }
  for (std::size_t i = 0; i < p.files.size(); ++i) resolve_imports(p, static_cast<int>(i), by_path);
  for (ClassInfo& ci : p.classes) {
    for (const std::string& base : ci.bases) {
      const std::string last = base.substr(base.rfind('.') == std::string::npos ? 0 : base.rfind('.') + 1);
      int id = -1;
      const FileModel& fm = p.files[ci.file];
      if (auto it = fm.top_classes.find(base); it != fm.top_classes.end()) id = it->second;
      if (auto it = fm.imports.find(base); id < 0 && it != fm.imports.end() && it->second.file >= 0) {
        // `from pkg.hooks import Hook` where the package's __init__ imports it from its own module.
        const Binding* t = &it->second;
        for (int hop = 0; hop < 4 && id < 0 && t->file >= 0; ++hop) {
          const FileModel& other = p.files[t->file];
          const std::string symbol = t->symbol.empty() ? last : t->symbol;
          if (auto jt = other.top_classes.find(symbol); jt != other.top_classes.end()) id = jt->second;
          else if (auto kt = other.imports.find(symbol); kt != other.imports.end() && &kt->second != t) t = &kt->second;
          else break;
        }
      }
      if (id >= 0) ci.base_ids.push_back(id);
      if (is_module_base(base)) ci.is_module = true;
    }
  }
  for (ClassInfo& ci : p.classes) ci.subclasses.clear();
  for (std::size_t c = 0; c < p.classes.size(); ++c)
    for (int b : p.classes[c].base_ids) p.classes[b].subclasses.push_back(static_cast<int>(c));
  for (int pass = 0; pass < 8; ++pass)
    for (ClassInfo& ci : p.classes)
      for (int b : ci.base_ids)
        if (p.classes[b].is_module) ci.is_module = true;
}

}  // namespace synclint::python
