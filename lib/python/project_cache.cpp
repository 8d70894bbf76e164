#include "python/project_cache.h"

#include <functional>
#include <unordered_set>

#include "python/parsed_file.h"
#include "python/rounds.h"

namespace synclint::python {

struct ProjectCache::Kept {
  ParsedFile parsed;
  bool analysed = false;
  FileResult result;        // of the last analysis
  std::uint64_t group = 0;  // the key of its group in the last analysis
};

ProjectCache::ProjectCache() = default;
ProjectCache::~ProjectCache() = default;

std::vector<FileResult> ProjectCache::analyze(const std::vector<SourceFile>& files, const Options& options) {
  const bool same_options = hot_functions_ == options.hot_functions && report_cold_ == options.report_cold;
  hot_functions_ = options.hot_functions;
  report_cold_ = options.report_cold;

  // The parses: kept where the text is the same.
  std::unordered_map<std::string, std::unique_ptr<Kept>> kept;
  std::vector<Kept*> members(files.size());
  std::vector<const std::string*> texts;
  std::vector<ParsedFile*> to_parse;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const SourceFile& f = files[i];
    if (auto same = kept.find(f.path); same != kept.end()) {  // the same path twice: analysed as given once
      members[i] = same->second.get();
      continue;
    }
    const std::size_t hash = std::hash<std::string>{}(f.text);
    auto it = files_.find(f.path);
    std::unique_ptr<Kept> k;
    if (it != files_.end() && it->second->parsed.hash == hash && it->second->parsed.text == f.text) {
      k = std::move(it->second);
      files_.erase(it);
    } else {
      k = std::make_unique<Kept>();
      if (it != files_.end()) {  // edited: parsed from its last tree from now on
        std::shared_ptr<Reparse> reparse = std::move(it->second->parsed.reparse);
        if (!reparse) reparse = std::make_shared<Reparse>();
        reparse->old_text = std::move(it->second->parsed.text);
        k->parsed.reparse = std::move(reparse);
      }
      k->parsed.path = f.path;
      k->parsed.text = f.text;
      k->parsed.hash = hash;
      texts.push_back(&k->parsed.text);
      to_parse.push_back(&k->parsed);
    }
    members[i] = k.get();
    kept.emplace(f.path, std::move(k));
  }
  parse_files(texts, to_parse, options.jobs);
  parsed_last_ = to_parse.size();

  // The files left in files_ went away or changed (their new text is parsed above): the groups that held
  // them in the last analysis are walked again.
  std::unordered_set<std::uint64_t> lost;
  for (const auto& [path, k] : files_)
    if (k->analysed) lost.insert(k->group);
  files_ = std::move(kept);

  // The files to walk: the groups (as the last analysis left them, joined by the imports of now) that
  // hold a file not analysed as it is now.
  PartialRun partial;
  std::vector<char> walked;
  partial.choose = [&](const Project& p) {
    const std::size_t n = p.files.size();
    FileGroups groups(n);
    std::unordered_map<std::uint64_t, std::size_t> first_of_group;
    for (std::size_t i = 0; i < n; ++i) {
      if (!members[i]->analysed) continue;
      auto [it, added] = first_of_group.emplace(members[i]->group, i);
      if (!added) groups.join(i, it->second);
    }
    for (std::size_t i = 0; i < n; ++i)
      for (const auto& [alias, b] : p.files[i].imports)
        if (b.file >= 0) groups.join(i, static_cast<std::size_t>(b.file));
    std::vector<char> walk(n, 0), active(n, 0);
    for (std::size_t i = 0; i < n; ++i)
      if (!same_options || !members[i]->analysed || lost.count(members[i]->group)) walk[groups.find(i)] = 1;
    for (std::size_t i = 0; i < n; ++i) active[i] = walk[groups.find(i)];
    walked = active;
    return active;
  };
  std::vector<ParsedFile*> parsed(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) parsed[i] = &members[i]->parsed;
  std::vector<FileResult> results;
  try {
    results = analyze_parsed(parsed, options, /*consume=*/false, &partial);
  } catch (...) {
    files_.clear();  // the groups' results are not known: the next analysis starts afresh
    throw;
  }

  // Walked files keep their new results and groups; the others give their kept results.
  ++generation_;
  walked_last_ = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    Kept& k = *members[i];
    if (i < walked.size() && walked[i]) {
      k.result = results[i];
      k.group = (generation_ << 32) | partial.group_of[i];
      k.analysed = true;
      ++walked_last_;
    } else {
      results[i] = k.result;
    }
  }
  return results;
}

}  // namespace synclint::python
