// One positive and one negative case per rule, through the small test catalog, plus catalog extension.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_catalog.h"

namespace synclint::python::test {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

const std::string kHeader = "import torch\nimport numpy as np\nimport math\nimport time\nimport wandb\n"
                            "import torch.nn.functional as F\nd = torch.device('cuda')\n"
                            "x = torch.ones(4, device=d)\nfor step in range(100):\n";

FileResult in_loop(const std::string& body) { return analyze(kHeader + body); }
constexpr std::uint32_t kFirst = 10;  // first body line

TEST(Rules, Sync002Tolist) {
  EXPECT_THAT(sites(in_loop("    x.tolist()\n    np.arange(2).tolist()\n"), "SYNC002"), ElementsAre("10:5"));
}

TEST(Rules, Sync003OneFindingPerChain) {
  const auto r = in_loop("    x.detach().cpu().numpy()\n    np.asarray(x)\n    x.to('cpu', non_blocking=True)\n");
  EXPECT_THAT(sites(r, "SYNC003"), ElementsAre("10:5", "11:5"));
}

TEST(Rules, Sync004Conversions) {
  const auto r = in_loop("    float(x.sum())\n    int(x.shape[0])\n    math.isnan(x.sum())\n"
                         "    round(1.5, x.shape[0])\n    math.isnan(0.5)\n    math.isclose(0.5, x.sum())\n");
  EXPECT_THAT(sites(r, "SYNC004"), ElementsAre("10:5", "12:5", "15:5"));
}

TEST(Rules, Sync005Formatting) {
  const auto r = in_loop("    print(x)\n    s = f'{x.shape} {x}'\n    t = '%s' % (x,)\n    print(x.shape)\n");
  EXPECT_THAT(sites(r, "SYNC005"), ElementsAre("10:5", "11:22", "12:9"));
}

TEST(Rules, Sync006Conditions) {
  const auto r = in_loop("    if x.sum() > 0 or step > 3:\n        pass\n    y = torch.any(x > 0)\n    assert x.shape[0] == 4\n");
  EXPECT_THAT(sites(r, "SYNC006"), ElementsAre("10:8"));
}

TEST(Rules, Sync007Synchronize) {
  const auto r = in_loop("    torch.cuda.synchronize()\n    e = torch.cuda.Event()\n    e.synchronize()\n");
  EXPECT_THAT(sites(r, "SYNC007"), ElementsAre("10:5", "12:5"));
}

TEST(Rules, Sync008Shapes) {
  const auto r = in_loop(
      "    x.nonzero()\n    torch.where(x > 0)\n    torch.where(x > 0, x, 0)\n    F.one_hot(x.long())\n"
      "    F.one_hot(x.long(), num_classes=4)\n    x.repeat_interleave(2)\n    x.repeat_interleave(x.long())\n");
  EXPECT_THAT(sites(r, "SYNC008"), ElementsAre("10:5", "11:5", "13:5", "16:5"));
}

TEST(Rules, Sync009LibraryCalls) {
  const auto r = in_loop(
      "    torch.equal(x, x)\n    torch.nn.utils.clip_grad_norm_(ps, 1.0)\n"
      "    torch.nn.utils.clip_grad_norm_(ps, 1.0, error_if_nonfinite=True)\n"
      "    scaler = torch.amp.GradScaler()\n    opt = torch.optim.AdamW(ps, fused=True)\n"
      "    scaler.step(opt)\n    opt2 = torch.optim.AdamW(ps)\n    scaler.step(opt2)\n    opt2.step()\n");
  EXPECT_THAT(sites(r, "SYNC009"), ElementsAre("10:5", "12:5", "17:5"));
}

TEST(Rules, Sync010Loggers) {
  const auto r = in_loop("    wandb.log({'loss': x.sum()})\n    wandb.log({'step': step})\n"
                         "    writer.add_scalar('l', x.sum(), step)\n    writer.add_scalar('l', 1.0, step)\n");
  EXPECT_THAT(sites(r, "SYNC010"), ElementsAre("10:5", "12:5"));
}

TEST(Rules, Sync011HostToDevice) {
  const auto r = in_loop("    h = torch.zeros(3)\n    h.to(d)\n    h.to(d, non_blocking=True)\n    h.cuda()\n"
                         "    x.to(d)\n    torch.tensor([1, 2], device=d)\n    torch.tensor([1, 2])\n");
  EXPECT_THAT(sites(r, "SYNC011"), ElementsAre("11:5", "13:5", "15:5"));
}

TEST(Rules, Sync012Timing) {
  const auto r = in_loop("    t0 = time.time()\n    y = x * 2\n    dt = time.time() - t0\n"
                         "    t1 = time.time()\n    y = x * 2\n    torch.cuda.synchronize()\n    dt = time.time() - t1\n");
  EXPECT_THAT(sites(r, "SYNC012"), ElementsAre("12:10"));
}

TEST(Rules, UserDeclaredApiFromConfiguration) {
  Catalog extended = catalog();
  extended.add_api("SYNC001", Language::Python, "functions", "metrics.to_float");
  extended.add_api("SYNC001", Language::Python, "methods", "as_number");
  Options o = options();
  o.catalog = &extended;
  const auto r = analyze("import metrics\n" + kHeader + "    metrics.to_float(x)\n    x.as_number()\n    metrics.to_float(3)\n", o);
  EXPECT_THAT(sites(r, "SYNC001"), ElementsAre("11:5", "12:5"));
}

TEST(Rules, FindingsCarryRuleNamesFixesAndSeverity) {
  const auto r = in_loop("    x.sum().item()\n");
  ASSERT_EQ(r.findings.size(), 1u);
  const Finding& f = r.findings[0];
  EXPECT_EQ(f.rule_id, "SYNC001");
  EXPECT_EQ(f.rule_name, "tensor-item");
  EXPECT_EQ(f.severity, Severity::Warning);
  EXPECT_FALSE(f.fix.empty());
  EXPECT_EQ(f.message.rfind("`x.sum().item()` copies a GPU value to the host", 0), 0u) << f.message;
  EXPECT_NE(f.message.find("every step of the loop at train.py:9"), std::string::npos) << f.message;
  EXPECT_EQ(f.range.end.column, 19u);
}

}  // namespace
}  // namespace synclint::python::test

namespace synclint::python::test {
namespace {

TEST(Rules, Sync011OffersTheNonBlockingEdit) {
  const auto r = in_loop("    h = torch.zeros(3)\n    h.to(d)\n    h.cuda()\n");
  ASSERT_EQ(r.findings.size(), 2u);
  ASSERT_EQ(r.findings[0].edits.size(), 1u);
  EXPECT_EQ(r.findings[0].edits[0].replacement, ", non_blocking=True");
  EXPECT_EQ(r.findings[0].edits[0].range.begin, (Position{11, 11}));
  ASSERT_EQ(r.findings[1].edits.size(), 1u);
  EXPECT_EQ(r.findings[1].edits[0].replacement, "non_blocking=True");
  EXPECT_EQ(r.findings[1].edits[0].range.begin, (Position{12, 12}));
}

}  // namespace
}  // namespace synclint::python::test
