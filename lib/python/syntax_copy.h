/* The copy of a tree-sitter tree into the front-end's compact syntax tree (SyntaxTree, syntax.h): one C
   function that reads tree-sitter's subtrees directly (the cursor API costs several hundred instructions a
   node). Shared by syntax_copy.c and syntax.cpp, which checks that the layouts agree. */
#ifndef SYNCLINT_PYTHON_SYNTAX_COPY_H
#define SYNCLINT_PYTHON_SYNTAX_COPY_H

#include <stdint.h>

#include <tree_sitter/api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One node, as SyntaxTree::Item (same members, same order). */
typedef struct SynclintCopyItem {
  uint32_t start_byte, end_byte;
  uint32_t start_row, end_row;
  uint32_t end;
  uint16_t symbol;
  uint16_t field;
  uint8_t kind;
  uint8_t flags;
  uint16_t named_count;
} SynclintCopyItem;

enum {
  SYNCLINT_NAMED = 1,
  SYNCLINT_MISSING = 2,
  SYNCLINT_IS_ERROR = 4,
  SYNCLINT_HAS_ERROR = 8,
  SYNCLINT_EXTRA = 16,
  SYNCLINT_LAST = 32,
};
#define SYNCLINT_MANY_CHILDREN 0xFFFF

/* What a copy can take from the last copy of an earlier version of the tree, of which `tree` was parsed
   incrementally: tree-sitter reuses the subtrees an edit left alone (the same subtree objects, now at other
   offsets), and their nodes are those the last copy wrote, shifted. Only valid while that earlier tree is
   alive (so that no subtree of the new tree can take the address of one of its subtrees). */
typedef struct SynclintCopyReuse {
  const SynclintCopyItem* old_items; /* the last copy (NULL: nothing to reuse) */
  uint32_t old_count;
  /* The index in the last copy of the node of `subtree`, or UINT32_MAX. */
  uint32_t (*find)(void* ctx, const void* subtree);
  /* Tells that the node of `subtree` is at `index` in this copy (subtrees of min_items nodes or more). */
  void (*record)(void* ctx, const void* subtree, uint32_t index);
  /* Tells that the node at `old_index` of the last copy and the `below` nodes under it are now at `index`. */
  void (*moved)(void* ctx, uint32_t old_index, uint32_t index, uint32_t below);
  void* ctx;
  uint32_t min_items;
  uint32_t reused; /* out: how many nodes were taken from the last copy */
} SynclintCopyReuse;

/* Writes the nodes of `tree` that tree-sitter's API shows (ts_tree_cursor_*, ts_node_child), in pre-order,
   as ts_node_* and ts_tree_cursor_current_field_id read them, into `out` (room for `capacity` nodes; none
   written past it). `kinds[symbol]` is the kind of each public symbol below `kind_count`, 0 above it;
   `error_kind` the ERROR node's. With `reuse` (or NULL), the nodes of subtrees found there are copied from
   the last copy instead of read again. Returns the number of nodes, or UINT32_MAX when out of memory. */
uint32_t synclint_copy_tree(const TSTree* tree, SynclintCopyItem* out, uint32_t capacity, const uint8_t* kinds,
                            uint32_t kind_count, uint8_t error_kind, SynclintCopyReuse* reuse);

#ifdef __cplusplus
}
#endif

#endif
