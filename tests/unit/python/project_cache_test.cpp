// The project kept in memory (ProjectCache): after any sequence of edits, its results are those of
// analyze_project on the same texts, while it parses only the files that changed and walks only their
// groups.
#include "python/project_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "python/syntax.h"
#include "python_files.h"
#include "test_catalog.h"

namespace synclint::python::test {
namespace {

// Everything a FileResult holds, as text.
std::string dump(const std::vector<FileResult>& rs) {
  std::ostringstream o;
  auto range = [&](const SourceRange& r) {
    o << r.path << ':' << r.begin.line << ':' << r.begin.column << '-' << r.end.line << ':' << r.end.column;
  };
  for (const FileResult& r : rs) {
    o << "== " << r.path << '\n';
    for (const Finding& f : r.findings) {
      o << f.rule_id << ' ' << f.rule_name << ' ' << static_cast<int>(f.severity) << ' ';
      range(f.range);
      o << " [" << f.message << "] " << static_cast<int>(f.confidence) << ' ' << f.periodic << ' '
        << f.reads_per_step << ' ' << f.function << " [" << f.fix << "]\n";
      for (const RelatedLocation& l : f.related) {
        o << "  related ";
        range(l.range);
        o << ' ' << l.message << '\n';
      }
      for (const TextEdit& e : f.edits) {
        o << "  edit ";
        range(e.range);
        o << ' ' << e.replacement << '\n';
      }
    }
    for (const Comment& c : r.comments)
      o << "comment " << c.begin.line << ':' << c.begin.column << ' ' << c.text << '\n';
    for (const FileError& e : r.errors)
      o << "error " << e.path << ' ' << e.message << ' ' << e.fatal << ' '
        << (e.position ? std::to_string(e.position->line) + ":" + std::to_string(e.position->column) : "-") << '\n';
  }
  return o.str();
}

const std::string kUtils =
    "import torch\n"
    "\n"
    "def log_stats(loss):\n"
    "    return loss.item()\n"
    "\n"
    "def to_gpu(x):\n"
    "    return x.cuda()\n";
const std::string kTrain =
    "import torch\n"
    "from utils import log_stats, to_gpu\n"
    "from model import Net\n"
    "\n"
    "def train(loader):\n"
    "    net = Net()\n"
    "    for batch in loader:\n"
    "        loss = net(to_gpu(batch)).sum()\n"
    "        log_stats(loss)\n";
const std::string kModel =
    "import torch\n"
    "\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.scale = torch.ones(1, device='cuda')\n"
    "    def forward(self, x):\n"
    "        if self.scale.item() > 0:\n"
    "            return x * self.scale\n"
    "        return x\n";
const std::string kSolo =
    "import torch\n"
    "\n"
    "def run(loader):\n"
    "    for b in loader:\n"
    "        print(float(b.cuda().sum()))  # synclint: ignore[SYNC002]\n";

std::vector<SourceFile> project() {
  return {{"proj/model.py", kModel}, {"proj/solo/run.py", kSolo}, {"proj/train.py", kTrain}, {"proj/utils.py", kUtils}};
}

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
// after each edit the results are those of a run from scratch. SYNCLINT_BODY_EDITS sets how many edits
// (default 200).
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
  std::size_t replayed = 0, made = 0, resumed = 0, kept = 0;
  const int steps = std::getenv("SYNCLINT_BODY_EDITS") ? std::atoi(std::getenv("SYNCLINT_BODY_EDITS")) : 200;
  for (int step = 0; step < steps; ++step) {
    std::string& text = files[pick(files.size())].text;
    // A place in a body: after the first indented line's indentation.
    std::vector<std::size_t> body;
    for (std::size_t at = text.find("\n    "); at != std::string::npos; at = text.find("\n    ", at + 1)) body.push_back(at + 5);
    const std::size_t at = body[pick(body.size())];
    if (pick(2) == 0 || at >= text.size() || text[at] == '\n') text.insert(at, 1, chars[pick(chars.size())]);
    else text.erase(at, 1);
    ASSERT_EQ(dump(cache.analyze(files, options())), dump(analyze_project(files, options()))) << "after edit " << step;
    replayed += cache.walks_replayed_last();
    made += cache.walks_made_last();
    resumed += cache.walks_resumed_last();
    kept += cache.functions_kept_last();
  }
  EXPECT_GT(replayed, made);
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


// `a` and `b` hold the same nodes.
void expect_same_nodes(const SyntaxTree& a, const SyntaxTree& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::uint32_t i = 0; i < a.size(); ++i)
    ASSERT_EQ(std::memcmp(&a.at(i), &b.at(i), sizeof(SyntaxTree::Item)), 0) << "node " << i << ", " << what;
}

// A parse that starts from the tree of the last text gives the tree a parse from scratch gives, node by node,
// after random edits (with and without syntax errors, brackets and quotes left open, unpacking stars) of a
// longer file. A tree with errors is parsed from the last tree too.
TEST(ProjectCache, AParseFromTheLastTreeIsAParseFromScratch) {
  std::string base;
  for (int i = 0; i < 20; ++i) base += kTrain + "\n" + kModel;
  const std::string chars = "abx_0 ():\n#'\"[]{}.,=*";
  std::mt19937 rng(7);
  Parser incremental, scratch;
  KeptTree kept;
  std::string text;  // the last text parsed
  int without_errors = 0, errors_from_last = 0;
  std::size_t reused = 0;
  for (int step = 0; step < 400; ++step) {
    std::string next = step % 3 == 0 ? base : text;  // edits that pile up, and edits of the original
    const std::size_t at = rng() % (next.size() + 1);
    if (rng() % 3 != 0) next.insert(at, 1, chars[rng() % chars.size()]);
    else if (at < next.size()) next.erase(at, 1 + rng() % 2);
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(next, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(next);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, "after edit " + std::to_string(step));
    if (HasFatalFailure()) return;
    if (!(b->at(0).flags & SyntaxTree::HasError)) ++without_errors;
    else if (incremental.reused_last() > 0) ++errors_from_last;
    reused += incremental.reused_last();
    text = std::move(next);
  }
  EXPECT_GT(without_errors, 60);
  EXPECT_GT(errors_from_last, 100);   // trees with errors took nodes from the last tree
  EXPECT_GT(reused, 400u * 250u);  // many nodes of most parses came from the last tree
}

// An edit that leaves an unpacking star tree-sitter rejects (`x = a, *[b]`) gives the tree of a parse from
// scratch, which parses the text with the star made a space.
TEST(ProjectCache, AParseFromTheLastTreeTakesThePatchedStars) {
  std::string base;
  for (int i = 0; i < 5; ++i) base += kTrain + "\n" + kModel;
  base += "x = a, b\n";
  std::string edited = base;
  edited.insert(edited.rfind("b\n"), "*[");
  edited.insert(edited.rfind("\n"), "]");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(edited, kept);
  const std::unique_ptr<SyntaxTree> b = scratch.parse(edited);
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(b->at(0).flags & SyntaxTree::HasError);
  expect_same_nodes(*a, *b, "x = a, *[b]");
}

// A one-character edit takes the nodes of the statements it left alone from the last tree, wherever it is:
// a comment put before the first statement (which removes the first newline token), a line made a comment
// in the middle of a function, a character typed into a name.
TEST(ProjectCache, AnEditTakesTheNodesOfWhatItLeftAloneFromTheLastTree) {
  std::string base = "import torch\nimport torch.nn.functional as F\n\n";
  for (int i = 0; i < 40; ++i) base += kTrain + "\n" + kModel;
  const std::size_t middle = base.find("\n    ", base.size() / 2) + 1;
  const std::size_t name = base.find("def ", base.size() / 3) + 4;
  struct Edit {
    std::size_t at;
    std::string text;
    const char* what;
  };
  const Edit edits[] = {{0, "#", "comment before the first statement"},
                        {middle, "#", "a line of a function made a comment"},
                        {name, "x", "a character typed into a function's name"}};
  Parser incremental, scratch;
  for (const Edit& e : edits) {
    KeptTree kept;
    incremental.parse_again(base, kept);
    std::string edited = base;
    edited.insert(e.at, e.text);
    for (const std::string* text : {&edited, &base}) {  // typed, then taken back
      const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(*text, kept);
      const std::unique_ptr<SyntaxTree> b = scratch.parse(*text);
      ASSERT_TRUE(a && b);
      expect_same_nodes(*a, *b, e.what);
      if (HasFatalFailure()) return;
      EXPECT_GT(incremental.reused_last(), a->size() * 9 / 10) << e.what << " (of " << a->size() << ")";
    }
  }
}


// A file of training steps, each with a statement tree-sitter reads two ways until its `=` (`x, y = batch`).
std::string steps_file(int count) {
  const std::string step =
      "def step(model, batch, optimizer):\n"
      "    x, y = batch\n"
      "    for it in range(4):\n"
      "        loss = model(x.cuda(), y.cuda())\n"
      "        if loss.item() > 1e4:\n"
      "            raise RuntimeError('diverged')\n"
      "    return loss\n\n";
  std::string text = "import torch\n\n";
  for (int i = 0; i < count; ++i) text += step;
  return text;
}

// A character typed and deleted again, over and over, in the middle of a longer file: each parse takes
// nearly all nodes from a kept tree (the one before the last, whose text the deletion gives back), and
// gives the tree a parse from scratch gives. Starting from the last tree instead, tree-sitter would re-read
// every statement after the edit on the way back (those made while it read `x, y = batch` two ways).
TEST(ProjectCache, ACharacterTypedAndDeletedReusesTheTreeBefore) {
  const std::string base = steps_file(80);
  const std::size_t at = base.find("            raise", base.size() / 2);
  std::string typed = base;
  typed.insert(at, "#");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  for (int k = 0; k < 8; ++k) {
    const std::string& text = k % 2 == 0 ? typed : base;
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(text, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(text);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, "edit " + std::to_string(k));
    if (HasFatalFailure()) return;
    EXPECT_GT(incremental.reused_last(), a->size() * 9 / 10) << "edit " << k << " (of " << a->size() << ")";
  }
}

// A parse stopped by Parser::set_stop's function throws ParseStopped and leaves the kept trees as they were:
// the next parses, not stopped, give the trees a parse from scratch gives.
TEST(ProjectCache, AStoppedParseLeavesTheKeptTreesAsTheyWere) {
  std::string base;
  for (int i = 0; i < 100; ++i) base += kTrain + "\n" + kModel;
  std::string open = base;  // a syntax error in the middle (a bracket left open)
  open.insert(open.find("\ndef ", open.size() / 2) + 1, "x = (\n");
  Parser incremental, scratch;
  KeptTree kept;
  incremental.parse_again(base, kept);
  const std::function<bool()> stop = [] { return true; };
  incremental.set_stop(&stop);
  EXPECT_THROW((void)incremental.parse_again(open, kept), ParseStopped);
  incremental.set_stop(nullptr);
  for (const std::string* text : {&open, &base, &open}) {
    const std::shared_ptr<const SyntaxTree> a = incremental.parse_again(*text, kept);
    const std::unique_ptr<SyntaxTree> b = scratch.parse(*text);
    ASSERT_TRUE(a && b);
    expect_same_nodes(*a, *b, text == &base ? "base" : "open bracket");
  }
}

}  // namespace
}  // namespace synclint::python::test
