// The session as `synclint lsp` runs it: input read on its own thread from a pipe. Edits that arrive
// together are all applied before an analysis starts, so the first diagnostics are those of the last one.
#include <gtest/gtest.h>
#include <unistd.h>

#include <ext/stdio_filebuf.h>

#include <chrono>
#include <filesystem>

#include <istream>
#include <ostream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "../engine/temp_tree.h"
#include "frame.h"
#include "lsp/protocol.h"
#include "lsp/session.h"
#include "lsp/transport.h"

namespace synclint::lsp {
namespace {
using nlohmann::json;
using test::frame;

void write_all(int fd, const std::string& bytes) {
  for (std::size_t done = 0; done < bytes.size();) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    ASSERT_GT(n, 0);
    done += static_cast<std::size_t>(n);
  }
}

TEST(Inbox, EditsSentTogetherAreAnalysedOnceAtTheLastVersion) {
  testing::TempTree t;
  const std::string uri = path_to_uri(t.path("train.py").string());
  // Everything up to the last edit is in the pipe before the session starts.
  std::string input = frame({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
                             {"params", {{"rootUri", path_to_uri(t.root().string())}, {"capabilities", json::object()}}}});
  input += frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}});
  const std::string text = "def train(model, loader):\n    for x in loader:\n        loss = model(x.cuda()).sum()\n";
  input += frame({{"jsonrpc", "2.0"}, {"method", "textDocument/didOpen"},
                  {"params", {{"textDocument", {{"uri", uri}, {"languageId", "python"}, {"version", 1}, {"text", text}}}}}});
  // Types `print(loss.item())` on a new line of the loop, one character an edit.
  const std::string typed = "\n        print(loss.item())";
  const int edits = static_cast<int>(typed.size());
  for (int k = 0; k < edits; ++k) {
    const std::string piece = typed.substr(static_cast<std::size_t>(k), 1);
    const Position p = k == 0 ? Position{2, 36} : Position{3, static_cast<std::uint32_t>(k - 1)};
    input += frame({{"jsonrpc", "2.0"}, {"method", "textDocument/didChange"},
                    {"params", {{"textDocument", {{"uri", uri}, {"version", 2 + k}}},
                                {"contentChanges", {{{"range", Range{p, p}}, {"text", piece}}}}}}});
  }
  ASSERT_LT(input.size(), 60000u);  // fits in the pipe's buffer

  int to_server[2], from_server[2];
  ASSERT_EQ(::pipe(to_server), 0);
  ASSERT_EQ(::pipe(from_server), 0);
  write_all(to_server[1], input);
  int code = -1;
  std::thread server([&] {
    __gnu_cxx::stdio_filebuf<char> in_buf(to_server[0], std::ios::in), out_buf(from_server[1], std::ios::out);
    std::istream in(&in_buf);
    std::ostream out(&out_buf);
    Transport transport(in, out);
    SessionOptions options;
    options.jobs = 1;
    code = run_session(transport, options);
    out.flush();
    ::close(from_server[1]);
  });

  __gnu_cxx::stdio_filebuf<char> replies_buf(from_server[0], std::ios::in);
  std::istream replies(&replies_buf);
  std::ostringstream unused;
  Transport reader(replies, unused);
  std::vector<json> published;
  for (Incoming m = reader.read(); m.kind == Incoming::Kind::Message; m = reader.read()) {
    if (m.message.value("method", "") != "textDocument/publishDiagnostics") continue;
    published.push_back(m.message["params"]);
    if (published.size() == 1) {
      write_all(to_server[1], frame({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "shutdown"}, {"params", nullptr}}) +
                                  frame({{"jsonrpc", "2.0"}, {"method", "exit"}, {"params", nullptr}}));
      ::close(to_server[1]);
    }
  }
  server.join();
  ::close(to_server[0]);
  EXPECT_EQ(code, 0);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0]["version"], 1 + edits);
  std::vector<std::string> codes;
  for (const json& d : published[0]["diagnostics"]) codes.push_back(d["code"]);
  EXPECT_EQ(codes, (std::vector<std::string>{"SYNC011", "SYNC001"}));  // x.cuda() and the typed loss.item()
}

std::size_t threads_of_this_process() {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// The reader stops at `exit`: the session ends there and its transport may go at once, so a reader still
// reading (here the message after `exit`, then a pipe left open) would use a transport that is gone.
TEST(Inbox, NothingIsReadAfterExit) {
  int to_server[2];
  ASSERT_EQ(::pipe(to_server), 0);
  write_all(to_server[1], frame({{"jsonrpc", "2.0"}, {"method", "exit"}, {"params", nullptr}}) +
                              frame({{"jsonrpc", "2.0"}, {"method", "initialized"}, {"params", json::object()}}));
  const std::size_t before = threads_of_this_process();
  {
    __gnu_cxx::stdio_filebuf<char> in_buf(to_server[0], std::ios::in);
    std::istream in(&in_buf);
    std::ostringstream out;
    Transport transport(in, out);
    Inbox inbox(transport, /*threaded=*/true);
    const Incoming first = inbox.next();
    ASSERT_EQ(first.kind, Incoming::Kind::Message);
    EXPECT_EQ(first.message["method"], "exit");
  }
  // The reader has ended with the Inbox (joined, not left reading the pipe, which is still open).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (threads_of_this_process() > before && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  ASSERT_EQ(threads_of_this_process(), before);
  ::close(to_server[1]);
}

}  // namespace
}  // namespace synclint::lsp
