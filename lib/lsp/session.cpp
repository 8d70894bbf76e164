#include "lsp/session.h"

#include <functional>
#include <map>
#include <set>

#include "lsp/protocol.h"
#include "lsp/server.h"

namespace synclint::lsp {
using nlohmann::json;

namespace {

enum class State { Uninitialized, Running, ShutDown };

bool is_change(const json& m) {
  return m.is_object() && m.value("method", "") == "textDocument/didChange";
}

json error_object(ErrorCode code, const std::string& message) {
  return json{{"code", static_cast<int>(code)}, {"message", message}};
}

class Session {
 public:
  Session(Transport& transport, const SessionOptions& options)
      : transport_(transport),
        inbox_(transport, options.threaded),
        server_(ServerCallbacks{
                    [this](const std::string& uri, std::optional<std::int64_t> version, const std::vector<Diagnostic>& d) {
                      transport_.write_text(publish_texts_.notification(uri, version, d));
                    },
                    [this](int type, const std::string& message) { log(type, message); },
                    [this] {
                      if (client_.diagnostic_refresh) send_request("workspace/diagnostic/refresh", nullptr, {});
                    },
                    options.threaded ? std::function<void()>([this] { inbox_.wake(); }) : nullptr},
                options.jobs, options.cxx) {
    bind();
  }

  int run() {
    for (;;) {
      if (state_ == State::Running && server_.dirty() && inbox_.empty()) {
        try {
          server_.analyze([this] { return inbox_.any_pending(is_change); });
        } catch (const std::exception& e) {
          log(1, std::string("synclint: analysis failed: ") + e.what());
        }
      }
      Incoming in = inbox_.next();
      if (in.kind == Incoming::Kind::End) return state_ == State::ShutDown ? 0 : 1;
      if (in.kind == Incoming::Kind::Wake) {
        server_.results_arrived();
        continue;
      }
      if (in.kind == Incoming::Kind::Error) {
        reply_error(nullptr, ErrorCode::ParseError, in.error);
        continue;
      }
      if (auto code = handle(in.message)) return *code;
    }
  }

 private:
  using RequestHandler = std::function<json(const json&)>;
  using NotificationHandler = std::function<void(const json&)>;

  void bind() {
    requests_["shutdown"] = [this](const json&) {
      state_ = State::ShutDown;
      return json(nullptr);
    };
    requests_["textDocument/hover"] = [this](const json& p) {
      auto h = server_.hover(document_uri(p), param<Position>(p, "position"));
      return h ? json(*h) : json(nullptr);
    };
    requests_["textDocument/codeAction"] = [this](const json& p) {
      return json(server_.code_actions(document_uri(p), param<Range>(p, "range")));
    };
    requests_["textDocument/diagnostic"] = [this](const json& p) {
      const std::string previous = p.value("previousResultId", "");
      return json(server_.document_diagnostics(document_uri(p), previous));
    };
    requests_["workspace/diagnostic"] = [this](const json& p) {
      std::map<std::string, std::string> previous;
      if (p.contains("previousResultIds") && p.at("previousResultIds").is_array())
        for (const json& r : p.at("previousResultIds"))
          if (r.is_object()) previous[r.value("uri", "")] = r.value("value", "");
      return json{{"items", server_.workspace_diagnostics(previous)}};
    };
    notifications_["initialized"] = [this](const json&) { after_initialized(); };
    notifications_["textDocument/didOpen"] = [this](const json& p) {
      const json doc = param<json>(p, "textDocument");
      server_.did_open(param<std::string>(doc, "uri"), param<std::int64_t>(doc, "version"), param<std::string>(doc, "text"));
    };
    notifications_["textDocument/didChange"] = [this](const json& p) {
      const json doc = param<json>(p, "textDocument");
      server_.did_change(param<std::string>(doc, "uri"), param<std::int64_t>(doc, "version"),
                         param<std::vector<ContentChange>>(p, "contentChanges"));
    };
    notifications_["textDocument/didClose"] = [this](const json& p) { server_.did_close(document_uri(p)); };
    notifications_["textDocument/didSave"] = [this](const json& p) { server_.did_save(document_uri(p)); };
    notifications_["workspace/didChangeWatchedFiles"] = [this](const json& p) {
      server_.files_changed(param<std::vector<FileEvent>>(p, "changes"));
    };
    notifications_["workspace/didChangeConfiguration"] = [this](const json& p) {
      if (p.contains("settings")) server_.update_settings(p.at("settings").get<Settings>());
      if (client_.workspace_configuration) pull_configuration();
    };
    notifications_["$/cancelRequest"] = [this](const json& p) {
      if (p.contains("id")) cancelled_.insert(p.at("id").dump());
    };
  }

  static std::string document_uri(const json& p) { return param<std::string>(param<json>(p, "textDocument"), "uri"); }

  // Returns an exit code when the session ends.
  std::optional<int> handle(const json& m) {
    if (!m.is_object()) {
      reply_error(nullptr, ErrorCode::InvalidRequest, "a JSON-RPC message must be an object");
      return std::nullopt;
    }
    const bool has_id = m.contains("id") && (m.at("id").is_number_integer() || m.at("id").is_string());
    if (!m.contains("method")) {
      if (has_id) answer_received(m);  // a response to one of our requests
      else reply_error(nullptr, ErrorCode::InvalidRequest, "a message needs a method or an id");
      return std::nullopt;
    }
    if (!m.at("method").is_string()) {
      reply_error(has_id ? m.at("id") : json(nullptr), ErrorCode::InvalidRequest, "'method' must be a string");
      return std::nullopt;
    }
    const std::string method = m.at("method");
    const json params = m.value("params", json::object());
    if (method == "exit") return state_ == State::ShutDown ? 0 : 1;
    if (!has_id) {
      notification(method, params);
      return std::nullopt;
    }
    const json id = m.at("id");
    if (cancelled_.erase(id.dump()) ||
        inbox_.any_pending([&](const json& x) {
          return x.is_object() && x.value("method", "") == "$/cancelRequest" && x.contains("params") &&
                 x.at("params").is_object() && x.at("params").value("id", json()) == id;
        })) {
      reply_error(id, ErrorCode::RequestCancelled, "cancelled");
      return std::nullopt;
    }
    handle_request(id, method, params);
    return std::nullopt;
  }

  void handle_request(const json& id, const std::string& method, const json& params) {
    try {
      if (method == "initialize") {
        if (state_ != State::Uninitialized) throw RequestError(ErrorCode::InvalidRequest, "initialize was already received");
        InitializeParams p = params.get<InitializeParams>();
        client_ = p.capabilities;
        InitializeResult r = server_.initialize(p);
        state_ = State::Running;
        reply(id, r);
        return;
      }
      if (state_ == State::Uninitialized)
        throw RequestError(ErrorCode::ServerNotInitialized, "the server is not initialized: send initialize first");
      if (state_ == State::ShutDown) throw RequestError(ErrorCode::InvalidRequest, "the server is shut down: only exit is accepted");
      auto it = requests_.find(method);
      if (it == requests_.end()) throw RequestError(ErrorCode::MethodNotFound, "method not found: " + method);
      reply(id, it->second(params));
    } catch (const RequestError& e) {
      reply_error(id, e.code, e.what());
    } catch (const std::exception& e) {
      reply_error(id, ErrorCode::InternalError, std::string("internal error: ") + e.what());
    }
  }

  void notification(const std::string& method, const json& params) {
    if (state_ != State::Running) return;  // dropped before initialize and after shutdown
    auto it = notifications_.find(method);
    if (it == notifications_.end()) return;  // unknown notifications are ignored ($/ ones by the specification)
    try {
      it->second(params);
    } catch (const std::exception& e) {
      log(1, "synclint: " + method + ": " + e.what());
    }
  }

  void after_initialized() {
    if (client_.workspace_configuration) pull_configuration();
    if (client_.watched_files_registration) {
      json watchers = json::array();
      for (const char* glob : {"**/*.py", "**/pyproject.toml", "**/.synclint.toml", "**/*.json"})
        watchers.push_back({{"globPattern", glob}});
      send_request("client/registerCapability",
              {{"registrations",
                {{{"id", "synclint-watch"}, {"method", "workspace/didChangeWatchedFiles"},
                  {"registerOptions", {{"watchers", watchers}}}}}}},
              {});
    }
  }

  void pull_configuration() {
    send_request("workspace/configuration", {{"items", {{{"section", "synclint"}}}}}, [this](const json& result) {
      if (result.is_array() && !result.empty() && result[0].is_object()) server_.update_settings(result[0].get<Settings>());
    });
  }

  void send_request(const std::string& method, json params, std::function<void(const json&)> on_result) {
    const int id = next_id_++;
    json m{{"jsonrpc", "2.0"}, {"id", id}, {"method", method}};
    if (!params.is_null()) m["params"] = std::move(params);
    if (on_result) pending_[id] = std::move(on_result);
    transport_.write(m);
  }

  void answer_received(const json& m) {
    if (!m.at("id").is_number_integer()) return;
    auto it = pending_.find(m.at("id").get<int>());
    if (it == pending_.end()) return;
    auto handler = std::move(it->second);
    pending_.erase(it);
    if (m.contains("result")) {
      try {
        handler(m.at("result"));
      } catch (const std::exception& e) {
        log(1, std::string("synclint: unusable answer from the client: ") + e.what());
      }
    }
  }

  void notify(const std::string& method, json params) {
    transport_.write(json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  void log(int type, const std::string& message) { notify("window/logMessage", {{"type", type}, {"message", message}}); }
  void reply(const json& id, json result) {
    transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
  }
  void reply_error(const json& id, ErrorCode code, const std::string& message) {
    transport_.write(json{{"jsonrpc", "2.0"}, {"id", id}, {"error", error_object(code, message)}});
  }

  Transport& transport_;
  Inbox inbox_;
  PublishTexts publish_texts_;  // the last diagnostics' texts of each document
  Server server_;
  State state_ = State::Uninitialized;
  ClientCapabilities client_;
  std::map<std::string, RequestHandler> requests_;
  std::map<std::string, NotificationHandler> notifications_;
  std::set<std::string> cancelled_;
  std::map<int, std::function<void(const json&)>> pending_;
  int next_id_ = 1;
};

}  // namespace

int run_session(Transport& transport, const SessionOptions& options) {
  Session session(transport, options);
  return session.run();
}

}  // namespace synclint::lsp
