// Shared by the tests of the project kept in memory: a small project of a training script, its helpers and
// its model, and everything a FileResult holds as text (to compare results whole).
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include "python/analyzer.h"

namespace synclint::python::test {

// Everything a FileResult holds, as text.
inline std::string dump(const std::vector<FileResult>& rs) {
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

inline const std::string kUtils =
    "import torch\n"
    "\n"
    "def log_stats(loss):\n"
    "    return loss.item()\n"
    "\n"
    "def to_gpu(x):\n"
    "    return x.cuda()\n";
inline const std::string kTrain =
    "import torch\n"
    "from utils import log_stats, to_gpu\n"
    "from model import Net\n"
    "\n"
    "def train(loader):\n"
    "    net = Net()\n"
    "    for batch in loader:\n"
    "        loss = net(to_gpu(batch)).sum()\n"
    "        log_stats(loss)\n";
inline const std::string kModel =
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
inline const std::string kSolo =
    "import torch\n"
    "\n"
    "def run(loader):\n"
    "    for b in loader:\n"
    "        print(float(b.cuda().sum()))  # synclint: ignore[SYNC002]\n";

inline std::vector<SourceFile> project() {
  return {{"proj/model.py", kModel}, {"proj/solo/run.py", kSolo}, {"proj/train.py", kTrain}, {"proj/utils.py", kUtils}};
}

}  // namespace synclint::python::test
