// The one rule table of the C++ front-end: which matchers and which judgment each rule has.
#include "cxx/rules/rules.h"

namespace synclint::cxx {

namespace {
constexpr RuleEntry kRules[] = {
    {.id = "SYNC001", .register_matchers = register_sync001, .check = check_sync001},
};
}  // namespace

std::span<const RuleEntry> rule_table() { return kRules; }

const RuleEntry* find_rule_entry(std::string_view id) {
  for (const RuleEntry& e : kRules)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace synclint::cxx
