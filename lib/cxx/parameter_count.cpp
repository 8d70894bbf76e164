#include "cxx/parameter_count.h"

#include <array>
#include <set>
#include <string_view>

#include "clang/AST/DeclCXX.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/AST/StmtCXX.h"
#include "cxx/ast_util.h"
#include "cxx/hot_context.h"

namespace synclint::cxx {

using namespace clang;

namespace {

// The module class an object expression designates: Net for a Net, a Net*, a std::shared_ptr<Net>, or
// NetImpl for a TORCH_MODULE holder Net (ModuleHolder<NetImpl>).
const CXXRecordDecl* module_class(QualType t) {
  t = t.getNonReferenceType().getUnqualifiedType();
  if (const auto* p = t->getAs<PointerType>()) t = p->getPointeeType();
  const CXXRecordDecl* r = t->getAsCXXRecordDecl();
  if (!r) return nullptr;
  if (const auto* s = dyn_cast<ClassTemplateSpecializationDecl>(r)) {
    const std::string q = qualified_name(s->getSpecializedTemplate());
    if ((q == "std::shared_ptr" || q == "std::unique_ptr" || q == "torch::nn::ModuleHolder") &&
        s->getTemplateArgs().size() >= 1 && s->getTemplateArgs()[0].getKind() == TemplateArgument::Type)
      return module_class(s->getTemplateArgs()[0].getAsType());
  }
  if (!r->hasDefinition()) return r;
  for (const CXXBaseSpecifier& base : r->bases())
    if (const CXXRecordDecl* b = base.getType()->getAsCXXRecordDecl())
      if (const auto* s = dyn_cast<ClassTemplateSpecializationDecl>(b);
          s && qualified_name(s->getSpecializedTemplate()) == "torch::nn::ModuleHolder")
        return module_class(base.getType());
  return r;
}

// A LibTorch layer's parameter tensors from its options as written (`text`: the registration's source).
int layer_parameters(std::string_view layer, const std::string& text) {
  const auto without = [&](std::string_view flag) { return text.find(std::string(flag) + "(false)") != std::string::npos; };
  static constexpr std::array<std::string_view, 20> kNone = {
      "ReLU", "LeakyReLU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "Dropout", "Dropout2d",
      "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d", "AdaptiveAvgPool2d",
      "AdaptiveMaxPool2d", "Flatten", "Identity"};
  for (std::string_view n : kNone)
    if (layer == n) return 0;
  static constexpr std::array<std::string_view, 9> kWeightBias = {
      "Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d", "Bilinear",
      "PReLU"};
  for (std::string_view n : kWeightBias)
    if (layer == n) return layer == "PReLU" ? 1 : (without("bias") ? 1 : 2);
  if (layer == "BatchNorm1d" || layer == "BatchNorm2d" || layer == "BatchNorm3d" || layer == "GroupNorm" ||
      layer == "InstanceNorm2d")
    return without("affine") ? 0 : (layer.starts_with("Instance") ? -1 : 2);
  if (layer == "LayerNorm") return without("elementwise_affine") ? 0 : 2;
  if (layer == "Embedding") return 1;
  return -1;
}

class Counter {
 public:
  explicit Counter(ASTContext& ctx) : ctx_(ctx) {}

  int of_class(const CXXRecordDecl* cls) {
    if (!cls || !(cls = cls->getDefinition())) return -1;
    const std::string q = qualified_name(cls);
    if (q.starts_with("torch::nn::")) return -1;  // a LibTorch layer's count needs its options: see of_module
    if (!visiting_.insert(cls).second) return -1;
    // Registrations in a base other than torch::nn::Module (Cloneable's reset(), a user base): not followed.
    for (const CXXBaseSpecifier& base : cls->bases()) {
      const CXXRecordDecl* b = base.getType()->getAsCXXRecordDecl();
      if (!b || qualified_name(b) != "torch::nn::Module") return -1;
    }
    const CXXConstructorDecl* ctor = nullptr;
    for (const CXXConstructorDecl* c : cls->ctors()) {
      if (c->isImplicit() || c->isCopyOrMoveConstructor() || c->isDeleted()) continue;
      if (ctor) return -1;  // several constructors may register different modules
      ctor = c;
    }
    int total = 0;
    registrations_ = 0;
    if (ctor) {
      const FunctionDecl* def = nullptr;
      if (!ctor->hasBody(def)) return -1;
      // The member initializers, written or defaulted from the class (CXXDefaultInitExpr), then the body.
      for (const CXXCtorInitializer* init : cast<CXXConstructorDecl>(def)->inits()) {
        const Expr* e = init->getInit();
        if (const auto* d = dyn_cast_or_null<CXXDefaultInitExpr>(e)) e = d->getExpr();
        if (add(e, total) < 0) return -1;
      }
      if (add(def->getBody(), total) < 0) return -1;
    } else {
      for (const FieldDecl* field : cls->fields())
        if (field->hasInClassInitializer() && add(field->getInClassInitializer(), total) < 0) return -1;
    }
    visiting_.erase(cls);
    // A module that registers nothing we saw (its parameters come from elsewhere): not known.
    return registrations_ == 0 ? -1 : total;
  }

 private:
  // The registrations under `s`, added to `total`; -1 when one cannot be counted.
  int add(const Stmt* s, int& total) {
    if (!s) return 0;
    if (isa<ForStmt, CXXForRangeStmt, WhileStmt, DoStmt, IfStmt, SwitchStmt, ConditionalOperator, LambdaExpr>(s)) {
      if (mentions_registration(s)) return -1;  // registered a number of times we do not know
      return 0;
    }
    if (const auto* call = dyn_cast<CallExpr>(s)) {
      const FunctionDecl* fn = call->getDirectCallee();
      const std::string name = fn ? fn->getNameAsString() : "";
      if (name == "register_parameter") {
        ++registrations_;
        total += 1;
        return 0;
      }
      if (name == "register_module" && call->getNumArgs() >= 2) {
        ++registrations_;
        const int before = registrations_;
        const int n = of_module(call->getArg(1));
        registrations_ = before;  // a nested module's count does not reset ours
        if (n < 0) return -1;
        total += n;
        return 0;
      }
    }
    for (const Stmt* child : s->children())
      if (add(child, total) < 0) return -1;
    return 0;
  }

  bool mentions_registration(const Stmt* s) {
    if (!s) return false;
    if (const auto* call = dyn_cast<CallExpr>(s))
      if (const FunctionDecl* fn = call->getDirectCallee(); fn && fn->getDeclName().isIdentifier())
        if (fn->getName() == "register_parameter" || fn->getName() == "register_module") return true;
    for (const Stmt* child : s->children())
      if (mentions_registration(child)) return true;
    return false;
  }

  // The module registered: a LibTorch layer by its options as written, or a user module by its class.
  int of_module(const Expr* e) {
    const CXXRecordDecl* cls = module_class(e->getType());
    if (!cls) return -1;
    const std::string q = qualified_name(cls);
    if (q.starts_with("torch::nn::")) {
      std::string layer = q.substr(std::string_view("torch::nn::").size());
      if (layer.ends_with("Impl")) layer.resize(layer.size() - 4);
      return layer_parameters(layer, source_text(ctx_, e));
    }
    return of_class(cls);
  }

  ASTContext& ctx_;
  std::set<const CXXRecordDecl*> visiting_;
  int registrations_ = 0;  // of the class being counted
};

}  // namespace

int parameter_tensors(ASTContext& ctx, const Stmt* parameter_loop) {
  const auto* rf = dyn_cast_or_null<CXXForRangeStmt>(parameter_loop);
  if (!rf) return -1;
  const Expr* r = strip(rf->getRangeInit());
  if (const auto* d = dyn_cast_or_null<DeclRefExpr>(r))
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v && v->getInit()) r = strip(v->getInit());
  const CXXMemberCallExpr* m = as_member_call(r);
  const std::string n = method_name(m);
  if (n != "parameters" && n != "named_parameters") return -1;
  const Expr* object = m->getImplicitObjectArgument();
  if (!object) return -1;
  object = object->IgnoreParenImpCasts();
  // model->parameters() on a holder or a smart pointer: the operator->() call's object.
  if (const auto* arrow = dyn_cast<CXXOperatorCallExpr>(object); arrow && arrow->getOperator() == OO_Arrow)
    object = arrow->getArg(0)->IgnoreParenImpCasts();
  return Counter(ctx).of_class(module_class(object->getType()));
}

int parameter_tensors_around(ASTContext& ctx, const Stmt* s) {
  for (const Stmt* p = parent_stmt(ctx, s); p; p = parent_stmt(ctx, p))
    if (is_parameter_loop(p)) return parameter_tensors(ctx, p);
  return -1;
}

std::string with_reads(std::string phrase, int reads) {
  static const std::string kPerParameter = "one read per parameter per step";
  const std::size_t at = phrase.find(kPerParameter);
  if (reads < 0 || at == std::string::npos) return phrase;
  return phrase.replace(at, kPerParameter.size(),
                        std::to_string(reads) + (reads == 1 ? " read per step" : " reads per step"));
}

}  // namespace synclint::cxx
