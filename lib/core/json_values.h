// Exact reads of JSON values for the readers of synclint's own documents (probe streams and reports, read
// by the probe's analysis and by the core): a value is taken only when it holds exactly what the field
// means, so that a fraction, a bool or a number out of range is an error instead of a silent conversion
// (nlohmann's get<std::uint32_t>() turns 1.5 into 1, -1 into 4294967295 and 1e300 into anything).
// Header-only, nlohmann_json only: the analysis that includes it is linked into the injected probe too.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

namespace synclint::json_values {

// `value` as T when it holds exactly a T, nullopt otherwise. Integer T: a JSON integer within T's range, or
// a float with an integral value within it; never a bool or a fraction. Floating-point T: any number but a
// bool. std::string: a string. bool: a bool. std::vector<std::string> / std::vector<integer>: an array of them.
template <typename T>
std::optional<T> exact(const nlohmann::json& value) {
  if constexpr (std::is_same_v<T, bool>) {
    if (value.is_boolean()) return value.get<bool>();
    return std::nullopt;
  } else if constexpr (std::is_integral_v<T>) {
    using L = std::numeric_limits<T>;
    if (value.is_number_unsigned()) {
      const auto v = value.get<std::uint64_t>();
      if (v <= static_cast<std::uint64_t>(L::max())) return static_cast<T>(v);
    } else if (value.is_number_integer()) {
      const auto v = value.get<std::int64_t>();
      if (v >= 0 ? static_cast<std::uint64_t>(v) <= static_cast<std::uint64_t>(L::max())
                 : std::is_signed_v<T> && v >= static_cast<std::int64_t>(L::min()))
        return static_cast<T>(v);
    } else if (value.is_number_float()) {
      const double d = value.get<double>();
      const double bound = std::ldexp(1.0, L::digits);  // 2^digits: one past the largest T
      if (std::isfinite(d) && std::trunc(d) == d && d < bound && (std::is_signed_v<T> ? d >= -bound : d >= 0))
        return static_cast<T>(d);
    }
    return std::nullopt;
  } else if constexpr (std::is_floating_point_v<T>) {
    if (value.is_number()) return value.get<T>();
    return std::nullopt;
  } else if constexpr (std::is_same_v<T, std::string>) {
    if (value.is_string()) return value.get<std::string>();
    return std::nullopt;
  } else {
    using E = typename T::value_type;
    static_assert(std::is_same_v<T, std::vector<E>> && (std::is_same_v<E, std::string> || std::is_integral_v<E>),
                  "exact<T>: unsupported type");
    if (!value.is_array()) return std::nullopt;
    T out;
    for (const auto& e : value) {
      auto v = exact<E>(e);
      if (!v) return std::nullopt;
      out.push_back(std::move(*v));
    }
    return out;
  }
}

// What exact<T> takes, for error messages: "an integer from 0 to 4294967295", "a number", "a string".
template <typename T>
std::string expected() {
  if constexpr (std::is_same_v<T, bool>) {
    return "true or false";
  } else if constexpr (std::is_integral_v<T>) {
    return "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
           std::to_string(std::numeric_limits<T>::max());
  } else if constexpr (std::is_floating_point_v<T>) {
    return "a number";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return "a string";
  } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
    return "an array of strings";
  } else {
    using E = typename T::value_type;
    return "an array of integers from " + std::to_string(std::numeric_limits<E>::min()) + " to " +
           std::to_string(std::numeric_limits<E>::max());
  }
}

// `value` read with exact<T>; otherwise throws Error("WHERE must be EXPECTED, not VALUE").
template <typename T, typename Error>
T get(const nlohmann::json& value, const std::string& where) {
  if (auto v = exact<T>(value)) return *std::move(v);
  std::string shown = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (shown.size() > 40) shown = shown.substr(0, 37) + "...";
  throw Error(where + " must be " + expected<T>() + ", not " + shown);
}

// The member `key` of the object `obj` read with exact<T>; `fallback` when it is absent or null (the
// documents' optional fields). Throws Error("WHERE: field "KEY" must be ...") otherwise.
template <typename T, typename Error>
T member(const nlohmann::json& obj, const char* key, T fallback, const std::string& where) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  return get<T, Error>(*it, where + ": field \"" + key + "\"");
}

}  // namespace synclint::json_values
