#include "lsp/transport.h"

#include <algorithm>
#include <cctype>
#include <istream>
#include <optional>
#include <ostream>

#include "core/json_reader.h"

namespace synclint::lsp {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

Incoming error(std::string what) {
  Incoming in;
  in.kind = Incoming::Kind::Error;
  in.error = std::move(what);
  return in;
}

}  // namespace

bool Transport::input_waiting() { return in_.rdbuf()->in_avail() > 0; }

Incoming Transport::read() {
  if (ended_) return {};
  // Headers up to an empty line. Lines end in \r\n (a bare \n is accepted).
  std::string line;
  std::optional<std::size_t> length;
  std::string problem;
  bool any_header = false;
  for (;;) {
    if (!std::getline(in_, line)) {
      ended_ = true;
      if (any_header) return error("the input ended inside a message header");
      return {};
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) {
      if (!any_header) continue;  // blank lines between messages
      break;
    }
    any_header = true;
    const auto colon = line.find(':');
    if (colon == std::string::npos) {
      if (problem.empty()) problem = "malformed header line '" + line.substr(0, 80) + "'";
      continue;
    }
    const std::string name = lower(trim(line.substr(0, colon)));
    const std::string value = trim(line.substr(colon + 1));
    if (name == "content-length") {
      std::size_t n = 0;
      const bool digits = !value.empty() && value.size() <= 12 &&
                          std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c); });
      if (digits) n = std::stoull(value);
      if (!digits || n > kMaxMessageBytes) {
        if (problem.empty()) problem = "invalid Content-Length '" + value.substr(0, 40) + "'";
      } else {
        length = n;
      }
    }
  }
  if (!problem.empty()) return error(problem);
  if (!length) return error("missing Content-Length header");
  std::string body(*length, '\0');
  in_.read(body.data(), static_cast<std::streamsize>(body.size()));
  if (static_cast<std::size_t>(in_.gcount()) != body.size()) {
    ended_ = true;
    return error("the input ended after " + std::to_string(in_.gcount()) + " of the " + std::to_string(*length) +
                 " bytes the Content-Length announced");
  }
  Incoming in;
  try {
    in.message = json_reader::parse(body);  // nesting bounded: replies and logs dump parts of it
  } catch (const json_reader::Error&) {
    return error("the message body is not valid JSON");
  }
  in.kind = Incoming::Kind::Message;
  return in;
}

void Transport::write(const nlohmann::json& message) {
  write_text(message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

void Transport::write_text(const std::string& body) {
  std::lock_guard lock(write_mutex_);
  out_ << "Content-Length: " << body.size() << "\r\n\r\n" << body;
  out_.flush();
}

namespace {
// The message that ends a session (Session::handle), whatever else it holds.
bool is_exit(const nlohmann::json& m) {
  if (!m.is_object()) return false;
  auto method = m.find("method");
  return method != m.end() && method->is_string() && method->get_ref<const std::string&>() == "exit";
}
}  // namespace

Inbox::Inbox(Transport& transport, bool threaded) : transport_(transport), threaded_(threaded) {
  if (!threaded_) return;
  reader_ = std::thread([this] {
    for (;;) {
      Incoming in = transport_.read();
      // After `exit` nothing more is read: the session ends, and the transport may go with it.
      const bool end = in.kind == Incoming::Kind::End || (in.kind == Incoming::Kind::Message && is_exit(in.message));
      const bool more = !end && transport_.input_waiting();
      {
        // Bounded: past kMaxQueued the rest waits in the pipe, so a flood of edits cannot grow memory.
        std::unique_lock lock(mutex_);
        space_.wait(lock, [&] { return queue_.size() < kMaxQueued; });
        queue_.push_back(std::move(in));
        coming_ = more;
        finished_ = end;
        // Under the lock: once End or exit is taken the session may end and destroy this Inbox at once.
        ready_.notify_one();
      }
      if (end) return;
    }
  });
}

Inbox::~Inbox() {
  if (!reader_.joinable()) return;
  bool finished = false;
  {
    std::lock_guard lock(mutex_);
    finished = finished_;
  }
  // A reader that queued End or exit touches nothing more; one that did not (the session ended on an
  // error) may be blocked on input that never comes, and is left to the process's end.
  if (finished) reader_.join();
  else reader_.detach();
}

Incoming Inbox::next() {
  if (!threaded_) return transport_.read();
  std::unique_lock lock(mutex_);
  ready_.wait(lock, [&] { return !queue_.empty(); });
  Incoming in = std::move(queue_.front());
  queue_.pop_front();
  space_.notify_one();
  if (in.kind == Incoming::Kind::End) queue_.push_back(Incoming{});  // End stays the answer
  return in;
}

bool Inbox::any_pending(const std::function<bool(const nlohmann::json&)>& pred) {
  std::lock_guard lock(mutex_);
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const Incoming& in) { return in.kind == Incoming::Kind::Message && pred(in.message); });
}

void Inbox::wake() {
  {
    std::lock_guard lock(mutex_);
    Incoming in;
    in.kind = Incoming::Kind::Wake;
    queue_.push_back(std::move(in));
  }
  ready_.notify_one();
}

bool Inbox::empty() {
  std::lock_guard lock(mutex_);
  // A message the reader is taking from input already at hand counts as waiting: edits sent together are
  // all applied before an analysis starts.
  if (queue_.empty()) return !coming_;
  return queue_.front().kind == Incoming::Kind::End;
}

}  // namespace synclint::lsp
