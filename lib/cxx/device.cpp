#include "cxx/device.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "cxx/ast_util.h"
#include "cxx/tu_index.h"

namespace synclint::cxx {

using namespace clang;

Dev join_operands(Dev a, Dev b) {
  if (a == Dev::Cuda || b == Dev::Cuda) return Dev::Cuda;
  if (a == Dev::Maybe || b == Dev::Maybe) return Dev::Maybe;
  if (a == Dev::Unknown || b == Dev::Unknown) return Dev::Unknown;
  return Dev::Host;
}

Dev join_branches(Dev a, Dev b) {
  if (a == b) return a;
  if (a == Dev::Unknown || b == Dev::Unknown) return a == Dev::Unknown ? b : a;
  return Dev::Maybe;
}

bool on_device(Dev d) { return d == Dev::Cuda || d == Dev::Maybe; }

Confidence confidence_of(Dev d) {
  switch (d) {
    case Dev::Cuda: return Confidence::High;
    case Dev::Maybe: return Confidence::Medium;
    default: return Confidence::Low;
  }
}

namespace {
std::string record_name(QualType t) {
  t = t.getNonReferenceType().getUnqualifiedType();
  if (const auto* r = t->getAsCXXRecordDecl()) return qualified_name(r);
  if (const auto* e = t->getAs<EnumType>()) return qualified_name(e->getDecl());
  return {};
}

bool derives_from_module(const CXXRecordDecl* r, int depth = 0) {
  if (!r || depth > 16) return false;
  std::string q = qualified_name(r);
  if (q == "torch::nn::Module" || q == "torch::nn::ModuleHolder") return true;
  if (!r->hasDefinition()) return false;
  for (const CXXBaseSpecifier& b : r->getDefinition()->bases())
    if (derives_from_module(b.getType()->getAsCXXRecordDecl(), depth + 1)) return true;
  return false;
}

bool is_factory(std::string_view q) {
  return q.starts_with("at::") || q.starts_with("torch::") || q.starts_with("c10::");
}
}  // namespace

bool is_tensor_type(QualType t) {
  std::string q = record_name(t);
  return q == "at::Tensor" || q == "at::TensorBase" || q == "torch::autograd::Variable";
}

bool is_module_type(QualType t) {
  t = t.getNonReferenceType().getUnqualifiedType();
  if (const auto* p = t->getAs<PointerType>()) t = p->getPointeeType();
  const CXXRecordDecl* r = t->getAsCXXRecordDecl();
  if (!r) return false;
  std::string q = qualified_name(r);
  if (q == "std::shared_ptr" || q == "std::unique_ptr")
    if (const auto* s = dyn_cast<ClassTemplateSpecializationDecl>(r); s && s->getTemplateArgs().size() >= 1)
      return is_module_type(s->getTemplateArgs()[0].getAsType());
  return derives_from_module(r);
}

bool is_device_type(QualType t) {
  std::string q = record_name(t);
  return q == "c10::Device" || q == "c10::DeviceType" || q == "c10::TensorOptions";
}

const Expr* DeviceInference::last_value(const VarDecl* v, const Expr* use) {
  const SourceManager& sm = context_.getSourceManager();
  const Expr* best = v->getInit();
  SourceLocation at = use ? use->getBeginLoc() : SourceLocation();
  auto it = index_.assigns.find(v);
  if (it == index_.assigns.end()) return best;
  SourceLocation best_loc = v->getLocation();
  for (const Expr* rhs : it->second) {
    SourceLocation l = rhs->getBeginLoc();
    bool before = at.isInvalid() || sm.isBeforeInTranslationUnit(l, at);
    if (!use) best = best ? best : rhs;  // no position: any assignment says something
    if (before && !sm.isBeforeInTranslationUnit(l, best_loc)) {
      best = rhs;
      best_loc = l;
    }
  }
  return best;
}

Dev DeviceInference::var(const VarDecl* v, const Expr* use, bool as_target) {
  // Keyed by the use: `x = x * 2` reads the value x had before the assignment.
  const void* key = use ? static_cast<const void*>(use) : v;
  if (!active_.insert(key).second) return Dev::Unknown;
  Dev d = Dev::Unknown;
  if (isa<ParmVarDecl>(v)) d = param(v);
  else {
    if (Dev r = range_element(v); r != Dev::Unknown) d = r;
    else if (const Expr* val = last_value(v, use)) {
      if (const auto* ctor = dyn_cast<CXXConstructExpr>(strip(val)); ctor && as_target) {
        d = Dev::Unknown;
        for (const Expr* a : ctor->arguments()) d = join_operands(d, target(a));
        if (ctor->getNumArgs() == 0) d = Dev::Host;
      } else {
        d = as_target ? target(val) : of(val);
      }
    } else if (is_tensor_type(v->getType()) || is_module_type(v->getType())) {
      d = Dev::Host;  // `torch::Tensor t;` / a module built in place without a move
    }
  }
  // A module's device is where it was moved (`model->to(device)`), else where it was built (the host).
  if (is_module_type(v->getType())) {
    if (index_.moves.count(v)) d = module_moves(v);
    else if (!isa<ParmVarDecl>(v) && d == Dev::Unknown) d = Dev::Host;
  }
  active_.erase(key);
  return d;
}

Dev DeviceInference::range_element(const VarDecl* v) {
  // The variable of `for (auto& x : range)`: parameters of a module, batches of a data loader.
  for (auto parents = context_.getParents(*v); !parents.empty();) {
    const auto* ds = parents[0].get<DeclStmt>();
    if (!ds) return Dev::Unknown;
    auto up = context_.getParents(*ds);
    const auto* rf = up.empty() ? nullptr : up[0].get<CXXForRangeStmt>();
    if (!rf || rf->getLoopVariable() != v) return Dev::Unknown;
    const Expr* range = strip(rf->getRangeInit());
    if (const auto* u = dyn_cast<UnaryOperator>(range); u && u->getOpcode() == UO_Deref) return Dev::Host;
    if (const auto* op = dyn_cast<CXXOperatorCallExpr>(range); op && op->getOperator() == OO_Star) return Dev::Host;
    if (const auto* m = as_member_call(range)) {
      std::string n = method_name(m);
      if (n == "parameters" || n == "named_parameters" || n == "buffers" || n == "named_buffers")
        return of(m->getImplicitObjectArgument());
    }
    if (const auto* d = dyn_cast<DeclRefExpr>(range))
      if (const auto* rv = dyn_cast<VarDecl>(d->getDecl()); rv && rv->getInit()) return of(rv->getInit());
    return of(range);
  }
  return Dev::Unknown;
}

Dev DeviceInference::param(const VarDecl* p) {
  if (auto it = param_cache_.find(p); it != param_cache_.end()) return it->second;
  const auto* pv = cast<ParmVarDecl>(p);
  const auto* fn = dyn_cast_or_null<FunctionDecl>(pv->getDeclContext());
  Dev d = Dev::Unknown;
  bool first = true;
  if (fn) {
    auto it = index_.calls.find(fn->getCanonicalDecl());
    unsigned i = pv->getFunctionScopeIndex();
    if (it != index_.calls.end())
      for (const CallExpr* c : it->second) {
        unsigned shift = isa<CXXOperatorCallExpr>(c) && isa<CXXMethodDecl>(fn) ? 1 : 0;
        if (i + shift >= c->getNumArgs()) continue;
        const Expr* a = c->getArg(i + shift);
        Dev ad = is_device_type(pv->getType()) ? target(a) : of(a);
        d = first ? ad : join_branches(d, ad);
        first = false;
      }
  }
  param_cache_[p] = d;
  return d;
}

Dev DeviceInference::returns(const FunctionDecl* f) {
  f = f->getDefinition();
  if (!f || !f->hasBody()) return Dev::Unknown;
  if (auto it = return_cache_.find(f); it != return_cache_.end()) return it->second;
  if (!active_.insert(f).second) return Dev::Unknown;
  Dev d = Dev::Unknown;
  bool first = true;
  std::vector<const Stmt*> todo{f->getBody()};
  while (!todo.empty()) {
    const Stmt* s = todo.back();
    todo.pop_back();
    if (!s || isa<LambdaExpr>(s)) continue;
    if (const auto* r = dyn_cast<ReturnStmt>(s); r && r->getRetValue()) {
      Dev rd = of(r->getRetValue());
      d = first ? rd : join_branches(d, rd);
      first = false;
    }
    for (const Stmt* c : s->children()) todo.push_back(c);
  }
  active_.erase(f);
  return_cache_[f] = d;
  return d;
}

Dev DeviceInference::module_moves(const Decl* decl) {
  if (auto it = module_cache_.find(decl); it != module_cache_.end()) return it->second;
  Dev d = Dev::Host;
  if (auto it = index_.moves.find(decl); it != index_.moves.end()) {
    bool first = true;
    for (const Expr* t : it->second) {
      const auto* m = as_member_call(strip(t));
      Dev td = m && method_name(m) == "cuda" ? Dev::Cuda : target(t);
      d = first ? td : join_branches(d, td);
      first = false;
    }
  }
  module_cache_[decl] = d;
  return d;
}

Dev DeviceInference::target(const Expr* e) {
  e = strip(e);
  if (!e) return Dev::Unknown;
  if (const auto* s = dyn_cast<StringLiteral>(e)) {
    llvm::StringRef v = s->getString();
    return v.starts_with("cuda") ? Dev::Cuda : v.starts_with("cpu") ? Dev::Host : Dev::Unknown;
  }
  if (const auto* c = dyn_cast<ConditionalOperator>(e))
    return join_branches(target(c->getTrueExpr()), target(c->getFalseExpr()));
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    std::string n = d->getDecl()->getNameAsString();
    if (n == "kCUDA" || n == "CUDA") return Dev::Cuda;
    if (n == "kCPU" || n == "CPU") return Dev::Host;
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl())) {
      if (is_tensor_type(v->getType())) return of(e);
      return var(v, e, true);
    }
    return Dev::Unknown;
  }
  if (const auto* ctor = dyn_cast<CXXConstructExpr>(e)) {
    if (ctor->getNumArgs() == 0) return Dev::Host;  // TensorOptions(): the default device
    Dev d = target(ctor->getArg(0));
    return d;
  }
  if (is_tensor_type(e->getType())) return of(e);
  if (const auto* m = as_member_call(e)) {
    std::string n = method_name(m);
    if (n == "device") {
      const Expr* obj = m->getImplicitObjectArgument();
      if (obj && is_tensor_type(obj->getType())) return of(obj);
      return m->getNumArgs() >= 1 ? target(m->getArg(0)) : Dev::Unknown;
    }
    return target(m->getImplicitObjectArgument());  // .dtype(...), .requires_grad(...), .pinned_memory(...)
  }
  if (const FunctionDecl* f = callee(e)) {
    std::string q = qualified_name(f);
    if (q.ends_with("::device") && cast<CallExpr>(e)->getNumArgs() >= 1) return target(cast<CallExpr>(e)->getArg(0));
    if (is_factory(q)) return Dev::Host;  // torch::dtype(...), torch::requires_grad()
    if (is_device_type(f->getReturnType())) return returns(f) == Dev::Unknown ? Dev::Unknown : returns(f);
  }
  return Dev::Unknown;
}

Dev DeviceInference::call(const Expr* e) {
  const auto* c = cast<CallExpr>(e);
  if (const auto* m = as_member_call(e)) {
    std::string n = method_name(m);
    const Expr* obj = m->getImplicitObjectArgument();
    if (n == "cuda") return Dev::Cuda;
    if (n == "cpu") return Dev::Host;
    if (n == "to" && m->getNumArgs() >= 1) {
      Dev t = target(m->getArg(0));
      if (t != Dev::Unknown) return t;
      QualType at = m->getArg(0)->getType();
      if (!is_device_type(at) && !is_tensor_type(at)) return of(obj);  // to(kFloat)
      return Dev::Unknown;
    }
    if (is_module_type(obj->getType())) return of(obj);  // model->forward(x), model->parameters()
    if (obj && is_tensor_type(obj->getType())) return of(obj);
    // A container's accessor returning a held tensor (an OrderedDict item's value(), from named_parameters()).
    if (obj && is_tensor_type(m->getType()))
      if (Dev held = of(obj); held != Dev::Unknown) return held;
    // A method of the user's own class returning a tensor.
    if (const CXXMethodDecl* md = m->getMethodDecl()) return returns(md);
    return Dev::Unknown;
  }
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(e)) {
    if (op->getOperator() == OO_Call && op->getNumArgs() >= 1 && is_module_type(op->getArg(0)->getType()))
      return of(op->getArg(0));
    if ((op->getOperator() == OO_Arrow || op->getOperator() == OO_Star) && op->getNumArgs() >= 1)
      return of(op->getArg(0));
    if (op->getOperator() == OO_Subscript && op->getNumArgs() >= 1) return of(op->getArg(0));
    Dev d = Dev::Unknown;
    bool any = false;
    for (const Expr* a : op->arguments())
      if (is_tensor_type(a->getType())) {
        d = any ? join_operands(d, of(a)) : of(a);
        any = true;
      }
    if (any) return d;
  }
  const FunctionDecl* f = c->getDirectCallee();
  if (!f) return Dev::Unknown;
  std::string q = qualified_name(f);
  if (is_factory(q)) {
    bool from_blob = q.ends_with("::from_blob");
    Dev tensors = Dev::Unknown, options = Dev::Unknown;
    bool any_tensor = false;
    for (const Expr* a : c->arguments()) {
      if (isa<CXXDefaultArgExpr>(a)) continue;
      if (is_tensor_type(a->getType())) {
        tensors = any_tensor ? join_operands(tensors, of(a)) : of(a);
        any_tensor = true;
      } else if (is_device_type(a->getType())) {
        options = join_operands(options, target(a));
      }
    }
    if (options != Dev::Unknown) return options;
    if (any_tensor) return tensors;
    (void)from_blob;
    return Dev::Host;  // a factory without device options (from_blob of host memory too)
  }
  return returns(f);
}

Dev DeviceInference::of(const Expr* e) {
  e = strip(e);
  if (!e) return Dev::Unknown;
  if (const auto* d = dyn_cast<DeclRefExpr>(e)) {
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl())) return var(v, e, false);
    return Dev::Unknown;
  }
  if (const auto* m = dyn_cast<MemberExpr>(e)) {
    if (isa<CXXThisExpr>(m->getBase()->IgnoreImpCasts()) && is_module_type(m->getType()))
      return module_moves(m->getMemberDecl());
    if (isa<CXXThisExpr>(m->getBase()->IgnoreImpCasts())) return Dev::Unknown;
    return of(m->getBase());  // batch.data, pair.first
  }
  if (const auto* c = dyn_cast<ConditionalOperator>(e)) return join_branches(of(c->getTrueExpr()), of(c->getFalseExpr()));
  if (const auto* b = dyn_cast<BinaryOperator>(e)) return join_operands(of(b->getLHS()), of(b->getRHS()));
  if (const auto* u = dyn_cast<UnaryOperator>(e)) return of(u->getSubExpr());
  if (isa<CallExpr>(e)) return call(e);
  if (const auto* ctor = dyn_cast<CXXConstructExpr>(e); ctor && ctor->getNumArgs() >= 1) return of(ctor->getArg(0));
  return Dev::Unknown;
}

}  // namespace synclint::cxx
