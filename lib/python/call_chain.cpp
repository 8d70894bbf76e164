#include "python/call_chain.h"

#include <algorithm>

#include "python/library_hooks.h"
#include "python/walker.h"

namespace synclint::python {

std::vector<ChainStep> chain_steps(const Project& p, int fn) {
  std::vector<ChainStep> steps;
  int cur = fn;
  auto seen = [&](int f) {
    return std::any_of(steps.begin(), steps.end(), [&](const ChainStep& s) { return s.func == f; });
  };
  while (cur >= 0 && !seen(cur) && steps.size() + 1 < 32) {
    const FuncHeat& fh = p.heat[cur];
    if (fh.callback && fh.via < 0) {
      steps.push_back({cur, -1});
      break;
    }
    if (fh.via < 0 || static_cast<std::size_t>(fh.via) >= p.edges.size()) break;
    steps.push_back({cur, fh.via});
    const CallEdge& e = p.edges[fh.via];
    if (e.lex.in_loop) break;
    cur = e.caller;
  }
  return steps;
}

ChainAt chain_at(const Project& p, int fn) {
  ChainAt chain;
  for (const ChainStep& step : chain_steps(p, fn)) {
    ChainStepAt& at = chain.emplace_back();
    if (step.edge < 0) {
      const FuncInfo& fi = p.funcs[step.func];
      at.file = static_cast<std::uint32_t>(fi.file);
      at.callback = true;
      at.call = fi.name_span;
      at.name = fi.name;
      at.hook_loop = library_hook_loop(p, step.func);
      break;
    }
    const CallEdge& e = p.edges[step.edge];
    at.file = static_cast<std::uint32_t>(p.funcs[e.caller].file);
    at.in_loop = e.lex.in_loop;
    at.periodic = e.lex.periodic;
    at.call = e.call;
    at.loop = e.lex.loop;
    at.guard = e.lex.guard;
  }
  return chain;
}

void write_chain(const ChainAt& chain, const FilePlaces& places, Heat heat, std::string& called,
                 std::vector<RelatedLocation>& related) {
  for (const ChainStepAt& step : chain) {
    const FilePlace& place = places[step.file];
    auto range = [&](const Span& s) { return SourceRange{place.path, s.begin, s.end}; };
    auto where = [&](const Span& s) { return place.display + ":" + std::to_string(s.begin.line); };
    if (step.callback) {
      const std::string by = step.hook_loop.empty() ? "" : " of " + step.hook_loop;
      if (called.empty()) called = "`" + step.name + "` is a per-step callback" + by;
      else called += " in per-step callback `" + step.name + "`" + by;
      related.push_back({range(step.call), "per-step callback `" + step.name + "`"});
      return;
    }
    std::string msg = "called from " + where(step.call);
    if (step.in_loop) msg += " inside loop at " + where(step.loop);
    if (step.periodic && heat == Heat::Periodic) msg += " under the periodic guard at " + where(step.guard);
    related.push_back({range(step.call), msg});
    if (step.periodic) related.push_back({range(step.guard), "periodic guard at " + where(step.guard)});
    if (step.in_loop) related.push_back({range(step.loop), "inside loop at " + where(step.loop)});
    called = msg;
  }
}

void call_chain(const Project& p, int fn, std::string& called, std::vector<RelatedLocation>& related, Heat heat) {
  write_chain(chain_at(p, fn), *p.places, heat, called, related);
}

bool same_chain(const ChainAt& a, const FilePlaces& a_places, const ChainAt& b, const FilePlaces& b_places) {
  auto same_span = [](const Span& x, const Span& y) { return x.begin == y.begin && x.end == y.end; };
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [&](const ChainStepAt& x, const ChainStepAt& y) {
    const FilePlace &u = a_places[x.file], &v = b_places[y.file];
    return x.callback == y.callback && x.in_loop == y.in_loop && x.periodic == y.periodic &&
           same_span(x.call, y.call) && same_span(x.loop, y.loop) && same_span(x.guard, y.guard) &&
           x.name == y.name && x.hook_loop == y.hook_loop && u.path == v.path && u.display == v.display;
  });
}

ChainsAt chains_at(const Project& p, const FileOutput& out) {
  ChainsAt chains;
  chains.places = p.places;
  chains.parts.reserve(out.chain_parts.size());
  for (const FileOutput::ChainPart& part : out.chain_parts)
    chains.parts.push_back(chain_at(p, out.finding_funcs[part.finding]));
  return chains;
}

ChainRewrites chain_rewrites(const FileOutput& out, const ChainsAt& chains) {
  ChainRewrites rewrites;
  rewrites.reserve(out.chain_parts.size());
  for (std::size_t k = 0; k < out.chain_parts.size(); ++k) {
    const FileOutput::ChainPart& part = out.chain_parts[k];
    const Finding& was = out.findings[part.finding];
    std::string called;
    ChainRewrite& f = rewrites.emplace_back();
    f.finding = part.finding;
    // The related locations before the chain's, the chain's as they are now, and those after it.
    const auto chain_begin = was.related.begin() + part.related_at;
    f.related.assign(was.related.begin(), chain_begin);
    write_chain(chains.parts[k], *chains.places, part.heat, called, f.related);
    f.related.insert(f.related.end(), chain_begin + part.related_length, was.related.end());
    f.message = was.message;
    if (!part.in_message) continue;
    const std::string text = part.colon && !called.empty() ? ": " + called : called;
    f.message.replace(part.message_at, part.message_length, text);
  }
  return rewrites;
}

void apply(const ChainRewrites& rewrites, std::vector<Finding>& findings) {
  for (const ChainRewrite& r : rewrites) {
    findings[r.finding].message = r.message;
    findings[r.finding].related = r.related;
  }
}

bool same_output(const KeptOutput& a, const KeptOutput& b) {
  if (!a || a.out != b.out) return false;
  if (!a.chains || !b.chains) return !a.chains && !b.chains;
  const ChainsAt &x = *a.chains, &y = *b.chains;
  if (x.parts.size() != y.parts.size()) return false;
  for (std::size_t k = 0; k < x.parts.size(); ++k)
    if (!same_chain(x.parts[k], *x.places, y.parts[k], *y.places)) return false;
  return true;
}

}  // namespace synclint::python
