// Device inference: which values the analyzer believes live on the GPU, observed through SYNC001/SYNC006.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace synclint::python::test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TEST(DeviceInference, CudaFactoriesAndMovesAreDeviceValues) {
  const auto r = analyze(R"(import torch
for i in range(10):
    a = torch.zeros(3, device="cuda")
    b = torch.randn(3).cuda()
    c = torch.ones(3).to("cuda:0")
    d = torch.full((2,), 1.0, device=torch.device("cuda"))
    a.item(); b.item(); c.item(); d.item()
)");
  EXPECT_EQ(sites(r, "SYNC001"), (std::vector<std::string>{"7:5", "7:15", "7:25", "7:35"}));
  for (const Finding& f : r.findings) {
    if (f.rule_id == "SYNC001") {
      EXPECT_EQ(f.confidence, Confidence::High) << f.message;
    }
  }
}

TEST(DeviceInference, ConditionalDeviceStringCountsAsCuda) {
  const auto r = analyze(R"(import torch
device = "cuda" if torch.cuda.is_available() else "cpu"
for i in range(10):
    x = torch.randn(4, device=device)
    x.sum().item()
)");
  const Finding* f = find(r, "SYNC001", 5);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);
}

TEST(DeviceInference, HostValuesNeverSync) {
  const auto r = analyze(R"(import torch
import numpy as np
device = torch.device("cuda")
for i in range(10):
    x = torch.randn(4, device=device)
    h = x.item()
    h2 = float(h)
    s = x.shape[0]
    if x.shape[0] > 1 and x.dtype == torch.float32 and x.size(0) > 2 and x.device.type == "cuda":
        pass
    cpu = torch.zeros(3)
    cpu.item()
    arr = np.arange(3)
    arr.tolist()
)");
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("6:9"));
  EXPECT_THAT(sites(r, "SYNC004"), IsEmpty());
  EXPECT_THAT(sites(r, "SYNC006"), IsEmpty());
  EXPECT_THAT(sites(r, "SYNC002"), IsEmpty());
}

TEST(DeviceInference, FlowSensitiveAssignments) {
  // x is a device value until it is reassigned with a host value; the order of statements matters.
  const auto r = analyze(R"(import torch
for i in range(10):
    x = torch.ones(2, device="cuda")
    x.item()
    x = x.cpu()
    x.item()
    total = 0.0
    total += torch.ones(1, device="cuda")
    if total:
        pass
    a, (b, c) = 1.0, (torch.ones(1, device="cuda"), 2)
    a.item(); b.item()
)");
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("4:5", "12:15"));
  EXPECT_THAT(sites(r, "SYNC006"), ElementsAre("9:8"));
}

TEST(DeviceInference, ModulesParametersGradsAndOutputs) {
  const auto r = analyze(R"(import torch
import torch.nn as nn
model = nn.Linear(4, 2).to("cuda")
criterion = nn.CrossEntropyLoss()
for x, y in loader:
    out = model(x)
    loss = criterion(out, y)
    loss.item()
    for name, p in model.named_parameters():
        if p.grad is None:
            continue
        p.grad.norm().item()
)");
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("8:5", "12:9"));
  EXPECT_THAT(sites(r, "SYNC006"), IsEmpty());
  const Finding* f = find(r, "SYNC001", 12);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->message.find("2 reads per step"), std::string::npos) << f->message;  // weight and bias
}

TEST(DeviceInference, ModuleMovedInPlaceAndSelfAttributes) {
  const auto r = analyze(R"(import torch
class Trainer:
    def __init__(self, model, device):
        self.model = model
        self.model.to(device)
        self.device = device

    def run(self, loader):
        for x in loader:
            out = self.model(x.to(self.device, non_blocking=True))
            out.mean().item()
)");
  const Finding* f = find(r, "SYNC001", 11);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->confidence, Confidence::Low);
}

// In a module of definitions the callers pick the devices: `.item()` of a value of unknown device is a
// low-confidence note.
TEST(DeviceInference, UnknownReceiverOfItemIsALowConfidenceNote) {
  const auto r = analyze(R"(def run(mystery):
    for batch in range(10):
        value = mystery().item()
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].confidence, Confidence::Low);
  EXPECT_EQ(r.findings[0].severity, Severity::Note);
}

// The same read in a program that runs code and names no device anywhere is not reported; naming one
// (here a `.to(` of a device it is given) brings the note back.
TEST(DeviceInference, UnknownDeviceNotesOnlyWhereAGpuIsPossible) {
  EXPECT_TRUE(analyze(R"(for batch in range(10):
    value = mystery().item()
)").findings.empty());
  const auto r = analyze(R"(for batch in range(10):
    value = mystery(batch.to(where)).item()
)");
  ASSERT_EQ(r.findings.size(), 1u);
  EXPECT_EQ(r.findings[0].confidence, Confidence::Low);
}

TEST(DeviceInference, ReturnSummariesCrossFunctions) {
  const auto r = analyze(R"(import torch
def make():
    return torch.ones(3, device="cuda")

def helper(t):
    return t * 2

for i in range(3):
    v = helper(make())
    v.sum().item()
)");
  const Finding* f = find(r, "SYNC001", 10);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->confidence, Confidence::High);
}

TEST(DeviceInference, ParameterFactsFromCallSites) {
  const auto r = analyze(R"(import torch
def log_loss(loss):
    print(loss)

for i in range(3):
    log_loss(torch.ones(1, device="cuda"))
    log_loss(1.0)
)");
  EXPECT_THAT(sites(r, "SYNC005"), ElementsAre("3:5"));
}

TEST(DeviceInference, BooleanMasksFromComparisons) {
  const auto r = analyze(R"(import torch
for i in range(3):
    x = torch.randn(8, device="cuda")
    idx = torch.arange(8, device="cuda")
    x[x > 0]
    x[idx]
    x[x > 0] = 0.0
    x[x > 0] = x.mean()
)");
  EXPECT_THAT(sites(r, "SYNC008"), ElementsAre("5:5", "8:5"));
}

}  // namespace
}  // namespace synclint::python::test

namespace synclint::python::test {
namespace {

TEST(DeviceInference, HostMasksStayMasksOnTheGpu) {
  const auto r = analyze(R"(import torch
for batch in loader:
    keep = batch["keep"].bool().to("cuda", non_blocking=True)
    ids = batch["ids"].to("cuda", non_blocking=True)
    ids[keep]
    ids[ids]
)");
  EXPECT_THAT(sites(r, "SYNC008"), ::testing::ElementsAre("5:5"));
}

}  // namespace
}  // namespace synclint::python::test
