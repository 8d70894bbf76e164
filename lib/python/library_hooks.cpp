#include "python/library_hooks.h"

#include <algorithm>
#include <initializer_list>
#include <unordered_set>
#include <vector>

namespace synclint::python {

namespace {

struct HookBase {
  std::initializer_list<std::string_view> packages;  // top-level packages the base is imported from
  std::string_view base;                             // the base class's name
  std::string_view folder;                           // the library's folder, when its sources are checked
  std::initializer_list<std::string_view> methods;   // called by the library every step
  std::string_view loop;
  std::string_view owner_param;  // the parameter through which the library passes its loop's owner
  std::string_view owner_class;  // the owner's class in the library's sources
};

const HookBase kHookBases[] = {
    {{"mmengine"}, "Hook", "mmengine/",
     {"before_train_iter", "after_train_iter", "before_val_iter", "after_val_iter", "before_test_iter",
      "after_test_iter"},
     "mmengine's loops", "runner", "Runner"},
    {{"detectron2"}, "HookBase", "detectron2/", {"before_step", "after_step", "after_backward"},
     "detectron2's training loop", {}, {}},
    {{"lightning", "pytorch_lightning"}, "Callback", "lightning/",
     {"on_train_batch_start", "on_train_batch_end", "on_validation_batch_start", "on_validation_batch_end",
      "on_test_batch_start", "on_test_batch_end", "on_predict_batch_start", "on_predict_batch_end",
      "on_before_backward", "on_after_backward", "on_before_optimizer_step", "on_before_zero_grad"},
     "Lightning's loops", "trainer", "Trainer"},
};

std::string_view last_name(std::string_view dotted) {
  const auto dot = dotted.rfind('.');
  return dot == std::string_view::npos ? dotted : dotted.substr(dot + 1);
}

// The canonical dotted name of base `written` in `file`, from its imports ("Hook" -> "mmengine.hooks.Hook").
std::string canonical(const FileModel& file, std::string_view written) {
  const auto dot = written.find('.');
  const std::string head(written.substr(0, dot));
  auto it = file.imports.find(head);
  if (it == file.imports.end()) return std::string(written);
  return it->second.dotted + (dot == std::string_view::npos ? "" : std::string(written.substr(dot)));
}

// Does class `c` name `hb`'s base: imported from the library, or the library's own class when its sources
// are among the checked files?
bool names_base(const Project& p, const ClassInfo& c, const HookBase& hb) {
  const FileModel& file = p.files[c.file];
  for (const std::string& written : c.bases) {
    if (last_name(written) != hb.base) continue;
    const std::string q = canonical(file, written);
    const std::string_view top = std::string_view(q).substr(0, q.find('.'));
    if (std::find(hb.packages.begin(), hb.packages.end(), top) != hb.packages.end()) return true;
  }
  for (int b : c.base_ids) {
    const ClassInfo& base = p.classes[b];
    if (base.name == hb.base && p.files[base.file].path.find(hb.folder) != std::string::npos) return true;
  }
  return false;
}

// The hook base whose library calls function `fn` every step, or null.
const HookBase* hook_base_of(const Project& p, int fn) {
  const FuncInfo& fi = p.funcs[fn];
  if (fi.cls < 0 || fi.parent >= 0) return nullptr;
  for (const HookBase& hb : kHookBases) {
    if (std::find(hb.methods.begin(), hb.methods.end(), fi.name) == hb.methods.end()) continue;
    std::vector<int> todo{fi.cls};
    std::unordered_set<int> seen{fi.cls};
    for (std::size_t i = 0; i < todo.size() && i < 64; ++i) {
      const ClassInfo& c = p.classes[todo[i]];
      if (names_base(p, c, hb)) return &hb;
      for (int b : c.base_ids)
        if (seen.insert(b).second) todo.push_back(b);
    }
  }
  return nullptr;
}

}  // namespace

std::string_view library_hook_loop(const Project& p, int fn) {
  const HookBase* hb = hook_base_of(p, fn);
  return hb ? hb->loop : std::string_view();
}

int library_hook_owner(const Project& p, int fn, std::string_view param) {
  const HookBase* hb = hook_base_of(p, fn);
  if (!hb || hb->owner_param.empty() || param != hb->owner_param) return -1;
  int found = -1;
  for (std::size_t c = 0; c < p.classes.size(); ++c) {
    const ClassInfo& ci = p.classes[c];
    if (ci.name != hb->owner_class || p.files[ci.file].path.find(hb->folder) == std::string::npos) continue;
    if (found >= 0) return -1;  // two candidates: the owner is not known
    found = static_cast<int>(c);
  }
  return found;
}

}  // namespace synclint::python
