// The language server over an in-memory stream: the input is the client's byte stream (Content-Length
// framing, JSON-RPC messages), read synchronously by one session until `exit` or the end of input.
#include <sstream>

#include "fuzz_support.h"
#include "lsp/session.h"
#include "lsp/transport.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace synclint;
  std::istringstream in(std::string(fuzz::as_text(data, size)));
  std::ostringstream out;
  lsp::Transport transport(in, out);
  lsp::SessionOptions options;
  options.threaded = false;
  options.jobs = 1;
  (void)lsp::run_session(transport, options);
  return 0;
}
