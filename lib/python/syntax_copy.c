/* See syntax_copy.h. The walk follows tree-sitter's own (tree_cursor.c, node.c) over its internal subtrees:
   hidden nodes are looked through, aliases applied, a node's field is that of the nearest entry in the
   field map of its parent or, when it has none there, of its hidden ancestors up to the visible parent. */
#include "syntax_copy.h"

#include <stdbool.h>
#include <stdlib.h>

#include "language.h"
#include "length.h"
#include "subtree.h"
#include "tree.h"

typedef struct {
  const void* self;           /* the subtree this frame walks */
  const Subtree* children;  /* of the subtree this frame walks */
  uint32_t child_count;
  uint32_t child_index;
  uint32_t structural_index;  /* among the children that are not extras */
  const TSSymbol* aliases;
  const TSFieldMapEntry* fields_begin;
  const TSFieldMapEntry* fields_end;
  Length position;            /* where the next child starts */
  uint32_t parent;            /* the visible node whose children these are */
  uint32_t owner;             /* the frame of that node */
  uint32_t last;              /* in the owner's frame: its last child so far (UINT32_MAX when none) */
  TSFieldId field;            /* a hidden frame's own field, for children that have none */
  bool hidden;
} Frame;

static TSFieldId own_field(const Frame* f, uint32_t structural_index) {
  for (const TSFieldMapEntry* e = f->fields_begin; e < f->fields_end; ++e)
    if (!e->inherited && e->child_index == structural_index) return e->field_id;
  return 0;
}

static void frame_for(Frame* f, const TSLanguage* lang, Subtree s, Length position) {
  f->self = s.ptr;
  f->children = ts_subtree_children(s);
  f->child_count = ts_subtree_child_count(s);
  f->child_index = 0;
  f->structural_index = 0;
  const uint32_t production = ts_subtree_production_id(s);
  f->aliases = ts_language_alias_sequence(lang, production);
  ts_language_field_map(lang, production, &f->fields_begin, &f->fields_end);
  f->position = position;
}

static void write_item(SynclintCopyItem* item, const TSLanguage* lang, Subtree s, TSSymbol alias, Length start,
                       TSFieldId field, const uint8_t* kinds, uint32_t kind_count, uint8_t error_kind) {
  const TSSymbol symbol = ts_language_public_symbol(lang, alias ? alias : ts_subtree_symbol(s));
  const Length end = length_add(start, ts_subtree_size(s));
  const bool named = alias ? ts_language_symbol_metadata(lang, alias).named : ts_subtree_named(s);
  item->start_byte = start.bytes;
  item->end_byte = end.bytes;
  item->start_row = start.extent.row;
  item->end_row = end.extent.row;
  item->end = 0;
  item->named_count = 0;
  item->symbol = symbol;
  item->field = field;
  item->kind = symbol == ts_builtin_sym_error ? error_kind : symbol < kind_count ? kinds[symbol] : 0;
  item->flags = (uint8_t)((named ? SYNCLINT_NAMED : 0) | (ts_subtree_missing(s) ? SYNCLINT_MISSING : 0) |
                          (symbol == ts_builtin_sym_error ? SYNCLINT_IS_ERROR : 0) |
                          (ts_subtree_error_cost(s) > 0 ? SYNCLINT_HAS_ERROR : 0) |
                          (ts_subtree_extra(s) ? SYNCLINT_EXTRA : 0));
}

/* The nodes below `child`, written at `index`, taken from the last copy when it holds the same subtree:
   shifted to the new offsets. Returns how many, or UINT32_MAX when the last copy does not hold it (or
   holds something that does not match). */
static uint32_t copy_reused(SynclintCopyReuse* reuse, Subtree child, uint32_t index, SynclintCopyItem* item,
                            SynclintCopyItem* out, uint32_t capacity) {
  if (!reuse || !reuse->old_items || ts_subtree_has_changes(child)) return UINT32_MAX;
  const uint32_t old = reuse->find(reuse->ctx, child.ptr);
  if (old >= reuse->old_count) return UINT32_MAX;
  const SynclintCopyItem* o = &reuse->old_items[old];
  const uint32_t below = o->end - old - 1;
  if (o->end <= old || o->end > reuse->old_count || o->symbol != item->symbol ||
      o->end_byte - o->start_byte != item->end_byte - item->start_byte ||
      o->end_row - o->start_row != item->end_row - item->start_row ||
      below != ts_subtree_visible_descendant_count(child))
    return UINT32_MAX;
  const uint32_t bytes = item->start_byte - o->start_byte, rows = item->start_row - o->start_row;
  const uint32_t shift = index - old; /* all unsigned: differences modulo 2^32 */
  if (index + 1 + below <= capacity) {
    const SynclintCopyItem* from = o + 1;
    SynclintCopyItem* to = &out[index + 1];
    for (uint32_t i = 0; i < below; ++i) {
      to[i] = from[i];
      to[i].start_byte += bytes;
      to[i].end_byte += bytes;
      to[i].start_row += rows;
      to[i].end_row += rows;
      to[i].end += shift;
    }
  }
  item->named_count = o->named_count;
  item->end = index + 1 + below;
  reuse->moved(reuse->ctx, old, index, below);
  reuse->reused += below + 1;
  return below;
}

uint32_t synclint_copy_tree(const TSTree* tree, SynclintCopyItem* out, uint32_t capacity, const uint8_t* kinds,
                            uint32_t kind_count, uint8_t error_kind, SynclintCopyReuse* reuse) {
  const TSLanguage* lang = tree->language;
  const Subtree root = tree->root;
  SynclintCopyItem scratch;
  uint32_t count = 0;
#define ITEM(i) ((i) < capacity ? &out[i] : &scratch)

  const Length root_start = ts_subtree_padding(root);
  write_item(ITEM(0), lang, root, 0, root_start, 0, kinds, kind_count, error_kind);
  ITEM(0)->flags |= SYNCLINT_LAST;
  count = 1;
  if (ts_subtree_visible_child_count(root) == 0) {
    ITEM(0)->end = 1;
    return count;
  }

  uint32_t depth = 0, room = 64;
  Frame* frames = malloc(room * sizeof(Frame));
  if (!frames) return UINT32_MAX;
  frame_for(&frames[0], lang, root, root_start);
  frames[0].parent = 0;
  frames[0].owner = 0;
  frames[0].last = UINT32_MAX;
  frames[0].field = 0;
  frames[0].hidden = false;
  depth = 1;

  while (depth > 0) {
    Frame* f = &frames[depth - 1];
    if (f->child_index == f->child_count) {
      if (!f->hidden) {
        ITEM(f->parent)->end = count;
        if (reuse && depth > 1 && count - f->parent >= reuse->min_items) reuse->record(reuse->ctx, f->self, f->parent);
        if (f->last != UINT32_MAX) ITEM(f->last)->flags |= SYNCLINT_LAST;
      }
      --depth;
      continue;
    }
    const Subtree child = f->children[f->child_index];
    const bool extra = ts_subtree_extra(child);
    TSSymbol alias = 0;
    uint32_t structural_index = f->structural_index;
    if (!extra) {
      if (f->aliases) alias = f->aliases[f->structural_index];
      ++f->structural_index;
    }
    if (f->child_index > 0) f->position = length_add(f->position, ts_subtree_padding(child));
    const Length start = f->position;
    f->position = length_add(f->position, ts_subtree_size(child));
    ++f->child_index;

    TSFieldId field = 0;
    if (!extra) {
      field = own_field(f, structural_index);
      if (!field && f->hidden) field = f->field;
    }
    const bool visible = ts_subtree_visible(child) || alias;
    const uint32_t grandchildren = ts_subtree_visible_child_count(child);
    if (!visible && grandchildren == 0) continue;

    uint32_t parent = f->parent, owner = f->owner;
    if (visible) {
      const uint32_t index = count++;
      write_item(ITEM(index), lang, child, alias, start, field, kinds, kind_count, error_kind);
      SynclintCopyItem* p = ITEM(f->parent);
      if ((ITEM(index)->flags & SYNCLINT_NAMED) && p->named_count != SYNCLINT_MANY_CHILDREN) ++p->named_count;
      frames[f->owner].last = index;
      if (grandchildren == 0) {
        ITEM(index)->end = index + 1;
        continue;
      }
      const uint32_t below = copy_reused(reuse, child, index, ITEM(index), out, capacity);
      if (below != UINT32_MAX) {
        count += below;
        if (below + 1 >= reuse->min_items) reuse->record(reuse->ctx, child.ptr, index);
        continue;
      }
      parent = index;
      owner = depth;
    }
    if (depth == room) {
      Frame* grown = realloc(frames, 2 * room * sizeof(Frame));
      if (!grown) {
        free(frames);
        return UINT32_MAX;
      }
      frames = grown;
      room *= 2;
    }
    Frame* g = &frames[depth];
    frame_for(g, lang, child, start);
    g->parent = parent;
    g->owner = owner;
    g->last = UINT32_MAX;
    g->field = visible ? 0 : field;
    g->hidden = !visible;
    ++depth;
  }
  free(frames);
#undef ITEM
  return count;
}
