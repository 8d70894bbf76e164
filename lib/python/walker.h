// The flow-sensitive walk of one file: statements in order, device inference, loop/guard context, call
// edges and summaries for the project, and dispatch of the rule table at each site.
#pragma once

#include <cstdint>
#include <memory>
#include <set>
#include <tuple>
#include <utility>
#include <unordered_set>
#include <string>
#include <vector>

#include "python/call_chain.h"
#include "python/project.h"
#include "python/rules/rules.h"

namespace synclint::python {

// What one walk of one file produced.
struct FileOutput {
  std::vector<Finding> findings;
  std::vector<int> finding_funcs;  // the function of each finding
  std::vector<CallEdge> edges;  // in walk order: the module body's, then each function's in turn
  // What each function's walk read from summaries (the function first): a file, and in it a function, is
  // walked again in the next round only when something it read changed.
  std::set<std::tuple<int, int, std::string>> read_classes;  // (function, class, attribute)
  std::set<std::tuple<int, int, std::string>> read_globals;  // (function, file, module-level name) of other files
  std::set<std::pair<int, int>> read_funcs;                  // (function, callee): calls and batch-loop tests
  // Attributes set on `self` in methods, in walk order: a class's attributes are joined from them.
  struct AttrWrite {
    int func = -1;
    int cls = -1;
    std::string name;
    Value value;
  };
  std::vector<AttrWrite> attr_writes;
  std::uint32_t depth_cut_line = 0;  // the first line where the nesting limit cut the walk (0: none)
  // Where a finding's message and related locations hold the calling chain of its function (call_chain):
  // the only part of a walk's output that names another file's positions. A kept walk replayed after those
  // positions moved (WalkMemo) gets its chains written again there.
  struct ChainPart {
    std::uint32_t finding = 0;
    std::uint32_t message_at = 0, message_length = 0;  // the chain's text in the message
    std::uint32_t related_at = 0, related_length = 0;  // its entries in `related`
    Heat heat = Heat::Cold;                            // as call_chain took it
    bool in_message = false;                           // the message names the chain
    bool colon = false;                                // as ": " and the chain, when the chain has steps
  };
  std::vector<ChainPart> chain_parts;  // at most one per finding, in the order of the findings
};

// The calling chains of an output's findings as a project had them (when a kept walk was replayed after the
// positions they name moved): for each of its chain parts, the chain of its finding's function, and the
// places that name its files. Written into the findings only when they are made (kept_findings).
struct ChainsAt {
  std::shared_ptr<const FilePlaces> places;
  std::vector<ChainAt> parts;  // as FileOutput::chain_parts
};

// The chains of `out`'s chain parts as `project` has them now (its shape, the functions and call edges, must
// be that of the walk that made `out`).
ChainsAt chains_at(const Project& project, const FileOutput& out);

// A finding of an output with its calling chain written again: its index in the output's findings, and
// its message and related locations as they read now (the rest of the finding is the output's).
struct ChainRewrite {
  std::uint32_t finding = 0;
  std::string message;
  std::vector<RelatedLocation> related;
};
// In the order of the findings.
using ChainRewrites = std::vector<ChainRewrite>;

// The findings of `out` that hold a calling chain, with each chain written as `chains` has it.
ChainRewrites chain_rewrites(const FileOutput& out, const ChainsAt& chains);

// `findings` (an output's) with `rewrites` in place.
void apply(const ChainRewrites& rewrites, std::vector<Finding>& findings);

// A walk's output kept from an earlier analysis (WalkMemo::replay): shared, and the calling chains its
// findings name as they read since (null when as the output has them).
struct KeptOutput {
  std::shared_ptr<const FileOutput> out;
  std::shared_ptr<const ChainsAt> chains;
  explicit operator bool() const { return out != nullptr; }
};

// Are both the same kept output (none is not), with chains that read the same (the same steps, files and
// positions), so that they give the same findings?
bool same_output(const KeptOutput& a, const KeptOutput& b);

// Walks every function of `file` (the module body first). `emit` keeps findings.
void walk_file(Project& project, int file, bool emit, FileOutput& out);

// A file's units, which the partial walks below walk whole: the module body, and each top-level function or
// method with the functions nested in it (they start from its final environment). The file's functions are
// `count` from project.funcs[`base`] (its module body) on, in pre-order; gives, for each of them, the
// position of the first function of its unit.
std::vector<std::size_t> unit_starts(const Project& project, int base, std::size_t count);

// Walks `file` again after an earlier walk whose output is `old` (moved from), with findings kept: only the
// module body and the top-level functions and methods (each with the functions nested in it) that must be:
// those with a function marked in `dirty` (something it read in an earlier round changed), with a finding
// (its message tells the heat and calling chain of this round), or that read the summary of a function
// walked before them here whose result changed; all of them once the module's names changed. The others
// keep their output (`project.next` holds their summaries and module names on entry; the file's class
// attributes are joined again). Gives what walk_file gives.
void walk_file_again(Project& project, int file, FileOutput&& old, const std::vector<char>& dirty, FileOutput& out);

// A walk of `file` made in an earlier analysis, of its text now or of one that differs from it within one
// line (WalkMemo::earlier), to walk again from: its output, what it wrote (the results of the file's
// functions, the module body first, and the module's names), and the functions to walk (by the same
// order): those whose unit holds the changed line, and those that read something that differs now.
struct EarlierWalk {
  FileOutput out;
  std::vector<FuncSummary> results;
  Env globals;
  std::vector<char> walk;
};

// Walks `file` again from an earlier analysis's walk, as walk_file_again does from the last round's: the
// units with a function marked in `earlier.walk`, or whose findings' calling chains read otherwise now, or
// that read the result of a function walked before them whose result differs from the earlier one; all once
// the module's names differ. `project.next` must hold `earlier.results` and `earlier.globals` for the
// file on entry. Gives what walk_file gives, and returns how many of the file's functions kept their output.
std::size_t walk_file_from(Project& project, int file, EarlierWalk&& earlier, FileOutput& out);

}  // namespace synclint::python
