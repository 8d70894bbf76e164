// What counts as naming a device, for dropping notes of unknown device in CPU-only programs.
#include "python/cpu_only.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "python/syntax.h"

namespace synclint::python::test {
namespace {

bool names(const std::string& text) {
  Parser parser;
  const std::unique_ptr<SyntaxTree> tree = parser.parse(text);
  return names_a_device(*tree, text);
}

TEST(CpuOnly, WordsThatPlaceDataOnAnAccelerator) {
  for (const char* text : {"x = x.cuda()\n", "if torch.cuda.is_available():\n    pass\n", "x = x.to(device)\n",
                           "x = x.to(args.where)\n", "x = torch.zeros(2, device=args.device)\n", "x = x.to('mps')\n",
                           "n = num_gpus\n", "from accelerate import Accelerator\n", "import torch.distributed as dist\n",
                           "loader = DataLoader(ds, pin_memory=True)\n", "trainer = Trainer(model)\n",
                           "import torch_xla.core.xla_model as xm\n"})
    EXPECT_TRUE(names(text)) << text;
}

TEST(CpuOnly, LookAlikesThatPlaceNothing) {
  for (const char* text : {"x = x.to(torch.float32)\n", "x = x.to(dtype=torch.int64)\n", "x = x.to('cpu')\n",
                           "x = torch.zeros(2, device=\"cpu\")\n", "d = torch.device('cpu')\n",
                           "s = json.dumps(stamps)\n", "# moves the batch to the GPU when there is one\nx = 1\n",
                           "def f():\n    \"\"\"Runs on the GPU device.\"\"\"\n    return 1\n"})
    EXPECT_FALSE(names(text)) << text;
}

}  // namespace
}  // namespace synclint::python::test
