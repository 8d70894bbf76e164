#include "python/project_cache.h"

#include <algorithm>
#include <functional>
#include <unordered_set>

#include "python/parsed_file.h"
#include "python/rounds.h"

namespace synclint::python {

struct ProjectCache::Kept {
  ParsedFile parsed;
  std::uint64_t version = 0;         // a new one for each text
  std::uint64_t source_version = 0;  // SourceFile::version of the text, when the caller named it
  bool analysed = false;
  FileResult result;        // of the last analysis (its path and errors only when deferred)
  bool deferred = false;    // result_of makes the result from `origin`
  // What made it: the memo's output its last walk took (none when it walked), and whether its notes of
  // unknown device were dropped.
  KeptOutput origin;
  bool cpu_only = false;
  std::uint64_t group = 0;  // the key of its group in the last analysis
};

std::unique_ptr<ProjectCache::Kept> ProjectCache::edited(std::unique_ptr<Kept> now, const SourceFile& f,
                                                        std::size_t hash, bool& parse) {
  std::vector<std::unique_ptr<Kept>>& past = past_[f.path];
  std::shared_ptr<Reparse> reparse = std::move(now->parsed.reparse);
  if (!reparse) reparse = std::make_shared<Reparse>();
  std::size_t back = past.size();
  for (std::size_t j = 0; j < past.size() && back == past.size(); ++j)
    if (past[j]->parsed.hash == hash && past[j]->parsed.text == f.text) back = j;
  std::unique_ptr<Kept> k;
  if (back < past.size()) {
    // A text it had lately: that parse, version and walks again.
    k = std::move(past[back]);
    past.erase(past.begin() + static_cast<std::ptrdiff_t>(back));
    k->analysed = false;
    const bool parsed = std::none_of(k->parsed.errors.begin(), k->parsed.errors.end(),
                                     [](const FileError& e) { return e.fatal; });
    if (parsed) reparse->tree.came_back(k->parsed.tree, k->parsed.text);
    parse = false;
  } else {
    k = std::make_unique<Kept>();
    k->version = ++versions_;
    k->parsed.path = f.path;
    k->parsed.text = f.text;
    k->parsed.hash = hash;
    parse = true;
  }
  k->parsed.reparse = std::move(reparse);
  k->source_version = f.version;
  // The text it leaves, with its parse, for when it comes back.
  past.insert(past.begin(), std::move(now));
  if (past.size() > kPastTexts) past.pop_back();
  return k;
}

ProjectCache::ProjectCache() = default;
ProjectCache::~ProjectCache() = default;

std::vector<FileResult> ProjectCache::analyze(const std::vector<SourceFile>& files, const Options& options,
                                              std::vector<char>* same,
                                              const std::function<bool(const std::string& path)>& wanted) {
  const bool same_options = hot_functions_ == options.hot_functions && report_cold_ == options.report_cold;
  hot_functions_ = options.hot_functions;
  report_cold_ = options.report_cold;

  // The parses: kept where the text is the same.
  std::unordered_map<std::string, std::unique_ptr<Kept>> kept;
  std::vector<Kept*> members(files.size());
  std::vector<const std::string*> texts;
  std::vector<ParsedFile*> to_parse;
  // The groups that held a file that changed or went away in the last analysis: walked again.
  std::unordered_set<std::uint64_t> lost;
  std::unordered_set<std::string> replaced;  // edited files to parse (edited() put their last Kept in past_)
  std::unordered_set<std::uint64_t> lost_if_parsed;  // their groups: lost once their parses are done
  for (std::size_t i = 0; i < files.size(); ++i) {
    const SourceFile& f = files[i];
    if (auto same = kept.find(f.path); same != kept.end()) {  // the same path twice: analysed as given once
      members[i] = same->second.get();
      continue;
    }
    auto it = files_.find(f.path);
    const bool same_version = it != files_.end() && f.version != 0 && it->second->source_version == f.version;
    const std::size_t hash = same_version ? 0 : std::hash<std::string>{}(f.text);
    std::unique_ptr<Kept> k;
    if (same_version || (it != files_.end() && it->second->parsed.hash == hash && it->second->parsed.text == f.text)) {
      k = std::move(it->second);
      k->source_version = f.version;
      files_.erase(it);
    } else if (it == files_.end()) {  // new
      k = std::make_unique<Kept>();
      k->version = ++versions_;
      k->parsed.path = f.path;
      k->parsed.text = f.text;
      k->parsed.hash = hash;
      k->source_version = f.version;
      texts.push_back(&k->parsed.text);
      to_parse.push_back(&k->parsed);
    } else {
      const bool analysed = it->second->analysed;
      const std::uint64_t group = it->second->group;
      bool parse = false;
      k = edited(std::move(it->second), f, hash, parse);
      files_.erase(it);
      if (parse) {
        texts.push_back(&k->parsed.text);
        to_parse.push_back(&k->parsed);
        replaced.insert(f.path);
        if (analysed) lost_if_parsed.insert(group);
      } else if (analysed) {
        lost.insert(group);
      }
    }
    members[i] = k.get();
    kept.emplace(f.path, std::move(k));
  }
  if (!same_options) memo_.clear();
  std::vector<std::uint64_t> versions(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) versions[i] = members[i]->version;
  try {
    parse_files(texts, to_parse, options.jobs, options.stop ? &options.stop : nullptr);
  } catch (const ParseStopped&) {
    // Newer edits wait. The files to parse are as before this analysis: an edited one takes back its last
    // text and parse (its kept trees stay with it), a new one waits for the next analysis; the groups these
    // edits touch are walked next time.
    for (ParsedFile* pf : to_parse) {
      auto k = kept.find(pf->path);
      if (k == kept.end()) continue;
      if (replaced.count(pf->path)) {
        std::vector<std::unique_ptr<Kept>>& past = past_[pf->path];
        std::unique_ptr<Kept> before = std::move(past.front());
        past.erase(past.begin());
        before->parsed.reparse = std::move(k->second->parsed.reparse);
        k->second = std::move(before);
      } else {
        kept.erase(k);
      }
    }
    // The files to parse are as the last analysis left them: their groups are walked when their edits come
    // again. Those of the other edits, and of the files that went away, are walked next time.
    for (const auto& [path, k] : files_)
      if (k->analysed) lost.insert(k->group);
    files_ = std::move(kept);
    for (auto& [path, k] : files_)
      if (!same_options || lost.count(k->group)) k->analysed = false;
    throw AnalysisStopped{};
  }
  parsed_last_ = to_parse.size();
  lost.insert(lost_if_parsed.begin(), lost_if_parsed.end());
  std::erase_if(past_, [&](const auto& entry) { return !kept.count(entry.first); });

  // The files left in files_ went away: the groups that held them in the last analysis are walked again.
  for (const auto& [path, k] : files_)
    if (k->analysed) lost.insert(k->group);
  files_ = std::move(kept);
  if (options.stop && options.stop()) {  // the groups these edits touch are walked next time
    for (Kept* k : members)
      if (!same_options || lost.count(k->group)) k->analysed = false;
    throw AnalysisStopped{};
  }

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
    memo_.begin(p, versions);
    return active;
  };
  partial.memo = &memo_;
  partial.same_result = [&](std::size_t i, const KeptOutput& origin, bool cpu_only) {
    const Kept& k = *members[i];
    return k.analysed && same_output(origin, k.origin) && cpu_only == k.cpu_only;
  };
  if (same && wanted) partial.wanted = [&](std::size_t i) { return wanted(files[i].path); };
  std::vector<ParsedFile*> parsed(files.size());
  for (std::size_t i = 0; i < files.size(); ++i) parsed[i] = &members[i]->parsed;
  std::vector<FileResult> results;
  try {
    results = analyze_parsed(parsed, options, /*consume=*/false, &partial);
  } catch (const AnalysisStopped&) {
    // The parses and the walks made stay; the files of the groups it was walking are walked next time.
    for (std::size_t i = 0; i < walked.size(); ++i)
      if (walked[i]) members[i]->analysed = false;
    memo_.end();
    throw;
  } catch (...) {
    files_.clear();  // the groups' results are not known: the next analysis starts afresh
    memo_.clear();
    throw;
  }
  memo_.end();

  // Walked files keep their new results and groups; the others give their kept results.
  ++generation_;
  walked_last_ = 0;
  if (same) same->assign(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    Kept& k = *members[i];
    const bool was_walked = i < walked.size() && walked[i];
    if (was_walked) {
      k.group = (generation_ << 32) | partial.group_of[i];
      ++walked_last_;
    }
    if (was_walked && !partial.same[i]) {
      k.deferred = partial.deferred[i];
      if (k.deferred) (*same)[i] = 2;
      k.result = results[i];
      k.origin = partial.replayed[i];
      k.cpu_only = partial.cpu_only[i];
      k.analysed = true;
    } else if (same) {
      (*same)[i] = 1;
    } else {
      results[i] = result_of(k);
    }
  }
  return results;
}

bool ProjectCache::holds(const std::string& path, std::uint64_t version) const {
  auto it = files_.find(path);
  return version != 0 && it != files_.end() && it->second->source_version == version;
}

FileResult ProjectCache::result_of(const std::string& path) const {
  auto it = files_.find(path);
  if (it == files_.end()) return FileResult{path, {}, {}, {}};
  return result_of(*it->second);
}

FileResult ProjectCache::result_of(const Kept& k) const {
  if (!k.deferred) return k.result;
  FileResult r{k.result.path, {}, k.parsed.comments, k.parsed.errors};
  finish_result(r, kept_findings(k.origin), k.cpu_only, k.origin.out->depth_cut_line);
  return r;
}

}  // namespace synclint::python
