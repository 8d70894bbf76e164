#!/bin/sh
# A language server that reads its input and never answers (lsp.neovim_fails_on_a_silent_server).
exec cat > /dev/null
