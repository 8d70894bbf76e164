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

/* Writes the nodes of `tree` that tree-sitter's API shows (ts_tree_cursor_*, ts_node_child), in pre-order,
   as ts_node_* and ts_tree_cursor_current_field_id read them, into `out` (room for `capacity` nodes; none
   written past it). `kinds[symbol]` is the kind of each public symbol below `kind_count`, 0 above it;
   `error_kind` the ERROR node's. Returns the number of nodes, or UINT32_MAX when out of memory. */
uint32_t synclint_copy_tree(const TSTree* tree, SynclintCopyItem* out, uint32_t capacity, const uint8_t* kinds,
                            uint32_t kind_count, uint8_t error_kind);

#ifdef __cplusplus
}
#endif

#endif
