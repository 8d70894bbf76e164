// The SYNC rules of the Python front-end. A rule is a small function that judges one kind of site the
// walker hands it (a call matched through the catalog, a condition, a formatted value, a subscript, a
// timing delta) with the facts already computed (device values, hot context) and reports through the
// Checker. Rules never walk the tree. They are registered in one table (table.cpp).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/catalog.h"
#include "python/syntax.h"
#include "python/value.h"

namespace synclint::python {

struct Arg {
  Node node{};
  std::string_view keyword;  // empty for positional, "*" / "**" for splats
  Value value;
};

struct CallInfo {
  Node node{};                   // the call
  Node receiver{};               // x in x.m(...), null otherwise
  std::string_view method;       // m in x.m(...)
  std::string qualified;         // canonical function name ("torch.cuda.synchronize"), when known
  std::string_view builtin;      // "float", when the callee is a builtin
  std::string_view api_kind;     // the catalog kind that matched: "methods", "functions", "builtins"
  Value recv;                    // value of the receiver
  std::vector<Arg> args;

  const Arg* positional(std::size_t i) const;
  const Arg* keyword(std::string_view name) const;
  // Positional `i` or keyword `name`.
  const Arg* arg(std::size_t i, std::string_view name) const;
  // The value the API acts on: the receiver of a method, else the first argument.
  const Value* subject() const;
  Node subject_node() const;
  bool any_arg_holds_device() const;
};

struct ConditionInfo {
  Node node{};  // the expression whose truth value Python needs
  Value value;
};

struct FormatInfo {
  Node node{};  // the interpolated expression of an f-string, or `"..." % values`
  Node value_node{};
  Value value;
};

struct SubscriptInfo {
  Node node{};  // x[index]
  Value base;
  std::vector<Value> index;  // one per index element
  bool store = false;        // x[index] = stored
  Value stored;
};

struct IterationInfo {
  Node node{};  // the iterable of a for loop, judged once per iteration (inside the loop)
  Value source;  // the loader (or other object) the loop draws from, through enumerate(...), tqdm(...)
};

struct TimingInfo {
  Node node{};   // end - start
  Node start{};  // where the start timer was taken
};

// What a rule may ask of the walker.
class Checker {
 public:
  virtual ~Checker() = default;
  virtual std::string_view text(Node n) const = 0;
  virtual std::string where(Node n) const = 0;  // "train.py:42"
  // Reports that `at` synchronizes (or, with syncs=false, that it is wrong without syncing). `what` says
  // what the code does ("copies a GPU value to the host ..."); the walker adds the subject and why it is
  // hot. Cold sites are dropped unless --all.
  virtual void report(const Rule& rule, Node at, Confidence confidence, std::string_view what,
                      std::string_view fix, bool syncs = true, std::vector<TextEdit> edits = {}) = 0;
  // An empty range just before the last byte of `n` (where an argument goes before `)`).
  virtual SourceRange before_end(Node n) const = 0;
};

using CallCheck = void (*)(const Rule&, const CallInfo&, Checker&);
using ConditionCheck = void (*)(const Rule&, const ConditionInfo&, Checker&);
using FormatCheck = void (*)(const Rule&, const FormatInfo&, Checker&);
using SubscriptCheck = void (*)(const Rule&, const SubscriptInfo&, Checker&);
using TimingCheck = void (*)(const Rule&, const TimingInfo&, Checker&);
using IterationCheck = void (*)(const Rule&, const IterationInfo&, Checker&);

struct RuleEntry {
  std::string_view id;
  CallCheck call = nullptr;
  ConditionCheck condition = nullptr;
  FormatCheck format = nullptr;
  SubscriptCheck subscript = nullptr;
  TimingCheck timing = nullptr;
  IterationCheck iteration = nullptr;
};

// The one rule table.
std::span<const RuleEntry> rule_table();
const RuleEntry* find_rule_entry(std::string_view id);

// A user-declared syncing API (configuration) on a rule: the subject must not be known host data.
void check_declared_api(const Rule& rule, const CallInfo& call, Checker& checker);

// Shared judgments.
bool is_true_literal(const Arg* a, const Checker& c);
// Is `a` a CUDA-ish device argument (for .to / device=)? Sets confidence.
bool cuda_target(const Arg* a, const Checker& c, Confidence& confidence);
bool cpu_target(const Arg* a, const Checker& c);

void sync001_tensor_item(const Rule&, const CallInfo&, Checker&);
void sync002_tensor_tolist(const Rule&, const CallInfo&, Checker&);
void sync003_device_to_host_copy(const Rule&, const CallInfo&, Checker&);
void sync004_scalar_conversion(const Rule&, const CallInfo&, Checker&);
void sync005_tensor_formatting(const Rule&, const CallInfo&, Checker&);
void sync005_format_value(const Rule&, const FormatInfo&, Checker&);
void sync006_branch_on_device_value(const Rule&, const ConditionInfo&, Checker&);
void sync007_explicit_synchronize(const Rule&, const CallInfo&, Checker&);
void sync008_data_dependent_shape(const Rule&, const CallInfo&, Checker&);
void sync008_mask_index(const Rule&, const SubscriptInfo&, Checker&);
void sync009_syncing_library_call(const Rule&, const CallInfo&, Checker&);
void sync010_logger_sink(const Rule&, const CallInfo&, Checker&);
void sync011_blocking_host_to_device_copy(const Rule&, const CallInfo&, Checker&);
void sync011_blocking_loader(const Rule&, const IterationInfo&, Checker&);
void sync012_unsynchronized_timing(const Rule&, const TimingInfo&, Checker&);

}  // namespace synclint::python
