// "Did you mean" suggestions for misspelt keys, rule ids and names (catalog, configuration, CLI).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace synclint {

// ASCII case-insensitive equality (rule ids are matched this way: sync001 == SYNC001).
bool iequals(std::string_view a, std::string_view b);

// Levenshtein distance (insertions, deletions, substitutions), ASCII case-insensitive.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate closest to `word` when it is close enough to be a plausible typo (distance at most
// max(1, |word| / 3), or `word` is a prefix of at least 3 characters); nullopt otherwise. Ties go to the earliest candidate.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates);

// " (did you mean 'x'?)" or "" — ready to append to an error message.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace synclint
