// Hot context: loops, calls from loops (across files), callbacks, periodic guards, epochs, multipliers, scopes.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <tuple>

#include "test_catalog.h"

namespace synclint::python::test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

bool has_related(const Finding& f, const std::string& part) {
  for (const RelatedLocation& r : f.related)
    if (r.message.find(part) != std::string::npos) return true;
  return false;
}

TEST(HotContext, ColdCodeIsNotReportedUnlessAsked) {
  const std::string src = R"(import torch
x = torch.ones(1, device="cuda")
x.item()
def f():
    return x.item()
)";
  EXPECT_THAT(analyze(src).findings, IsEmpty());
  const auto all = analyze(src, options(true));
  ASSERT_EQ(all.findings.size(), 2u);
  for (const Finding& f : all.findings) EXPECT_EQ(f.severity, Severity::Note);
}

TEST(HotContext, LoopHeaderIsARelatedLocation) {
  const auto r = analyze(R"(import torch
for i in range(3):
    torch.ones(1, device="cuda").item()
)");
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_FALSE(f.periodic);
  ASSERT_EQ(f.related.size(), 1u);
  EXPECT_EQ(f.related[0].message, "inside loop at train.py:2");
  // The header only, up to its colon: the place stays while the body is edited.
  const SourceRange& at = f.related[0].range;
  EXPECT_EQ(std::tuple(at.begin.line, at.begin.column, at.end.line, at.end.column), std::tuple(2u, 1u, 2u, 19u));
}

// A while loop, and a loop around a call to a function whose finding names the loop in its calling chain:
// both related locations are the loop's header.
TEST(HotContext, LoopHeadersInCallingChainsToo) {
  const auto r = analyze(R"(import torch

def show(t):
    print(t.item())

while True:
    x = torch.ones(1, device="cuda")
    show(x)
    x.cpu()
)");
  ASSERT_EQ(r.findings.size(), 2u);
  for (const Finding& f : r.findings) {
    const auto loop = std::find_if(f.related.begin(), f.related.end(),
                                   [](const RelatedLocation& l) { return l.message == "inside loop at train.py:6"; });
    ASSERT_NE(loop, f.related.end()) << f.message;
    EXPECT_EQ(std::tuple(loop->range.begin.line, loop->range.begin.column, loop->range.end.line,
                         loop->range.end.column),
              std::tuple(6u, 1u, 6u, 12u))
        << f.message;
  }
}

TEST(HotContext, PeriodicGuardsMakeNotes) {
  const auto r = analyze(R"(import torch
loss = torch.ones(1, device="cuda")
for step in range(100):
    if step % 10 == 0:
        loss.item()
    if (step + 1) % k == 0:
        loss.item()
    if step % 5:
        loss.item()
    else:
        loss.item()
    if not step % 3:
        loss.item()
    if step % 7 != 0:
        continue
    loss.item()
)");
  ASSERT_EQ(sites(r, "SYNC001"), (std::vector<std::string>{"5:9", "7:9", "9:9", "11:9", "13:9", "16:5"}));
  const std::vector<bool> periodic = {true, true, false, true, true, true};
  for (std::size_t i = 0; i < r.findings.size(); ++i) {
    EXPECT_EQ(r.findings[i].periodic, periodic[i]) << r.findings[i].message;
    EXPECT_EQ(r.findings[i].severity, periodic[i] ? Severity::Note : Severity::Warning) << r.findings[i].message;
  }
  EXPECT_TRUE(has_related(r.findings[0], "periodic guard at train.py:4"));
}

TEST(HotContext, AFunctionCalledUnderACallersGuardNamesThatGuard) {
  const auto r = analyze(R"(import torch
def log(loss):
    print(loss.item())
loss = torch.ones(1, device="cuda")
for step in range(100):
    if step % 10 == 0:
        log(loss)
)");
  ASSERT_EQ(sites(r, "SYNC001"), (std::vector<std::string>{"3:11"}));
  const std::string& m = r.findings[0].message;
  EXPECT_TRUE(r.findings[0].periodic) << m;
  EXPECT_NE(m.find("at each logging interval: called from train.py:7"), std::string::npos) << m;
  EXPECT_NE(m.find("under the periodic guard at train.py:6"), std::string::npos) << m;
  EXPECT_EQ(m.find("train.py:1"), std::string::npos) << m;  // no guard of its own to name
}

TEST(HotContext, OncePerEpochIsANote) {
  const auto r = analyze(R"(import torch
loss = torch.ones(1, device="cuda")
for epoch in range(10):
    for x in train_loader:
        loss.item()
    loss.item()
)");
  ASSERT_EQ(r.findings.size(), 2u);
  EXPECT_EQ(r.findings[0].severity, Severity::Warning);
  EXPECT_EQ(r.findings[1].severity, Severity::Note);
  EXPECT_TRUE(r.findings[1].periodic);
  EXPECT_NE(r.findings[1].message.find("once per epoch"), std::string::npos);
}

TEST(HotContext, InnerParameterLoopIsAMultiplierNotAnEpoch) {
  const auto r = analyze(R"(import torch
model = torch.nn.Linear(2, 2).cuda()
for step in range(10):
    for p in model.parameters():
        p.norm()
    model(torch.ones(2, device="cuda")).sum().item()
    for t in [model.weight, model.bias]:
        t.norm().item()
)");
  const Finding* item = find(r, "SYNC001", 6);
  ASSERT_NE(item, nullptr);
  EXPECT_EQ(item->severity, Severity::Warning);
  const Finding* mult = find(r, "SYNC001", 8);
  ASSERT_NE(mult, nullptr);
  EXPECT_EQ(mult->reads_per_step, 2u);
  EXPECT_NE(mult->message.find("2 reads per step"), std::string::npos) << mult->message;
}

TEST(HotContext, MultiplierInComprehensionOverParameters) {
  const auto r = analyze(R"(import torch
model = torch.nn.Linear(2, 2).cuda()
for step in range(10):
    norms = [p.grad.norm().item() for p in model.parameters()]
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].message.find("2 reads per step"), std::string::npos) << r.findings[0].message;
  EXPECT_EQ(r.findings[0].reads_per_step, 2u);
}

// The parameter tensors of a project module: its layers' (in containers too), across the rounds.
TEST(HotContext, MultiplierCountsTheParametersOfAProjectModule) {
  const auto r = analyze(R"(import torch
import torch.nn as nn

class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, bias=False)
        self.norm = nn.BatchNorm2d(c)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU())
        self.block = Block(16)
        self.head = nn.Linear(16, 10)
        self.loss_fn = nn.CrossEntropyLoss()
        self.steps = 0

model = Net().cuda()
for step in range(10):
    for p in model.parameters():
        p.grad.norm().item()
)");
  ASSERT_EQ(r.findings.size(), 1u);
  // stem conv 2 + block (conv without bias 1, norm 2) + head 2
  EXPECT_NE(r.findings[0].message.find("7 reads per step"), std::string::npos) << r.findings[0].message;
  EXPECT_EQ(r.findings[0].reads_per_step, 7u);
}

// Layers built in comprehensions: the length of the iterable (range, literals, their slices, zip) times
// the element's count. The bundled example's network: 5 x (conv 2 + norm 2) + linear 2.
TEST(HotContext, MultiplierCountsLayersBuiltInComprehensions) {
  const auto r = analyze(R"(import torch
import torch.nn as nn

class SmallCNN(nn.Module):
    def __init__(self, channels=(3, 32, 64, 64, 128, 128), num_classes=10):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Conv2d(c_in, c_out, 3, padding=1), nn.BatchNorm2d(c_out), nn.ReLU())
            for c_in, c_out in zip(channels[:-1], channels[1:])
        )
        self.head = nn.Linear(channels[-1], num_classes)
        self.mlp = nn.Sequential(*[nn.Linear(8, 8) for _ in range(3)])

model = SmallCNN().cuda()
for step in range(10):
    norms = {name: p.grad.norm().item() for name, p in model.named_parameters()}
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_NE(r.findings[0].message.find("28 reads per step"), std::string::npos) << r.findings[0].message;
}

// Whatever could hold parameters the analysis cannot count keeps the count open.
TEST(HotContext, MultiplierStaysOpenWhenTheParametersAreNotKnown) {
  for (const char* model : {"build_model().cuda()", "nn.ModuleList().cuda()", "Net(backbone).cuda()",
                            "nn.Linear(4, 2, bias=use_bias).cuda()", "Grown().cuda()",
                            "nn.ModuleList(nn.Linear(4, 4) for c in (1, 2, 3) if c > 1).cuda()",
                            "nn.ModuleList([nn.Linear(4, 4) for _ in range(depth)]).cuda()"}) {
    const auto r = analyze(std::string(R"(import torch
import torch.nn as nn

class Net(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(16, 10)

class Grown(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList()
        for _ in range(3):
            self.layers.append(nn.Linear(4, 4))

model = )") + model + R"(
for step in range(10):
    norms = [p.grad.norm().item() for p in model.parameters()]
)");
    ASSERT_EQ(r.findings.size(), 1u) << model;
    EXPECT_NE(r.findings[0].message.find("one read per parameter per step"), std::string::npos)
        << model << ": " << r.findings[0].message;
  }
}

TEST(HotContext, ParameterLoopInColdCodeIsCold) {
  const auto r = analyze(R"(import torch
model = torch.nn.Linear(2, 2).cuda()
for p in model.parameters():
    print(p.norm().item())
)");
  EXPECT_THAT(r.findings, IsEmpty());
}

TEST(HotContext, CallsFromLoopsAcrossFilesWithChain) {
  const auto results = analyze_files({
      {"proj/train.py", R"(import torch
from utils import log_stats
import metrics
for step in range(100):
    loss = torch.ones(1, device="cuda")
    log_stats(loss)
    metrics.record(loss)
)"},
      {"proj/utils.py", R"(def log_stats(loss):
    print(loss)
)"},
      {"proj/metrics.py", R"(def record(loss):
    return helper(loss)

def helper(t):
    return t.item()

def unused(t):
    return t.item()
)"},
  });
  ASSERT_EQ(results.size(), 3u);
  const Finding* p = find(results[1], "SYNC005", 2);
  ASSERT_NE(p, nullptr);
  EXPECT_NE(p->message.find("called from train.py:6 inside loop at train.py:4"), std::string::npos) << p->message;
  EXPECT_TRUE(has_related(*p, "inside loop at train.py:4"));
  ASSERT_EQ(results[2].findings.size(), 1u);
  const Finding& h = results[2].findings[0];
  EXPECT_EQ(h.range.begin.line, 5u);
  EXPECT_EQ(h.function, "helper");
  EXPECT_TRUE(has_related(h, "called from metrics.py:2"));
  EXPECT_TRUE(has_related(h, "called from train.py:7 inside loop at train.py:4"));
}

TEST(HotContext, RelativeImportsAndMethods) {
  const auto results = analyze_files({
      {"pkg/__init__.py", ""},
      {"pkg/engine.py", R"(from .stats import Meter
class Trainer:
    def __init__(self):
        self.meter = Meter()
    def fit(self, loader):
        for x in loader:
            self.step(x)
    def step(self, x):
        self.meter.update(x.cuda(non_blocking=True))
)"},
      {"pkg/stats.py", R"(class Meter:
    def update(self, value):
        if value > 0:
            pass
)"},
  });
  const Finding* f = find(results[2], "SYNC006", 3);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("inside loop at engine.py:6"), std::string::npos) << f->message;
}

TEST(HotContext, CallbacksByNameAndConfiguredHotFunctions) {
  const std::string src = R"(import torch
class M(torch.nn.Module):
    def training_step(self, batch, idx):
        loss = self(batch).mean()
        loss.item()
    def my_step(self, batch):
        torch.ones(1, device="cuda").item()
    def helper(self, batch):
        torch.ones(1, device="cuda").item()
)";
  auto r = analyze(src);
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("5:9"));
  EXPECT_NE(r.findings[0].message.find("`training_step` is a per-step callback"), std::string::npos);
  Options o = options();
  o.hot_functions.push_back("my_step");
  r = analyze(src, o);
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("5:9", "7:9"));
}

TEST(HotContext, PeriodicCallSiteMakesCalleePeriodic) {
  const auto r = analyze(R"(import torch
def dump(t):
    print(t)
for step in range(100):
    t = torch.ones(1, device="cuda")
    if step % 100 == 0:
        dump(t)
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].severity, Severity::Note);
  EXPECT_TRUE(r.findings[0].periodic);
}

TEST(Scopes, LoopAncestryStopsAtDefLambdaAndClass) {
  const auto r = analyze(R"(import torch
x = torch.ones(1, device="cuda")
for i in range(3):
    def inner():
        return x.item()
    key = lambda t: t.item()
    class Local:
        value = x.item()
)");
  // inner() and the lambda are never called from the loop; the class body runs once per iteration but
  // is reported (it is in the loop's block), the function and the lambda are not.
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("8:17"));
}

TEST(Scopes, ComprehensionVariablesDoNotLeak) {
  const auto r = analyze(R"(import torch
p = 1.0
for step in range(3):
    ts = [p for p in [torch.ones(1, device="cuda")]]
    if p:
        pass
)");
  EXPECT_THAT(sites(r, "SYNC006"), IsEmpty());
}

TEST(Scopes, FunctionNamesInFindings) {
  const auto r = analyze(R"(import torch
class Trainer:
    def train(self):
        for i in range(3):
            torch.ones(1, device="cuda").item()
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].function, "Trainer.train");
}

}  // namespace
}  // namespace synclint::python::test
