// The server end to end over an in-memory transport: framed messages in a string stream, the session
// run without its input thread (each message handled, then the analysis run, in order), the framed
// replies parsed back. Lifecycle, errors, sync, diagnostics (cross-file), hover, code actions,
// cancellation, pull diagnostics, configuration.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

#include "../engine/temp_tree.h"
#include "frame.h"
#include "lsp/protocol.h"
#include "lsp/session.h"
#include "lsp/transport.h"

namespace synclint::lsp {
namespace {
using nlohmann::json;
using test::frame;
using ::testing::HasSubstr;

constexpr const char* kTrain =
    "import torch\n"
    "from utils import log_loss\n"
    "\n"
    "\n"
    "def train(model, loader):\n"
    "    for x in loader:\n"
    "        loss = model(x.cuda()).sum()\n"
    "        log_loss(loss)\n"
    "        print(loss.item())\n";
constexpr const char* kUtils = "def log_loss(loss):\n    return loss.item()\n";

class Session : public ::testing::Test {
 protected:
  std::string uri(const std::string& rel) const { return path_to_uri(t.path(rel).string()); }

  void request(int id, const std::string& method, json params) {
    input_ += frame({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
  }
  void notify(const std::string& method, json params) {
    input_ += frame({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void raw(const std::string& bytes) { input_ += bytes; }
  void initialize(json capabilities = json::object(), json options = nullptr) {
    json p{{"rootUri", path_to_uri(t.root().string())}, {"capabilities", std::move(capabilities)}};
    if (!options.is_null()) p["initializationOptions"] = std::move(options);
    request(1, "initialize", p);
    notify("initialized", json::object());
  }
  void open(const std::string& rel, const std::string& text, const std::string& lang = "python") {
    notify("textDocument/didOpen",
           {{"textDocument", {{"uri", uri(rel)}, {"languageId", lang}, {"version", 1}, {"text", text}}}});
  }
  void change(const std::string& rel, int version, Range r, const std::string& text) {
    notify("textDocument/didChange", {{"textDocument", {{"uri", uri(rel)}, {"version", version}}},
                                      {"contentChanges", {{{"range", r}, {"text", text}}}}});
  }
  void shutdown_and_exit() {
    request(999, "shutdown", nullptr);
    notify("exit", nullptr);
  }

  // Runs the session over everything queued; returns its exit code and fills out_.
  int run() {
    std::istringstream in(input_);
    std::ostringstream out;
    Transport transport(in, out);
    SessionOptions options;
    options.threaded = false;
    options.jobs = 1;
    const int code = run_session(transport, options);
    out_.clear();
    std::istringstream replies(out.str());
    Transport reader(replies, out);
    for (Incoming m = reader.read(); m.kind == Incoming::Kind::Message; m = reader.read()) out_.push_back(m.message);
    return code;
  }

  const json& response(int id) const {
    for (const json& m : out_)
      if (!m.contains("method") && m.value("id", json()) == id) return m;
    static const json kNone;
    ADD_FAILURE() << "no response " << id;
    return kNone;
  }
  std::vector<json> with_method(const std::string& method) const {
    std::vector<json> v;
    for (const json& m : out_)
      if (m.value("method", "") == method) v.push_back(m);
    return v;
  }
  // The diagnostics of each publishDiagnostics for `rel`, in order.
  std::vector<json> published(const std::string& rel) const {
    std::vector<json> v;
    for (const json& m : with_method("textDocument/publishDiagnostics"))
      if (m["params"]["uri"] == uri(rel)) v.push_back(m["params"]["diagnostics"]);
    return v;
  }
  static std::vector<std::string> codes(const json& diagnostics) {
    std::vector<std::string> v;
    for (const json& d : diagnostics) v.push_back(d["code"]);
    return v;
  }

  testing::TempTree t;
  std::string input_;
  std::vector<json> out_;
};

// --- lifecycle and errors ------------------------------------------------------------------------

TEST_F(Session, InitializeShutdownExitGivesZero) {
  initialize();
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const json& init = response(1);
  EXPECT_EQ(init["result"]["capabilities"]["textDocumentSync"]["change"], 2);
  EXPECT_TRUE(init["result"]["capabilities"]["hoverProvider"].get<bool>());
  EXPECT_FALSE(init["result"]["capabilities"].contains("diagnosticProvider"));
  EXPECT_TRUE(response(999)["result"].is_null());
}

TEST_F(Session, ExitWithoutShutdownGivesOne) {
  initialize();
  notify("exit", nullptr);
  EXPECT_EQ(run(), 1);
}

TEST_F(Session, InputClosingEndsTheSessionWithOne) {
  initialize();
  EXPECT_EQ(run(), 1);
}

TEST_F(Session, RequestsBeforeInitializeAreRefused) {
  request(5, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  initialize();
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(5)["error"]["code"], -32002);
  EXPECT_TRUE(response(1).contains("result"));
}

TEST_F(Session, UnknownMethodIsMethodNotFound) {
  initialize();
  request(7, "textDocument/frobnicate", json::object());
  notify("$/unknownNotification", json::object());  // ignored
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(7)["error"]["code"], -32601);
}

TEST_F(Session, MalformedJsonIsParseErrorAndTheSessionGoesOn) {
  initialize();
  raw("Content-Length: 9\r\n\r\n{\"jsonrp:");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  bool parse_error = false;
  for (const json& m : out_)
    if (m.contains("error") && m["id"].is_null() && m["error"]["code"] == -32700) parse_error = true;
  EXPECT_TRUE(parse_error);
}

TEST_F(Session, MissingOrInvalidContentLengthIsReported) {
  initialize();
  raw("Content-Type: application/vscode-jsonrpc\r\n\r\n");
  raw("Content-Length: banana\r\n\r\n");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  int errors = 0;
  for (const json& m : out_)
    if (m.contains("error") && m["error"]["code"] == -32700) {
      ++errors;
      EXPECT_THAT(m["error"]["message"].get<std::string>(), HasSubstr("Content-Length"));
    }
  EXPECT_EQ(errors, 2);
}

TEST_F(Session, HeaderWithoutBodyEndsWithAnError) {
  initialize();
  raw("Content-Length: 500\r\n\r\n{\"jsonrpc\"");
  EXPECT_EQ(run(), 1);
  ASSERT_FALSE(out_.empty());
  EXPECT_THAT(out_.back()["error"]["message"].get<std::string>(), HasSubstr("ended"));
}

TEST_F(Session, DidChangeOfADocumentNeverOpenedIsLoggedNotFatal) {
  initialize();
  change("ghost.py", 2, Range{{0, 0}, {0, 0}}, "x");
  request(3, "textDocument/hover", {{"textDocument", {{"uri", uri("ghost.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  bool logged = false;
  for (const json& m : with_method("window/logMessage"))
    if (m["params"]["type"] == 1 && m["params"]["message"].get<std::string>().find("not open") != std::string::npos) logged = true;
  EXPECT_TRUE(logged);
  EXPECT_TRUE(response(3)["result"].is_null());
}

TEST_F(Session, InvalidParamsAreReportedForRequests) {
  initialize();
  request(4, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}});
  request(5, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", {{"line", -1}, {"character", 0}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(4)["error"]["code"], -32602);
  EXPECT_EQ(response(5)["error"]["code"], -32602);
}

TEST_F(Session, RequestsAfterShutdownAreInvalid) {
  initialize();
  request(2, "shutdown", nullptr);
  request(3, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  notify("exit", nullptr);
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(3)["error"]["code"], -32600);
}

TEST_F(Session, CancelledRequestIsAnsweredRequestCancelled) {
  initialize();
  notify("$/cancelRequest", {{"id", 8}});
  request(8, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  request(9, "textDocument/hover", {{"textDocument", {{"uri", uri("a.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(8)["error"]["code"], -32800);
  EXPECT_TRUE(response(9).contains("result"));
}

// --- diagnostics ---------------------------------------------------------------------------------

TEST_F(Session, DiagnosticsComeFromTheBufferNotTheDisk) {
  t.write("utils.py", kUtils);
  t.write("train.py", "# nothing on disk yet\n");
  initialize(json::object(), {{"rulesBaseUrl", "https://example.org/rules"}});
  open("train.py", kTrain);
  // The .item() on line 9 leaves the loop: its diagnostic goes.
  change("train.py", 2, Range{{8, 0}, {9, 0}}, "");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published("train.py");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_THAT(codes(p[0]), ::testing::ElementsAre("SYNC011", "SYNC001"));
  const json& item = p[0][1];
  EXPECT_EQ(item["range"]["start"], json({{"line", 8}, {"character", 14}}));
  EXPECT_EQ(item["range"]["end"], json({{"line", 8}, {"character", 25}}));
  EXPECT_EQ(item["source"], "synclint");
  EXPECT_EQ(item["severity"], 2);
  EXPECT_EQ(item["codeDescription"]["href"], "https://example.org/rules/SYNC001.md");
  ASSERT_FALSE(item["relatedInformation"].empty());
  EXPECT_THAT(item["relatedInformation"][0]["message"].get<std::string>(), HasSubstr("inside loop"));
  EXPECT_EQ(item["relatedInformation"][0]["location"]["range"]["start"]["line"], 5);
  EXPECT_THAT(codes(p[1]), ::testing::ElementsAre("SYNC011"));
}

TEST_F(Session, CrossFileHelperIsReportedAndClearedWhenTheCallLeavesTheLoop) {
  t.write("utils.py", kUtils);
  t.write("train.py", kTrain);
  initialize();
  open("utils.py", kUtils);  // train.py only on disk
  open("train.py", kTrain);
  // Move the call after the loop (lines 8-9 become one line at the function's level).
  change("train.py", 2, Range{{7, 0}, {9, 0}}, "    log_loss(loss)\n");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published("utils.py");
  ASSERT_EQ(p.size(), 2u);
  EXPECT_THAT(codes(p[0]), ::testing::ElementsAre("SYNC001"));
  EXPECT_THAT(p[0][0]["message"].get<std::string>(), HasSubstr("called from train.py:8"));
  EXPECT_TRUE(p[1].empty());
}

// A closed helper's findings whose call moved are made when something asks for them: opening the helper
// after an edit moved its call shows the call's new line, and so does a workspace pull.
TEST_F(Session, ClosedHelpersShowTheirMovedCallsWhenOpened) {
  t.write("utils.py", kUtils);
  t.write("train.py", kTrain);
  initialize();
  open("train.py", kTrain);
  change("train.py", 2, Range{{4, 0}, {4, 0}}, "\n");  // the call moves from line 8 to 9
  open("utils.py", kUtils);
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published("utils.py");
  ASSERT_EQ(p.size(), 1u);
  ASSERT_THAT(codes(p[0]), ::testing::ElementsAre("SYNC001"));
  EXPECT_THAT(p[0][0]["message"].get<std::string>(), HasSubstr("called from train.py:9"));
}

TEST_F(Session, ClosedHelpersShowTheirMovedCallsWhenPulled) {
  t.write("utils.py", kUtils);
  t.write("train.py", kTrain);
  initialize({{"textDocument", {{"diagnostic", json::object()}}}});
  open("train.py", kTrain);
  request(2, "workspace/diagnostic", {{"previousResultIds", json::array()}});
  change("train.py", 2, Range{{4, 0}, {4, 0}}, "\n");
  request(3, "workspace/diagnostic", {{"previousResultIds", json::array()}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  for (auto [id, line] : {std::pair{2, "called from train.py:8"}, std::pair{3, "called from train.py:9"}}) {
    std::string message;
    for (const json& item : response(id)["result"]["items"])
      if (item["uri"] == uri("utils.py") && item["items"].size() == 1) message = item["items"][0]["message"];
    EXPECT_THAT(message, HasSubstr(line)) << id;
  }
}

TEST_F(Session, ClosedDocumentsAreClearedAndReadFromDiskAgain) {
  t.write("utils.py", kUtils);
  t.write("train.py", "import utils\n");
  initialize();
  open("utils.py", kUtils);
  open("train.py", kTrain);
  notify("textDocument/didClose", {{"textDocument", {{"uri", uri("train.py")}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published("train.py");
  ASSERT_FALSE(p.empty());
  EXPECT_TRUE(p.back().empty());
  const std::vector<json> u = published("utils.py");
  // Cold before train.py's buffer called it, hot while it did, cold once the disk's text is back.
  ASSERT_EQ(u.size(), 3u);
  EXPECT_TRUE(u[0].empty());
  EXPECT_THAT(codes(u[1]), ::testing::ElementsAre("SYNC001"));
  EXPECT_TRUE(u[2].empty());
}

// With the C++ front-end, a source no compilation database covers is named in the log, once per analysis
// (on open); without it, the server says once that C++ is not analysed. Diagnostics: none either way.
TEST_F(Session, CxxFilesWithoutADatabaseGetNoDiagnosticsAndALogLine) {
  initialize();
  open("a.cpp", "int main() {}\n", "cpp");
  open("b.cpp", "int f() { return 0; }\n", "cpp");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_TRUE(published("a.cpp").empty() || published("a.cpp").back().empty());
  const std::string said = SYNCLINT_HAVE_CXX ? "no compilation database" : "not analysed";
  int lines = 0;
  for (const json& m : with_method("window/logMessage"))
    if (m["params"]["message"].get<std::string>().find(said) != std::string::npos) ++lines;
  EXPECT_EQ(lines, SYNCLINT_HAVE_CXX ? 2 : 1);
}

TEST_F(Session, ConfigurationErrorsAreDiagnosticsOnTheConfigFile) {
  t.write(".synclint.toml", "selct = [\"SYNC001\"]\n");
  t.write("train.py", kTrain);
  initialize();
  open("train.py", kTrain);
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published(".synclint.toml");
  ASSERT_FALSE(p.empty());
  ASSERT_EQ(p[0].size(), 1u);
  EXPECT_EQ(p[0][0]["severity"], 1);
  EXPECT_THAT(p[0][0]["message"].get<std::string>(), HasSubstr("selct"));
  EXPECT_EQ(p[0][0]["range"]["start"]["line"], 0);
  EXPECT_FALSE(published("train.py").empty());  // still checked, with the defaults
}

TEST_F(Session, SyntaxErrorsAreErrorDiagnosticsAtTheirPlace) {
  t.write("train.py", kTrain);
  initialize();
  open("train.py", kTrain);
  // Line 3 loses its closing bracket, then gets it back.
  change("train.py", 2, Range{{2, 0}, {2, 0}}, "x = foo(\n");
  change("train.py", 3, Range{{2, 0}, {3, 0}}, "");
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::vector<json> p = published("train.py");
  ASSERT_EQ(p.size(), 3u);
  const auto errors = [](const json& items) {
    std::vector<json> out;
    for (const json& d : items)
      if (d["severity"] == 1) out.push_back(d);
    return out;
  };
  EXPECT_TRUE(errors(p[0]).empty());
  const std::vector<json> broken = errors(p[1]);
  ASSERT_EQ(broken.size(), 1u);
  EXPECT_FALSE(broken[0].contains("code"));
  EXPECT_EQ(broken[0]["source"], "synclint");
  EXPECT_THAT(broken[0]["message"].get<std::string>(), HasSubstr("syntax error"));
  EXPECT_GE(broken[0]["range"]["start"]["line"].get<int>(), 2);
  EXPECT_TRUE(errors(p[2]).empty());
}

// --- pull diagnostics ----------------------------------------------------------------------------

TEST_F(Session, PullDiagnosticsWhenTheClientSupportsThem) {
  t.write("utils.py", kUtils);
  initialize({{"textDocument", {{"diagnostic", json::object()}}}});
  open("train.py", kTrain);
  request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri("train.py")}}}});
  request(3, "workspace/diagnostic", {{"previousResultIds", json::array()}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_TRUE(response(1)["result"]["capabilities"]["diagnosticProvider"]["interFileDependencies"].get<bool>());
  EXPECT_TRUE(with_method("textDocument/publishDiagnostics").empty());
  const json& r = response(2)["result"];
  EXPECT_EQ(r["kind"], "full");
  EXPECT_THAT(codes(r["items"]), ::testing::ElementsAre("SYNC011", "SYNC001"));
  bool utils = false;
  for (const json& item : response(3)["result"]["items"])
    if (item["uri"] == uri("utils.py")) utils = codes(item["items"]) == std::vector<std::string>{"SYNC001"};
  EXPECT_TRUE(utils);
}

TEST_F(Session, PullDiagnosticsUnchangedForTheSameResultId) {
  initialize({{"textDocument", {{"diagnostic", json::object()}}}});
  open("train.py", kTrain);
  request(2, "textDocument/diagnostic", {{"textDocument", {{"uri", uri("train.py")}}}});
  EXPECT_EQ(run(), 1);
  const std::string id = response(2)["result"]["resultId"];
  request(3, "textDocument/diagnostic", {{"textDocument", {{"uri", uri("train.py")}}}, {"previousResultId", id}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(3)["result"]["kind"], "unchanged");
}

// --- hover and code actions ----------------------------------------------------------------------

TEST_F(Session, HoverExplainsTheRuleAndShowsProbeCosts) {
  t.write("synclint-probe.json", R"({"schema": "synclint-probe-report", "version": 1,
    "run": {"command": ["python3", "train.py"], "cwd": "/", "hostname": "gpu", "pid": 1,
            "rank": -1, "gpu_name": "H200", "wall_ms": 1000.0, "status": "ok"},
    "runs": [], "totals": {"syncs": 100, "host_blocked_ms": 5.0, "gpu_idle_ms": 4.0,
                          "dropped_activity_records": 0, "windows": 1},
    "sites": [{"path": ")" + t.path("train.py").string() + R"(", "line": 9, "function": "train", "language": "python",
               "api": "cudaStreamSynchronize", "rule_guess": "SYNC001", "calls": 100,
               "host_blocked_ms": 5.0, "gpu_idle_ms": 4.0, "predicted_saving_ms": 3.0,
               "share_of_run": 0.003}]})");
  initialize();
  open("train.py", kTrain);
  request(2, "textDocument/hover", {{"textDocument", {{"uri", uri("train.py")}}}, {"position", {{"line", 8}, {"character", 20}}}});
  request(3, "textDocument/hover", {{"textDocument", {{"uri", uri("train.py")}}}, {"position", {{"line", 0}, {"character", 0}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const std::string md = response(2)["result"]["contents"]["value"];
  EXPECT_THAT(md, HasSubstr("SYNC001"));
  EXPECT_THAT(md, HasSubstr("What it does"));
  EXPECT_THAT(md, HasSubstr("Use instead"));
  EXPECT_THAT(md, HasSubstr("| 100 | 5.0 ms | 4.0 ms | 3.0 ms | 0.3% |"));
  EXPECT_TRUE(response(3)["result"].is_null());
}

// The costs follow the findings as they change: a line typed above the read moves it onto the line of
// another site of the report, and the findings of the file it does not touch keep theirs.
TEST_F(Session, ProbeCostsFollowEditsAndStayOnFilesNotEdited) {
  t.write("utils.py", kUtils);
  auto site = [&](const std::string& file, int line, int calls, double blocked) {
    return R"({"path": ")" + t.path(file).string() + R"(", "line": )" + std::to_string(line) +
           R"(, "function": "f", "language": "python", "api": "cudaStreamSynchronize", "rule_guess": "SYNC001",
               "calls": )" + std::to_string(calls) + R"(, "host_blocked_ms": )" + std::to_string(blocked) +
           R"(, "gpu_idle_ms": 1.0, "predicted_saving_ms": 1.0, "share_of_run": 0.001})";
  };
  t.write("synclint-probe.json", R"({"schema": "synclint-probe-report", "version": 1,
    "run": {"command": ["python3", "train.py"], "cwd": "/", "hostname": "gpu", "pid": 1,
            "rank": -1, "gpu_name": "H200", "wall_ms": 1000.0, "status": "ok"},
    "runs": [], "totals": {"syncs": 100, "host_blocked_ms": 5.0, "gpu_idle_ms": 4.0,
                          "dropped_activity_records": 0, "windows": 1},
    "sites": [)" + site("train.py", 9, 100, 5.0) + ", " + site("train.py", 10, 7, 2.0) + ", " +
                                     site("utils.py", 2, 40, 3.0) + "]}");
  initialize();
  open("train.py", kTrain);
  open("utils.py", kUtils);
  auto hover = [&](int id, const std::string& file, int line, int character) {
    request(id, "textDocument/hover",
            {{"textDocument", {{"uri", uri(file)}}}, {"position", {{"line", line}, {"character", character}}}});
  };
  hover(2, "train.py", 8, 20);
  hover(3, "utils.py", 1, 16);
  change("train.py", 2, Range{{5, 0}, {5, 0}}, "        pass\n");  // the read moves to line 10
  hover(4, "train.py", 9, 20);
  hover(5, "utils.py", 1, 16);
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  auto md = [&](int id) { return response(id)["result"]["contents"]["value"].get<std::string>(); };
  EXPECT_THAT(md(2), HasSubstr("| 100 | 5.0 ms |"));
  EXPECT_THAT(md(3), HasSubstr("| 40 | 3.0 ms |"));
  EXPECT_THAT(md(4), HasSubstr("| 7 | 2.0 ms |"));
  EXPECT_THAT(md(4), Not(HasSubstr("| 100 |")));
  EXPECT_THAT(md(5), HasSubstr("| 40 | 3.0 ms |"));
}

TEST_F(Session, CodeActionsSuppressLineAndFile) {
  initialize();
  open("train.py", kTrain);
  request(2, "textDocument/codeAction", {{"textDocument", {{"uri", uri("train.py")}}},
                                         {"range", Range{{8, 14}, {8, 14}}},
                                         {"context", {{"diagnostics", json::array()}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const json& actions = response(2)["result"];
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0]["title"], "Ignore SYNC001 on this line");
  const json& line_edit = actions[0]["edit"]["changes"][uri("train.py")][0];
  EXPECT_EQ(line_edit["newText"], "  # synclint: ignore[SYNC001]");
  EXPECT_EQ(line_edit["range"]["start"], json({{"line", 8}, {"character", 26}}));
  EXPECT_EQ(actions[1]["edit"]["changes"][uri("train.py")][0]["newText"], "# synclint: ignore-file[SYNC001]\n");
  EXPECT_EQ(actions[0]["diagnostics"][0]["code"], "SYNC001");
}

TEST_F(Session, UnusedSuppressionGetsARemoveAction) {
  initialize();
  open("a.py", "x = 1  # synclint: ignore[SYNC001]\ny = 2  # synclint: ignore[SYNC001, SYNC005]\n");
  request(2, "textDocument/codeAction", {{"textDocument", {{"uri", uri("a.py")}}}, {"range", Range{{0, 0}, {0, 30}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const json& actions = response(2)["result"];
  ASSERT_GE(actions.size(), 1u);
  EXPECT_THAT(actions[0]["title"].get<std::string>(), HasSubstr("Remove"));
  const json& edit = actions[0]["edit"]["changes"][uri("a.py")][0];
  EXPECT_EQ(edit["newText"], "");
  EXPECT_EQ(edit["range"]["start"], json({{"line", 0}, {"character", 5}}));
}

TEST_F(Session, MechanicalFixIsOfferedWhereTheFrontEndGivesOne) {
  const std::string text =
      "import torch\n\n\ndef train(model, loader):\n    for x in loader:\n        y = model(x.cuda())\n";
  initialize();
  open("train.py", text);
  request(2, "textDocument/codeAction", {{"textDocument", {{"uri", uri("train.py")}}}, {"range", Range{{5, 20}, {5, 20}}}});
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  const json& actions = response(2)["result"];
  ASSERT_FALSE(actions.empty());
  bool fix = false;
  for (const json& a : actions)
    if (a["title"].get<std::string>().starts_with("Fix SYNC011")) {
      fix = true;
      EXPECT_EQ(a["edit"]["changes"][uri("train.py")][0]["newText"], "non_blocking=True");
    }
  EXPECT_TRUE(fix);
}

TEST_F(Session, Utf32IsUsedWhenTheClientOffersIt) {
  initialize({{"general", {{"positionEncodings", {"utf-32", "utf-16"}}}}});
  open("train.py", std::string("# \xf0\x9f\x98\x80\n") + kTrain);
  shutdown_and_exit();
  EXPECT_EQ(run(), 0);
  EXPECT_EQ(response(1)["result"]["capabilities"]["positionEncoding"], "utf-32");
}

}  // namespace
}  // namespace synclint::lsp
