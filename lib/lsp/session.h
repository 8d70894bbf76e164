// The JSON-RPC 2.0 side of the server: reads framed messages, checks the LSP lifecycle
// (initialize / initialized / shutdown / exit), binds methods to the Server core, answers errors, and
// decides when to analyse: whenever nothing is waiting, so a single edit is analysed at once and a burst
// of edits is analysed once; results overtaken by newer edits are dropped, not published.
#pragma once

#include "engine/engine.h"
#include "lsp/transport.h"

namespace synclint::lsp {

struct SessionOptions {
  bool threaded = true;  // read input on its own thread (stdio); false for transcripts and tests
  unsigned jobs = 0;     // analysis threads, 0: all cores
  engine::CxxOptions cxx;  // C++: where compile commands come from (-p), as for `check`
};

// Runs until `exit` or the end of input. Returns the process exit code the specification asks for: 0 after
// shutdown then exit, 1 otherwise (exit without shutdown, or input closed).
int run_session(Transport& transport, const SessionOptions& options);

}  // namespace synclint::lsp
