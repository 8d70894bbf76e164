// analyze_project: parse every file (in parallel, one parser per thread), index functions, classes and
// imports, link the project (project.cpp), then walk all files in rounds (rounds.cpp) until the shared
// summaries (return values, parameter facts, class attributes, effects) and the hot context of every
// function stop changing; the last round's findings are the result.
#include "python/analyzer.h"

#include <algorithm>

#include "core/catalog.h"
#include "core/parallel.h"
#include "python/project.h"
#include "python/rounds.h"
#include "python/syntax_errors.h"
#include "python/walker_internal.h"

namespace synclint::python {
namespace {

constexpr std::size_t kMaxSyntaxErrors = 5;

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
    std::string parse_error;
    fm.tree = parsers[t]->parse(text, &parse_error);
    if (!fm.tree) {
      fm.errors.push_back(FileError{fm.path, parse_error, true, std::nullopt});
      fm.tree = parsers[t]->parse("");
    }
    if (has_error(fm.tree->root())) fm.errors = syntax_errors(*fm.tree, *fm.src, kMaxSyntaxErrors);
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

  link_project(p);
  std::vector<FileOutput> outputs = run_rounds(p, by_size, jobs);

  // Results, and the trees freed, on all threads.
  parallel_for(files.size(), jobs, [&](std::size_t i, unsigned) {
    FileModel& fm = p.files[i];
    FileResult& r = results[i];
    r.findings = std::move(outputs[i].findings);
    if (const std::uint32_t line = outputs[i].depth_cut_line)
      fm.errors.push_back(FileError{fm.path,
                                    "expressions here are nested more than " + std::to_string(walk::kMaxDepth) +
                                        " levels deep: the analysis stops at that depth, and reads nested deeper "
                                        "are not checked",
                                    false, Position{line, 1}});
    std::sort(r.findings.begin(), r.findings.end(), finding_less);
    r.comments = std::move(fm.comments);
    r.errors = std::move(fm.errors);
    fm.tree.reset();
  });
  return results;
}

}  // namespace synclint::python
