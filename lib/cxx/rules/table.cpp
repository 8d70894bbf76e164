// The one rule table of the C++ front-end: which matchers and which judgment each rule has.
#include "cxx/rules/rules.h"

namespace synclint::cxx {

namespace {
constexpr RuleEntry kRules[] = {
    {.id = "SYNC001", .register_matchers = register_sync001, .check = check_sync001},
    {.id = "SYNC003", .register_matchers = register_sync003, .check = check_sync003},
    {.id = "SYNC004", .register_matchers = register_sync004, .check = check_sync004},
    {.id = "SYNC005", .register_matchers = register_sync005, .check = check_sync005},
    {.id = "SYNC007", .register_matchers = register_sync007, .check = check_sync007},
    {.id = "SYNC008", .register_matchers = register_sync008, .check = check_sync008},
    {.id = "SYNC009", .register_matchers = register_sync009, .check = check_sync009},
    {.id = "SYNC011", .register_matchers = register_sync011, .check = check_sync011},
    {.id = "SYNC012", .register_matchers = register_sync012, .check = check_sync012},
};
}  // namespace

std::span<const RuleEntry> rule_table() { return kRules; }

const RuleEntry* find_rule_entry(std::string_view id) {
  for (const RuleEntry& e : kRules)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace synclint::cxx
