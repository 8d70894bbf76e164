// Reading JSON documents from other machines and tools (probe reports, event streams, compilation
// databases) within bounds: nesting is limited (nlohmann's parser keeps its own stack, but dump() and the
// readers' messages recurse once per level), and the elements of chosen top-level arrays are handed to the
// reader one at a time instead of being kept, so a report of millions of sites is never one tree in memory.
// Header-only, nlohmann_json only (the probe's analysis uses it without the core).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <set>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace synclint::json_reader {

inline constexpr std::size_t kMaxDepth = 128;  // arrays and objects; the documents read need 4

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Called for each element of a streamed array: its key in the top-level object ("" for the document), its
// index, the element.
using ElementFn = std::function<void(const std::string& key, std::size_t index, nlohmann::json&& element)>;

struct Options {
  std::size_t max_depth = kMaxDepth;
  // Keys of arrays in the top-level object whose elements go to on_element ("": the document itself, when
  // it is an array); those arrays stay empty in the document.
  std::set<std::string, std::less<>> streamed;
  ElementFn on_element;
};

namespace detail {

// A SAX handler that builds the document (as nlohmann's own does), with the depth limit and streaming.
class Builder {
 public:
  using json = nlohmann::json;
  explicit Builder(const Options& options) : options_(options) {}

  bool null() { return scalar(json(nullptr)); }
  bool boolean(bool v) { return scalar(json(v)); }
  bool number_integer(json::number_integer_t v) { return scalar(json(v)); }
  bool number_unsigned(json::number_unsigned_t v) { return scalar(json(v)); }
  bool number_float(json::number_float_t v, const std::string&) { return scalar(json(v)); }
  bool string(json::string_t& v) { return scalar(json(std::move(v))); }
  bool binary(json::binary_t& v) { return scalar(json(std::move(v))); }
  bool key(json::string_t& k) {
    key_ = std::move(k);
    return true;
  }
  bool start_object(std::size_t) { return open(json::object()); }
  bool start_array(std::size_t) { return open(json::array()); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  template <class Exception>
  bool parse_error(std::size_t, const std::string&, const Exception& e) {
    error_ = e.what();
    return false;
  }

  json& root() { return root_; }
  const std::string& error() const { return error_; }

 private:
  json* place(json&& v) {
    if (stack_.empty()) {
      root_ = std::move(v);
      return &root_;
    }
    json* top = stack_.back();
    if (top == streamed_) {
      element_ = std::move(v);
      return &element_;
    }
    if (top->is_array()) {
      top->push_back(std::move(v));
      return &top->back();
    }
    json& slot = (*top)[key_];
    slot = std::move(v);
    return &slot;
  }

  // After a value is complete: an element of the streamed array goes to the reader.
  void completed() {
    if (!stack_.empty() && stack_.back() == streamed_) options_.on_element(streamed_key_, index_++, std::move(element_));
  }

  bool scalar(json&& v) {
    place(std::move(v));
    completed();
    return true;
  }

  bool open(json&& container) {
    if (stack_.size() >= options_.max_depth) {
      error_ = "arrays and objects nest more than " + std::to_string(options_.max_depth) + " levels deep";
      return false;
    }
    const bool top_level = stack_.empty();
    const bool stream = container.is_array() && streamed_ == nullptr && options_.on_element &&
                        ((top_level && options_.streamed.count("") != 0) ||
                         (stack_.size() == 1 && root_.is_object() && options_.streamed.count(key_) != 0));
    json* p = place(std::move(container));
    if (stream) {
      streamed_ = p;
      streamed_key_ = top_level ? std::string() : key_;
      index_ = 0;
    }
    stack_.push_back(p);
    return true;
  }

  bool close() {
    if (stack_.back() == streamed_) streamed_ = nullptr;
    stack_.pop_back();
    completed();
    return true;
  }

  const Options& options_;
  json root_;
  std::vector<json*> stack_;  // the open arrays and objects
  std::string key_;
  json* streamed_ = nullptr;  // the open streamed array
  std::string streamed_key_;
  std::size_t index_ = 0;
  json element_;  // the streamed array's element being built
  std::string error_;
};

}  // namespace detail

// Parses `input` (text, or a std::istream read to its end); throws Error with nlohmann's message for
// invalid JSON, or one naming the limit for nesting deeper than options.max_depth. Exceptions thrown by
// on_element pass through.
template <class Input>
nlohmann::json parse(Input&& input, const Options& options = {}) {
  detail::Builder builder(options);
  if (!nlohmann::json::sax_parse(std::forward<Input>(input), &builder)) throw Error(builder.error());
  return std::move(builder.root());
}

}  // namespace synclint::json_reader
