// KeptTree and Parser::parse_again: what a file's last parses keep for the next version, and the way from
// them to the tree of a new text (a splice, syntax_splice.cpp, or tree-sitter's incremental parse).
#include <tree_sitter/api.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

#include "python/syntax.h"
#include "python/text_change.h"

namespace synclint::python {

void KeptTree::State::clear() {
  if (tree) ts_tree_delete(static_cast<TSTree*>(tree));
  tree = nullptr;
  copy.reset();
  nodes.clear();
  text.clear();
  pending.clear();
  synced = false;
}

void KeptTree::came_back(std::shared_ptr<const SyntaxTree> tree, std::string_view text) {
  latest_ = std::move(tree);
  latest_text_ = read_as_spaces(text, loose_ends(text));  // the text the tree is of
  for (State* s : {&last_, &older_}) {  // their edits led elsewhere: each starts from its own text again
    s->synced = false;
    s->pending.clear();
  }
}

KeptTree::~KeptTree() {
  last_.clear();
  older_.clear();
}

namespace {
// Where byte `byte` of `text` is, as tree-sitter counts (row, byte column).
TSPoint point_at(std::string_view text, std::size_t byte) {
  TSPoint p{0, 0};
  std::size_t line_start = 0;
  for (const char* nl = text.data(); (nl = static_cast<const char*>(std::memchr(nl, '\n', static_cast<std::size_t>(text.data() + byte - nl))));) {
    ++p.row;
    line_start = static_cast<std::size_t>(++nl - text.data());
  }
  p.column = static_cast<std::uint32_t>(byte - line_start);
  return p;
}

// The edit from `old_text` to `text`, as tree-sitter takes it.
TSInputEdit edit_between(std::string_view old_text, std::string_view text) {
  const TextChange change = text_change(old_text, text);
  TSInputEdit edit{};
  edit.start_byte = static_cast<std::uint32_t>(change.start);
  edit.old_end_byte = static_cast<std::uint32_t>(change.old_end);
  edit.new_end_byte = static_cast<std::uint32_t>(change.new_end);
  edit.start_point = point_at(text, change.start);
  edit.old_end_point = point_at(old_text, change.old_end);
  edit.new_end_point = point_at(text, change.new_end);
  return edit;
}

std::size_t edit_length(const TSInputEdit& e) {
  return std::max(e.old_end_byte, e.new_end_byte) - e.start_byte;
}

KeptTree::Edit kept_edit(const TSInputEdit& e) {
  return KeptTree::Edit{e.start_byte,       e.old_end_byte,       e.new_end_byte,
                        e.start_point.row,  e.start_point.column, e.old_end_point.row,
                        e.old_end_point.column, e.new_end_point.row, e.new_end_point.column};
}

TSInputEdit ts_edit(const KeptTree::Edit& e) {
  TSInputEdit edit{};
  edit.start_byte = e.start_byte;
  edit.old_end_byte = e.old_end_byte;
  edit.new_end_byte = e.new_end_byte;
  edit.start_point = TSPoint{e.start_row, e.start_column};
  edit.old_end_point = TSPoint{e.old_end_row, e.old_end_column};
  edit.new_end_point = TSPoint{e.new_end_row, e.new_end_column};
  return edit;
}
}  // namespace

void KeptTree::advance(std::string_view text) {
  const Edit edit = kept_edit(edit_between(latest_text_, text));
  for (State* s : {&last_, &older_}) s->follow(edit);
}

void KeptTree::State::follow(const Edit& edit) {
  if (!synced) return;
  if (pending.size() < kMaxPending) {
    pending.push_back(edit);
  } else {
    synced = false;
    pending.clear();
  }
}

std::shared_ptr<const SyntaxTree> Parser::parse_again(std::string_view text, KeptTree& kept, std::string* error) {
  loose_last_ = loose_ends(text);
  if (loose_last_.empty()) return parse_read(text, kept, error);
  return parse_read(read_as_spaces(text, loose_last_), kept, error);
}

// The kept trees are those of the texts the parser read.
std::shared_ptr<const SyntaxTree> Parser::parse_read(std::string_view text, KeptTree& kept, std::string* error) {
  reused_last_ = 0;
  std::shared_ptr<const SyntaxTree> tree;
  if (kept.latest_ && text == kept.latest_text_) {
    tree = kept.latest_;
    reused_last_ = tree->size();
  } else if (kept.latest_ && text.size() <= UINT32_MAX - 1) {
    tree = parse_spliced(kept.latest_text_, *kept.latest_, text);
    if (tree) kept.advance(text);
  }
  spliced_last_ = tree != nullptr;
  if (!tree) tree = parse_from_kept(text, kept, error);
  kept.latest_ = tree;
  kept.latest_text_ = tree ? text : std::string_view();
  return tree;
}

std::shared_ptr<const SyntaxTree> Parser::parse_from_kept(std::string_view text, KeptTree& kept, std::string* error) {
  KeptTree::State& last = kept.last_;
  KeptTree::State& older = kept.older_;
  KeptTree::State next;
  std::shared_ptr<const SyntaxTree> tree;
  // The edits from a kept tree's text to `text`: those of the trees spliced since, then the last one; or the
  // one between the texts.
  const bool from_latest = kept.latest_ != nullptr;
  const TSInputEdit last_edit = from_latest ? edit_between(kept.latest_text_, text) : TSInputEdit{};
  auto edits_of = [&](const KeptTree::State& s) {
    std::vector<TSInputEdit> edits;
    if (s.synced && from_latest) {
      for (const KeptTree::Edit& e : s.pending) edits.push_back(ts_edit(e));
      edits.push_back(last_edit);
    } else {
      edits.push_back(edit_between(s.text, text));
    }
    return edits;
  };
  auto length_of = [](const std::vector<TSInputEdit>& edits) {
    std::size_t length = 0;
    for (const TSInputEdit& e : edits) length += edit_length(e);
    return length;
  };
  if ((last.tree || older.tree) && text.size() <= UINT32_MAX - 1) {
    // The base: the tree whose edits are shorter (the last one when they are as short).
    const KeptTree::State* base = last.tree ? &last : &older;
    std::vector<TSInputEdit> edits = edits_of(*base);
    if (last.tree && older.tree) {
      std::vector<TSInputEdit> from_older = edits_of(older);
      if (length_of(from_older) < length_of(edits)) {
        base = &older;
        edits = std::move(from_older);
      }
    }
    // The base tree stays as it is (it may be kept as the older one): a copy is edited.
    const std::unique_ptr<TSTree, void (*)(TSTree*)> old(ts_tree_copy(static_cast<TSTree*>(base->tree)),
                                                         &ts_tree_delete);
    for (const TSInputEdit& e : edits) ts_tree_edit(old.get(), &e);
    tree = parse_once(text, nullptr, old.get(), &next.tree, base, &next.nodes);
    // A tree with the unpacking stars that parse() patches is made from scratch, as parse() makes it.
    if (tree && parses_patched(*tree, text)) tree.reset();
    if (tree && (tree->at(0).flags & SyntaxTree::HasError) && from_latest) {
      // tree-sitter's incremental parses with errors can drift from a parse from scratch when one starts
      // from another's tree: the kept trees stay those of texts without errors (or parsed from scratch),
      // and the edits lead on from them.
      next.clear();
      kept.advance(text);
      return tree;
    }
    if (tree) next.copy = tree;
    else next.clear();
  }
  if (!tree) {
    tree = parse_keeping(text, error, &next.tree, &next.nodes);
    if (next.tree && !next.nodes.empty()) next.copy = tree;  // the copy of next.tree (not of a text with stars patched)
  }
  next.text = text;
  next.synced = next.tree != nullptr;
  // The last becomes the older one, its edits led on to `text`. Cleared after the copy: while the base
  // lives, no subtree of the new tree takes one of its addresses.
  older.clear();
  if (last.tree) {
    older = std::move(last);
    if (!from_latest) {
      older.synced = false;
      older.pending.clear();
    }
    older.follow(kept_edit(last_edit));
  }
  last = std::move(next);
  next = {};
  return tree;
}

}  // namespace synclint::python
