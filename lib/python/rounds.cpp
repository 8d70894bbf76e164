#include "python/rounds.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <unordered_map>

#include "core/parallel.h"
#include "python/library_hooks.h"
#include "python/nn_layers.h"

namespace synclint::python {
namespace {

// Rounds of walks: at most kMaxRounds; after kFullRounds, another round runs for a group of files that
// depend on each other only while its files to walk again are few (a small project converges fully, a
// large corpus stops early). The budget is per group, so that a file's findings do not depend on which
// unrelated files are checked with it.
constexpr int kMaxRounds = 8;
constexpr int kFullRounds = 2;
constexpr std::size_t kSmallRoundBytes = 2u << 20;

// Is `name` bound to the same value in both maps (absent counts as unknown)?
template <class Map>
bool same_entry(const Map& a, const Map& b, const std::string& name) {
  auto ia = a.find(name), ib = b.find(name);
  const Value none;
  return (ia == a.end() ? none : ia->second).same(ib == b.end() ? none : ib->second);
}

// The fewest items of a pass between the walks that another thread takes: handing work to a thread, and
// freeing there what this one allocated, costs more than a pass over a few thousand functions.
constexpr std::size_t kMinPiece = 4096;

// Runs fn(begin, end) over pieces of [0, n) on up to `jobs` threads: for the passes over every function, class
// or file between the walks, where each index writes only its own entries.
void for_ranges(std::size_t n, unsigned jobs, const std::function<void(std::size_t, std::size_t)>& fn) {
  const std::size_t piece = std::max<std::size_t>(kMinPiece, n / (4 * std::max(1u, jobs)) + 1);
  parallel_for((n + piece - 1) / piece, jobs, [&](std::size_t k, unsigned) { fn(k * piece, std::min(n, (k + 1) * piece)); });
}

void size_summaries(Summaries& s, const Project& p) {
  s.funcs.assign(p.funcs.size(), FuncSummary{});
  s.class_attrs.assign(p.classes.size(), {});
  s.globals.assign(p.files.size(), {});
}

// Joins the call sites' arguments into the parameter facts of each callee marked in `touched` (sized only
// for functions that have a call site: an absent fact and an unknown one read the same); the others keep
// theirs. Before, the facts of the last round move to `prev` (for the comparison), from `next` for a file not
// walked. Each thread takes a range of the callees and joins their call sites in the order of `edges`.
void parameter_facts(Project& p, const std::vector<const CallEdge*>& edges, const std::vector<char>& touched,
                     const std::vector<char>& walked, unsigned jobs) {
  const std::size_t n = p.next.funcs.size();
  const std::size_t parts = std::clamp<std::size_t>(n / kMinPiece, 1, std::max(1u, jobs)), share = n / parts + 1;
  parallel_for(parts, jobs, [&](std::size_t part, unsigned) {
    const std::size_t begin = part * share, end = std::min(n, begin + share);
    for (std::size_t f = begin; f < end; ++f) {
      FuncSummary &before = p.prev.funcs[f], &s = p.next.funcs[f];
      if (!walked[p.funcs[f].file]) {
        if (!touched[f]) continue;
        before.params = std::move(s.params);
        before.param_known = std::move(s.param_known);
      } else if (!touched[f]) {
        s.params = before.params;
        s.param_known = before.param_known;
        continue;
      }
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
      if (e.callee < 0 || static_cast<std::size_t>(e.callee) < begin || static_cast<std::size_t>(e.callee) >= end ||
          !touched[e.callee])
        continue;
      const FuncInfo& fi = p.funcs[e.callee];
      FuncSummary& s = p.next.funcs[e.callee];
      if (s.params.empty()) {
        s.params.resize(fi.params().size());
        s.param_known.resize(fi.params().size(), false);
      }
      const std::size_t offset = (e.bound_self && fi.bound_first) ? 1 : 0;
      for (std::size_t i = 0; i < e.positional.size(); ++i) add(s, i + offset, e.positional[i]);
      for (const auto& [k, v] : e.keywords) {
        auto it = std::find(fi.params().begin(), fi.params().end(), k);
        if (it != fi.params().end()) add(s, static_cast<std::size_t>(it - fi.params().begin()), v);
      }
    }
  });
}

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

// The per-step callbacks, by name or as hooks of a library's loop: hot before any call edge.
std::vector<FuncHeat> callback_heat(const Project& p) {
  std::vector<FuncHeat> h(p.funcs.size());
  const auto& hot = p.options->hot_functions;
  for (std::size_t f = 0; f < p.funcs.size(); ++f) {
    const FuncInfo& fi = p.funcs[f];
    if (fi.module_body) continue;
    if (std::find(hot.begin(), hot.end(), fi.name) != hot.end() || !library_hook_loop(p, static_cast<int>(f)).empty())
      h[f] = {Heat::Hot, -1, true};
  }
  return h;
}

// The hot context of every function from the callbacks' (`h`) and the call edges; FuncHeat::via indexes
// `edges`.
std::vector<FuncHeat> compute_heat(std::vector<FuncHeat> h, const std::vector<const CallEdge*>& edges) {
  // The edges that pass heat on, in order, packed for the passes.
  struct Step {
    int caller, callee, edge;
    Heat lexical;
    bool in_loop, periodic;
  };
  std::vector<Step> steps;
  steps.reserve(edges.size());
  for (std::size_t i = 0; i < edges.size(); ++i) {
    const CallEdge& e = *edges[i];
    if (e.callee < 0 || e.caller < 0 || e.lex.once) continue;
    steps.push_back(Step{e.caller, e.callee, static_cast<int>(i), e.lex.heat, e.lex.in_loop, e.lex.periodic});
  }
  for (int iter = 0; iter < 64; ++iter) {
    bool changed = false;
    for (const Step& s : steps) {
      Heat eh = s.in_loop ? s.lexical : h[s.caller].heat;
      if (!s.in_loop && s.periodic && eh == Heat::Hot) eh = Heat::Periodic;
      if (eh > h[s.callee].heat) {
        h[s.callee] = FuncHeat{eh, s.edge, false};
        changed = true;
      }
    }
    if (!changed) break;
  }
  return h;
}

// Each file's output of its last walk: its own, or one kept by the memo (shared, copied only when a partial
// walk starts from it or its findings are given back; the findings whose calling chains the memo wrote
// again beside it, which a partial walk does not need: it walks again the functions whose chains differ).
class Outputs {
 public:
  explicit Outputs(std::size_t n) : own_(n), kept_(n) {}
  const FileOutput& operator[](std::size_t i) const { return kept_[i] ? *kept_[i].out : own_[i]; }
  // The output to write a walk into (emptied), or, with `take`, to walk again from.
  FileOutput& own(std::size_t i, bool take) {
    if (kept_[i]) {
      if (take) own_[i] = *kept_[i].out;
      kept_[i] = KeptOutput{};
    }
    if (!take) own_[i] = FileOutput{};
    return own_[i];
  }
  void keep(std::size_t i, KeptOutput out) {
    kept_[i] = std::move(out);
    own_[i] = FileOutput{};
  }
  const std::vector<KeptOutput>& replayed() const { return kept_; }
  // The outputs of the files that walked (empty for those whose last walk was kept).
  std::vector<FileOutput> release() { return std::move(own_); }

 private:
  std::vector<FileOutput> own_;
  std::vector<KeptOutput> kept_;
};

// Joins what the files in `walked` read (the others' outputs are unchanged since they were joined); the
// imports, which never change, only when `imports` is set.
void join_reads(FileGroups& groups, const Project& p, const Outputs& outputs,
                const std::vector<std::size_t>& walked, bool imports) {
  auto file_of = [&](int f) { return static_cast<std::size_t>(p.funcs[f].file); };
  for (std::size_t i = 0; imports && i < p.files.size(); ++i)
    for (const auto& [name, b] : p.files[i].imports)
      if (b.file >= 0) groups.join(i, static_cast<std::size_t>(b.file));
  for (std::size_t i : walked) {
    for (const CallEdge& e : outputs[i].edges)
      if (e.callee >= 0 && e.caller >= 0) groups.join(file_of(e.caller), file_of(e.callee));
    for (const auto& [f, c, name] : outputs[i].read_classes) groups.join(i, static_cast<std::size_t>(p.classes[c].file));
    for (const auto& [f, g, name] : outputs[i].read_globals) groups.join(i, static_cast<std::size_t>(g));
    for (const auto& [f, g] : outputs[i].read_funcs) groups.join(i, file_of(g));
  }
}

}  // namespace

std::vector<FileOutput> run_rounds(Project& p, const std::vector<std::size_t>& order, unsigned jobs,
                                   RoundsRun* run) {
  const std::vector<char>* active = run ? run->active : nullptr;
  WalkMemo* memo = run ? run->memo : nullptr;
  FileGroups groups(p.files.size());
  std::vector<char> stopped(p.files.size(), 0);  // by group root: its budget ended its rounds
  // Rounds of walks until the summaries and the heat are stable. After the first round only the files
  // that read something that changed are walked again; the others keep their output and summaries.
  size_summaries(p.prev, p);
  const std::vector<FuncHeat> callbacks = callback_heat(p);
  p.heat = callbacks;
  Outputs outputs(p.files.size());
  std::vector<char> dirty = active ? *active : std::vector<char>(p.files.size(), 1);
  std::vector<char> func_dirty(p.funcs.size(), 0);  // after a round: something the function read changed
  std::vector<char> again(p.files.size(), 0);       // walked only in part (walk_file_again)

  std::vector<std::vector<int>> funcs_of(p.files.size()), classes_of(p.files.size());
  for (std::size_t f = 0; f < p.funcs.size(); ++f) funcs_of[p.funcs[f].file].push_back(static_cast<int>(f));
  for (std::size_t c = 0; c < p.classes.size(); ++c) classes_of[p.classes[c].file].push_back(static_cast<int>(c));
  for (int round = 0; round < kMaxRounds; ++round) {
    if (p.options->stop && p.options->stop()) throw AnalysisStopped{};
    size_summaries(p.next, p);
    // After the first round, a file walked again keeps the output of its functions that need no new walk.
    // The walks read only the previous round's summaries of other files, so the files not walked take
    // theirs over after the walks (below).
    std::vector<std::size_t> todo;
    std::vector<char> walked(p.files.size(), 0);
    // The callees of the call sites of the files walked, before and after: the others' parameter facts
    // stay as they are.
    std::vector<char> touched(p.funcs.size(), round == 0 ? 1 : 0);
    for (std::size_t i : order) {
      again[i] = 0;
      if (!dirty[i]) continue;
      todo.push_back(i);
      walked[i] = 1;
      if (round == 0) continue;
      for (const CallEdge& e : outputs[i].edges)
        if (e.callee >= 0) touched[e.callee] = 1;
      again[i] = 1;
    }
    // Walks kept by the memo are taken on this thread (a few microseconds each); the threads share the walks.
    std::vector<std::size_t> walks;
    for (std::size_t i : todo) {
      if (memo)
        if (KeptOutput kept = memo->replay(p, i)) {
          outputs.keep(i, std::move(kept));
          continue;
        }
      walks.push_back(i);
    }
    parallel_for(walks.size(), jobs, [&](std::size_t k, unsigned) {
      const std::size_t i = walks[k];
      // A walk kept from an earlier analysis that holds for most functions is walked again from, unless the
      // last round's walk needs fewer functions walked.
      std::optional<EarlierWalk> earlier;
      if (memo && !p.options->whole_walks) {
        std::size_t limit = funcs_of[i].size();
        if (again[i])
          limit = static_cast<std::size_t>(
              std::count_if(funcs_of[i].begin(), funcs_of[i].end(), [&](int f) { return func_dirty[f] != 0; }));
        earlier = memo->earlier(p, i, limit);
      }
      if (earlier) {
        for (std::size_t k = 0; k < funcs_of[i].size(); ++k) p.next.funcs[funcs_of[i][k]] = earlier->results[k];
        p.next.globals[i] = earlier->globals;
        memo->resumed(walk_file_from(p, static_cast<int>(i), std::move(*earlier), outputs.own(i, false)));
      } else if (again[i] && !p.options->whole_walks) {
        // The functions it does not walk again keep their summaries, and its module names stay until walked.
        for (int f : funcs_of[i]) p.next.funcs[f] = p.prev.funcs[f];
        p.next.globals[i] = p.prev.globals[i];
        FileOutput& out = outputs.own(i, true);
        walk_file_again(p, static_cast<int>(i), std::move(out), func_dirty, out);
      } else {
        walk_file(p, static_cast<int>(i), true, outputs.own(i, false));
      }
      if (memo) memo->record(p, i, outputs[i]);
    });
    for (std::size_t i : todo)
      for (const CallEdge& e : outputs[i].edges)
        if (e.callee >= 0) touched[e.callee] = 1;
    // A file not walked keeps its summaries: moved, not copied. The comparisons below read only the
    // parameter facts of its functions (see parameter_facts) and the attributes of its modules (their
    // parameter counts add up other classes'), so those stay in `prev` too.
    for_ranges(p.files.size(), jobs, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        if (walked[i]) continue;
        for (int f : funcs_of[i]) std::swap(p.next.funcs[f], p.prev.funcs[f]);
        for (int c : classes_of[i]) {
          if (p.classes[c].is_module) p.next.class_attrs[c] = p.prev.class_attrs[c];
          else std::swap(p.next.class_attrs[c], p.prev.class_attrs[c]);
        }
        std::swap(p.next.globals[i], p.prev.globals[i]);
      }
    });
    count_module_parameters(p);
    std::vector<const CallEdge*> edges;
    for (std::size_t i = 0; i < p.files.size(); ++i)
      for (const CallEdge& e : outputs[i].edges) edges.push_back(&e);
    parameter_facts(p, edges, touched, walked, jobs);
    std::vector<FuncHeat> heat = compute_heat(callbacks, edges);
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
        class_changed(p.classes.size(), 0), globals_changed(p.files.size(), 0);
    std::atomic<bool> changed{false};
    for_ranges(p.funcs.size(), jobs, [&](std::size_t begin, std::size_t end) {
      bool here = false;
      for (std::size_t f = begin; f < end; ++f) {
        const FuncSummary &a = p.prev.funcs[f], &b = p.next.funcs[f];
        // Compared as the walks read them: an unknown return or argument is the same as none.
        result_changed[f] = walked[p.funcs[f].file] && result_differs(a, b);
        const bool heat_changed = heat[f].heat != p.heat[f].heat || heat[f].callback != p.heat[f].callback;
        auto param = [](const FuncSummary& s, std::size_t j) {
          return j < s.param_known.size() && s.param_known[j] ? s.params[j] : Value{};
        };
        bool params_changed = false;
        for (std::size_t j = 0; touched[f] && !params_changed && j < std::max(a.params.size(), b.params.size()); ++j)
          params_changed = !param(a, j).same(param(b, j));
        own_changed[f] = params_changed || (heat_changed && b.reports);
        here = here || result_changed[f] || own_changed[f] || heat_changed;
      }
      if (here) changed = true;
    });
    for_ranges(p.classes.size(), jobs, [&](std::size_t begin, std::size_t end) {
      bool here = false;
      for (std::size_t c = begin; c < end; ++c) {
        class_changed[c] = (walked[p.classes[c].file] || p.classes[c].is_module) &&
                           !same_env(p.prev.class_attrs[c], p.next.class_attrs[c]);
        here = here || class_changed[c];
      }
      if (here) changed = true;
    });
    bool any = changed;
    for (std::size_t i = 0; i < p.files.size(); ++i) {
      globals_changed[i] = walked[i] && !same_env(p.prev.globals[i], p.next.globals[i]);
      any = any || globals_changed[i];
    }
    // A file is walked again when something it read changed: a callee's result, its own parameter facts or
    // heat, a class attribute or a module-level name of another file.
    // The function that read it is marked too (walk_file_again walks only what must be).
    // Each file marks only its own functions; kinds of reads of which nothing changed are not looked at.
    auto some = [](const std::vector<char>& v) { return std::find(v.begin(), v.end(), 1) != v.end(); };
    const bool some_own = some(own_changed), some_result = some(result_changed), some_class = some(class_changed),
               some_globals = some(globals_changed);
    std::fill(func_dirty.begin(), func_dirty.end(), 0);
    for_ranges(any ? p.files.size() : 0, jobs, [&](std::size_t begin, std::size_t end) {
      for (std::size_t i = begin; i < end; ++i) {
        bool d = false;
        auto mark = [&](int f) {
          d = true;
          func_dirty[f] = 1;
        };
        if (some_own)
          for (int f : funcs_of[i])
            if (own_changed[f]) mark(f);
        if (some_result)
          for (const CallEdge& e : outputs[i].edges)
            if (e.callee >= 0 && result_changed[e.callee]) mark(e.caller);
        if (some_class)
          for (const auto& [f, c, name] : outputs[i].read_classes)
            if (class_changed[c] && !same_entry(p.prev.class_attrs[c], p.next.class_attrs[c], name)) mark(f);
        if (some_globals)
          for (const auto& [f, g, name] : outputs[i].read_globals)
            if (globals_changed[g] && !same_entry(p.prev.globals[g], p.next.globals[g], name)) mark(f);
        dirty[i] = d;
        if (!d || !some_result) continue;
        // In a file walked again, summaries read without a call edge (batch-loop tests) count too.
        for (const auto& [f, g] : outputs[i].read_funcs)
          if (result_changed[g]) func_dirty[f] = 1;
      }
    });
    p.prev = std::move(p.next);
    p.heat = std::move(heat);
    if (!any) break;
    // Each group whose files to walk again are too many (after kFullRounds) stops here, for good.
    join_reads(groups, p, outputs, todo, round == 0);
    std::vector<std::size_t> group_bytes(p.files.size(), 0), group_dirty(p.files.size(), 0);
    for (std::size_t i = 0; i < p.files.size(); ++i) {
      const std::size_t g = groups.find(i), bytes = p.files[i].src->text().size();
      group_bytes[g] += bytes;
      if (dirty[i]) group_dirty[g] += bytes;
      stopped[g] = stopped[g] || stopped[i];
    }
    bool more = false;
    for (std::size_t i = 0; i < p.files.size(); ++i) {
      const std::size_t g = groups.find(i);
      if (round + 1 >= kFullRounds && group_dirty[g] > std::max(kSmallRoundBytes, group_bytes[g] / 4)) stopped[g] = 1;
      if (stopped[g]) dirty[i] = 0;
      more = more || dirty[i];
    }
    if (!more) break;
  }
  if (run) {
    std::vector<std::size_t> all(p.files.size());
    for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
    join_reads(groups, p, outputs, all, true);
    run->group_of.resize(p.files.size());
    for (std::size_t i = 0; i < p.files.size(); ++i) run->group_of[i] = groups.find(i);
    run->replayed = outputs.replayed();
  }
  return outputs.release();
}

}  // namespace synclint::python
