// The project kept in memory (ProjectCache): after any sequence of edits, its results are those of
// analyze_project on the same texts, while it parses only the files that changed and walks only their
// groups.
#include "python/project_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cache_samples.h"
#include "python_files.h"
#include "test_catalog.h"

namespace synclint::python::test {
namespace {

// A call moves out of the loop in train.py: the finding in utils.py goes away, as from scratch; only the
// edited file is parsed again, and the independent file is not walked again.
TEST(ProjectCache, ACallLeavingTheLoopClearsTheHelpersFinding) {
  std::vector<SourceFile> files = project();
  ProjectCache cache;
  const std::vector<FileResult> first = cache.analyze(files, options());
  EXPECT_EQ(dump(first), dump(analyze_project(files, options())));
  EXPECT_EQ(cache.parsed_last(), 4u);
  ASSERT_EQ(first[3].path, "proj/utils.py");
  EXPECT_EQ(sites(first[3], "SYNC001"), std::vector<std::string>{"4:12"});

  std::string& train = files[2].text;
  const std::string call = "        log_stats(loss)\n";
  train.erase(train.find(call));
  train += "    log_stats(loss)\n";
  const std::vector<FileResult> moved = cache.analyze(files, options());
  EXPECT_EQ(dump(moved), dump(analyze_project(files, options())));
  EXPECT_TRUE(sites(moved[3], "SYNC001").empty());
  EXPECT_EQ(cache.parsed_last(), 1u);
  EXPECT_EQ(cache.walked_last(), 3u);  // train.py, utils.py, model.py: not solo/run.py

  // Nothing changed: nothing parsed or walked, the same results.
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(moved));
  EXPECT_EQ(cache.parsed_last(), 0u);
  EXPECT_EQ(cache.walked_last(), 0u);

  // Options that judge differently: everything walked again.
  Options cold = options(/*report_cold=*/true);
  EXPECT_EQ(dump(cache.analyze(files, cold)), dump(analyze_project(files, cold)));
  EXPECT_EQ(cache.walked_last(), 4u);
}

// An import that now reaches another group walks both; an edit that leaves a group, and a file that goes
// away, walk the group again.
TEST(ProjectCache, GroupsJoinedByANewImportOrLeftByARemovedFile) {
  std::vector<SourceFile> files = project();
  ProjectCache cache;
  cache.analyze(files, options());
  files[2].text = "def train(loader):\n    pass\n";  // train.py imports and calls nothing any more
  const std::vector<FileResult> left = cache.analyze(files, options());
  EXPECT_EQ(dump(left), dump(analyze_project(files, options())));
  EXPECT_TRUE(sites(left[3], "SYNC001").empty());
  EXPECT_EQ(cache.walked_last(), 3u);
  files = project();
  cache.analyze(files, options());
  files[1].text = "from utils import log_stats\n" + files[1].text + "        log_stats(b)\n";
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  EXPECT_EQ(cache.walked_last(), 4u);
  files.erase(files.begin() + 3);  // utils.py
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  EXPECT_EQ(cache.walked_last(), 3u);
}

// Random edits (fixed seed): characters typed and deleted anywhere, lines replaced by code that moves calls
// in and out of loops, imports added, files added and removed, edits undone (the text before comes back,
// and edits go on from it); after some edits, an analysis stopped early (after the parse, or before one of
// its rounds) comes first. After each edit, the kept project's results are those of a run from scratch.
TEST(ProjectCache, RandomEditsGiveTheResultsOfAnAnalysisFromScratch) {
  const std::vector<std::string> lines = {
      "    for batch in loader:\n", "        log_stats(loss)\n", "    log_stats(loss)\n",
      "        x = to_gpu(batch).item()\n", "from utils import log_stats\n", "import model\n",
      "def helper(t):\n    return t.item()\n", "        helper(batch)\n", "class M(torch.nn.Module):\n",
      "        self.w = torch.zeros(2).cuda()\n", "    while True:\n", "        if step % 10 == 0:\n",
      "# synclint: ignore[SYNC001]\n", "\n", "  (\n"};
  const std::string chars = "abx()[]:.,= \n#'\"0";
  std::mt19937 rng(29);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  std::vector<SourceFile> files = project();
  ProjectCache cache;
  int walked_less = 0;
  std::size_t replayed = 0;
  int stopped = 0;
  std::string undo, undo_path;  // the text the last edit changed
  for (int step = 0; step < 300; ++step) {
    const std::size_t op = pick(12);
    if (op >= 10 && !undo.empty()) {
      for (SourceFile& f : files)
        if (f.path == undo_path) f.text = undo;
      undo.clear();
    } else if (op == 0 && files.size() < 7) {
      files.push_back({"proj/extra" + std::to_string(step) + ".py", lines[pick(lines.size())] + kUtils});
    } else if (op == 1 && files.size() > 2) {
      files.erase(files.begin() + static_cast<std::ptrdiff_t>(pick(files.size())));
    } else {
      SourceFile& file = files[pick(files.size())];
      undo_path = file.path;
      undo = file.text;
      std::string& text = file.text;
      const std::size_t at = text.empty() ? 0 : pick(text.size() + 1);
      if (op < 6) {
        text.insert(at, 1, chars[pick(chars.size())]);
      } else if (op < 8 && !text.empty()) {
        text.erase(std::min(at, text.size() - 1), 1);
      } else {
        const std::size_t line = text.rfind('\n', at == 0 ? 0 : at - 1);
        const std::size_t begin = line == std::string::npos ? 0 : line + 1;
        const std::size_t end = text.find('\n', begin);
        text.replace(begin, end == std::string::npos ? std::string::npos : end + 1 - begin, lines[pick(lines.size())]);
      }
    }
    std::vector<SourceFile> sorted = files;
    std::sort(sorted.begin(), sorted.end(), [](const SourceFile& a, const SourceFile& b) { return a.path < b.path; });
    const Options o = options(/*report_cold=*/step % 50 >= 40);
    if (step % 4 == 1) {
      Options stopping = o;
      int checks = static_cast<int>(pick(3));
      stopping.stop = [&] { return checks-- == 0; };
      try {
        (void)cache.analyze(sorted, stopping);
      } catch (const AnalysisStopped&) {
        ++stopped;
      }
    }
    ASSERT_EQ(dump(cache.analyze(sorted, o)), dump(analyze_project(sorted, o))) << "after edit " << step;
    if (cache.walked_last() < sorted.size()) ++walked_less;
    replayed += cache.walks_replayed_last();
  }
  EXPECT_GT(walked_less, 30);  // the groups left alone were not walked
  EXPECT_GT(replayed, 0u);  // some walks were taken from an earlier analysis
  EXPECT_GT(stopped, 30);
}

// A training script calls a helper of each of eight modules in its loop. Commenting out its first line (an
// import no other file reads) and typing in its loop's body walks the script alone: the helpers' modules
// take their walks from the last analysis, and the results are a run's from scratch.
// Eight modules with a helper each, and ws/train.py calling them all in its training loop.
std::vector<SourceFile> script_and_helpers() {
  std::vector<SourceFile> files;
  std::string train = "import torch\n";
  for (int i = 0; i < 8; ++i) {
    const std::string n = std::to_string(i);
    files.push_back({"ws/mod_" + n + ".py", "import torch\n\ndef helper_" + n +
                                               "(model, batch):\n    out = model(batch.cuda())\n    return out.sum()\n"});
    train += "from mod_" + n + " import helper_" + n + "\n";
  }
  train += "\ndef train(model, loader):\n    for batch in loader:\n";
  for (int i = 0; i < 8; ++i) train += "        helper_" + std::to_string(i) + "(model, batch).item()\n";
  files.push_back({"ws/train.py", train});
  return files;
}

TEST(ProjectCache, AnEditOfTheScriptTakesTheHelpersWalksFromTheLastAnalysis) {
  std::vector<SourceFile> files = script_and_helpers();
  ProjectCache cache;
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  const std::size_t first = cache.walks_made_last();
  EXPECT_GE(first, 9u);
  std::string& text = files.back().text;
  const std::size_t loop = text.find(" in loader") + 10, line_end = text.find('\n', text.find("helper_3(model"));
  for (int k = 0; k < 6; ++k) {
    if (k == 0) text.insert(0, "#");  // `import torch` commented out
    else if (k == 1) text.erase(0, 1);
    else if (k == 2) text.insert(loop, "1");  // a name typed into: `loader1`
    else if (k == 3) text.erase(loop, 1);
    else if (k == 4) text.insert(line_end, "  # checked");  // a comment after a call
    else text.erase(line_end, 11);
    EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options()))) << "edit " << k;
    EXPECT_EQ(cache.walked_last(), files.size()) << "edit " << k;  // one group
    EXPECT_LE(cache.walks_made_last(), 3u) << "edit " << k;         // the script's, one per round
    if (k % 2 == 1) {
      EXPECT_EQ(cache.walks_made_last(), 0u) << "edit " << k;  // back to the text before
      // ... which needs no parse once both texts have trees kept from parses that started from a tree
      if (k > 1) {
        EXPECT_EQ(cache.parsed_last(), 0u) << "edit " << k;
      }
    }
    EXPECT_GE(cache.walks_replayed_last(), 8u) << "edit " << k;
  }
  // With `same`, the modules' results are marked as the last call's (and not given again); the script's
  // result changes with its edit.
  text.insert(0, "#");
  std::vector<char> same;
  const std::vector<FileResult> results = cache.analyze(files, options(), &same);
  ASSERT_EQ(same.size(), files.size());
  for (std::size_t i = 0; i + 1 < files.size(); ++i) {
    EXPECT_TRUE(same[i]) << files[i].path;
    EXPECT_TRUE(results[i].findings.empty() && results[i].comments.empty()) << files[i].path;
  }
  EXPECT_FALSE(same.back());
  EXPECT_EQ(dump({results.back()}), dump({analyze_project(files, options()).back()}));
}

// Random characters (line breaks too) typed into and deleted from the bodies of functions of a project whose
// files call each other across the files (fixed seed): most walks are replayed from the last analyses, and
// after each edit the results are those of a run from scratch (every other edit, with only the edited file's
// results wanted, and the others' taken from result_of). SYNCLINT_BODY_EDITS sets how many edits (default
// 200).
TEST(ProjectCache, RandomEditsInBodiesReplayWalksAndGiveTheResultsFromScratch) {
  std::vector<SourceFile> files;
  for (int i = 0; i < 6; ++i) {
    const std::string n = std::to_string(i), next = std::to_string((i + 1) % 6);
    files.push_back({"ws/m" + n + ".py", "import torch\nfrom m" + next + " import step_" + next +
                                             "\n\nclass Net" + n + "(torch.nn.Module):\n    def forward(self, x):\n"
                                             "        return x * 2\n\ndef step_" + n +
                                             "(model, batch):\n    out = model(batch.cuda())\n    loss = out.sum()\n"
                                             "    if loss.item() > 1:\n        print(loss)\n    return loss\n\n"
                                             "def run_" + n + "(loader):\n    net = Net" + n + "()\n"
                                             "    for b in loader:\n        step_" + next + "(net, b)\n"});
  }
  const std::string chars = "abx()[]:.,= #'\"0\n";  // a line break moves the calls after it
  std::mt19937 rng(31);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  ProjectCache cache;
  std::size_t replayed = 0, made = 0, resumed = 0, kept = 0, deferred = 0;
  const int steps = std::getenv("SYNCLINT_BODY_EDITS") ? std::atoi(std::getenv("SYNCLINT_BODY_EDITS")) : 200;
  for (int step = 0; step < steps; ++step) {
    const std::size_t edited = pick(files.size());
    std::string& text = files[edited].text;
    // A place in a body: after the first indented line's indentation.
    std::vector<std::size_t> body;
    for (std::size_t at = text.find("\n    "); at != std::string::npos; at = text.find("\n    ", at + 1)) body.push_back(at + 5);
    const std::size_t at = body[pick(body.size())];
    if (pick(2) == 0 || at >= text.size() || text[at] == '\n') text.insert(at, 1, chars[pick(chars.size())]);
    else text.erase(at, 1);
    std::vector<char> same;
    const auto wanted = [&](const std::string& path) { return path == files[edited].path; };
    std::vector<FileResult> now =
        step % 2 ? cache.analyze(files, options(), &same, wanted) : cache.analyze(files, options());
    for (std::size_t i = 0; i < same.size(); ++i) {
      if (same[i]) now[i] = cache.result_of(files[i].path);
      deferred += same[i] == 2;
    }
    ASSERT_EQ(dump(now), dump(analyze_project(files, options()))) << "after edit " << step;
    replayed += cache.walks_replayed_last();
    made += cache.walks_made_last();
    resumed += cache.walks_resumed_last();
    kept += cache.functions_kept_last();
  }
  EXPECT_GT(replayed, made);
  EXPECT_GT(deferred, 0u);  // results left to result_of: chains written again after a line break
  // Most edits stay within one line: the edited file's walks start from its last ones, and keep the output
  // of the functions away from the edit.
  EXPECT_GT(resumed, made / 10);
  EXPECT_GT(kept, resumed);
}

// A file of twelve functions, each calling the next in a loop. A character typed into one of them walks that
// function and the module body only; the others keep their output from the last analysis, and the results
// are a run's from scratch. A line break moves the functions below it: the file is walked whole.
TEST(ProjectCache, ACharacterTypedIntoOneFunctionWalksThatFunctionOnly) {
  std::string text = "import torch\n";
  for (int i = 0; i < 12; ++i) {
    const std::string n = std::to_string(i), next = std::to_string(i + 1);
    text += "\ndef f" + n + "(loader):\n    for b in loader:\n        x = b.cuda()\n";
    text += i < 11 ? "        f" + next + "([x])\n" : "        print(x.sum().item())\n";
    text += "    return x\n";
  }
  text += "\nfor batch in range(3):\n    f0([batch])\n";
  std::vector<SourceFile> files = {{"one/train.py", text}};
  ProjectCache cache;
  ASSERT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  const std::size_t at = files[0].text.find("x = b.cuda()", files[0].text.find("def f6(")) + 1;
  for (int k = 0; k < 4; ++k) {
    if (k % 2 == 0) files[0].text.insert(at, "y");  // `xy = b.cuda()`: f7 is called with an unbound name
    else files[0].text.erase(at, 1);
    ASSERT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options()))) << "edit " << k;
    if (k == 0) {
      EXPECT_GE(cache.walks_resumed_last(), 1u);
      EXPECT_GE(cache.functions_kept_last(), 10u * cache.walks_resumed_last());
    }
  }
  files[0].text.insert(at - 1, "\n        ");
  ASSERT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  EXPECT_EQ(cache.walks_resumed_last(), 0u);
  EXPECT_GE(cache.walks_made_last(), 1u);
}

// Random characters typed into and deleted from the lines of code of a folder of Python files, one
// analysis after each, as in an editor: the results are those of a run from scratch.
// SYNCLINT_CACHE_CORPUS names the folder; SYNCLINT_CACHE_EDITS sets how many edits (default 100).
TEST(ProjectCache, RandomLineEditsOfACorpusGiveTheResultsFromScratchWhenAsked) {
  const char* dir = std::getenv("SYNCLINT_CACHE_CORPUS");
  if (!dir) GTEST_SKIP() << "set SYNCLINT_CACHE_CORPUS to a folder of Python files";
  std::vector<SourceFile> files = python_files(dir);
  ASSERT_FALSE(files.empty());
  const int steps = std::getenv("SYNCLINT_CACHE_EDITS") ? std::atoi(std::getenv("SYNCLINT_CACHE_EDITS")) : 100;
  const std::string chars = "abx()[]:.,= #'\"0";
  std::mt19937 rng(37);
  auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
  ProjectCache cache;
  (void)cache.analyze(files, options());
  std::size_t resumed = 0, kept = 0;
  for (int step = 0; step < steps; ++step) {
    SourceFile& file = files[pick(files.size())];
    std::string& text = file.text;
    if (text.empty()) continue;
    std::size_t at = pick(text.size());
    // Into the code of a line: past its indentation.
    while (at < text.size() && (text[at] == ' ' || text[at] == '\n')) ++at;
    if (pick(2) == 0 || at >= text.size()) text.insert(std::min(at, text.size()), 1, chars[pick(chars.size())]);
    else text.erase(at, 1);
    file.version = 0;
    ASSERT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())))
        << "after edit " << step << " of " << file.path << " at byte " << at;
    resumed += cache.walks_resumed_last();
    kept += cache.functions_kept_last();
  }
  std::printf("%zu files, %d edits: %zu walks resumed, %zu functions kept\n", files.size(), steps, resumed, kept);
}

// An analysis stopped after the parse or before a round leaves the next one the work it did not finish: the
// group of a file that went away, every group after a change of options, an edited file's group.
TEST(ProjectCache, AnAnalysisStoppedEarlyLeavesItsWorkToTheNext) {
  for (int checks = 0; checks < 3; ++checks) {
    ProjectCache cache;
    std::vector<SourceFile> files = project();
    files.push_back({"proj/warmup.py", "import torch\n\nprint(torch.ones(1).cuda().item())\n"});  // cold
    std::string before = dump(cache.analyze(files, options()));
    auto stopped_then_complete = [&](const Options& o, const std::string& what) {
      Options stopping = o;
      int left = checks;
      stopping.stop = [&] { return left-- == 0; };
      EXPECT_THROW((void)cache.analyze(files, stopping), AnalysisStopped) << what << ", check " << checks;
      const std::string now = dump(analyze_project(files, o));
      EXPECT_NE(now, before) << what;  // the change shows in the results
      EXPECT_EQ(dump(cache.analyze(files, o)), now) << what << ", check " << checks;
      before = now;
    };
    files.erase(files.begin());  // model.py: `Net()` in train.py resolves no more
    stopped_then_complete(options(), "a file gone");
    stopped_then_complete(options(/*report_cold=*/true), "other options");
    files[1].text.replace(files[1].text.find("    for batch"), 4, "");  // train.py's loop gone
    stopped_then_complete(options(/*report_cold=*/true), "an edit");
  }
}

// An analysis stopped in the middle of a parse (the parse asks Options::stop every few thousand parser
// operations) leaves the files as they were before it: an edited file keeps its last text and parse, a new
// file waits; the next analysis gives the results from scratch, and so do later edits.
// The project with a large file (a parse long enough to be asked to stop), and that file's text.
std::vector<SourceFile> project_with_a_large_file(std::string* big_text = nullptr) {
  std::string big;
  for (int i = 0; i < 150; ++i) big += kTrain + "\n" + kModel;
  std::vector<SourceFile> files = project();
  files.push_back({"proj/big.py", big});
  if (big_text) *big_text = big;
  return files;
}

TEST(ProjectCache, AnAnalysisStoppedInAParseLeavesTheFilesAsTheyWere) {
  std::string big;
  std::vector<SourceFile> files = project_with_a_large_file(&big);
  ProjectCache cache;
  (void)cache.analyze(files, options());
  files.back().text.insert(files.back().text.size() / 2, "\nx = 1\n");  // edited
  files.push_back({"proj/big2.py", big});                                 // new
  for (int stop_at : {2, 5}) {
    Options stopping = options();
    int calls = 0;
    stopping.stop = [&] { return ++calls >= stop_at; };
    EXPECT_THROW((void)cache.analyze(files, stopping), AnalysisStopped) << stop_at;
    EXPECT_EQ(calls, stop_at);  // the parse asked, and stopped at that answer
  }
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
  files[4].text.insert(files[4].text.size() / 3, "\ny = 2\n");
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
}

// Parses of several files on two threads, stopped: the parse that sees the answer may run on a thread of
// the pool, and its ParseStopped must reach the caller as AnalysisStopped (it ended the process once: a
// language server stopped while it parsed its workspace on start-up).
TEST(ProjectCache, ParsesStoppedOnSeveralThreadsEndTheAnalysis) {
  std::string big;
  std::vector<SourceFile> files = project_with_a_large_file(&big);
  for (int i = 2; i < 8; ++i) files.push_back({"proj/big" + std::to_string(i) + ".py", big});
  for (int stop_at : {1, 3, 8, 20}) {
    ProjectCache cache;
    Options stopping = options();
    stopping.jobs = 2;
    std::atomic<int> calls{0};
    stopping.stop = [&] { return ++calls >= stop_at; };
    EXPECT_THROW((void)cache.analyze(files, stopping), AnalysisStopped) << stop_at;
    Options two = options();
    two.jobs = 2;
    EXPECT_EQ(dump(cache.analyze(files, two)), dump(analyze_project(files, options()))) << stop_at;
  }
}

// An edit whose parse was stopped left the files as they were: when the next analysis gets the files as
// they were before the edit (the edit undone), it walks nothing and keeps every result.
TEST(ProjectCache, FilesAsTheyWereBeforeAStoppedParseWalkNothing) {
  const std::vector<SourceFile> files = project_with_a_large_file();
  ProjectCache cache;
  const std::string before = dump(cache.analyze(files, options()));
  std::vector<SourceFile> edited = files;
  edited.back().text.insert(edited.back().text.size() / 2, "\nx = (\n");
  Options stopping = options();
  int calls = 0;
  stopping.stop = [&] { return ++calls >= 2; };  // the first answer is after the parse's first operations
  EXPECT_THROW((void)cache.analyze(edited, stopping), AnalysisStopped);
  EXPECT_EQ(dump(cache.analyze(files, options())), before);
  EXPECT_EQ(cache.walked_last(), 0u);
  EXPECT_EQ(dump(cache.analyze(edited, options())), dump(analyze_project(edited, options())));
  EXPECT_GT(cache.walked_last(), 0u);
}

// Lines added above the calls in the script move the calls that the helpers' findings name (their calling
// chain): the helpers' walks are replayed with their chains written again, and the results are those of
// an analysis from scratch.
TEST(ProjectCache, LinesAddedAboveTheCallsRewriteTheHelpersChainsWithoutWalkingThem) {
  std::vector<SourceFile> files = script_and_helpers();
  ProjectCache cache;
  const std::string first = dump(cache.analyze(files, options()));
  ASSERT_NE(first.find("called from train.py:13 inside loop"), std::string::npos) << first;  // helper_0's call
  std::string& text = files.back().text;
  const std::size_t loop = text.find("    for batch");
  for (const char* added : {"\n", "    x = 1\n\n", "\n\n\n"}) {
    text.insert(loop, added);
    const std::string now = dump(cache.analyze(files, options()));
    EXPECT_EQ(now, dump(analyze_project(files, options()))) << added;
    EXPECT_EQ(now.find("called from train.py:13 "), std::string::npos) << added;  // the calls moved
    EXPECT_LE(cache.walks_made_last(), 3u) << added;  // the script's, one per round
    EXPECT_GE(cache.walks_replayed_last(), 8u) << added;
  }
}

// Chains written again stay with the replayed walk: an edit after a line break that moved the calls
// leaves the helpers' results as they are (marked `same`), and taking the line break back, or adding more,
// gives the results from scratch again.
TEST(ProjectCache, ChainsWrittenAgainHoldUntilTheCallsMoveAgain) {
  std::vector<SourceFile> files = script_and_helpers();
  ProjectCache cache;
  (void)cache.analyze(files, options());
  std::string& text = files.back().text;
  const std::size_t loop = text.find("    for batch");
  auto check = [&](const std::string& step, bool helpers_same) {
    std::vector<char> same;
    std::vector<FileResult> now = cache.analyze(files, options(), &same);
    const std::vector<FileResult> scratch = analyze_project(files, options());
    ASSERT_EQ(same.size(), files.size()) << step;
    for (std::size_t i = 0; i + 1 < files.size(); ++i) {
      EXPECT_EQ(static_cast<bool>(same[i]), helpers_same) << step << ": " << files[i].path;
      if (same[i]) now[i] = cache.result_of(files[i].path);
    }
    EXPECT_EQ(dump(now), dump(scratch)) << step;
    EXPECT_LE(cache.walks_made_last(), 3u) << step;  // the script's, one per round
  };
  text.insert(loop, "\n");
  check("a line break above the loop", false);
  text.insert(text.find('\n', text.find("helper_3(model")), "  # checked");
  check("a comment after a call", true);
  text.erase(loop, 1);
  check("the line break taken back", false);
  text.insert(loop, "\n\n");
  check("two line breaks", false);
  text.erase(loop, 2);
  check("both taken back", false);
}

// A file given by version (SourceFile::version) that the cache holds needs no text; a new version is
// parsed again.
TEST(ProjectCache, AFileOfTheVersionItHoldsNeedsNoText) {
  std::vector<SourceFile> files = project();
  for (std::size_t i = 0; i < files.size(); ++i) files[i].version = i + 1;
  ProjectCache cache;
  const std::string first = dump(cache.analyze(files, options()));
  std::vector<SourceFile> by_version = files;
  for (SourceFile& f : by_version) {
    EXPECT_TRUE(cache.holds(f.path, f.version)) << f.path;
    f.text.clear();
  }
  EXPECT_FALSE(cache.holds(files[0].path, 99));
  EXPECT_FALSE(cache.holds(files[0].path, 0));
  EXPECT_EQ(dump(cache.analyze(by_version, options())), first);
  EXPECT_EQ(cache.parsed_last(), 0u);
  by_version[2] = files[2];  // train.py, edited
  by_version[2].text.replace(by_version[2].text.find("        log_stats(loss)"), 8, "    ");
  by_version[2].version = 10;
  std::vector<SourceFile> edited = files;
  edited[2] = by_version[2];
  EXPECT_EQ(dump(cache.analyze(by_version, options())), dump(analyze_project(edited, options())));
  EXPECT_EQ(cache.parsed_last(), 1u);
}


// With `wanted` refusing the helpers, a line break above the loop leaves their results to be made (marked
// 2, with their paths and errors only): result_of makes them as a run from scratch does, comments and
// errors included. A later edit that leaves them as they were marks them 1, still made when asked.
TEST(ProjectCache, ResultsNotWantedAreMadeWhenAsked) {
  std::vector<SourceFile> files = script_and_helpers();
  files[2].text += "\n# a note\ndef broken(:\n    pass\n";
  ProjectCache cache;
  (void)cache.analyze(files, options());
  std::string& text = files.back().text;
  const std::string script = files.back().path;
  const auto wanted = [&](const std::string& path) { return path == script; };
  auto check = [&](const std::string& step, char helpers) {
    std::vector<char> same;
    std::vector<FileResult> now = cache.analyze(files, options(), &same, wanted);
    const std::vector<FileResult> scratch = analyze_project(files, options());
    ASSERT_EQ(same.size(), files.size()) << step;
    EXPECT_EQ(same.back(), 0) << step;
    for (std::size_t i = 0; i + 1 < files.size(); ++i) {
      EXPECT_EQ(same[i], helpers) << step << ": " << files[i].path;
      EXPECT_TRUE(now[i].findings.empty() && now[i].comments.empty()) << step << ": " << files[i].path;
      if (helpers == 2) {
        const FileResult errors_only{now[i].path, {}, {}, scratch[i].errors};
        EXPECT_EQ(dump({now[i]}), dump({errors_only})) << step;
      }
      now[i] = cache.result_of(files[i].path);
    }
    EXPECT_EQ(dump(now), dump(scratch)) << step;
  };
  text.insert(text.find("    for batch"), "\n");
  check("a line break above the loop", 2);
  text.insert(text.find('\n', text.find("helper_3(model")), "  # checked");
  check("a comment after a call", 1);
  // Without `same`, every result is given.
  text.erase(text.find("\n    for batch"), 1);
  EXPECT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options())));
}

}  // namespace
}  // namespace synclint::python::test
