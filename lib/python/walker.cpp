// The walk of one file's functions: each starts from its parameters (call-site facts, defaults, what
// their names say) and writes its summary; walk_file and walk_file_again are the entry points.
#include "python/walker.h"

#include <algorithm>

#include "python/walker_internal.h"

namespace synclint::python {
namespace walk {

// Joins a value assigned to `self.name` in a method into its class's attributes.
void add_class_attr(std::unordered_map<std::string, Value>& attrs, const std::string& name, const Value& v) {
  auto it = attrs.find(name);
  if (it == attrs.end()) attrs.emplace(name, v);
  else it->second = join(it->second, v);
}

void Walker::walk_function(int fn) {
  func_ = fn;
  const FuncInfo& fi = p_.funcs[fn];
  in_module_ = fi.module_body;
  env_.clear();
  frames_.clear();
  timers_.clear();
  periodic_vars_.clear();
  depth_ = 0;
  sum() = FuncSummary{};
  if (fi.parent >= 0) {
    auto it = final_env_.find(fi.parent);
    if (it != final_env_.end()) env_ = it->second;
  }
  if (fi.module_body) {
    block(fi.node);
    p_.next.globals[file_] = std::move(env_);
    walked_.insert(fn);
    return;
  }
  bind_params(fi);
  Node body = field(fi.node, "body");
  if (!null(body)) block(body);
  walked_.insert(fn);
  // Only functions with nested definitions need their final environment.
  if (fi.has_nested) final_env_[fn] = std::move(env_);
}

void Walker::bind_params(const FuncInfo& fi) {
  const FuncSummary& ps = prev_sum(func_);
  const bool callback =
      std::find(p_.options->hot_functions.begin(), p_.options->hot_functions.end(), fi.name) !=
      p_.options->hot_functions.end() || !library_hook_loop(p_, func_).empty();
  for (std::size_t i = 0; i < fi.params().size(); ++i) {
    const std::string& name = fi.params()[i];
    Value v;
    if (i == 0 && fi.bound_first && fi.cls >= 0) {
      // `cls` of a classmethod is the class itself: `cls(...)` builds an instance.
      v = Value::of(name == "cls" ? VK::ClassRef : p_.classes[fi.cls].is_module ? VK::Module : VK::Instance);
      v.id = fi.cls;
      env_[name] = v;
      continue;
    }
    // An unknown argument at the call sites tells nothing: it counts as no call-site fact.
    const bool known = i < ps.param_known.size() && ps.param_known[i] && ps.params[i].kind != VK::Unknown;
    if (known) v = ps.params[i];
    if (!null(fi.defaults()[i])) {
      Value d = expr(fi.defaults()[i]);
      v = known ? join(v, d) : d;
    }
    // A callback's `outputs=None` is filled in by the framework every step: the default says nothing.
    const bool none_default = !null(fi.defaults()[i]) && kind(fi.defaults()[i]) == K::None;
    if (v.kind == VK::Unknown && callback) {
      if (const int owner = library_hook_owner(p_, func_, name); owner >= 0) {
        v = Value::of(p_.classes[owner].is_module ? VK::Module : VK::Instance);
        v.id = owner;
      }
    }
    if (v.kind == VK::Unknown || (callback && !known && none_default)) v = parameter_guess(name, callback);
    env_[name] = v;
  }
}

}  // namespace walk

std::vector<std::size_t> unit_starts(const Project& project, int base, std::size_t count) {
  std::vector<std::size_t> start(count, 0);
  for (std::size_t k = 1; k < count; ++k)
    start[k] = k == 1 || project.funcs[base + static_cast<int>(k)].parent < 0 ? k : start[k - 1];
  return start;
}

void walk_file(Project& project, int file, bool emit, FileOutput& out) {
  walk::Walker w(project, file, emit, out);
  w.run();
}

void walk_file_again(Project& project, int file, FileOutput&& old, const std::vector<char>& dirty, FileOutput& out) {
  FileOutput earlier = std::move(old);  // `old` may be `out`
  out = FileOutput{};
  walk::Walker w(project, file, true, out);
  const int base = project.files[file].module_func;
  w.run_again(earlier, dirty.data() + base, project.prev.funcs.data() + base, project.prev.globals[file]);
}

std::size_t walk_file_from(Project& project, int file, EarlierWalk&& earlier, FileOutput& out) {
  out = FileOutput{};
  walk::Walker w(project, file, true, out);
  return w.run_again(earlier.out, earlier.walk.data(), earlier.results.data(), earlier.globals);
}

}  // namespace synclint::python
