// Calling chains: how a finding in a function called from a hot loop elsewhere names the way there ("called
// from train.py:12 inside loop at train.py:10"), from the heats and call edges of a project, or from a
// snapshot of them (ChainAt) that outlives the project, for the findings of a kept walk whose chains moved.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/finding.h"
#include "python/project.h"

namespace synclint::python {

// The calling chain that made function `fn` hot: each function on it from `fn` up, with the call edge
// (an index into project.edges) that made it hot, or -1 for a per-step callback, where the chain ends. It
// also ends at a call inside a loop, at a function that is not hot, and after 31 steps or a cycle.
struct ChainStep {
  int func = -1;
  int edge = -1;
};
std::vector<ChainStep> chain_steps(const Project& p, int fn);

// One step of a calling chain as a project had it: a call (where it, its loop and its periodic guard are, in
// the caller's file) or a per-step callback (its name, where the name is, and the library loop that calls it).
struct ChainStepAt {
  std::uint32_t file = 0;  // index in the project's FilePlaces
  bool callback = false;
  bool in_loop = false;
  bool periodic = false;
  Span call, loop, guard;  // a callback's name is `call`
  std::string name, hook_loop;
};
using ChainAt = std::vector<ChainStepAt>;

// The chain that made `fn` hot, as `p` has it (the steps of chain_steps).
ChainAt chain_at(const Project& p, int fn);

// The chain as a finding in its function tells it: `called` ("called from train.py:12 inside loop at
// train.py:10") and the related locations, with the files named as `places` names them. `heat` is the
// finding's (a periodic one names the caller's guard).
void write_chain(const ChainAt& chain, const FilePlaces& places, Heat heat, std::string& called,
                 std::vector<RelatedLocation>& related);

// write_chain of chain_at(p, fn), with p's places.
void call_chain(const Project& p, int fn, std::string& called, std::vector<RelatedLocation>& related, Heat heat);

// Do two chains, each with the places it names files by, read the same (the same steps, files and positions)?
bool same_chain(const ChainAt& a, const FilePlaces& a_places, const ChainAt& b, const FilePlaces& b_places);

}  // namespace synclint::python
