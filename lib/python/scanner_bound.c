/* The Python grammar's external scanner stores its state (the string delimiters and the indentation stack)
 * in tree-sitter's 1024-byte serialization buffer, and its bound check lets the last two-byte indentation
 * entry run one byte past the end (about 510 nested indentation levels). The scanner is compiled with its
 * serialize function renamed (cmake/TreeSitter.cmake); this one lets it write into a buffer large enough
 * for any state it can hold, then keeps what fits: the flag, the delimiters and as many whole indentation
 * entries as the real buffer takes. Input that deep is not valid Python (CPython stops at 100 levels); the
 * parse goes on with the outermost levels only. */
#include <string.h>

#define SYNCLINT_TS_BUFFER 1024u
/* 1 flag byte, 1 count byte, up to 255 delimiters, then 2 bytes per indentation entry until the scanner's
 * own check (size < 1024) stops it: at most 1025 bytes. */
#define SYNCLINT_SCANNER_ROOM 2048u

unsigned synclint_python_scanner_serialize_unbounded(void *payload, char *buffer);

unsigned tree_sitter_python_external_scanner_serialize(void *payload, char *buffer) {
  char room[SYNCLINT_SCANNER_ROOM];
  unsigned size = synclint_python_scanner_serialize_unbounded(payload, room);
  if (size > SYNCLINT_TS_BUFFER) {
    const unsigned head = 2u + (unsigned char)room[1];
    size = head + ((SYNCLINT_TS_BUFFER - head) / 2u) * 2u;
  }
  memcpy(buffer, room, size);
  return size;
}
