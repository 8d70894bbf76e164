// PublishTexts: the text of each publishDiagnostics notification is the dump of the whole message, whatever
// the last notification of the document held (the texts it reuses from there, as they were or with the range
// of a diagnostic that moved written again).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "lsp/protocol.h"

namespace synclint::lsp {
namespace {

using nlohmann::json;

Diagnostic diagnostic(std::uint32_t line, std::string message, std::string code = "SYNC001") {
  Diagnostic d;
  d.range = Range{{line, 4}, {line, 15}};
  d.code = std::move(code);
  d.code_href = "https://example.org/rules/" + d.code + ".md";
  d.message = std::move(message);
  d.related.push_back(DiagnosticRelated{Location{"file:///w/train.py", Range{{1, 0}, {1, 3}}}, "loop here"});
  return d;
}

std::string expected(const std::string& uri, std::optional<std::int64_t> version, const std::vector<Diagnostic>& d) {
  json params{{"uri", uri}, {"diagnostics", d}};
  if (version) params["version"] = *version;
  return dump(json{{"jsonrpc", "2.0"}, {"method", "textDocument/publishDiagnostics"}, {"params", params}});
}

TEST(PublishTexts, EachNotificationIsTheDumpOfTheWholeMessage) {
  const std::string a = "file:///w/train.py", b = "file:///w/utils \"ü\".py";
  std::vector<Diagnostic> first = {diagnostic(3, ".item() syncs"), diagnostic(7, "float() syncs"),
                                   diagnostic(9, "bad \xff byte, ünïcode, \"quotes\"\n", "SYNC002")};
  std::vector<Diagnostic> moved = first;  // a line typed above the second: it and the third move
  moved[1].range.start.line = moved[1].range.end.line = 8;
  moved[2].range.start.line = moved[2].range.end.line = 10;
  std::vector<Diagnostic> inserted = first;  // one more before the others, one message changed
  inserted.insert(inserted.begin(), diagnostic(1, "new"));
  inserted[2].message = "float() syncs here";
  std::vector<Diagnostic> reordered = {first[2], first[0], first[1]};
  std::vector<Diagnostic> related_changed = first;
  related_changed[0].related[0].location.range.start.character = 1;
  // Two with the same message and columns, and one whose related location is its own range: all moved.
  std::vector<Diagnostic> twins = {diagnostic(3, "same"), diagnostic(5, "same"), diagnostic(6, "own range")};
  twins[2].related[0].location.range = twins[2].range;
  std::vector<Diagnostic> twins_moved = twins;
  for (Diagnostic& d : twins_moved) d.range.start.line = d.range.end.line = d.range.start.line + 10;
  std::vector<Diagnostic> widened = twins_moved;  // a range that grew: written anew
  widened[0].range.end.character = 40;
  std::vector<Diagnostic> no_code = first;
  no_code[1].code.clear();
  no_code[1].code_href.clear();
  no_code[1].related.clear();

  PublishTexts texts;
  const std::vector<std::vector<Diagnostic>> sequence = {first,   first,       moved,   inserted, reordered,
                                                         related_changed, twins, twins_moved, widened, no_code,
                                                         {},      first};
  std::int64_t version = 1;
  for (const auto& diagnostics : sequence) {
    EXPECT_EQ(texts.notification(a, version, diagnostics), expected(a, version, diagnostics)) << "version " << version;
    EXPECT_EQ(texts.notification(b, std::nullopt, diagnostics), expected(b, std::nullopt, diagnostics));
    ++version;
  }
}

}  // namespace
}  // namespace synclint::lsp
