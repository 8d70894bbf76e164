// The project index: every file's tree, functions, classes and imports; the summaries the device inference
// shares across files (return values, parameter facts, class attributes, module globals, effects); the call
// edges and the hot context ("heat") of every function.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/finding.h"
#include "core/suppressions.h"
#include "python/analyzer.h"
#include "python/syntax.h"
#include "python/value.h"

namespace synclint::python {

using Env = std::unordered_map<std::string, Value>;

// How often code runs, from cold to every step. Periodic and Epoch are reported as notes.
enum class Heat : std::uint8_t { Cold = 0, Epoch = 1, Periodic = 2, Hot = 3 };

struct Span {
  Position begin;
  Position end;
};

// A file of a project: its path, and its path as messages name it (relative to the folder all files share).
struct FilePlace {
  std::string path;
  std::string display;
};
using FilePlaces = std::vector<FilePlace>;

struct FuncInfo {
  int file = -1;
  Node node{};                // function_definition (the module root for a file's top level)
  Span name_span;             // the name in `def name(...)`, in its file
  std::string name;           // "train_step", "<module>"
  std::string qualname;       // "Trainer.train_step"
  int cls = -1;               // class whose body defines it directly
  int parent = -1;            // enclosing function (nested def), -1 at top level
  bool module_body = false;
  bool bound_first = false;   // a method whose first parameter is self/cls when called on an instance
  bool has_nested = false;    // defines functions inside (they see its final environment)
  // Its parameters as written, and each one's default (null when none): shared by the analyses that copy
  // the file's index (read_function writes them once).
  struct Signature {
    std::vector<std::string> params;
    std::vector<Node> defaults;
  };
  std::shared_ptr<const Signature> signature;
  const std::vector<std::string>& params() const { return (signature ? *signature : kNoSignature).params; }
  const std::vector<Node>& defaults() const { return (signature ? *signature : kNoSignature).defaults; }
  static const Signature kNoSignature;
};

struct ClassInfo {
  int file = -1;
  Node node{};
  std::string name;
  std::vector<std::string> bases;  // as written
  std::vector<int> base_ids;       // project classes among the bases
  std::vector<int> subclasses;     // project classes that name this one among their bases
  bool is_module = false;          // an nn.Module / LightningModule subclass
  std::unordered_map<std::string, int> methods;
};

// An import as written, resolved to a project file where possible.
struct Binding {
  std::string dotted;   // canonical dotted name ("torch.nn.functional", "utils.log_stats")
  int file = -1;        // project module file, when the name is a project module or a symbol in one
  std::string symbol;   // symbol inside `file` ("log_stats"), empty for the module itself
};

struct FileModel {
  std::string path;
  std::string display;  // path used in messages (relative to the project's common folder)
  std::shared_ptr<const SourceText> src;  // refers to the caller's text, alive during the analysis
  std::shared_ptr<const SyntaxTree> tree;  // built once, alive until the results are made (or kept)
  int module_func = -1;
  std::vector<int> funcs;  // in pre-order (parents before nested functions)
  std::unordered_map<std::string, Binding> imports;
  std::unordered_map<std::string, int> top_funcs, top_classes;
  std::vector<Comment> comments;
  std::vector<FileError> errors;
  // Whether the file's code names a device (cpu_only.h): -1 until asked, then 0 or 1. Shared with the parse
  // it comes from, which the language server keeps while the text stays the same.
  std::shared_ptr<std::atomic<signed char>> names_device;
  // Raw imports before resolution: (alias, level, module, symbol)
  struct RawImport {
    std::string alias;
    int level = 0;
    std::string module;
    std::string symbol;  // empty for `import module`
  };
  std::vector<RawImport> raw_imports;
};

// A range in the file of the function that holds it (call edges keep no path: there are many of them).
// Where a call sits in its caller, as far as the caller's own loops and guards tell.
struct Lexical {
  Heat heat = Heat::Cold;
  bool in_loop = false;
  Span loop;
  bool periodic = false;
  Span guard;
  bool once = false;  // under a once-only guard: the callee does not take the caller's heat
};

struct CallEdge {
  int caller = -1;
  int callee = -1;
  Span call;
  Lexical lex;
  bool bound_self = false;
  std::vector<Value> positional;
  std::vector<std::pair<std::string, Value>> keywords;
};

struct FuncSummary {
  Value ret;
  bool returns = false;
  bool gpu_work = false;
  bool syncs = false;
  bool batch_loop = false;         // holds a loop over a data loader (a loop calling it is an epoch loop)
  bool periodic_return = false;    // returns a periodic test (`return step % every == 0`)
  bool reports = false;            // a rule judged a site of it as syncing (its heat decides the finding)
  std::vector<Value> params;       // joined over the call sites (set between rounds)
  std::vector<bool> param_known;
};

// Does a caller read a different result from `b` than from `a` (return value, GPU work, syncs, batch loop,
// periodic test)?
// An unknown return reads the same as none.
bool result_differs(const FuncSummary& a, const FuncSummary& b);

struct Summaries {
  std::vector<FuncSummary> funcs;
  std::vector<std::unordered_map<std::string, Value>> class_attrs;
  std::vector<Env> globals;  // per file: module-level values at the end of the module
};

// Are two environments the same, name by name (Value::same)?
bool same_env(const Env& a, const Env& b);

struct FuncHeat {
  Heat heat = Heat::Cold;
  int via = -1;           // call edge that made it hot
  bool callback = false;  // a per-step callback by name
};

// Fills fi.node, fi.params and fi.defaults from a function_definition node.
void read_function(FuncInfo& fi, Node def, const SourceText& src);

struct Project {
  const Options* options = nullptr;
  const Catalog* catalog = nullptr;
  std::vector<FileModel> files;
  std::vector<FuncInfo> funcs;
  std::vector<ClassInfo> classes;
  std::unordered_map<std::string, std::vector<int>> module_index;  // dotted suffix -> files

  Summaries prev;   // read during a round
  Summaries next;   // written during a round (each file writes only its own entries)
  std::vector<CallEdge> edges;  // the call edges that made functions hot (FuncHeat::via), of the last round
  std::vector<FuncHeat> heat;

  // A project module named `dotted` as seen from `importer`, or -1.
  int find_module(const std::string& dotted, int importer) const;
  // A method `name` on class `cls` or its project bases, or -1.
  int find_method(int cls, std::string_view name) const;
  // A class attribute fact (class or bases) from the previous round, or nullptr.
  const Value* class_attr(int cls, const std::string& name) const;
  // Each file's path and display path (link_project), shared with what outlives the project (ChainAt).
  std::shared_ptr<const FilePlaces> places;
};

// Links the files of an indexed project (files, functions and classes with their global ids): the module
// index (each file under the last one to four parts of its dotted name), every file's imports resolved to
// project files and symbols, and the project classes among each class's bases (is_module set through them).
void link_project(Project& p);

// Does project function `fn` only declare itself (a docstring, `pass`, `...`, `raise NotImplementedError`)?
// A base class's loop calling it through `self` runs the subclasses' overrides.
bool abstract_body(const Project& p, int fn);

}  // namespace synclint::python
