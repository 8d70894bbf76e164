#include "python/walk_memo.h"

#include <algorithm>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <string_view>
#include <tuple>

namespace synclint::python {

namespace {
// What a finding's message and related locations take from the calling chain of a function: its shape
// (its steps, each call edge's caller, callee and loop context) and the positions it names (each call
// edge's spans, each callback's name).
struct ChainKey {
  std::vector<std::int64_t> shape, positions;
  bool operator==(const ChainKey&) const = default;
};
}  // namespace

struct WalkMemo::Walk {
  // All but the calling chains and the output: shared by a walk and the copies replay() makes of it to
  // write its calling chains again.
  struct Fixed {
    std::uint64_t version = 0;  // of the file's text
    std::shared_ptr<const std::string> text;  // that text (shared by the walks of one version)
    std::uint64_t bindings = 0;               // the file's imports as linked
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ranges;  // each own function's bytes, in funcs_of_ order
    // What the walk read: summaries of functions it called or tested (their results), its own functions'
    // parameter facts and heats, class attributes and other files' module-level names (absent or a value).
    std::vector<std::pair<int, FuncSummary>> callees;
    std::vector<std::vector<Value>> params;  // by own function, in funcs_of_ order
    std::vector<FuncHeat> heat;              // likewise
    std::vector<std::tuple<int, std::string, std::optional<Value>>> class_reads, global_reads;
    // What it wrote besides its output.
    std::vector<FuncSummary> funcs;  // in funcs_of_ order
    Env globals;
    std::vector<std::unordered_map<std::string, Value>> class_attrs;  // in classes_of_ order
  };
  std::shared_ptr<const Fixed> fixed;
  // The calling chain of each function with a finding (its messages name the chain), and the output: the
  // walk's own, shared by the records whose chains moved since, each with its findings' chains as they are.
  std::vector<std::pair<int, ChainKey>> chains;
  std::shared_ptr<const FileOutput> out;
  std::shared_ptr<const ChainsAt> chains_now;
};

namespace {

// A 64-bit digest of the parts it is fed, in order.
class Digest {
 public:
  Digest& operator<<(std::string_view s) { return mix(std::hash<std::string_view>{}(s) ^ (s.size() << 1)); }
  Digest& operator<<(std::int64_t v) { return mix(static_cast<std::uint64_t>(v)); }
  std::uint64_t value() const { return h_; }

 private:
  Digest& mix(std::uint64_t v) {
    h_ = (h_ ^ (v + 0x9e3779b97f4a7c15ull + (h_ << 6) + (h_ >> 2))) * 0xff51afd7ed558ccdull;
    return *this;
  }
  std::uint64_t h_ = 0xcbf29ce484222325ull;
};

// A digest of a map from names to ids that does not depend on the map's order: the sum of its entries'.
template <class Map>
std::int64_t entries_digest(const Map& m) {
  std::uint64_t sum = 0;
  for (const auto& [name, id] : m) sum += (Digest() << name << static_cast<std::int64_t>(id)).value();
  return static_cast<std::int64_t>(sum);
}
// What walks of other files may read of the index: each function's and class's declaration (and whether a
// method only declares itself), each file's functions and top-level names. Positions are left out: a walk
// names another file's positions only through calling chains, which replay() compares.
std::vector<std::uint64_t> layout_of(const Project& p) {
  std::vector<std::uint64_t> keys;
  keys.reserve(p.funcs.size() + p.classes.size() + p.files.size());
  for (std::size_t f = 0; f < p.funcs.size(); ++f) {
    const FuncInfo& fi = p.funcs[f];
    Digest d;
    d << fi.file << fi.name << fi.qualname << fi.cls << fi.parent << fi.module_body << fi.bound_first
      << fi.has_nested << static_cast<std::int64_t>(fi.params().size());
    for (const std::string& param : fi.params()) d << param;
    for (Node n : fi.defaults()) d << !null(n);
    d << (fi.cls >= 0 && abstract_body(p, static_cast<int>(f)));
    keys.push_back(d.value());
  }
  for (const ClassInfo& c : p.classes) {
    Digest d;
    d << c.file << c.name << c.is_module;
    for (const std::string& b : c.bases) d << b;
    d << "|";
    for (int b : c.base_ids) d << b;
    d << "|";
    for (int s : c.subclasses) d << s;
    d << entries_digest(c.methods);
    keys.push_back(d.value());
  }
  for (const FileModel& fm : p.files) {
    Digest d;
    d << fm.module_func;
    for (int f : fm.funcs) d << f;
    d << "|";
    d << entries_digest(fm.top_funcs);
    d << "|";
    d << entries_digest(fm.top_classes);
    keys.push_back(d.value());
  }
  return keys;
}

std::uint64_t bindings_of(const FileModel& fm) {
  std::map<std::string, const Binding*> sorted;
  for (const auto& [alias, b] : fm.imports) sorted.emplace(alias, &b);
  Digest d;
  for (const auto& [alias, b] : sorted) d << alias << b->dotted << b->file << b->symbol;
  return d.value();
}

// The name other files import file `fm` by: its file name without `.py`, or its folder's for `__init__.py`.
std::string module_stem(const std::string& path) {
  std::string name = path.substr(path.rfind('/') + 1);
  if (name.ends_with(".py")) name.resize(name.size() - 3);
  if (name == "__init__") {
    const std::string dir = path.substr(0, path.rfind('/'));
    name = dir.substr(dir.rfind('/') + 1);
  }
  return name;
}

// Could another file's walk read file `file`'s imports: a binding to it, or an import that names it?
bool imported(const Project& p, std::size_t file) {
  const std::string stem = module_stem(p.files[file].path);
  auto names = [&](std::string_view dotted) {
    for (std::size_t at = 0; at <= dotted.size();) {
      const std::size_t dot = std::min(dotted.find('.', at), dotted.size());
      if (dotted.substr(at, dot - at) == stem) return true;
      at = dot + 1;
    }
    return false;
  };
  for (const FileModel& fm : p.files) {
    for (const auto& [alias, b] : fm.imports)
      if (b.file == static_cast<int>(file)) return true;
    for (const FileModel::RawImport& r : fm.raw_imports)
      if (names(r.module) || r.symbol == stem) return true;
  }
  return false;
}

// A parameter's fact as a walk reads it (bind_params): unknown when no call site tells it.
const Value& param_as_read(const FuncSummary& s, std::size_t i) {
  static const Value unknown;
  return i < s.param_known.size() && s.param_known[i] && s.params[i].kind != VK::Unknown ? s.params[i] : unknown;
}

std::vector<Value> params_as_read(const FuncSummary& s, std::size_t count) {
  std::vector<Value> v(count);
  for (std::size_t i = 0; i < count; ++i) v[i] = param_as_read(s, i);
  return v;
}

std::optional<Value> entry(const std::unordered_map<std::string, Value>& m, const std::string& name) {
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

bool same(const std::optional<Value>& a, const std::optional<Value>& b) {
  return a.has_value() == b.has_value() && (!a || a->same(*b));
}

// The chain key of function `fn` in `p`.
ChainKey chain_of(const Project& p, int fn) {
  ChainKey key;
  auto add = [&](const Position& at) {
    key.positions.push_back(at.line);
    key.positions.push_back(at.column);
  };
  for (const ChainStep& step : chain_steps(p, fn)) {
    key.shape.push_back(step.func);
    key.shape.push_back(step.edge < 0 ? -1 : 0);
    if (step.edge < 0) {
      add(p.funcs[step.func].name_span.begin);
      add(p.funcs[step.func].name_span.end);
      continue;
    }
    const CallEdge& e = p.edges[step.edge];
    key.shape.push_back(e.caller);
    key.shape.push_back(e.callee);
    key.shape.push_back(e.lex.in_loop + 2 * e.lex.periodic);
    for (const Span* s : {&e.call, &e.lex.loop, &e.lex.guard}) {
      add(s->begin);
      add(s->end);
    }
  }
  return key;
}

// Where text `now` differs from `before`, when it differs within one line: the bytes of that line in
// `before` ([begin, end), without its line break) and how much longer it is now. `any` is false for equal
// texts; none when a line break was added or removed (the lines after it moved).
struct LineEdit {
  bool any = false;
  std::size_t begin = 0, end = 0;
  std::ptrdiff_t delta = 0;
};

std::optional<LineEdit> line_edit(std::string_view before, std::string_view now) {
  const std::size_t n = std::min(before.size(), now.size());
  const auto at = [](std::size_t i) { return static_cast<std::ptrdiff_t>(i); };
  const std::size_t a = static_cast<std::size_t>(
      std::mismatch(before.begin(), before.begin() + at(n), now.begin()).first - before.begin());
  if (a == before.size() && a == now.size()) return LineEdit{};
  const std::size_t z = static_cast<std::size_t>(
      std::mismatch(before.rbegin(), before.rbegin() + at(n - a), now.rbegin()).first - before.rbegin());
  constexpr std::string_view kBreaks = "\r\n";
  if (before.substr(a, before.size() - z - a).find_first_of(kBreaks) != std::string_view::npos ||
      now.substr(a, now.size() - z - a).find_first_of(kBreaks) != std::string_view::npos)
    return std::nullopt;
  LineEdit e;
  e.any = true;
  const std::size_t line = a == 0 ? std::string_view::npos : before.find_last_of(kBreaks, a - 1);
  e.begin = line == std::string_view::npos ? 0 : line + 1;
  e.end = std::min(before.find_first_of(kBreaks, before.size() - z), before.size());
  e.delta = static_cast<std::ptrdiff_t>(now.size()) - static_cast<std::ptrdiff_t>(before.size());
  return e;
}

}  // namespace

WalkMemo::WalkMemo() = default;
WalkMemo::~WalkMemo() = default;

void WalkMemo::clear() {
  paths_.clear();
  versions_.clear();
  layout_.clear();
  bindings_.clear();
  kept_.clear();
  fresh_.clear();
}

void WalkMemo::begin(const Project& p, const std::vector<std::uint64_t>& versions) {
  replayed_ = 0;
  walked_ = 0;
  resumed_ = 0;
  functions_kept_ = 0;
  const std::size_t n = p.files.size();
  funcs_of_.assign(n, {});
  classes_of_.assign(n, {});
  for (std::size_t f = 0; f < p.funcs.size(); ++f) funcs_of_[p.funcs[f].file].push_back(static_cast<int>(f));
  for (std::size_t c = 0; c < p.classes.size(); ++c) classes_of_[p.classes[c].file].push_back(static_cast<int>(c));

  std::vector<std::string> paths(n);
  std::vector<std::uint64_t> bindings(n);
  for (std::size_t i = 0; i < n; ++i) {
    paths[i] = p.files[i].path;
    bindings[i] = bindings_of(p.files[i]);
  }
  std::vector<std::uint64_t> layout = layout_of(p);
  bool valid = paths == paths_ && layout == layout_ && kept_.size() == n;
  std::vector<char> changed(n, 1);
  for (std::size_t i = 0; valid && i < n; ++i) changed[i] = versions[i] != versions_[i];
  // A changed file may import other things, as long as no other file can read its imports.
  for (std::size_t i = 0; valid && i < n; ++i)
    if (bindings[i] != bindings_[i]) valid = changed[i] && !imported(p, i);
  if (!valid) kept_.assign(n, {});
  fresh_.resize(n);
  for (auto& fresh : fresh_) fresh.clear();
  paths_ = std::move(paths);
  versions_ = versions;
  layout_ = std::move(layout);
  bindings_ = std::move(bindings);
}

bool WalkMemo::reads_differ(const Project& p, const Walk& walk, const std::vector<int>& funcs,
                             std::vector<char>* marks) {
  const Walk::Fixed& w = *walk.fixed;
  bool any = false;
  for (std::size_t k = 0; k < funcs.size(); ++k) {
    const FuncHeat &a = w.heat[k], &b = p.heat[funcs[k]];
    bool differs = a.heat != b.heat || a.callback != b.callback;
    const FuncSummary& s = p.prev.funcs[funcs[k]];
    for (std::size_t j = 0; !differs && j < w.params[k].size(); ++j)
      differs = !param_as_read(s, j).same(w.params[k][j]);
    if (differs && !marks) return true;
    if (differs) (*marks)[k] = 1;
    any = any || differs;
  }
  std::set<int> callees;
  std::set<std::pair<int, std::string>> classes, globals;
  for (const auto& [g, summary] : w.callees)
    if (result_differs(summary, p.prev.funcs[g])) {
      if (!marks) return true;
      callees.insert(g);
    }
  for (const auto& [c, name, v] : w.class_reads)
    if (!same(v, entry(p.prev.class_attrs[c], name))) {
      if (!marks) return true;
      classes.emplace(c, name);
    }
  for (const auto& [g, name, v] : w.global_reads)
    if (!same(v, entry(p.prev.globals[g], name))) {
      if (!marks) return true;
      globals.emplace(g, name);
    }
  if (!marks || funcs.empty() || (callees.empty() && classes.empty() && globals.empty())) return any;
  // The functions that read them (by position among `funcs`, which are consecutive).
  const int base = funcs.front();
  const auto mark = [&](int f) {
    const auto k = static_cast<std::size_t>(f - base);
    if (f >= base && k < funcs.size()) (*marks)[k] = 1;
  };
  for (const auto& [f, g] : walk.out->read_funcs)
    if (callees.count(g)) mark(f);
  for (const CallEdge& e : walk.out->edges)
    if (e.callee >= 0 && callees.count(e.callee)) mark(e.caller);
  for (const auto& [f, c, name] : walk.out->read_classes)
    if (classes.count({c, name})) mark(f);
  for (const auto& [f, g, name] : walk.out->read_globals)
    if (globals.count({g, name})) mark(f);
  return true;
}

KeptOutput WalkMemo::replay(Project& p, std::size_t file) {
  const std::vector<int>& funcs = funcs_of_[file];
  const std::vector<int>& classes = classes_of_[file];
  // Whether the walk holds now; `moved` tells that its calling chains name other positions now.
  auto holds_now = [&](const Walk& w, bool& moved) {
    if (reads_differ(p, w, funcs, nullptr)) return false;
    moved = false;
    for (const auto& [f, chain] : w.chains) {
      const ChainKey now = chain_of(p, f);
      if (now.shape != chain.shape) return false;
      moved = moved || now.positions != chain.positions;
    }
    return true;
  };
  for (auto it = kept_[file].rbegin(); it != kept_[file].rend(); ++it) {
    bool moved = false;
    if ((*it)->fixed->version != versions_[file] || !holds_now(**it, moved)) continue;
    std::shared_ptr<const Walk> taken = *it;
    if (moved) {  // the same walk and output, with its calling chains as they are now
      auto again = std::make_shared<Walk>(*taken);
      again->chains_now = std::make_shared<const ChainsAt>(chains_at(p, *taken->out));
      for (auto& [f, chain] : again->chains) chain = chain_of(p, f);
      taken = std::move(again);
    }
    const Walk::Fixed& w = *taken->fixed;
    for (std::size_t k = 0; k < funcs.size(); ++k) p.next.funcs[funcs[k]] = w.funcs[k];
    p.next.globals[file] = w.globals;
    for (std::size_t k = 0; k < classes.size(); ++k) p.next.class_attrs[classes[k]] = w.class_attrs[k];
    KeptOutput out{taken->out, taken->chains_now};
    fresh_[file].push_back(std::move(taken));
    ++replayed_;
    return out;
  }
  return {};
}

std::optional<EarlierWalk> WalkMemo::earlier(const Project& p, std::size_t file, std::size_t limit) {
  const std::vector<int>& funcs = funcs_of_[file];
  const std::size_t n = funcs.size();
  if (n == 0 || funcs.back() != funcs.front() + static_cast<int>(n) - 1) return std::nullopt;
  const int base = funcs.front();
  const std::string& text = p.files[file].src->text();
  const std::vector<std::size_t> unit_of = unit_starts(p, base, n);

  // How many functions walking the units with a function marked in `walk` walks.
  const auto walked = [&](const std::vector<char>& walk) {
    std::vector<char> unit(n, 0);
    for (std::size_t k = 0; k < n; ++k) unit[unit_of[k]] = unit[unit_of[k]] || walk[k];
    std::size_t count = 0;
    for (std::size_t k = 0; k < n; ++k) count += unit[unit_of[k]];
    return count;
  };
  const Walk* best = nullptr;
  std::vector<char> best_walk;
  std::size_t best_count = limit;
  const std::string* last_text = nullptr;
  std::optional<LineEdit> edit;
  for (auto it = kept_[file].rbegin(); it != kept_[file].rend(); ++it) {
    const Walk::Fixed& w = *(*it)->fixed;
    if (!w.text || w.bindings != bindings_[file] || (*it)->out->depth_cut_line != 0 || w.ranges.size() != n) continue;
    if (w.text.get() != last_text) {
      last_text = w.text.get();
      edit = line_edit(*w.text, text);
    }
    if (!edit) continue;
    std::vector<char> walk(n, 0);
    walk[0] = edit->any;  // the module body holds or reads every line outside the functions
    // A unit keeps its output only when its bytes, from the end of the unit before it (decorators and
    // comments are between), lie before the changed line or after it, and are where they were.
    std::size_t prev_old = 0, prev_now = 0;
    for (std::size_t k = 1; k < n; ++k) {
      if (unit_of[k] != k) continue;
      const Node node = p.funcs[base + static_cast<int>(k)].node;
      const std::size_t s_old = w.ranges[k].first, e_old = w.ranges[k].second;
      const std::size_t s_now = start_byte(node), e_now = end_byte(node);
      bool kept = !edit->any;
      if (!kept && e_old <= edit->begin) kept = s_now == s_old && e_now == e_old && prev_now == prev_old;
      if (!kept && prev_old >= edit->end) {
        const auto moved = [&](std::size_t at) {
          return static_cast<std::size_t>(static_cast<std::ptrdiff_t>(at) + edit->delta);
        };
        kept = s_now == moved(s_old) && e_now == moved(e_old) && prev_now == moved(prev_old);
      }
      if (!kept) walk[k] = 1;
      prev_old = e_old;
      prev_now = e_now;
    }
    if (walked(walk) >= best_count) continue;  // what it read can only add to that
    reads_differ(p, **it, funcs, &walk);
    // A unit with a function to walk is walked whole.
    if (const std::size_t count = walked(walk); count < best_count) {
      best = it->get();
      best_walk = std::move(walk);
      best_count = count;
    }
  }
  if (!best) return std::nullopt;
  EarlierWalk e;
  e.out = *best->out;
  e.results = best->fixed->funcs;
  e.globals = best->fixed->globals;
  e.walk = std::move(best_walk);
  return e;
}

void WalkMemo::resumed(std::size_t kept) {
  ++resumed_;
  functions_kept_ += kept;
}

void WalkMemo::record(const Project& p, std::size_t file, const FileOutput& out) {
  ++walked_;
  auto walk = std::make_shared<Walk>();
  auto w = std::make_shared<Walk::Fixed>();
  w->version = versions_[file];
  const std::vector<int>& funcs = funcs_of_[file];
  std::set<int> callees;
  for (const auto& [f, g] : out.read_funcs) callees.insert(g);
  for (const CallEdge& e : out.edges)
    if (e.callee >= 0) callees.insert(e.callee);
  for (int g : callees) {
    FuncSummary s = p.prev.funcs[g];
    s.params.clear();
    s.param_known.clear();
    w->callees.emplace_back(g, std::move(s));
  }
  for (int f : funcs) {
    w->params.push_back(params_as_read(p.prev.funcs[f], p.funcs[f].params().size()));
    w->heat.push_back(p.heat[f]);
    FuncSummary s = p.next.funcs[f];
    s.params.clear();
    s.param_known.clear();
    w->funcs.push_back(std::move(s));
  }
  std::set<std::pair<int, std::string>> classes, globals;
  for (const auto& [f, c, name] : out.read_classes) classes.emplace(c, name);
  for (const auto& [f, g, name] : out.read_globals) globals.emplace(g, name);
  for (const auto& [c, name] : classes) w->class_reads.emplace_back(c, name, entry(p.prev.class_attrs[c], name));
  for (const auto& [g, name] : globals) w->global_reads.emplace_back(g, name, entry(p.prev.globals[g], name));
  for (int f : std::set<int>(out.finding_funcs.begin(), out.finding_funcs.end()))
    walk->chains.emplace_back(f, chain_of(p, f));
  for (const auto* walks : {&fresh_[file], &kept_[file]})
    for (const auto& other : *walks)
      if (!w->text && other->fixed->version == w->version) w->text = other->fixed->text;
  if (!w->text) w->text = std::make_shared<const std::string>(p.files[file].src->text());
  w->bindings = bindings_[file];
  for (int f : funcs) w->ranges.emplace_back(start_byte(p.funcs[f].node), end_byte(p.funcs[f].node));
  w->globals = p.next.globals[file];
  for (int c : classes_of_[file]) w->class_attrs.push_back(p.next.class_attrs[c]);
  walk->fixed = std::move(w);
  walk->out = std::make_shared<const FileOutput>(out);
  fresh_[file].push_back(std::move(walk));
}

void WalkMemo::end() {
  // Each file keeps the walks of this analysis, and the last earlier ones it did not take, up to kMaxWalks
  // (an analysis ended early keeps the walks it did not reach).
  constexpr std::size_t kMaxWalks = 8;
  // In place, without copying a pointer: this runs for every file an analysis replayed.
  for (std::size_t i = 0; i < fresh_.size(); ++i) {
    std::vector<std::shared_ptr<const Walk>>& fresh = fresh_[i];
    if (fresh.empty()) continue;
    std::vector<std::shared_ptr<const Walk>>& walks = kept_[i];
    std::erase_if(walks, [&](const auto& w) { return std::find(fresh.begin(), fresh.end(), w) != fresh.end(); });
    std::move(fresh.begin(), fresh.end(), std::back_inserter(walks));
    if (walks.size() > kMaxWalks) walks.erase(walks.begin(), walks.end() - kMaxWalks);
    fresh.clear();
  }
}

}  // namespace synclint::python
