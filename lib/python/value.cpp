#include "python/value.h"

#include <algorithm>

namespace synclint::python {

Confidence min_conf(Confidence a, Confidence b) { return a < b ? a : b; }

Value Value::container(std::vector<Value> items, bool positional) {
  Value v = of(VK::Container);
  v.count = positional ? static_cast<std::int32_t>(items.size()) : -1;
  v.positional = positional;
  v.items = std::make_shared<const std::vector<Value>>(std::move(items));
  return v;
}

Value Value::element() const {
  switch (kind) {
    case VK::Device: return device(conf, mask);
    case VK::HostTensor: return of(VK::HostTensor, conf);
    case VK::Loader: return cuda ? device(Confidence::Medium) : of(VK::HostTensor, conf);
    case VK::Params: {
      Value p = device(conf);
      if (!named_params) return p;
      return container({host(), p}, true);
    }
    case VK::Container: {
      if (!items || items->empty()) return unknown();
      Value e = (*items)[0];
      for (std::size_t i = 1; i < items->size(); ++i) e = join(e, (*items)[i]);
      return e;
    }
    case VK::Module: {
      Value m = of(VK::Module, conf);
      m.cuda = cuda;
      return m;
    }
    default: return unknown();
  }
}

Value Value::item(std::size_t i) const {
  if (kind == VK::Container && positional && items && i < items->size()) return (*items)[i];
  return element();
}

bool Value::holds_device(int depth) const {
  if (kind == VK::Device) return true;
  if (kind != VK::Container || !items || depth > 4) return false;
  return std::any_of(items->begin(), items->end(), [&](const Value& v) { return v.holds_device(depth + 1); });
}

Confidence Value::device_conf(int depth) const {
  if (kind == VK::Device) return conf;
  Confidence best = Confidence::Low;
  if (kind != VK::Container || !items || depth > 4) return best;
  for (const Value& v : *items)
    if (v.holds_device(depth + 1)) best = std::max(best, v.device_conf(depth + 1));
  return best;
}

bool Value::same(const Value& o) const {
  return kind == o.kind && conf == o.conf && mask == o.mask && cuda == o.cuda && blocking == o.blocking && fused == o.fused &&
         number == o.number && count == o.count && id == o.id && name == o.name &&
         named_params == o.named_params && positional == o.positional &&
         ((!items && !o.items) || (items && o.items && items->size() == o.items->size() &&
                                   std::equal(items->begin(), items->end(), o.items->begin(),
                                              [](const Value& a, const Value& b) { return a.same(b); })));
}

namespace {
bool devicey(const Value& v) {
  return v.kind == VK::Device || (v.kind == VK::Module && v.cuda) || (v.kind == VK::DeviceSpec && v.cuda) ||
         (v.kind == VK::Container && v.holds_device());
}
bool optional_object(const Value& none, const Value& object) {
  return none.kind == VK::Host && !none.number && (object.kind == VK::Instance || object.kind == VK::Loader);
}
}  // namespace

Value join(const Value& a, const Value& b) {
  if (a.same(b)) return a;
  if (a.kind == b.kind) {
    Value r = a;
    r.conf = min_conf(a.conf, b.conf);
    r.mask = a.mask && b.mask;
    r.cuda = a.cuda || b.cuda;
    r.blocking = a.blocking || b.blocking;
    r.fused = a.fused && b.fused;
    r.number = a.number && b.number;
    if (a.count != b.count) r.count = -1;
    if (a.id != b.id) r.id = -1;
    if (a.kind == VK::Container) {
      std::vector<Value> both;
      both.push_back(a.element());
      both.push_back(b.element());
      return Value::container({join(both[0], both[1])}, false);
    }
    return r;
  }
  // `loader = None` on one path, a project object or a loader on the other: the object when it is used.
  if (optional_object(a, b)) return b;
  if (optional_object(b, a)) return a;
  const bool da = devicey(a), db = devicey(b);
  if (da && !db) return a;
  if (db && !da) return b;
  if (a.host_like() && b.host_like()) return Value::of(VK::HostTensor, min_conf(a.conf, b.conf));
  // A module instance that is known on one path keeps its class.
  if (a.kind == VK::Unknown && b.kind != VK::Unknown && b.kind != VK::Host) return b;
  if (b.kind == VK::Unknown && a.kind != VK::Unknown && a.kind != VK::Host) return a;
  return Value::unknown();
}

}  // namespace synclint::python
