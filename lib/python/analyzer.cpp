// analyze_project: parse every file (in parallel, one parser per thread), index functions, classes and
// imports, link the project (project.cpp), then walk all files in rounds (rounds.cpp) until the shared
// summaries (return values, parameter facts, class attributes, effects) and the hot context of every
// function stop changing; the last round's findings are the result.
#include "python/analyzer.h"

#include <algorithm>

#include "core/catalog.h"
#include "core/parallel.h"
#include "python/cpu_only.h"
#include "python/parsed_file.h"
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

// Functions, classes, imports and comments of one file: one iterative pass.
void index_file(ParsedFile& fm) {
  ParsedFile& li = fm;
  const SourceText& src = *fm.src;
  const Node root = fm.tree->root();
  FuncInfo module;
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
      const Node named = null(name_node) ? n : name_node;
      fi.name_span = Span{src.position(start_point(named)), src.position(end_point(named))};
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

void parse_file(ParsedFile& file, const std::string& text, Parser& parser) {
  file.src = std::make_shared<const SourceText>(file.path, text);
  std::string parse_error;
  std::shared_ptr<const SyntaxTree> tree;
  if (file.reparse) tree = parser.parse_again(text, file.reparse->tree, &parse_error);
  else tree = parser.parse(text, &parse_error);
  const std::vector<LooseEnd> ends = tree ? parser.loose_last() : std::vector<LooseEnd>{};
  if (!tree) {
    file.errors.push_back(FileError{file.path, parse_error, true, std::nullopt});
    tree = parser.parse("");
  }
  file.tree = std::move(tree);
  if (has_error(file.tree->root()) || !ends.empty())
    file.errors = syntax_errors(*file.tree, *file.src, kMaxSyntaxErrors, ends);
  index_file(file);
  file.names_device = std::make_shared<std::atomic<signed char>>(-1);
}

namespace {

// Indexes of `sizes` from the largest to the smallest (stable): files are parsed and walked in that order,
// so that the threads end together.
std::vector<std::size_t> largest_first(const std::vector<std::size_t>& sizes) {
  std::vector<std::size_t> order(sizes.size());
  for (std::size_t i = 0; i < sizes.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return sizes[a] > sizes[b]; });
  return order;
}

}  // namespace

void parse_files(const std::vector<const std::string*>& texts, const std::vector<ParsedFile*>& out, unsigned jobs,
                 const std::function<bool()>* stop) {
  use_tree_allocator();
  std::vector<std::size_t> sizes(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) sizes[i] = texts[i]->size();
  const std::vector<std::size_t> order = largest_first(sizes);
  jobs = std::max(1u, jobs);
  // One parser per thread.
  std::vector<std::unique_ptr<Parser>> parsers(std::min<std::size_t>(jobs, texts.size()));
  parallel_for(texts.size(), jobs, [&](std::size_t k, unsigned t) {
    const std::size_t i = order[k];
    if (!parsers[t]) {
      parsers[t] = std::make_unique<Parser>();
      parsers[t]->set_stop(stop);
    }
    parse_file(*out[i], *texts[i], *parsers[t]);
  });
}

void add_depth_cut(FileResult& r, std::uint32_t depth_cut_line) {
  if (depth_cut_line == 0) return;
  r.errors.push_back(FileError{r.path,
                               "expressions here are nested more than " + std::to_string(walk::kMaxDepth) +
                                   " levels deep: the analysis stops at that depth, and reads nested deeper are not "
                                   "checked",
                               false, Position{depth_cut_line, 1}});
}

void finish_result(FileResult& r, std::vector<Finding> findings, bool cpu_only, std::uint32_t depth_cut_line) {
  if (cpu_only) std::erase_if(findings, [](const Finding& f) { return f.confidence == Confidence::Low; });
  add_depth_cut(r, depth_cut_line);
  std::sort(findings.begin(), findings.end(), finding_less);
  r.findings = std::move(findings);
}

std::vector<Finding> kept_findings(const KeptOutput& kept) {
  std::vector<Finding> findings = kept.out->findings;
  if (kept.chains) python::apply(chain_rewrites(*kept.out, *kept.chains), findings);
  return findings;
}

std::vector<FileResult> analyze_parsed(const std::vector<ParsedFile*>& files, const Options& options, bool consume,
                                       PartialRun* partial) {
  std::vector<FileResult> results(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) results[i].path = files[i]->path;
  if (files.empty()) return results;

  Project p;
  p.options = &options;
  p.catalog = options.catalog ? options.catalog : &Catalog::builtin();
  p.files.resize(files.size());

  // Display paths: relative to the folder all files share.
  std::string common = files[0]->path.substr(0, files[0]->path.rfind('/') + 1);
  for (const ParsedFile* f : files)
    while (!common.empty() && !f->path.starts_with(common)) {
      common.pop_back();
      common = common.substr(0, common.rfind('/') + 1);
    }

  // Global ids. Each file's tree is kept (compact, a few tens of bytes per node) for all the rounds.
  std::size_t func_count = 0, class_count = 0;
  for (const ParsedFile* f : files) {
    func_count += f->funcs.size();
    class_count += f->classes.size();
  }
  p.funcs.reserve(func_count);
  p.classes.reserve(class_count);
  std::vector<std::size_t> sizes(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    ParsedFile& pf = *files[i];
    FileModel& fm = p.files[i];
    fm.path = pf.path;
    fm.display = fm.path.substr(common.size());
    fm.src = pf.src;
    fm.tree = pf.tree;
    sizes[i] = pf.src->text().size();
    const int file = static_cast<int>(i);
    const int fbase = static_cast<int>(p.funcs.size());
    const int cbase = static_cast<int>(p.classes.size());
    for (FuncInfo& local : pf.funcs) {
      FuncInfo& fi = p.funcs.emplace_back(consume ? std::move(local) : local);
      fi.file = file;
      if (fi.cls >= 0) fi.cls += cbase;
      if (fi.parent >= 0) fi.parent += fbase;
    }
    for (ClassInfo& local : pf.classes) {
      ClassInfo& ci = p.classes.emplace_back(consume ? std::move(local) : local);
      ci.file = file;
      for (auto& [name, id] : ci.methods) id += fbase;
    }
    fm.module_func = fbase;
    for (std::size_t f = 1; f < pf.funcs.size(); ++f) fm.funcs.push_back(fbase + static_cast<int>(f));
    fm.top_funcs = consume ? std::move(pf.top_funcs) : pf.top_funcs;
    fm.top_classes = consume ? std::move(pf.top_classes) : pf.top_classes;
    for (auto& [name, id] : fm.top_funcs) id += fbase;
    for (auto& [name, id] : fm.top_classes) id += cbase;
    fm.raw_imports = consume ? std::move(pf.raw_imports) : pf.raw_imports;
    fm.comments = consume ? std::move(pf.comments) : pf.comments;
    fm.errors = consume ? std::move(pf.errors) : pf.errors;
    fm.names_device = pf.names_device;
    if (consume) pf = ParsedFile{};  // its memory goes back for the rounds (the file model shares the tree)
  }
  link_project(p);
  const unsigned jobs = std::max(1u, options.jobs);
  std::vector<char> active;
  if (partial && partial->choose) active = partial->choose(p);
  RoundsRun run;
  run.active = active.empty() ? nullptr : &active;
  run.memo = partial ? partial->memo : nullptr;
  std::vector<FileOutput> outputs = run_rounds(p, largest_first(sizes), jobs, &run);
  auto output = [&](std::size_t i) -> const FileOutput& { return run.replayed[i] ? *run.replayed[i].out : outputs[i]; };
  // Notes on values of unknown device, in programs that never place data on a GPU, are dropped.
  std::vector<char> unknown_device(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i)
    if (active.empty() || active[i])
      for (const Finding& f : output(i).findings) unknown_device[i] = unknown_device[i] || f.confidence == Confidence::Low;
  const std::vector<char> cpu_only = cpu_only_programs(p, unknown_device);
  std::vector<char> same(files.size(), 0);
  if (partial && partial->same_result)
    for (std::size_t i = 0; i < files.size(); ++i)
      same[i] = (active.empty() || active[i]) &&
                partial->same_result(i, run.replayed[i], cpu_only[i]);
  // Files not wanted whose walks took kept outputs: their results are made when asked.
  std::vector<char> deferred(files.size(), 0);
  if (partial && partial->wanted)
    for (std::size_t i = 0; i < files.size(); ++i)
      deferred[i] = run.replayed[i] && !same[i] && (active.empty() || active[i]) && !partial->wanted(i);
  // Results, and the trees and the walks' outputs freed, on all threads when there are many to make (a few
  // are made faster on this thread than handed to others, which then free what this one allocated).
  constexpr std::size_t kManyResults = 64;
  std::size_t to_make = 0;
  for (std::size_t i = 0; i < files.size(); ++i) to_make += (active.empty() || active[i]) && !same[i] && !deferred[i];
  parallel_for(files.size(), to_make >= kManyResults ? jobs : 1, [&](std::size_t i, unsigned) {
    if (!active.empty() && !active[i]) return;
    FileModel& fm = p.files[i];
    FileResult& r = results[i];
    if (same[i]) {
      fm.tree.reset();
      return;
    }
    r.errors = std::move(fm.errors);
    if (deferred[i]) {
      add_depth_cut(r, output(i).depth_cut_line);
    } else {
      r.comments = std::move(fm.comments);
      finish_result(r, run.replayed[i] ? kept_findings(run.replayed[i]) : std::move(outputs[i].findings), cpu_only[i],
                    output(i).depth_cut_line);
    }
    fm.tree.reset();
    outputs[i] = FileOutput{};
  });
  if (partial) {
    partial->group_of = std::move(run.group_of);
    partial->replayed = std::move(run.replayed);
    partial->cpu_only = cpu_only;
    partial->same = std::move(same);
    partial->deferred = std::move(deferred);
  }
  // The project's largest parts are freed on all threads too, when it is large.
  constexpr std::size_t kLargeProject = 16384;  // functions
  parallel_for(3, p.funcs.size() >= kLargeProject ? jobs : 1, [&](std::size_t part, unsigned) {
    if (part == 0) p.prev = Summaries{};
    else if (part == 1) p.funcs = {};
    else p.files = {};
  });
  return results;
}

std::vector<FileResult> analyze_project(const std::vector<SourceFile>& files, const Options& options) {
  std::vector<ParsedFile> parsed(files.size());
  std::vector<ParsedFile*> ptrs(files.size());
  std::vector<const std::string*> texts(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) {
    parsed[i].path = files[i].path;
    ptrs[i] = &parsed[i];
    texts[i] = &files[i].text;
  }
  parse_files(texts, ptrs, options.jobs);
  return analyze_parsed(ptrs, options, /*consume=*/true);
}

}  // namespace synclint::python
