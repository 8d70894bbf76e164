// The one rule table of the Python front-end: which function judges which kind of site for each rule.
#include "python/rules/rules.h"

namespace synclint::python {

namespace {
constexpr RuleEntry kRules[] = {
    {.id = "SYNC001", .call = sync001_tensor_item},
    {.id = "SYNC002", .call = sync002_tensor_tolist},
    {.id = "SYNC003", .call = sync003_device_to_host_copy},
    {.id = "SYNC004", .call = sync004_scalar_conversion},
    {.id = "SYNC005", .call = sync005_tensor_formatting, .format = sync005_format_value},
    {.id = "SYNC006", .condition = sync006_branch_on_device_value},
    {.id = "SYNC007", .call = sync007_explicit_synchronize},
    {.id = "SYNC008", .call = sync008_data_dependent_shape, .subscript = sync008_mask_index},
    {.id = "SYNC009", .call = sync009_syncing_library_call},
    {.id = "SYNC010", .call = sync010_logger_sink},
    {.id = "SYNC011", .call = sync011_blocking_host_to_device_copy, .iteration = sync011_blocking_loader},
    {.id = "SYNC012", .timing = sync012_unsynchronized_timing},
};
}  // namespace

std::span<const RuleEntry> rule_table() { return kRules; }

const RuleEntry* find_rule_entry(std::string_view id) {
  for (const RuleEntry& e : kRules)
    if (e.id == id) return &e;
  return nullptr;
}

}  // namespace synclint::python
