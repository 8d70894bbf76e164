/* Preloaded into `synclint lsp` by stdio_test.py's paced_edits_keep_memory case as a control: the allocator
   settings that engine::keep_freed_memory() makes (mimalloc's options, or glibc's mallopt) do nothing. */
void mi_option_set(int option, long value) {
  (void)option;
  (void)value;
}
void mi_option_disable(int option) { (void)option; }
int mallopt(int param, int value) {
  (void)param;
  (void)value;
  return 1;
}
