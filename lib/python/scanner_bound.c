/* Two wrappers around the Python grammar's external scanner (compiled with its serialize and deserialize
 * functions renamed, cmake/TreeSitter.cmake).
 *
 * Bounded state: the scanner stores its state (the string delimiters and the indentation stack) in
 * tree-sitter's 1024-byte serialization buffer, and its bound check lets the last two-byte indentation
 * entry run one byte past the end (about 510 nested indentation levels). Serialize lets it write into a
 * buffer large enough for any state it can hold, then keeps what fits: the flag, the delimiters and as
 * many whole indentation entries as the real buffer takes. Input that deep is not valid Python (CPython
 * stops at 100 levels); the parse goes on with the outermost levels only.
 *
 * The initial state as no bytes: tree-sitter reuses a subtree of the last tree in an incremental parse only
 * where the state after the last external token before it is the same as in the last parse, and it reads
 * "no external token yet" as an empty state. The scanner wrote its initial state (no f-string, no
 * delimiters, no indentation) as two bytes, so an edit that removes or adds the first newline token (a
 * comment put before the first statement) made every later subtree look different, and the whole file was
 * parsed again. The initial state is written as nothing, and read back from nothing as the initial state
 * (the scanner itself left its f-string flag as the last parse had it, a state that depended on what the
 * parser read before). */
#include <string.h>

#define SYNCLINT_TS_BUFFER 1024u
/* 1 flag byte, 1 count byte, up to 255 delimiters, then 2 bytes per indentation entry until the scanner's
 * own check (size < 1024) stops it: at most 1025 bytes. */
#define SYNCLINT_SCANNER_ROOM 2048u

unsigned synclint_python_scanner_serialize_unbounded(void *payload, char *buffer);
void synclint_python_scanner_deserialize_full(void *payload, const char *buffer, unsigned length);

static const char synclint_initial_state[2] = {0, 0}; /* flag off, no delimiters, no indentation */

unsigned tree_sitter_python_external_scanner_serialize(void *payload, char *buffer) {
  char room[SYNCLINT_SCANNER_ROOM];
  unsigned size = synclint_python_scanner_serialize_unbounded(payload, room);
  if (size == sizeof synclint_initial_state && memcmp(room, synclint_initial_state, size) == 0) return 0;
  if (size > SYNCLINT_TS_BUFFER) {
    const unsigned head = 2u + (unsigned char)room[1];
    size = head + ((SYNCLINT_TS_BUFFER - head) / 2u) * 2u;
  }
  memcpy(buffer, room, size);
  return size;
}

void tree_sitter_python_external_scanner_deserialize(void *payload, const char *buffer, unsigned length) {
  if (length == 0) {
    synclint_python_scanner_deserialize_full(payload, synclint_initial_state, sizeof synclint_initial_state);
    return;
  }
  synclint_python_scanner_deserialize_full(payload, buffer, length);
}
