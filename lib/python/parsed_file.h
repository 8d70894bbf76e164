// One file parsed and indexed on its own (tree, functions, classes, imports, comments, syntax errors), and
// the analysis of a project made of such files. analyze_project parses every file and analyses them once;
// ProjectCache (project_cache.h) keeps the parsed files between analyses and parses again only those
// whose text changed.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "python/project.h"
#include "python/walk_memo.h"

namespace synclint::python {

// What the parse of a file's last texts leaves for the parse of its next text (ProjectCache keeps it for
// the files that changed once: those the user edits).
struct Reparse {
  KeptTree tree;
};

struct ParsedFile {
  std::string path;
  std::string text;  // a copy of the source, when the file is kept past the caller's texts (ProjectCache)
  std::size_t hash = 0;
  std::shared_ptr<const SourceText> src;
  std::shared_ptr<const SyntaxTree> tree;
  std::vector<FuncInfo> funcs;  // the module body first; file-local ids in `parent`/`cls`
  std::vector<ClassInfo> classes;
  std::unordered_map<std::string, int> top_funcs, top_classes;  // file-local ids
  std::vector<FileModel::RawImport> raw_imports;
  std::vector<Comment> comments;
  std::vector<FileError> errors;  // syntax errors
  std::shared_ptr<std::atomic<signed char>> names_device;  // FileModel::names_device
  std::shared_ptr<Reparse> reparse;  // when set, the parse starts from its tree, and leaves the new one there
};

// Parses and indexes `file` (path set; `text` the source, alive as long as `file`).
void parse_file(ParsedFile& file, const std::string& text, Parser& parser);

// Parses and indexes *texts[i] into *out[i] (path set) for every i, on `jobs` threads, largest first. With
// `stop` (called from those threads), a parse ends when it answers true and ParseStopped is thrown; the
// files it did not finish are left half made.
void parse_files(const std::vector<const std::string*>& texts, const std::vector<ParsedFile*>& out, unsigned jobs,
                 const std::function<bool()>* stop = nullptr);

// Which files of a linked project to walk (all when empty), and what a walk of some of them leaves for the
// next one.
struct PartialRun {
  std::function<std::vector<char>(const Project&)> choose;
  WalkMemo* memo = nullptr;  // gives and keeps walks (run_rounds)
  // Is file i's result that of the last analysis, its last walk's output being `replayed` (the memo's, none
  // when it walked), and its notes of unknown device dropped when `cpu_only`? Then its result holds its
  // path only, and `same[i]` says so.
  std::function<bool(std::size_t, const KeptOutput& replayed, bool cpu_only)> same_result;
  // Is file i's result wanted now? When set and false for a file whose last walk took a kept output (and
  // whose result is not the last one), its result holds its path and errors only, and `deferred[i]` says
  // so (finish_result and kept_findings make the rest when asked).
  std::function<bool(std::size_t)> wanted;
  // Out, per file: its group at the end (the smallest file index in it; files not walked are alone), the
  // output its last walk took from the memo, whether its program is CPU-only, same_result's answer, and
  // whether its result was left to be made (`wanted`).
  std::vector<std::size_t> group_of;
  std::vector<KeptOutput> replayed;
  std::vector<char> cpu_only;
  std::vector<char> same;
  std::vector<char> deferred;
};

// A file's result from its last walk's findings (moved from) and its comments and errors (set in `r`):
// the notes of unknown device dropped when its program is CPU-only, an error where the walk's nesting limit
// cut it (`depth_cut_line`, 0: none), in output order.
void finish_result(FileResult& r, std::vector<Finding> findings, bool cpu_only, std::uint32_t depth_cut_line);
// The error where the walk's nesting limit cut it, added to `r` (none when `depth_cut_line` is 0).
void add_depth_cut(FileResult& r, std::uint32_t depth_cut_line);
// The findings of a walk that took a kept output: the output's, with its chains written again.
std::vector<Finding> kept_findings(const KeptOutput& kept);

// Analyses the parsed files as one project (analyze_project's results). With `consume`, the parsed files
// are moved from (their memory goes back while the rounds run); otherwise they are left as they were.
// With `partial`, only the files it chooses are walked (whole groups: see run_rounds); the others' results
// hold their path only.
std::vector<FileResult> analyze_parsed(const std::vector<ParsedFile*>& files, const Options& options, bool consume,
                                       PartialRun* partial = nullptr);

}  // namespace synclint::python
