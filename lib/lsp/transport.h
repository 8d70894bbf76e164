// JSON-RPC 2.0 framing: `Content-Length: N\r\n\r\n` + N bytes of JSON, over any pair of streams (stdio,
// a transcript file, a string stream in tests). Knows nothing of LSP methods.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <iosfwd>
#include <mutex>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

namespace synclint::lsp {

struct Incoming {
  enum class Kind { Message, Error, End, Wake };  // Wake: posted by the server's own work (Inbox::wake)
  Kind kind = Kind::End;
  nlohmann::json message;  // Kind::Message: a parsed JSON value (not yet checked to be a JSON-RPC message)
  std::string error;       // Kind::Error: what was wrong with the frame (the reader resynchronises)
};

class Transport {
 public:
  static constexpr std::size_t kMaxMessageBytes = 256u << 20;

  Transport(std::istream& in, std::ostream& out) : in_(in), out_(out) {}

  // The next frame. Kind::Error for a frame that cannot be used (malformed JSON, missing or invalid
  // Content-Length, a body cut short by the end of input is reported and then Kind::End).
  Incoming read();
  // Writes one framed message and flushes; safe to call from several threads.
  void write(const nlohmann::json& message);
  // The same for a message given as its JSON text.
  void write_text(const std::string& body);
  // Whether more input can be read at once (bytes buffered or waiting in the pipe). Call it from the thread
  // that reads.
  bool input_waiting();

 private:
  std::istream& in_;
  std::ostream& out_;
  std::mutex write_mutex_;
  bool ended_ = false;
};

// Reads a transport on its own thread into a queue, so that the server can see what is waiting
// (newer edits, cancellations) before it starts or publishes work.
class Inbox {
 public:
  // threaded = false: next() reads synchronously and nothing is ever pending (transcripts, tests),
  // which makes the order of work deterministic.
  Inbox(Transport& transport, bool threaded);
  ~Inbox();
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;

  Incoming next();
  // Whether a message already received and not yet taken satisfies `pred`.
  bool any_pending(const std::function<bool(const nlohmann::json&)>& pred);
  // Whether no message waits: none queued, and none the reader is taking from input already at hand.
  bool empty();
  // Makes next() return Kind::Wake (from any thread): background work has results.
  void wake();

 private:
  Transport& transport_;
  bool threaded_;
  std::mutex mutex_;
  static constexpr std::size_t kMaxQueued = 64;
  std::condition_variable ready_;
  std::condition_variable space_;
  std::deque<Incoming> queue_;
  bool coming_ = false;  // the reader has more input at hand: a message is about to be queued
  bool finished_ = false;  // the reader queued End or exit, and reads no more
  std::thread reader_;
};

}  // namespace synclint::lsp
