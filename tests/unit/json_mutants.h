// Structured mutants of a JSON document, for the tests that feed bad input to a reader: every value in the
// tree (the first elements of long arrays only) replaced by values of other types and by extreme numbers,
// every object member removed, and the text cut short at many points. A reader must reject each mutant with
// its own error type or read it exactly; it must never crash, hang or throw anything else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace synclint::testing {

struct JsonMutant {
  std::string description;     // "/sites/0/1 := -1"
  nlohmann::json document;     // the mutated document (null for a cut text)
  std::string text;            // what the reader gets
  nlohmann::json::json_pointer at;  // the replaced value (empty pointer for removals and cut texts)
  bool replaced = false;       // a value was replaced (the reader must then keep it exactly or reject it)
};

namespace detail {

inline void collect_pointers(const nlohmann::json& value, const nlohmann::json::json_pointer& at,
                             std::size_t array_head, std::vector<nlohmann::json::json_pointer>& out) {
  out.push_back(at);
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) collect_pointers(member, at / key, array_head, out);
  } else if (value.is_array()) {
    for (std::size_t i = 0; i < value.size() && i < array_head; ++i) collect_pointers(value[i], at / i, array_head, out);
  }
}

}  // namespace detail

// Values that stand in for any value: other types, integers at and past the limits of the usual widths,
// fractions and huge floats (which must not reach an integer field by a silent conversion).
inline std::vector<nlohmann::json> replacement_values() {
  using nlohmann::json;
  return {json(nullptr),
          json(true),
          json(""),
          json("x"),
          json(-1),
          json(0),
          json(1.5),
          json(-0.0),
          json(1e300),
          json(-1e300),
          json(4294967296LL),  // 2^32: one past uint32
          json(std::numeric_limits<std::int64_t>::min()),
          json(std::numeric_limits<std::uint64_t>::max()),
          json::array(),
          json::object(),
          json::array({json::array()})};
}

// Every mutant of `doc`: replacements of each value (the whole document included), removals of each object
// member, and texts cut at `cuts` evenly spaced points (the empty text included).
inline std::vector<JsonMutant> json_mutants(const nlohmann::json& doc, std::size_t array_head = 3,
                                            std::size_t cuts = 64) {
  std::vector<nlohmann::json::json_pointer> pointers;
  detail::collect_pointers(doc, nlohmann::json::json_pointer(), array_head, pointers);
  std::vector<JsonMutant> out;
  for (const auto& at : pointers) {
    for (const auto& v : replacement_values()) {
      if (doc.at(at) == v && doc.at(at).type() == v.type()) continue;
      nlohmann::json m = doc;
      m.at(at) = v;
      out.push_back({at.to_string() + " := " + v.dump(), m, m.dump(), at, true});
    }
    if (!at.empty() && doc.at(at.parent_pointer()).is_object()) {
      nlohmann::json m = doc;
      m.at(at.parent_pointer()).erase(at.back());
      out.push_back({"remove " + at.to_string(), m, m.dump(), nlohmann::json::json_pointer(), false});
    }
  }
  const std::string text = doc.dump();
  for (std::size_t i = 0; i < cuts; ++i) {
    const std::size_t n = text.size() * i / cuts;
    out.push_back({"cut at byte " + std::to_string(n), nullptr, text.substr(0, n), nlohmann::json::json_pointer(), false});
  }
  return out;
}

}  // namespace synclint::testing
