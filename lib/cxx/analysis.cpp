// The analysis of one translation unit: the user's declarations are indexed once, every rule of the table
// registers its matchers, one AST-matcher pass over the user's declarations feeds each rule's check(), and
// the Reporter turns judged sites into Findings with hot context and device confidence.
#include "cxx/analysis.h"

#include <set>
#include <unordered_map>

#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclTemplate.h"
#include "clang/Basic/SourceManager.h"
#include "core/catalog.h"
#include "cxx/ast_util.h"
#include "cxx/device.h"
#include "cxx/hot_context.h"
#include "cxx/parameter_count.h"
#include "cxx/rules/edits.h"
#include "cxx/rules/rules.h"
#include "cxx/tu_index.h"

namespace synclint::cxx {

using namespace clang;

namespace {

class UserFiles {
 public:
  UserFiles(ASTContext& ctx, const Locator& loc, const AnalysisOptions& opt) : ctx_(ctx), loc_(loc), opt_(opt) {}
  bool owns(SourceLocation l) {
    const SourceManager& sm = ctx_.getSourceManager();
    l = sm.getExpansionLoc(l);
    if (l.isInvalid()) return false;
    FileID id = sm.getFileID(l);
    auto [it, fresh] = cache_.try_emplace(id.getHashValue(), false);
    if (fresh) {
      std::string path = loc_.absolute_path(l);
      const bool system = sm.isInSystemHeader(sm.getLocForStartOfFile(id));
      it->second = !path.empty() && (opt_.is_user_file ? opt_.is_user_file(path, system) : id == sm.getMainFileID());
      if (it->second) files_.push_back(id);
    }
    return it->second;
  }
  // Whether the user's code mentions a CUDA device at all (kCUDA, .cuda(), "cuda:0", cuda* calls).
  bool mention_cuda() const {
    const SourceManager& sm = ctx_.getSourceManager();
    for (FileID id : files_) {
      bool invalid = false;
      llvm::StringRef text = sm.getBufferData(id, &invalid);
      if (!invalid && text.contains_insensitive("cuda")) return true;
    }
    return false;
  }

 private:
  ASTContext& ctx_;
  const Locator& loc_;
  const AnalysisOptions& opt_;
  std::unordered_map<unsigned, bool> cache_;
  std::vector<FileID> files_;
};

// A template's pattern is judged through its instantiations (where types and devices are known) when it has any.
bool judged_in_instantiations(const FunctionDecl* fn) {
  if (!fn->isDependentContext()) return false;
  if (const FunctionTemplateDecl* t = fn->getDescribedFunctionTemplate()) return !t->specializations().empty();
  for (const DeclContext* dc = fn->getDeclContext(); dc; dc = dc->getParent())
    if (const auto* r = dyn_cast<CXXRecordDecl>(dc))
      if (const ClassTemplateDecl* t = r->getDescribedClassTemplate()) return !t->specializations().empty();
  return false;
}

class FindingReporter : public Reporter, public EditSink {
 public:
  FindingReporter(ASTContext& ctx, const Locator& loc, HotContext& hot, UserFiles& user, const AnalysisOptions& opt)
      : ctx_(ctx), loc_(loc), hot_(hot), user_(user), opt_(opt) {}

  void report(const Rule& rule, const Stmt* at, Confidence confidence, std::string_view what,
              std::string_view fix) override {
    std::vector<Insertion> edits = std::move(pending_edits_);
    pending_edits_.clear();
    if (!at || !user_.owns(at->getBeginLoc())) return;
    // By place, not node: a template's pattern and each of its instantiations share the source.
    SourceLocation place = ctx_.getSourceManager().getFileLoc(at->getBeginLoc());
    if (!seen_.emplace(place.getRawEncoding(), rule.id).second) return;
    const FunctionDecl* fn = enclosing_function(ctx_, at);
    if (fn && (fn->isInvalidDecl() || judged_in_instantiations(fn))) return;
    if (confidence == Confidence::Low && !cuda_) return;
    HotInfo h = hot_.of(at);
    if (h.heat == Heat::Cold && !opt_.report_cold) return;
    Finding f;
    f.rule_id = rule.id;
    f.rule_name = rule.name;
    f.range = loc_.range(at);
    f.confidence = confidence;
    f.function = fn ? qualified_name(fn) : "<global>";
    f.severity = (h.heat == Heat::Hot && confidence != Confidence::Low) ? rule.default_severity : Severity::Note;
    f.periodic = h.heat == Heat::Periodic;
    const int reads = h.multiplied ? parameter_tensors_around(ctx_, at) : -1;
    if (reads > 1) f.reads_per_step = static_cast<std::uint32_t>(reads);
    std::string subject = source_text(ctx_, at);
    if (auto nl = subject.find('\n'); nl != std::string::npos) subject = subject.substr(0, nl) + "...";
    if (subject.size() > 60) subject = subject.substr(0, 57) + "...";
    f.message = "`" + subject + "` " + std::string(what) + ", " + with_reads(hot_.phrase(h, f.related), reads);
    if (confidence == Confidence::Low) f.message += " (if the value is on the GPU: its device is unknown here)";
    f.fix = std::string(fix);
    for (const Insertion& e : edits) {
      if (e.before.isInvalid() || e.before.isMacroID()) continue;  // text a macro expands to is not edited
      SourceRange at_edit = loc_.range(e.before, e.before);
      at_edit.end = at_edit.begin;
      f.edits.push_back({std::move(at_edit), e.text});
    }
    findings.push_back(std::move(f));
  }

  void edits_for_next_report(std::vector<Insertion> edits) override { pending_edits_ = std::move(edits); }

  void set_cuda(bool c) { cuda_ = c; }
  std::vector<Finding> findings;

 private:
  ASTContext& ctx_;
  const Locator& loc_;
  HotContext& hot_;
  UserFiles& user_;
  const AnalysisOptions& opt_;
  bool cuda_ = true;
  std::set<std::pair<unsigned, std::string>> seen_;
  std::vector<Insertion> pending_edits_;
};

class RuleCallback : public MatchFinder::MatchCallback {
 public:
  RuleCallback(const RuleEntry& entry, RuleContext ctx) : entry_(entry), ctx_(ctx) {}
  void run(const MatchResult& r) override { entry_.check(r, ctx_); }

 private:
  const RuleEntry& entry_;
  RuleContext ctx_;
};

}  // namespace

std::vector<Finding> analyze_translation_unit(ASTContext& context, const AnalysisOptions& options) {
  if (!options.catalog) return {};
  Locator loc(context, options.display_path);
  UserFiles user(context, loc, options);
  std::vector<Decl*> decls;
  for (Decl* d : context.getTranslationUnitDecl()->decls())
    if (!d->isImplicit() && d->getLocation().isValid() && user.owns(d->getLocation())) decls.push_back(d);
  if (decls.empty()) return {};

  std::vector<Decl*> saved = context.getTraversalScope();
  context.setTraversalScope(decls);
  TuIndex index;
  index.build(decls);
  DeviceInference device(context, index);
  HotContext hot(context, index, loc);
  FindingReporter reporter(context, loc, hot, user, options);
  reporter.set_cuda(user.mention_cuda());

  MatchFinder finder;
  std::vector<std::unique_ptr<RuleCallback>> callbacks;
  for (const RuleEntry& entry : rule_table()) {
    const Rule* rule = options.catalog->find(entry.id);
    if (!rule) continue;
    bool cxx = false;
    for (Language l : rule->languages) cxx = cxx || l == Language::Cxx;
    if (!cxx) continue;
    callbacks.push_back(std::make_unique<RuleCallback>(entry, RuleContext{*rule, context, device, reporter, loc}));
    entry.register_matchers(*rule, finder, callbacks.back().get());
  }
  finder.matchAST(context);
  context.setTraversalScope(saved);
  std::sort(reporter.findings.begin(), reporter.findings.end(), finding_less);
  return std::move(reporter.findings);
}

}  // namespace synclint::cxx
