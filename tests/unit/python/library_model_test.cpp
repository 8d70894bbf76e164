// The library model: what calls into PyTorch, numpy, the standard library and Python's builtins give
// back, from their names, their arguments' values and the catalog's `returns`.
#include "python/library_model.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "python/syntax.h"
#include "test_catalog.h"

namespace synclint::python {
namespace {

// The first call in one line of Python, with the values the test gives its receiver and arguments (in
// order, keywords included), as the walker would hand it over.
class Site final : public Checker {
 public:
  explicit Site(std::string code) : code_(std::move(code)), tree_(Parser().parse(code_)), src_("t.py", code_) {
    PreOrder walk(tree_->root());
    for (Node n; !null(n = walk.next());)
      if (kind(n) == K::Call) {
        call_ = n;
        break;
      }
  }

  CallInfo call(std::vector<Value> args = {}, Value recv = {}) const {
    CallInfo ci;
    ci.node = call_;
    Node fn = strip_parens(field(call_, "function"));
    if (kind(fn) == K::Attribute) {
      ci.receiver = field(fn, "object");
      ci.method = text(field(fn, "attribute"));
      ci.recv = std::move(recv);
    } else if (kind(fn) == K::Identifier) {
      ci.builtin = text(fn);
    }
    std::size_t i = 0;
    for (Node a : named_children(field(call_, "arguments"))) {
      const Value v = i < args.size() ? args[i] : Value{};
      ++i;
      if (kind(a) == K::KeywordArgument) ci.args.push_back(Arg{field(a, "value"), text(field(a, "name")), v});
      else if (kind(a) == K::ListSplat) ci.args.push_back(Arg{a, "*", v});
      else ci.args.push_back(Arg{a, {}, v});
    }
    return ci;
  }

  std::string_view text(Node n) const override { return src_.text(n); }
  std::string where(Node) const override { return "t.py:1"; }
  void report(const Rule&, Node, Confidence, std::string_view, std::string_view, bool, std::vector<TextEdit>) override {}
  SourceRange before_end(Node) const override { return {}; }

 private:
  std::string code_;
  std::unique_ptr<SyntaxTree> tree_;
  SourceText src_;
  Node call_{};
};

Value module(int count, bool cuda = false) {
  Value v = Value::of(VK::Module);
  v.count = count;
  v.cuda = cuda;
  return v;
}

Value method(const std::string& code, Value recv, std::vector<Value> args = {}, bool* work = nullptr) {
  Site s(code);
  bool w = false;
  Value v = LibraryModel(test::catalog(), s).method_call(s.call(std::move(args), std::move(recv)), w);
  if (work) *work = w;
  return v;
}

Value function(const std::string& code, const std::string& q, std::vector<Value> args = {}) {
  Site s(code);
  return LibraryModel(test::catalog(), s).function_call(s.call(std::move(args)), q);
}

Value builtin(const std::string& code, std::vector<Value> args = {}) {
  Site s(code);
  return LibraryModel(test::catalog(), s).builtin_call(s.call(std::move(args)));
}

TEST(LibraryModel, NameLists) {
  EXPECT_TRUE(host_attribute("shape"));
  EXPECT_TRUE(host_attribute("batch_sizes"));
  EXPECT_TRUE(host_attribute("is_cuda"));
  EXPECT_FALSE(host_attribute("grad"));
  EXPECT_FALSE(host_attribute("data"));
  EXPECT_TRUE(host_method("numel"));
  EXPECT_TRUE(host_method("is_contiguous"));
  EXPECT_FALSE(host_method("sum"));
  EXPECT_FALSE(host_method("item"));
  EXPECT_TRUE(mask_method("isnan"));
  EXPECT_FALSE(mask_method("abs"));
  EXPECT_TRUE(module_method("eval"));
  EXPECT_FALSE(module_method("forward"));
  EXPECT_TRUE(factory("zeros_like"));
  EXPECT_FALSE(factory("stack"));
  EXPECT_TRUE(collecting_method("appendleft"));
  EXPECT_FALSE(collecting_method("pop"));
  EXPECT_TRUE(loader_name("trainLoader"));
  EXPECT_TRUE(loader_name("dl"));
  EXPECT_FALSE(loader_name("download"));
  EXPECT_TRUE(batch_source_name("train_dataset"));
  EXPECT_FALSE(batch_source_name("metadata"));
  EXPECT_TRUE(tensor_callable_name("Criterion"));
  EXPECT_FALSE(tensor_callable_name("tokenize"));
  EXPECT_TRUE(contains_ci("MyDataLoader", "loader"));
  EXPECT_FALSE(contains_ci("load", "loader"));
  EXPECT_EQ(last_part("torch.nn.Linear"), "Linear");
  EXPECT_EQ(last_part("Linear"), "Linear");
}

TEST(LibraryModel, ParametersAndStringLiterals) {
  const Value dev = parameter_guess("target_device", false);
  EXPECT_EQ(dev.kind, VK::DeviceSpec);
  EXPECT_TRUE(dev.cuda);
  EXPECT_EQ(parameter_guess("logits", true).kind, VK::Device);
  EXPECT_EQ(parameter_guess("logits", false).kind, VK::Unknown);  // only a per-step callback's
  EXPECT_EQ(parameter_guess("step", true).kind, VK::Unknown);
  EXPECT_TRUE(string_literal_value("'cuda:1'").cuda);
  EXPECT_TRUE(string_literal_value("\"cuda\"").cuda);
  EXPECT_EQ(string_literal_value("r'cpu'").kind, VK::DeviceSpec);
  EXPECT_FALSE(string_literal_value("'cpu'").cuda);
  EXPECT_EQ(string_literal_value("'cudnn'").kind, VK::Host);
}

TEST(LibraryModel, IntegerLiterals) {
  Site s("f(10_000, -3, (7), 1.5, n, 0x10)");
  const CallInfo ci = s.call();
  EXPECT_EQ(integer_literal(ci.args[0].node, s), 10000);
  EXPECT_EQ(integer_literal(ci.args[1].node, s), -3);
  EXPECT_EQ(integer_literal(ci.args[2].node, s), 7);
  EXPECT_EQ(integer_literal(ci.args[3].node, s), std::nullopt);
  EXPECT_EQ(integer_literal(ci.args[4].node, s), std::nullopt);
  EXPECT_EQ(integer_literal(ci.args[5].node, s), std::nullopt);  // decimal only
}

TEST(LibraryModel, CatalogSaysWhatCallsReturn) {
  Site s("f()");
  const LibraryModel lib(test::catalog(), s);
  EXPECT_TRUE(lib.returns("methods", "item", "host"));
  EXPECT_TRUE(lib.returns("builtins", "float", "host"));
  EXPECT_TRUE(lib.returns("functions", "time.perf_counter", "timer"));
  EXPECT_FALSE(lib.returns("functions", "time.perf_counter", "host"));
  EXPECT_FALSE(lib.returns("methods", "cpu", "host"));  // SYNC003: a host tensor, not a host value
  EXPECT_FALSE(lib.returns("methods", "no_such_method", "host"));
}

TEST(LibraryModel, TensorMethods) {
  const Value dev = Value::device();
  EXPECT_EQ(method("x.item()", dev).kind, VK::Host);
  EXPECT_TRUE(method("x.tolist()", dev).number);
  EXPECT_EQ(method("x.size(0)", dev).kind, VK::Host);
  EXPECT_EQ(method("x.cpu()", dev).kind, VK::HostTensor);
  EXPECT_EQ(method("x.to('cpu')", dev, {Value::of(VK::DeviceSpec)}).kind, VK::HostTensor);
  EXPECT_EQ(method("x.to(device)", dev, {Value{}}).kind, VK::Device);
  EXPECT_TRUE(method("x.isnan()", dev).mask);
  EXPECT_FALSE(method("x.abs()", dev).mask);
  EXPECT_EQ(method("x.abs()", dev).kind, VK::Device);
  // A host tensor stays on the host unless moved to a CUDA device.
  EXPECT_EQ(method("h.cuda()", Value::of(VK::HostTensor)).kind, VK::Device);
  EXPECT_EQ(method("h.to('cuda')", Value::of(VK::HostTensor), {Value{}}).kind, VK::Device);
  EXPECT_EQ(method("h.to(torch.float16)", Value::of(VK::HostTensor), {Value{}}).kind, VK::HostTensor);
  EXPECT_EQ(method("h.abs()", Value::of(VK::HostTensor)).kind, VK::HostTensor);
}

TEST(LibraryModel, ModuleAndOtherReceivers) {
  const Value params = method("m.parameters()", module(6, true));
  EXPECT_EQ(params.kind, VK::Params);
  EXPECT_EQ(params.count, 6);
  EXPECT_TRUE(method("m.named_parameters()", module(6)).named_params);
  EXPECT_TRUE(method("m.cuda()", module(2)).cuda);
  EXPECT_FALSE(method("m.to('cpu')", module(2), {Value::of(VK::DeviceSpec)}).cuda);
  EXPECT_EQ(method("m.eval()", module(2, true)).count, 2);
  EXPECT_EQ(method("m.state_dict()", module(2, true)).kind, VK::Unknown);
  EXPECT_EQ(method("m.encode(x)", module(2, true)).kind, VK::Device);
  EXPECT_EQ(method("m.encode(x)", module(2, false)).kind, VK::Unknown);
  bool work = false;
  EXPECT_EQ(method("opt.step()", Value::of(VK::Optimizer), {}, &work).kind, VK::Host);
  EXPECT_TRUE(work);
  method("opt.state_dict()", Value::of(VK::Optimizer), {}, &work);
  EXPECT_FALSE(work);
  const Value scaled = method("scaler.scale(loss)", Value::of(VK::Scaler), {Value::device()});
  EXPECT_EQ(scaled.kind, VK::Device);
  EXPECT_EQ(method("d.get('k')", Value::container({Value::device()}, false), {Value::host()}).kind, VK::Device);
}

TEST(LibraryModel, UnknownReceivers) {
  EXPECT_EQ(method("x.item()", Value{}).kind, VK::Host);
  EXPECT_EQ(method("x.numpy()", Value{}).kind, VK::HostTensor);
  EXPECT_EQ(method("x.cuda()", Value{}).kind, VK::Device);
  const Value built = method("Net(3).to('cuda')", Value{}, {Value{}});
  EXPECT_EQ(built.kind, VK::Module);
  EXPECT_TRUE(built.cuda);
  const Value prepared = method("accelerator.prepare(model)", Value{}, {Value{}});
  EXPECT_EQ(prepared.kind, VK::Module);
  EXPECT_TRUE(prepared.cuda);
  EXPECT_EQ(method("helper.prepare(model)", Value{}, {Value{}}).kind, VK::Unknown);
  EXPECT_EQ(method("self.loss_fn(out)", Value{}, {Value::device()}).kind, VK::Device);
  EXPECT_EQ(method("self.tokenize(out)", Value{}, {Value::device()}).kind, VK::Unknown);
}

TEST(LibraryModel, TorchFunctions) {
  const Value z = function("torch.zeros(3, device='cuda')", "torch.zeros", {Value::host(true), Value{}});
  EXPECT_EQ(z.kind, VK::Device);
  EXPECT_EQ(function("torch.zeros(3)", "torch.zeros", {Value::host(true)}).kind, VK::HostTensor);
  EXPECT_TRUE(function("torch.ones(3, device='cuda', dtype=torch.bool)", "torch.ones",
                       {Value::host(true), Value{}, Value{}})
                  .mask);
  EXPECT_EQ(function("torch.zeros_like(x)", "torch.zeros_like", {Value::device()}).kind, VK::Device);
  EXPECT_TRUE(function("torch.device('cuda')", "torch.device", {Value::host()}).cuda);
  EXPECT_FALSE(function("torch.device('cpu')", "torch.device", {Value::host()}).cuda);
  EXPECT_EQ(function("torch.cuda.Event()", "torch.cuda.Event").kind, VK::Stream);
  EXPECT_EQ(function("torch.utils.data.DataLoader(ds)", "torch.utils.data.DataLoader", {Value{}}).kind, VK::Loader);
  EXPECT_TRUE(function("torch.optim.AdamW(p, fused=True)", "torch.optim.AdamW", {Value{}, Value{}}).fused);
  EXPECT_EQ(function("torch.optim.lr_scheduler.StepLR(o)", "torch.optim.lr_scheduler.StepLR", {Value{}}).kind,
            VK::Unknown);
  EXPECT_EQ(function("torch.nn.Linear(4, 2)", "torch.nn.Linear", {Value{}, Value{}}).count, 2);
  EXPECT_EQ(function("torch.nn.Sequential(a, b)", "torch.nn.Sequential", {module(2), module(4)}).count, 6);
  EXPECT_EQ(function("torch.nn.Sequential(a, b)", "torch.nn.Sequential", {module(2), Value{}}).count, -1);
  EXPECT_EQ(function("torch.nn.Sequential()", "torch.nn.Sequential").count, -1);  // filled later
  EXPECT_EQ(function("torch.cuda.memory_allocated()", "torch.cuda.memory_allocated").kind, VK::Host);
  EXPECT_EQ(function("torch.equal(a, b)", "torch.equal", {Value::device(), Value::device()}).kind, VK::Host);
  EXPECT_TRUE(function("torch.isnan(x)", "torch.isnan", {Value::device()}).mask);
  EXPECT_EQ(function("torch.stack(xs)", "torch.stack", {Value::container({Value::device()}, false)}).kind, VK::Device);
  EXPECT_EQ(function("torch.stack(xs)", "torch.stack", {Value::of(VK::HostTensor)}).kind, VK::HostTensor);
}

TEST(LibraryModel, OtherLibraries) {
  EXPECT_EQ(function("np.asarray(x)", "numpy.asarray", {Value::device()}).kind, VK::HostTensor);
  EXPECT_TRUE(function("math.sqrt(x)", "math.sqrt", {Value::device()}).number);
  EXPECT_EQ(function("logging.getLogger(n)", "logging.getLogger", {Value::host()}).kind, VK::Logger);
  EXPECT_EQ(function("tqdm(loader)", "tqdm.tqdm", {Value::of(VK::Loader)}).kind, VK::Loader);
  EXPECT_EQ(function("AutoModel.from_pretrained(n)", "transformers.AutoModel.from_pretrained", {Value::host()}).kind,
            VK::Module);
  EXPECT_EQ(function("mylib.f(x)", "mylib.f", {Value::device()}).kind, VK::Device);
  EXPECT_EQ(function("wandb.log(x)", "wandb.log", {Value::device()}).kind, VK::Unknown);
  EXPECT_EQ(function("mylib.f(x)", "mylib.f", {Value::host()}).kind, VK::Unknown);
}

TEST(LibraryModel, Builtins) {
  EXPECT_TRUE(builtin("len(x)", {Value::device()}).number);
  EXPECT_EQ(builtin("str(x)", {Value::device()}).kind, VK::Host);
  EXPECT_EQ(builtin("abs(x)", {Value::device()}).kind, VK::Device);
  EXPECT_EQ(builtin("range(10)", {Value::host(true)}).count, 10);
  EXPECT_EQ(builtin("range(2, 10)", {Value::host(true), Value::host(true)}).count, 8);
  EXPECT_EQ(builtin("range(n)", {Value::host(true)}).count, -1);
  Value params = Value::of(VK::Params);
  params.count = 4;
  const Value pairs = builtin("enumerate(ps)", {params});
  EXPECT_EQ(pairs.count, 4);
  EXPECT_EQ(pairs.element().item(0).kind, VK::Host);    // the index
  EXPECT_EQ(pairs.element().item(1).kind, VK::Device);  // a parameter
  Value three = Value::container({Value::device(), Value::device(), Value::device()}, true);
  three.count = 3;
  Value five = Value::container({Value::host()}, false);
  five.count = 5;
  EXPECT_EQ(builtin("zip(a, b)", {three, five}).count, 3);
  EXPECT_EQ(builtin("zip(a, b)", {three, Value{}}).count, -1);
  EXPECT_EQ(builtin("sum(xs)", {Value::container({Value::device()}, false)}).kind, VK::Device);
  EXPECT_EQ(builtin("max(a, b)", {Value::host(true), Value::device()}).kind, VK::Device);
  EXPECT_EQ(builtin("next(it)", {Value::of(VK::Loader)}).kind, VK::HostTensor);  // a batch
  EXPECT_EQ(builtin("list(x)", {Value{}}).kind, VK::Container);
  EXPECT_EQ(builtin("iter(x)", {Value{}}).kind, VK::Unknown);
  EXPECT_EQ(builtin("open(p)", {Value::host()}).kind, VK::Unknown);
}

TEST(LibraryModel, Attributes) {
  Site s("f()");
  const LibraryModel lib(test::catalog(), s);
  EXPECT_EQ(lib.attribute(Value::device(), "shape").kind, VK::Host);
  EXPECT_EQ(lib.attribute(Value::device(), "grad").kind, VK::Device);
  EXPECT_TRUE(lib.attribute(Value::device(Confidence::High, true), "T").mask);
  EXPECT_FALSE(lib.attribute(Value::device(Confidence::High, true), "grad").mask);
  EXPECT_EQ(lib.attribute(Value::of(VK::HostTensor), "data").kind, VK::HostTensor);
  EXPECT_EQ(lib.attribute(module(2, true), "weight").kind, VK::Device);
  EXPECT_EQ(lib.attribute(module(2, false), "weight").kind, VK::Module);
  EXPECT_EQ(lib.attribute(module(2, true), "training").kind, VK::Host);
  EXPECT_TRUE(lib.attribute(module(2), "device").cuda);
  EXPECT_EQ(lib.attribute(Value::of(VK::Instance), "weight").kind, VK::Unknown);
  EXPECT_EQ(lib.attribute(Value::of(VK::Loader), "dataset").kind, VK::Unknown);
  EXPECT_EQ(lib.attribute(Value::of(VK::Loader), "batch_size").kind, VK::Host);
  EXPECT_EQ(lib.attribute(Value{}, "val_loader").kind, VK::Loader);
  EXPECT_EQ(lib.attribute(Value{}, "hidden").kind, VK::Unknown);
}

TEST(LibraryModel, UnknownCallables) {
  Site loss("self.criterion(out, y)");
  const LibraryModel lib(test::catalog(), loss);
  EXPECT_EQ(lib.unknown_call(loss.call({Value::device(), Value::host()}), Value{}).conf, Confidence::Medium);
  EXPECT_EQ(lib.unknown_call(loss.call({Value::device(), Value::host()}), Value{}).kind, VK::Device);
  EXPECT_EQ(lib.unknown_call(loss.call({Value::host(), Value::host()}), Value{}).kind, VK::Unknown);
  Site other("tokenize(out)");
  const LibraryModel lib2(test::catalog(), other);
  EXPECT_EQ(lib2.unknown_call(other.call({Value::device()}), Value{}).kind, VK::Unknown);
  EXPECT_EQ(lib2.unknown_call(other.call({Value::device()}), Value::device()).kind, VK::Device);
}

}  // namespace
}  // namespace synclint::python
