// A JSON-RPC message framed as an editor sends it, written here rather than through lsp/transport so that
// the tests check the server's reader against the protocol, not against its own writer.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace synclint::lsp::test {

inline std::string frame(const nlohmann::json& m) {
  const std::string body = m.dump();
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

}  // namespace synclint::lsp::test
