// analyze_project: parse every file (in parallel, one parser per thread), index functions, classes and
// imports, then walk all files in rounds until the shared summaries (return values, parameter facts,
// class attributes, effects) and the hot context of every function stop changing; the last round's
// findings are the result.
#include "python/analyzer.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "core/catalog.h"
#include "python/nn_layers.h"
#include "python/project.h"
#include "python/walker.h"

namespace synclint::python {
namespace {

// Rounds of walks: at most kMaxRounds; after kFullRounds, another round runs only while the files to walk
// again are few (a small project converges fully, a large corpus stops early).
constexpr int kMaxRounds = 8;
constexpr int kFullRounds = 2;
constexpr std::size_t kSmallRoundBytes = 2u << 20;
constexpr std::size_t kMaxSyntaxErrors = 5;

template <class Fn>
void parallel_for(std::size_t n, unsigned jobs, Fn&& fn) {
  const std::size_t threads = std::min<std::size_t>(std::max(1u, jobs), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i, 0u);
    return;
  }
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (std::size_t i; (i = next.fetch_add(1)) < n;) fn(i, static_cast<unsigned>(t));
    });
  for (auto& th : pool) th.join();
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

// Kinds that hold neither definitions nor imports (expressions and simple statements built of them).
bool single_line_leaf_kind(K k) {
  switch (k) {
    case K::ExpressionStatement: case K::ReturnStatement: case K::AssertStatement: case K::RaiseStatement:
    case K::Assignment: case K::AugmentedAssignment: case K::NamedExpression: case K::Call: case K::ArgumentList:
    case K::KeywordArgument: case K::Attribute: case K::Subscript: case K::Slice: case K::Identifier:
    case K::BinaryOperator: case K::ComparisonOperator: case K::BooleanOperator: case K::NotOperator:
    case K::UnaryOperator: case K::ConditionalExpression: case K::ParenthesizedExpression: case K::String:
    case K::ConcatenatedString: case K::Integer: case K::Float: case K::True: case K::False: case K::None:
    case K::List: case K::Tuple: case K::Set: case K::Dictionary: case K::Pair: case K::ListComprehension:
    case K::SetComprehension: case K::DictionaryComprehension: case K::GeneratorExpression:
    case K::ExpressionList: case K::PatternList: case K::Lambda: case K::Await:
    case K::Parameters: case K::TypedParameter: case K::DefaultParameter: case K::TypedDefaultParameter:
      return true;
    default:
      return false;
  }
}

// Functions, classes, imports, comments and syntax errors of one file: one iterative pass.
struct LocalIndex {
  std::vector<FuncInfo> funcs;    // file-local ids in `parent`/`cls`
  std::vector<ClassInfo> classes;
};

void index_file(FileModel& fm, LocalIndex& li, int file) {
  const SourceText& src = *fm.src;
  const Node root = fm.tree->root();
  FuncInfo module;
  module.file = file;
  module.node = root;
  module.name = "<module>";
  module.qualname = "<module>";
  module.module_body = true;
  li.funcs.push_back(module);

  struct Ctx {
    int cls = -1;
    int func = -1;
    int prefix = 0;  // index into `prefixes` (qualified-name prefix of definitions here)
    K kind = K::Other;  // kind of the node at this depth
  };
  std::vector<std::string> prefixes{""};
  const bool has_error = python::has_error(root);
  std::vector<Ctx> ctx{Ctx{}};
  std::vector<Node> ancestors;  // of `n`, the root first
  std::size_t depth = 0;
  auto text = [&](Node n) { return std::string(src.text(n)); };
  for (Node n = root;;) {
    const K k = kind(n);
    const K parent_kind = depth > 0 ? ctx[depth - 1].kind : K::Other;
    ctx[depth].kind = k;
    Ctx child = ctx[depth];
    if (has_error && (is_error(n) || is_missing(n)) && fm.errors.size() < kMaxSyntaxErrors) {
      FileError e;
      e.path = fm.path;
      e.fatal = true;
      e.position = src.position(start_point(n));
      if (is_missing(n)) {
        e.message = "syntax error: missing '" + std::string(type(n)) + "'";
      } else {
        std::string t = text(n);
        if (auto nl = t.find('\n'); nl != std::string::npos) t.resize(nl);
        if (t.size() > 30) t = t.substr(0, 30) + "...";
        e.message = t.empty() ? "syntax error: invalid syntax" : "syntax error: unexpected '" + t + "'";
      }
      fm.errors.push_back(std::move(e));
    }
    if (k == K::Comment) {
      fm.comments.push_back(Comment{src.position(start_point(n)), src.position(end_point(n)), text(n)});
    } else if (k == K::FunctionDefinition) {
      FuncInfo fi;
      fi.file = file;
      fi.node = n;
      fi.name = text(field(n, "name"));
      fi.qualname = prefixes[ctx[depth].prefix] + fi.name;
      fi.cls = ctx[depth].cls;
      fi.parent = ctx[depth].func;
      bool is_static = false;
      Node parent = parent_kind == K::DecoratedDefinition ? ancestors.back() : Node{};
      if (!null(parent))
        for (Node parent_i : named_children(parent))
          if (kind(parent_i) == K::Decorator && src.text(parent_i).find("staticmethod") != std::string_view::npos)
            is_static = true;
      fi.bound_first = fi.cls >= 0 && !is_static;
      Node name_node = field(n, "name");
      fi.name_range = src.range(null(name_node) ? n : name_node);
      read_function(fi, n, src);
      const int id = static_cast<int>(li.funcs.size());
      if (fi.parent >= 0) li.funcs[fi.parent].has_nested = true;
      if (fi.cls >= 0) li.classes[fi.cls].methods.emplace(fi.name, id);
      else if (fi.parent < 0) fm.top_funcs.emplace(fi.name, id);
      prefixes.push_back(fi.qualname + ".");
      child = Ctx{-1, id, static_cast<int>(prefixes.size() - 1), K::Other};
      li.funcs.push_back(std::move(fi));
    } else if (k == K::ClassDefinition) {
      ClassInfo ci;
      ci.file = file;
      ci.node = n;
      ci.name = text(field(n, "name"));
      Node sup = field(n, "superclasses");
      for (Node sup_i : named_children(sup))
        if (kind(sup_i) != K::KeywordArgument) ci.bases.push_back(text(sup_i));
      const int id = static_cast<int>(li.classes.size());
      if (ctx[depth].func < 0 && ctx[depth].cls < 0) fm.top_classes.emplace(ci.name, id);
      prefixes.push_back(prefixes[ctx[depth].prefix] + ci.name + ".");
      child = Ctx{id, ctx[depth].func, static_cast<int>(prefixes.size() - 1), K::Other};
      li.classes.push_back(std::move(ci));
    } else if (k == K::ImportStatement) {
      for (Node n_i : named_children(n)) {
        Node item = n_i;
        if (kind(item) == K::DottedName) {
          std::string full = text(item);
          std::string first = full.substr(0, full.find('.'));
          fm.raw_imports.push_back({first, 0, first, {}});
        } else if (kind(item) == K::AliasedImport) {
          fm.raw_imports.push_back({text(field(item, "alias")), 0, text(field(item, "name")), {}});
        }
      }
    } else if (k == K::ImportFromStatement) {
      Node mod = field(n, "module_name");
      int level = 0;
      std::string module;
      if (kind(mod) == K::RelativeImport) {
        for (Node mod_i : named_children(mod)) {
          Node part = mod_i;
          if (kind(part) == K::ImportPrefix) level = static_cast<int>(src.text(part).size());
          else if (kind(part) == K::DottedName) module = text(part);
        }
      } else if (!null(mod)) {
        module = text(mod);
      }
      for (Node n_i : named_children(n)) {
        Node item = n_i;
        if (item == mod) continue;
        if (kind(item) == K::DottedName) {
          const std::string name = text(item);
          fm.raw_imports.push_back({name, level, module, name});
        } else if (kind(item) == K::AliasedImport) {
          fm.raw_imports.push_back({text(field(item, "alias")), level, module, text(field(item, "name"))});
        }
      }
    }
    // A node on one line can hold a comment only as its last token, and tree-sitter leaves trailing comments to
    // the parent: one-line expressions and simple statements hold nothing to index unless they hold an error.
    const bool skip = single_line_leaf_kind(k) && start_point(n).row == end_point(n).row &&
                      !(has_error && python::has_error(n));
    if (Node first = skip ? Node{} : first_child(n); !null(first)) {
      ancestors.push_back(n);
      ++depth;
      if (ctx.size() <= depth) ctx.resize(depth + 1);
      ctx[depth] = child;
      n = first;
      continue;
    }
    // The next sibling of the node or of its nearest ancestor that has one.
    Node next = next_sibling(n);
    while (null(next) && !ancestors.empty()) {
      next = next_sibling(ancestors.back());
      ancestors.pop_back();
      --depth;
    }
    if (null(next)) break;
    n = next;
  }
}

bool is_module_base(const std::string& base) {
  return base.ends_with("Module") || base.ends_with("LightningModule") || base == "nn.Module";
}

void resolve_imports(Project& p, int file, const std::unordered_map<std::string, int>& by_path) {
  FileModel& fm = p.files[file];
  auto dir_of = [](const std::string& path) {
    const auto slash = path.rfind('/');
    return slash == std::string::npos ? std::string() : path.substr(0, slash);
  };
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

// Is `name` bound to the same value in both maps (absent counts as unknown)?
template <class Map>
bool same_entry(const Map& a, const Map& b, const std::string& name) {
  auto ia = a.find(name), ib = b.find(name);
  const Value none;
  return (ia == a.end() ? none : ia->second).same(ib == b.end() ? none : ib->second);
}

void size_summaries(Summaries& s, const Project& p) {
  s.funcs.assign(p.funcs.size(), FuncSummary{});
  s.class_attrs.assign(p.classes.size(), {});
  s.globals.assign(p.files.size(), {});
}

// Joins the call sites' arguments into each callee's parameter facts (sized only for functions that have a
// call site: an absent fact and an unknown one read the same).
void parameter_facts(Project& p, const std::vector<const CallEdge*>& edges) {
  for (FuncSummary& s : p.next.funcs) {
    s.params.clear();
    s.param_known.clear();
  }
  auto add = [&](FuncSummary& s, std::size_t i, const Value& v) {
    if (i >= s.params.size()) return;
    s.params[i] = s.param_known[i] ? join(s.params[i], v) : v;
    s.param_known[i] = true;
  };
  for (const CallEdge* ep : edges) {
    const CallEdge& e = *ep;
    if (e.callee < 0) continue;
    const FuncInfo& fi = p.funcs[e.callee];
    FuncSummary& s = p.next.funcs[e.callee];
    if (s.params.empty()) {
      s.params.resize(fi.params.size());
      s.param_known.resize(fi.params.size(), false);
    }
    const std::size_t offset = (e.bound_self && fi.bound_first) ? 1 : 0;
    for (std::size_t i = 0; i < e.positional.size(); ++i) add(s, i + offset, e.positional[i]);
    for (const auto& [k, v] : e.keywords) {
      auto it = std::find(fi.params.begin(), fi.params.end(), k);
      if (it != fi.params.end()) add(s, static_cast<std::size_t>(it - fi.params.begin()), v);
    }
  }
}

// The hot context of every function from the call edges; FuncHeat::via indexes `edges`.
// How many parameter tensors an instance of each project nn.Module class has, from this round's class
// attributes (its own and its bases'): the sum over the attributes that hold modules, unknown (-1) when
// one of them is, or an attribute could be one (its value is unknown), or the class has none yet. Kept as
// the pseudo attribute kParametersAttr, so that the walks read it like any attribute and files that made
// an instance are walked again when it changes.
void count_module_parameters(Project& p) {
  for (std::size_t c = 0; c < p.classes.size(); ++c) {
    if (!p.classes[c].is_module) continue;
    int total = 0;
    bool any = false;
    for (int k = static_cast<int>(c), depth = 0; k >= 0 && depth < 16 && total >= 0; ++depth) {
      for (const auto& [name, v] : p.next.class_attrs[k]) {
        if (name == kParametersAttr) continue;
        any = true;
        if (v.kind == VK::Unknown || (v.kind == VK::Module && v.count < 0)) total = -1;
        else if (v.kind == VK::Module && total >= 0) total += v.count;
      }
      k = p.classes[k].base_ids.empty() ? -1 : p.classes[k].base_ids.front();
    }
    Value count = Value::host(true);
    count.count = any ? total : -1;
    p.next.class_attrs[c][kParametersAttr] = count;
  }
}

std::vector<FuncHeat> compute_heat(const Project& p, const std::vector<const CallEdge*>& edges) {
  std::vector<FuncHeat> h(p.funcs.size());
  const auto& hot = p.options->hot_functions;
  for (std::size_t f = 0; f < p.funcs.size(); ++f) {
    const FuncInfo& fi = p.funcs[f];
    if (!fi.module_body && std::find(hot.begin(), hot.end(), fi.name) != hot.end()) h[f] = {Heat::Hot, -1, true};
  }
  for (int iter = 0; iter < 64; ++iter) {
    bool changed = false;
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const CallEdge& e = *edges[i];
      if (e.callee < 0 || e.caller < 0) continue;
      Heat eh = e.lex.in_loop ? e.lex.heat : h[e.caller].heat;
      if (!e.lex.in_loop && e.lex.periodic && eh == Heat::Hot) eh = Heat::Periodic;
      if (eh > h[e.callee].heat) {
        h[e.callee] = FuncHeat{eh, static_cast<int>(i), false};
        changed = true;
      }
    }
    if (!changed) break;
  }
  return h;
}

}  // namespace

std::vector<FileResult> analyze_project(const std::vector<SourceFile>& files, const Options& options) {
  std::vector<FileResult> results(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) results[i].path = files[i].path;
  if (files.empty()) return results;
  use_tree_allocator();

  Project p;
  p.options = &options;
  p.catalog = options.catalog ? options.catalog : &Catalog::builtin();
  p.files.resize(files.size());

  // Display paths: relative to the folder all files share.
  std::string common = files[0].path.substr(0, files[0].path.rfind('/') + 1);
  for (const SourceFile& f : files)
    while (!common.empty() && !f.path.starts_with(common)) {
      common.pop_back();
      common = common.substr(0, common.rfind('/') + 1);
    }
  for (std::size_t i = 0; i < files.size(); ++i) {
    FileModel& fm = p.files[i];
    fm.path = files[i].path;
    fm.display = fm.path.substr(common.size());
    p.display_of[fm.path] = fm.display;
  }

  std::size_t total_bytes = 0;
  for (const SourceFile& f : files) total_bytes += f.text.size();
  // Files are parsed and walked largest first, so that the threads end together.
  std::vector<std::size_t> by_size(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) by_size[i] = i;
  std::stable_sort(by_size.begin(), by_size.end(),
                   [&](std::size_t a, std::size_t b) { return files[a].text.size() > files[b].text.size(); });

  // Parse and index, one parser per thread. Each file's tree is kept (compact, a few tens of bytes per
  // node) for all the rounds.
  const unsigned jobs = std::max(1u, options.jobs);
  std::vector<std::unique_ptr<Parser>> parsers(std::min<std::size_t>(jobs, files.size()));
  std::vector<LocalIndex> locals(files.size());
  parallel_for(files.size(), jobs, [&](std::size_t k, unsigned t) {
    const std::size_t i = by_size[k];
    if (!parsers[t]) parsers[t] = std::make_unique<Parser>();
    FileModel& fm = p.files[i];
    const std::string& text = files[i].text;
    fm.src = std::make_unique<SourceText>(fm.path, text);
    fm.tree = parsers[t]->parse(text);
    if (!fm.tree) {
      fm.errors.push_back(FileError{fm.path, "could not parse the file", true, std::nullopt});
      fm.tree = parsers[t]->parse("");
    }
    index_file(fm, locals[i], static_cast<int>(i));
  });
  parsers.clear();

  // Global ids.
  std::size_t func_count = 0, class_count = 0;
  for (const LocalIndex& li : locals) {
    func_count += li.funcs.size();
    class_count += li.classes.size();
  }
  p.funcs.reserve(func_count);
  p.classes.reserve(class_count);
  for (std::size_t i = 0; i < files.size(); ++i) {
    FileModel& fm = p.files[i];
    const int fbase = static_cast<int>(p.funcs.size());
    const int cbase = static_cast<int>(p.classes.size());
    for (FuncInfo& fi : locals[i].funcs) {
      if (fi.cls >= 0) fi.cls += cbase;
      if (fi.parent >= 0) fi.parent += fbase;
      p.funcs.push_back(std::move(fi));
    }
    for (ClassInfo& ci : locals[i].classes) {
      for (auto& [name, id] : ci.methods) id += fbase;
      p.classes.push_back(std::move(ci));
    }
    fm.module_func = fbase;
    for (std::size_t f = 1; f < locals[i].funcs.size(); ++f) fm.funcs.push_back(fbase + static_cast<int>(f));
    locals[i] = LocalIndex{};  // moved from: its memory goes back for the rounds
    for (auto& [name, id] : fm.top_funcs) id += fbase;
    for (auto& [name, id] : fm.top_classes) id += cbase;
  }

  // Module index and imports.
  std::unordered_map<std::string, int> by_path;
  for (std::size_t i = 0; i < files.size(); ++i) {
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
  for (std::size_t i = 0; i < files.size(); ++i) resolve_imports(p, static_cast<int>(i), by_path);
  for (ClassInfo& ci : p.classes) {
    for (const std::string& base : ci.bases) {
      const std::string last = base.substr(base.rfind('.') == std::string::npos ? 0 : base.rfind('.') + 1);
      int id = -1;
      const FileModel& fm = p.files[ci.file];
      if (auto it = fm.top_classes.find(base); it != fm.top_classes.end()) id = it->second;
      if (auto it = fm.imports.find(base); id < 0 && it != fm.imports.end() && it->second.file >= 0) {
        const FileModel& other = p.files[it->second.file];
        if (auto jt = other.top_classes.find(it->second.symbol.empty() ? last : it->second.symbol);
            jt != other.top_classes.end())
          id = jt->second;
      }
      if (id >= 0) ci.base_ids.push_back(id);
      if (is_module_base(base)) ci.is_module = true;
    }
  }
  for (int pass = 0; pass < 8; ++pass)
    for (ClassInfo& ci : p.classes)
      for (int b : ci.base_ids)
        if (p.classes[b].is_module) ci.is_module = true;

  // Rounds of walks until the summaries and the heat are stable. After the first round only the files
  // that read something that changed are walked again; the others keep their output and summaries.
  size_summaries(p.prev, p);
  p.heat = compute_heat(p, {});
  std::vector<FileOutput> outputs(files.size());
  std::vector<char> dirty(files.size(), 1);
  std::vector<char> func_dirty(p.funcs.size(), 0);  // after a round: something the function read changed
  std::vector<char> again(files.size(), 0);         // walked only in part (walk_file_again)

  std::vector<std::vector<int>> funcs_of(files.size()), classes_of(files.size());
  for (std::size_t f = 0; f < p.funcs.size(); ++f) funcs_of[p.funcs[f].file].push_back(static_cast<int>(f));
  for (std::size_t c = 0; c < p.classes.size(); ++c) classes_of[p.classes[c].file].push_back(static_cast<int>(c));
  for (int round = 0; round < kMaxRounds; ++round) {
    size_summaries(p.next, p);
    // After the first round, a file walked again keeps the output of its functions that need no new walk.
    std::vector<std::size_t> todo;
    for (std::size_t i : by_size) {
      again[i] = 0;
      if (dirty[i]) {
        todo.push_back(i);
        if (round == 0) continue;
        again[i] = 1;
      }
      for (int f : funcs_of[i]) p.next.funcs[f] = p.prev.funcs[f];
      if (!again[i])
        for (int c : classes_of[i]) p.next.class_attrs[c] = p.prev.class_attrs[c];
      p.next.globals[i] = p.prev.globals[i];
    }
    parallel_for(todo.size(), jobs, [&](std::size_t k, unsigned) {
      const std::size_t i = todo[k];
      if (again[i]) {
        walk_file_again(p, static_cast<int>(i), std::move(outputs[i]), func_dirty, outputs[i]);
      } else {
        outputs[i] = FileOutput{};
        walk_file(p, static_cast<int>(i), true, outputs[i]);
      }
    });
    count_module_parameters(p);
    std::vector<const CallEdge*> edges;
    for (const FileOutput& o : outputs)
      for (const CallEdge& e : o.edges) edges.push_back(&e);
    parameter_facts(p, edges);
    std::vector<FuncHeat> heat = compute_heat(p, edges);
    // The next round reads only the edges that made functions hot (Walker::chain), while the files it walks
    // again replace their edges: those are copied, and `via` points at the copies.
    p.edges.clear();
    std::unordered_map<int, int> copied;
    for (FuncHeat& h : heat) {
      if (h.via < 0) continue;
      auto [it, added] = copied.emplace(h.via, static_cast<int>(p.edges.size()));
      if (added) p.edges.push_back(*edges[h.via]);
      h.via = it->second;
    }

    // What changed, and which files read it.
    // A changed result or effect matters to the callers; changed parameter facts, or a changed heat of a
    // function that has sites to report, matter to the function's own file.
    std::vector<char> result_changed(p.funcs.size(), 0), own_changed(p.funcs.size(), 0),
        class_changed(p.classes.size(), 0), globals_changed(files.size(), 0);
    bool any = false;
    for (std::size_t f = 0; f < p.funcs.size(); ++f) {
      const FuncSummary &a = p.prev.funcs[f], &b = p.next.funcs[f];
      // Compared as the walks read them: an unknown return or argument is the same as none.
      result_changed[f] = result_differs(a, b);
      const bool heat_changed = heat[f].heat != p.heat[f].heat || heat[f].callback != p.heat[f].callback;
      auto param = [](const FuncSummary& s, std::size_t j) {
        return j < s.param_known.size() && s.param_known[j] ? s.params[j] : Value{};
      };
      bool params_changed = false;
      for (std::size_t j = 0; !params_changed && j < std::max(a.params.size(), b.params.size()); ++j)
        params_changed = !param(a, j).same(param(b, j));
      own_changed[f] = params_changed || (heat_changed && b.reports);
      any = any || result_changed[f] || own_changed[f] || heat_changed;
    }
    for (std::size_t c = 0; c < p.classes.size(); ++c) {
      class_changed[c] = !same_env(p.prev.class_attrs[c], p.next.class_attrs[c]);
      any = any || class_changed[c];
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
      globals_changed[i] = !same_env(p.prev.globals[i], p.next.globals[i]);
      any = any || globals_changed[i];
    }
    // A file is walked again when something it read changed: a callee's result, its own parameter facts or
    // heat, a class attribute or a module-level name of another file.
    // The function that read it is marked too (walk_file_again walks only what must be).
    std::size_t dirty_bytes = 0;
    std::fill(func_dirty.begin(), func_dirty.end(), 0);
    for (std::size_t i = 0; any && i < files.size(); ++i) {
      bool d = false;
      auto mark = [&](int f) {
        d = true;
        func_dirty[f] = 1;
      };
      for (int f : funcs_of[i])
        if (own_changed[f]) mark(f);
      for (const CallEdge& e : outputs[i].edges)
        if (e.callee >= 0 && result_changed[e.callee]) mark(e.caller);
      for (const auto& [f, c, name] : outputs[i].read_classes)
        if (class_changed[c] && !same_entry(p.prev.class_attrs[c], p.next.class_attrs[c], name)) mark(f);
      for (const auto& [f, g, name] : outputs[i].read_globals)
        if (globals_changed[g] && !same_entry(p.prev.globals[g], p.next.globals[g], name)) mark(f);
      dirty[i] = d;
      if (!d) continue;
      dirty_bytes += files[i].text.size();
      // In a file walked again, summaries read without a call edge (batch-loop tests) count too.
      for (const auto& [f, g] : outputs[i].read_funcs)
        if (result_changed[g]) func_dirty[f] = 1;
    }
    p.prev = std::move(p.next);
    p.heat = std::move(heat);
    if (!any) break;
    if (round + 1 >= kFullRounds && dirty_bytes > std::max(kSmallRoundBytes, total_bytes / 4)) break;
  }

  // Results, and the trees freed, on all threads.
  parallel_for(files.size(), jobs, [&](std::size_t i, unsigned) {
    FileModel& fm = p.files[i];
    FileResult& r = results[i];
    r.findings = std::move(outputs[i].findings);
    std::sort(r.findings.begin(), r.findings.end(), finding_less);
    r.comments = std::move(fm.comments);
    r.errors = std::move(fm.errors);
    fm.tree.reset();
  });
  return results;
}

}  // namespace synclint::python
