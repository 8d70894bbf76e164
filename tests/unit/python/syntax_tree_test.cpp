// The compact syntax tree against tree-sitter's own: the same nodes in the same order, with the same
// positions, types, flags, children and fields; and its readers (children, pre-order walks, positions).
// With SYNCLINT_SYNTAX_TREE_CORPUS set to a folder, the comparison also runs on every *.py file below it.
#include <gtest/gtest.h>

#include <tree_sitter/api.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "python/loose_ends.h"
#include "python/syntax.h"

extern "C" const TSLanguage* tree_sitter_python(void);
extern "C" void* tree_sitter_python_external_scanner_create(void);
extern "C" void tree_sitter_python_external_scanner_destroy(void* payload);
extern "C" unsigned tree_sitter_python_external_scanner_serialize(void* payload, char* buffer);
extern "C" void tree_sitter_python_external_scanner_deserialize(void* payload, const char* buffer, unsigned length);

namespace synclint::python::test {
namespace {

// (type, field) pairs where tree-sitter's field lookup finds a node below the node's children.
std::set<std::string> deep_fields;

// Compares the tree of `text` node by node with tree-sitter's; returns the number of nodes compared.
std::size_t expect_same_tree(const std::string& text, const std::string& what) {
  SCOPED_TRACE(what);
  TSParser* ts_parser = ts_parser_new();
  ts_parser_set_language(ts_parser, tree_sitter_python());
  // The text as the parser reads it: its loose ends (loose_ends.h) made spaces.
  const std::string read = read_as_spaces(text, loose_ends(text));
  TSTree* ts_tree = ts_parser_parse_string(ts_parser, nullptr, read.data(), static_cast<std::uint32_t>(read.size()));
  Parser parser;
  const std::unique_ptr<SyntaxTree> tree = parser.parse(text);
  const SourceText src("t.py", text);
  if (ts_tree == nullptr || tree == nullptr) {
    ADD_FAILURE() << "no tree";
    return 0;
  }
  // tree-sitter's visible nodes in pre-order (a cursor walk), keyed for the field and child lookups.
  std::vector<TSNode> order;
  std::map<std::pair<const void*, std::uint32_t>, std::uint32_t> index_of;
  TSTreeCursor c = ts_tree_cursor_new(ts_tree_root_node(ts_tree));
  for (bool more = true; more;) {
    const TSNode n = ts_tree_cursor_current_node(&c);
    index_of.emplace(std::make_pair(n.id, ts_node_start_byte(n)), static_cast<std::uint32_t>(order.size()));
    order.push_back(n);
    if (ts_tree_cursor_goto_first_child(&c)) continue;
    while (!ts_tree_cursor_goto_next_sibling(&c))
      if (!ts_tree_cursor_goto_parent(&c)) {
        more = false;
        break;
      }
  }
  ts_tree_cursor_delete(&c);
  EXPECT_EQ(tree->size(), order.size());
  auto ours = [&](TSNode n) -> Node {
    if (ts_node_is_null(n)) return Node{};
    auto it = index_of.find({n.id, ts_node_start_byte(n)});
    return it == index_of.end() ? Node{tree.get(), 0xFFFFFFFF} : Node{tree.get(), it->second};
  };
  const TSLanguage* lang = tree_sitter_python();
  const std::uint32_t field_count = ts_language_field_count(lang);
  PreOrder walk(tree->root());
  for (std::uint32_t i = 0; i < order.size() && i < tree->size(); ++i) {
    const TSNode t = order[i];
    const Node n = walk.next();
    EXPECT_EQ(n, (Node{tree.get(), i}));
    EXPECT_EQ(type(n), ts_node_type(t)) << "node " << i;
    EXPECT_EQ(start_byte(n), ts_node_start_byte(t)) << "node " << i;
    EXPECT_EQ(end_byte(n), ts_node_end_byte(t)) << "node " << i;
    const TSPoint sp = ts_node_start_point(t), ep = ts_node_end_point(t);
    EXPECT_EQ(start_point(n).row, sp.row) << "node " << i;
    EXPECT_EQ(end_point(n).row, ep.row) << "node " << i;
    // Columns come from the line index: the same as tree-sitter's byte columns.
    EXPECT_EQ(start_point(n).byte - src.line_start(sp.row), sp.column) << "node " << i;
    EXPECT_EQ(end_point(n).byte - src.line_start(ep.row), ep.column) << "node " << i;
    EXPECT_EQ(is_named(n), ts_node_is_named(t)) << "node " << i;
    EXPECT_EQ(is_missing(n), ts_node_is_missing(t)) << "node " << i;
    EXPECT_EQ(is_error(n), ts_node_is_error(t)) << "node " << i;
    EXPECT_EQ(has_error(n), ts_node_has_error(t)) << "node " << i;
    EXPECT_EQ(is_extra(n), ts_node_is_extra(t)) << "node " << i;
    EXPECT_EQ(kind(n) == K::Error, ts_node_is_error(t)) << "node " << i;
    EXPECT_EQ(child_count(n), ts_node_child_count(t)) << "node " << i;
    EXPECT_EQ(named_count(n), ts_node_named_child_count(t)) << "node " << i;
    EXPECT_EQ(first_child(n), ours(ts_node_child(t, 0))) << "node " << i;
    std::uint32_t k = 0;
    for (Node ch : children(n)) EXPECT_EQ(ch, ours(ts_node_child(t, k++))) << "node " << i;
    EXPECT_EQ(k, ts_node_child_count(t));
    k = 0;
    for (Node ch : named_children(n)) EXPECT_EQ(ch, ours(ts_node_named_child(t, k++))) << "node " << i;
    EXPECT_EQ(k, ts_node_named_child_count(t));
    if (ts_node_named_child_count(t) > 0) {
      const std::uint32_t last = ts_node_named_child_count(t) - 1;
      EXPECT_EQ(named(n, last), ours(ts_node_named_child(t, last))) << "node " << i;
      EXPECT_TRUE(null(named(n, last + 1)));
    }
    if (ts_node_child_count(t) > 0) {
      const std::uint32_t last = ts_node_child_count(t) - 1;
      EXPECT_EQ(child(n, last), ours(ts_node_child(t, last))) << "node " << i;
    }
    for (std::uint32_t f = 1; f <= field_count; ++f) {
      const char* name = ts_language_field_name_for_id(lang, static_cast<TSFieldId>(f));
      if (name == nullptr) continue;
      const Node expected = ours(ts_node_child_by_field_id(t, static_cast<TSFieldId>(f)));
      // tree-sitter also finds fields of the children of an aliased hidden child (`alternative` of a
      // match_statement is a case_clause in its block): field() keeps to the node's own children.
      bool own_child = null(expected);
      for (Node ch : children(n)) own_child = own_child || ch == expected;
      if (own_child) {
        EXPECT_EQ(field(n, name), expected) << "node " << i << " (" << ts_node_type(t) << ") field " << name;
      } else {
        EXPECT_TRUE(null(field(n, name))) << "node " << i << " (" << ts_node_type(t) << ") field " << name;
        deep_fields.emplace(std::string(ts_node_type(t)) + "." + name);
      }
    }
    if (::testing::Test::HasFailure()) break;  // one node's differences are enough to read
  }
  if (!::testing::Test::HasFailure()) {
    EXPECT_TRUE(null(walk.next()));
  }
  ts_tree_delete(ts_tree);
  ts_parser_delete(ts_parser);
  return order.size();
}

// A snippet, its tree and its text.
struct Parsed {
  explicit Parsed(std::string t) : text(std::move(t)), tree(Parser().parse(text)), src("t.py", text) {}
  Node root() const { return tree->root(); }
  std::string text;
  std::unique_ptr<SyntaxTree> tree;
  SourceText src;
};

TEST(SyntaxTree, MatchesTreeSitterOnValidCode) {
  expect_same_tree(
      "import torch\nfrom . import a as b, c\n\n@decorator(1)\nclass M(nn.Module, metaclass=Meta):\n"
      "    def forward(self, x: int = 2, *args, y=3, **kw) -> int:\n"
      "        for i, (a, b) in enumerate(zip(x, y)):\n            if x[i, 1:2] > 0 and not y: continue\n"
      "        with torch.no_grad() as g, open('f') as h:\n            return [v * 2 for v in x if v]\n"
      "        match x:\n            case 0 | 1: pass\n            case [a, *rest] if a > 0: pass\n"
      "            case Point(x=0): pass\n            case _: pass\n"
      "        print(f\"{x!r:>10} {y + 1}\", 'a' 'b', lambda q: q ** 2, *args, **kw)\n"
      "        try:\n            x = y = (yield z)\n        except (A, B) as e:\n            raise C from e\n"
      "        finally:\n            del x[0]\n        return x if x else not y, {1: 2, **kw}, {1, 2}\n",
      "valid code");
}

TEST(SyntaxTree, MatchesTreeSitterOnSyntaxErrorsAndMissingNodes) {
  expect_same_tree("def f(:\n    x = = 1\n    return\n", "unexpected tokens");
  expect_same_tree("x = (1, 2\ny = [3\n", "missing brackets");
  expect_same_tree("if x\n    pass\nelse:\n", "missing colon and block");
  expect_same_tree("host, *rest = endpoint, *[]\nclass :\n  def\n", "errors at the top");
  for (const char* text : {"x = (1 +)\n", "f(a,\n", "print 'hello'\n", "def f():\nreturn 1\n", "x = f'{'\n",
                           "if x: pass\nelif: pass\n", "for in x: pass\n", "x = [i for i in]\n", "def f(:\n  pass\n"})
    expect_same_tree(text, text);
  // The errors and the missing nodes are marked, and their ancestors hold an error.
  auto marks = [](const std::string& text) {
    const Parsed p(text);
    std::string found;
    PreOrder walk(p.root());
    for (Node n; !null(n = walk.next());) {
      if (is_missing(n)) found += "missing " + std::string(type(n)) + ";";
      if (is_error(n)) found += "error;";
    }
    return std::make_pair(has_error(p.root()), found);
  };
  EXPECT_EQ(marks("for in x: pass\n"), std::make_pair(true, std::string("missing identifier;")));
  EXPECT_EQ(marks("x = (1 +)\n"), std::make_pair(true, std::string("error;")));
  EXPECT_EQ(marks("x = (1 + 2)\n"), std::make_pair(false, std::string()));
  EXPECT_EQ(marks("a = (b := )\n"), std::make_pair(true, std::string("missing identifier;")));
  // A bracket left open is read as a space (loose_ends.h): no missing `)` is left to mark.
  EXPECT_EQ(marks("def f(:\n  pass\n"), std::make_pair(true, std::string("error;")));
}

TEST(SyntaxTree, MatchesTreeSitterOnCommentsUnicodeCrlfAndEmptyFiles) {
  expect_same_tree("# head\nx = 1  # tail\n# between\ndef f():\n    # inside\n    return x  # after\n", "comments");
  expect_same_tree("s = 'héllo wörld'  # ü\nπ = 3.14\ndef 函数(参数):\n    return '😀' + 参数\n", "unicode");
  expect_same_tree("x = 1\r\nif x:\r\n    y = 'a\\r\\n'\r\n    z = (1,\r\n         2)\r\n", "CRLF");
  expect_same_tree("", "empty file");
  expect_same_tree("\n\n   \n", "blank lines");
  expect_same_tree("x = 1", "no final newline");
  std::string deep = "x = ";
  for (int i = 0; i < 300; ++i) deep += "(";
  deep += "1";
  for (int i = 0; i < 300; ++i) deep += ")";
  expect_same_tree(deep + "\n", "deep nesting");
  std::string wide = "x = [";
  for (int i = 0; i < 70000; ++i) wide += "1,";
  expect_same_tree(wide + "]\n", "more children than the short count holds");
}

TEST(SyntaxTree, EmptyFileIsAModuleWithoutChildren) {
  const Parsed p("");
  ASSERT_NE(p.tree, nullptr);
  const Node root = p.root();
  EXPECT_EQ(kind(root), K::Module);
  EXPECT_EQ(child_count(root), 0u);
  EXPECT_TRUE(null(first_child(root)));
  EXPECT_TRUE(null(next_sibling(root)));
  EXPECT_TRUE(null(field(root, "body")));
  EXPECT_EQ(children(root).begin(), children(root).end());
}

TEST(SyntaxTree, FieldsKindsAndText) {
  const Parsed p("def train(model, lr=0.1):\n    return model.step(lr)[0]\n");
  ASSERT_NE(p.tree, nullptr);
  const SourceText& src = p.src;
  const SyntaxTree* tree = p.tree.get();
  const Node def = named(tree->root(), 0);
  EXPECT_EQ(kind(def), K::FunctionDefinition);
  EXPECT_EQ(src.text(field(def, "name")), "train");
  EXPECT_TRUE(in_field(field(def, "name"), "name"));
  EXPECT_FALSE(in_field(field(def, "name"), "body"));
  EXPECT_TRUE(null(field(def, "no_such_field")));
  const Node params = field(def, "parameters");
  EXPECT_EQ(named_children(params).size(), 2u);
  EXPECT_EQ(kind(named(params, 1)), K::DefaultParameter);
  EXPECT_EQ(src.text(field(named(params, 1), "value")), "0.1");
  const Node ret = named(field(def, "body"), 0);
  EXPECT_EQ(kind(ret), K::ReturnStatement);
  const Node sub = named(ret, 0);
  EXPECT_EQ(kind(sub), K::Subscript);
  EXPECT_EQ(src.text(field(sub, "value")), "model.step(lr)");
  EXPECT_EQ(src.line(sub), 2u);
  EXPECT_EQ(node_id(sub), node_id(Node{tree, sub.index}));
  EXPECT_NE(node_id(sub), node_id(ret));
  EXPECT_EQ(node_id(Node{}), nullptr);
  // The anonymous children hold the punctuation.
  std::string tokens;
  for (Node c : children(sub))
    if (!is_named(c)) tokens += std::string(type(c));
  EXPECT_EQ(tokens, "[]");
  const Parsed parens("x = ((y))\n");
  const Node value = field(named(named(parens.root(), 0), 0), "right");
  EXPECT_EQ(kind(value), K::ParenthesizedExpression);
  EXPECT_EQ(parens.src.text(strip_parens(value)), "y");
}

TEST(SyntaxTree, PreOrderVisitsTheSubtreeAndSkipsChildrenOnRequest) {
  const Parsed p("f(a, g(b))\nh(c)\n");
  ASSERT_NE(p.tree, nullptr);
  const SourceText& src = p.src;
  const SyntaxTree* tree = p.tree.get();
  const Node first_call = named(named(tree->root(), 0), 0);
  ASSERT_EQ(kind(first_call), K::Call);
  std::vector<std::string> seen;
  PreOrder all(first_call);
  for (Node n; !null(n = all.next());)
    if (kind(n) == K::Identifier) seen.emplace_back(src.text(n));
  EXPECT_EQ(seen, (std::vector<std::string>{"f", "a", "g", "b"}));  // not h, c: outside the subtree
  seen.clear();
  PreOrder skipping(tree->root());
  for (Node n; !null(n = skipping.next());) {
    if (kind(n) == K::Call && src.text(n).starts_with("g")) skipping.skip_children();
    if (kind(n) == K::Identifier) seen.emplace_back(src.text(n));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"f", "a", "h", "c"}));
}

TEST(SyntaxTree, PositionsCountCodePointsFromTheLineStart) {
  const Parsed p("x = 'é'\r\ny = '😀' + z\n");
  ASSERT_NE(p.tree, nullptr);
  const SourceText& src = p.src;
  const SyntaxTree* tree = p.tree.get();
  const Node second = named(named(tree->root(), 1), 0);  // y = '😀' + z
  const Node z = field(field(second, "right"), "right");
  EXPECT_EQ(src.text(z), "z");
  const SourceRange r = src.range(z);
  EXPECT_EQ(r.begin.line, 2u);
  EXPECT_EQ(r.begin.column, 11u);  // y, space, =, space, ', 😀 (one code point, 4 bytes), ', space, +, space, z
  EXPECT_EQ(r.end.column, 12u);
  EXPECT_EQ(src.line_start(1), 10u);
  EXPECT_EQ(src.line_start(99), p.text.size());
}

TEST(SyntaxTree, MatchesTreeSitterOnACorpusWhenAsked) {
  const char* dir = std::getenv("SYNCLINT_SYNTAX_TREE_CORPUS");
  if (dir == nullptr) GTEST_SKIP() << "SYNCLINT_SYNTAX_TREE_CORPUS is not set";
  std::size_t files = 0, nodes = 0;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".py") continue;
    std::ifstream in(e.path(), std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    nodes += expect_same_tree(text, e.path().string());
    ++files;
    if (HasFailure()) break;
  }
  std::printf("compared %zu files, %zu nodes\n", files, nodes);
  for (const std::string& f : deep_fields) std::printf("field found below the children by tree-sitter: %s\n", f.c_str());
}

// The scanner's initial state is written as no bytes, as tree-sitter writes "no external token yet" (so
// that an incremental parse reuses what follows an edit that adds or removes the first newline token), and
// no bytes read back give the initial state, whatever the scanner held before.
TEST(SyntaxTree, TheScannersInitialStateIsWrittenAsNoBytes) {
  void* scanner = tree_sitter_python_external_scanner_create();
  char buffer[1024];
  EXPECT_EQ(tree_sitter_python_external_scanner_serialize(scanner, buffer), 0u);
  const char inside_fstring_indented[] = {1, 0, 4, 0};  // f-string flag, no delimiters, one indentation of 4
  tree_sitter_python_external_scanner_deserialize(scanner, inside_fstring_indented, 4);
  EXPECT_EQ(tree_sitter_python_external_scanner_serialize(scanner, buffer), 4u);
  tree_sitter_python_external_scanner_deserialize(scanner, nullptr, 0);
  EXPECT_EQ(tree_sitter_python_external_scanner_serialize(scanner, buffer), 0u);
  const char flag_only[] = {1, 0};
  tree_sitter_python_external_scanner_deserialize(scanner, flag_only, 2);
  EXPECT_EQ(tree_sitter_python_external_scanner_serialize(scanner, buffer), 2u);
  tree_sitter_python_external_scanner_destroy(scanner);
}

// SourceText::position counts on from the columns it computed last on a line: positions asked in any order,
// on lines with multibyte characters, and from several texts in turn, are those counted from each line's start.
TEST(SourceText, PositionsInAnyOrderAreCountedFromTheLineStart) {
  const std::vector<std::string> pieces = {"a", "\xc3\xa9", "\xe6\x90\x8d", "\xf0\x9f\x98\x80", "\n", " "};
  std::mt19937 random(5);
  std::vector<std::string> texts(3);
  for (std::string& t : texts)
    for (int i = 0; i < 3000; ++i) t += pieces[random() % pieces.size()];
  std::vector<SourceText> sources;
  for (const std::string& t : texts) sources.emplace_back("t.py", t);
  std::vector<std::size_t> last(texts.size(), 0);
  for (int k = 0; k < 20000; ++k) {
    const std::size_t which = random() % texts.size();
    const std::string& t = texts[which];
    // Half of them a little after the last one of the same text (mostly on its line), the others anywhere.
    std::size_t byte = random() % 2 ? std::min(t.size(), last[which] + random() % 12) : random() % (t.size() + 1);
    while (byte < t.size() && (static_cast<unsigned char>(t[byte]) & 0xC0) == 0x80) ++byte;
    const std::size_t line_start = byte == 0 ? 0 : t.rfind('\n', byte - 1) + 1;
    const auto row = static_cast<std::uint32_t>(std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(byte), '\n'));
    std::uint32_t column = 1;
    for (std::size_t i = line_start; i < byte; ++i) column += (static_cast<unsigned char>(t[i]) & 0xC0) != 0x80;
    last[which] = byte;
    const Position p = sources[which].position(Point{row, static_cast<std::uint32_t>(byte)});
    ASSERT_EQ(p.line, row + 1) << k;
    ASSERT_EQ(p.column, column) << k;
  }
}

}  // namespace
}  // namespace synclint::python::test
