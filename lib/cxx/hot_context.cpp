#include "cxx/hot_context.h"

#include "clang/AST/DeclCXX.h"
#include "clang/AST/ParentMapContext.h"
#include "clang/AST/ExprCXX.h"
#include "clang/AST/StmtCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"
#include "cxx/ast_util.h"
#include "cxx/device.h"
#include "cxx/tu_index.h"

namespace synclint::cxx {

using namespace clang;

Position Locator::position(SourceLocation l) const {
  const SourceManager& sm = ctx_.getSourceManager();
  l = sm.getFileLoc(l);
  unsigned line = sm.getExpansionLineNumber(l), col = sm.getExpansionColumnNumber(l);
  bool invalid = false;
  const char* data = sm.getCharacterData(l, &invalid);
  std::uint32_t cp = 1;
  if (!invalid && col > 1) {
    const char* start = data - (col - 1);
    for (const char* p = start; p < data; ++p)
      if ((static_cast<unsigned char>(*p) & 0xC0) != 0x80) ++cp;
  } else {
    cp = col;
  }
  return {line, cp};
}

std::string Locator::absolute_path(SourceLocation l) const {
  const SourceManager& sm = ctx_.getSourceManager();
  FileID id = sm.getFileID(sm.getFileLoc(l));
  auto it = paths_.find(id.getHashValue());
  if (it != paths_.end()) return it->second;
  std::string p;
  if (OptionalFileEntryRef fe = sm.getFileEntryRefForID(id)) {
    llvm::SmallString<256> buf(fe->getName());
    sm.getFileManager().makeAbsolutePath(buf);
    llvm::sys::path::remove_dots(buf, true);
    p = buf.str().str();
  }
  paths_[id.getHashValue()] = p;
  return p;
}

SourceRange Locator::range(SourceLocation begin, SourceLocation end_token) const {
  const SourceManager& sm = ctx_.getSourceManager();
  SourceRange r;
  std::string abs = absolute_path(begin);
  r.path = display_path_ ? display_path_(abs) : abs;
  r.begin = position(begin);
  SourceLocation e = Lexer::getLocForEndOfToken(sm.getFileLoc(end_token), 0, sm, ctx_.getLangOpts());
  r.end = e.isValid() ? position(e) : r.begin;
  if (r.end.line < r.begin.line || (r.end.line == r.begin.line && r.end.column < r.begin.column)) r.end = r.begin;
  return r;
}

SourceRange Locator::range(const Stmt* s) const { return range(s->getBeginLoc(), s->getEndLoc()); }

std::string Locator::where(SourceLocation l) const {
  std::string abs = absolute_path(l);
  return (display_path_ ? display_path_(abs) : abs) + ":" + std::to_string(position(l).line);
}

std::string Locator::where(const Stmt* s) const { return where(s->getBeginLoc()); }

bool is_parameter_loop(const Stmt* loop) {
  const auto* rf = dyn_cast_or_null<CXXForRangeStmt>(loop);
  if (!rf) return false;
  const Expr* r = strip(rf->getRangeInit());
  if (const auto* d = dyn_cast_or_null<DeclRefExpr>(r))
    if (const auto* v = dyn_cast<VarDecl>(d->getDecl()); v && v->getInit()) r = strip(v->getInit());
  const auto* m = as_member_call(r);
  std::string n = method_name(m);
  return n == "parameters" || n == "named_parameters" || n == "buffers" || n == "named_buffers";
}

namespace {
// `do { ... } while (0)` (a macro's statement wrapper) runs once: not a loop.
bool is_loop(const Stmt* s) {
  if (const auto* d = dyn_cast<DoStmt>(s)) {
    const Expr* c = d->getCond()->IgnoreParenImpCasts();
    if (const auto* i = dyn_cast<IntegerLiteral>(c)) return i->getValue() != 0;
    if (const auto* b = dyn_cast<CXXBoolLiteralExpr>(c)) return b->getValue();
    return true;
  }
  return isa<ForStmt, WhileStmt, CXXForRangeStmt>(s);
}

// Does `child` run on every iteration of `loop` (body, condition, increment; not the init)?
bool runs_per_iteration(const Stmt* loop, const Stmt* child) {
  if (const auto* f = dyn_cast<ForStmt>(loop)) return child != f->getInit();
  if (const auto* r = dyn_cast<CXXForRangeStmt>(loop)) return child == r->getBody();
  return true;
}

bool contains_modulo(const Stmt* s) {
  if (!s) return false;
  if (const auto* b = dyn_cast<BinaryOperator>(s); b && b->getOpcode() == BO_Rem) return true;
  if (const auto* op = dyn_cast<CXXOperatorCallExpr>(s); op && op->getOperator() == OO_Percent) return true;
  for (const Stmt* c : s->children())
    if (contains_modulo(c)) return true;
  return false;
}

// `if (step == 0)`, `if (epoch == 1 && i == 0)`: a comparison of a variable with an integer literal.
bool is_once_only(const Expr* cond) {
  cond = cond ? cond->IgnoreParenImpCasts() : nullptr;
  const auto* b = dyn_cast_or_null<BinaryOperator>(cond);
  if (!b) return false;
  if (b->getOpcode() == BO_LAnd) return is_once_only(b->getLHS()) || is_once_only(b->getRHS());
  if (b->getOpcode() != BO_EQ || contains_modulo(b)) return false;
  const Expr* l = b->getLHS()->IgnoreParenImpCasts();
  const Expr* r = b->getRHS()->IgnoreParenImpCasts();
  return (isa<DeclRefExpr>(l) && isa<IntegerLiteral>(r)) || (isa<IntegerLiteral>(l) && isa<DeclRefExpr>(r));
}

}  // namespace

HotInfo HotContext::from_callers(const std::vector<const CallExpr*>& calls) {
  HotInfo best;
  for (const CallExpr* c : calls) {
    HotInfo h = of(c);
    if (h.heat == Heat::Cold || (h.heat <= best.heat && best.heat != Heat::Cold)) continue;
    HotInfo out;
    out.heat = h.heat;
    out.multiplied = h.multiplied;
    std::string msg = "called from " + loc_.where(c);
    if (h.loop) msg += " inside loop at " + loc_.where(h.loop);
    if (h.guard && h.heat == Heat::Periodic) msg += " under the periodic guard at " + loc_.where(h.guard);
    out.chain.push_back({loc_.range(c), msg});
    if (h.guard) out.chain.push_back({loc_.range(h.guard), "periodic guard at " + loc_.where(h.guard)});
    if (h.loop) {
      out.chain.push_back({loc_.range(h.loop), "inside loop at " + loc_.where(h.loop)});
      out.called = msg;
    } else {
      out.called = h.called.empty() ? msg : h.called;  // the hop that reaches the loop names it
      out.chain.insert(out.chain.end(), h.chain.begin(), h.chain.end());
    }
    best = std::move(out);
    if (best.heat == Heat::Hot) break;
  }
  return best;
}

HotInfo HotContext::function_heat(const FunctionDecl* f) {
  f = f->getCanonicalDecl();
  if (auto it = fn_cache_.find(f); it != fn_cache_.end()) return it->second;
  if (!active_.insert(f).second) return {};
  HotInfo h;
  if (const auto* m = dyn_cast<CXXMethodDecl>(f); m && m->getName() == "forward" && m->getParent() &&
                                                   is_module_type(ctx_.getRecordType(m->getParent()))) {
    h.heat = Heat::Hot;
    std::string name = m->getParent()->getNameAsString() + "::forward";
    h.called = "`" + name + "` is a per-step callback";
    const FunctionDecl* def = m->getDefinition() ? m->getDefinition() : m;
    h.chain.push_back({loc_.range(def->getLocation(), def->getLocation()), "per-step callback `" + name + "`"});
  } else if (auto it = index_.calls.find(f); it != index_.calls.end()) {
    h = from_callers(it->second);
  }
  active_.erase(f);
  fn_cache_[f] = h;
  return h;
}

HotInfo HotContext::of(const Stmt* s) {
  HotInfo h;
  const Stmt* child = s;
  const Stmt* outer_loop = nullptr;
  const Stmt* param_loop = nullptr;
  bool once = false;
  for (const Stmt* p = parent_stmt(ctx_, s); p; child = p, p = parent_stmt(ctx_, p)) {
    if (is_loop(p) && runs_per_iteration(p, child)) {
      if (is_parameter_loop(p) && !param_loop && !outer_loop) param_loop = p;
      else if (!outer_loop) outer_loop = p;
    }
    if (const auto* i = dyn_cast<IfStmt>(p); i && child == i->getThen() && !h.guard && !outer_loop) {
      if (contains_modulo(i->getCond())) h.guard = i;
      else if (is_once_only(i->getCond())) once = true;
    }
    if (const auto* lambda = dyn_cast<LambdaExpr>(p)) {
      // A lambda kept in a variable runs where the variable is called; one passed on runs where it is written.
      auto up = ctx_.getParents(*lambda);
      const VarDecl* var = nullptr;
      for (int depth = 0; !up.empty() && depth < 4 && !var; ++depth) {
        if ((var = up[0].get<VarDecl>())) break;
        if (const auto* st = up[0].get<Stmt>(); st && isa<Expr>(st)) up = ctx_.getParents(*st);
        else break;
      }
      if (var && !outer_loop) {
        auto it = index_.var_calls.find(var);
        if (it == index_.var_calls.end()) return {};
        HotInfo c = from_callers(it->second);
        c.guard = h.guard;
        if (c.heat == Heat::Hot && h.guard) c.heat = Heat::Periodic;
        if (once) c.heat = Heat::Cold;
        return c;
      }
    }
  }
  h.loop = outer_loop;
  if (outer_loop) {
    h.heat = Heat::Hot;
    h.multiplied = param_loop != nullptr;
  } else {
    if (param_loop) h.loop = nullptr;
    const FunctionDecl* f = enclosing_function(ctx_, s);
    if (f) {
      HotInfo fh = function_heat(f);
      h.heat = fh.heat;
      h.called = fh.called;
      h.chain = fh.chain;
      h.multiplied = fh.multiplied || (param_loop && fh.heat != Heat::Cold);
      if (h.multiplied && param_loop && !h.loop) h.loop = nullptr;
    }
  }
  if (h.guard && h.heat == Heat::Hot) h.heat = Heat::Periodic;
  if (once) h.heat = Heat::Cold;
  return h;
}

std::string HotContext::phrase(const HotInfo& h, std::vector<RelatedLocation>& related) const {
  std::string reads;
  if (h.multiplied) reads = "one read per parameter per step";
  if (h.guard) related.push_back({loc_.range(h.guard), "periodic guard at " + loc_.where(h.guard)});
  std::string loop_at;
  if (h.loop) {
    loop_at = loc_.where(h.loop);
    related.push_back({loc_.range(h.loop), "inside loop at " + loop_at});
  }
  if (!h.loop && h.heat != Heat::Cold) related.insert(related.end(), h.chain.begin(), h.chain.end());
  std::string s;
  switch (h.heat) {
    case Heat::Hot:
      if (h.loop) s = (reads.empty() ? "every step" : reads) + " of the loop at " + loop_at;
      else s = (reads.empty() ? "every step" : reads) + ": " + h.called;
      break;
    case Heat::Periodic:
      s = "at each logging interval";
      if (h.guard) s += " (periodic guard at " + loc_.where(h.guard) + ")";
      if (!reads.empty()) s += ", " + reads;
      if (h.loop) s += " of the loop at " + loop_at;
      else if (!h.called.empty()) s += ": " + h.called;
      break;
    case Heat::Cold: s = "in code that runs once"; break;
  }
  return s;
}

}  // namespace synclint::cxx
