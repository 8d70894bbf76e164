Content-Length: 161

{"jsonrpc": "2.0", "id": 1, "method": "textDocument/hover", "params": {"textDocument": {"uri": "file:///nowhere/a.py"}, "position": {"line": 0, "character": 0}}}Content-Length: 83

{"jsonrpc": "2.0", "id": 2, "method": "initialize", "params": {"capabilities": {}}}Content-Length: 57

{"jsonrpc": "2.0", "method": "initialized", "params": {}}Content-Length: 12

{"jsonrpc":}Content-Type: application/vscode-jsonrpc; charset=utf-8

Content-Length: -5

Content-Length: 80

{"jsonrpc": "2.0", "id": 3, "method": "textDocument/unknownThing", "params": {}}Content-Length: 175

{"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": "file:///nowhere/never_opened.py", "version": 2}, "contentChanges": [{"text": "x"}]}}Content-Length: 9

[1, 2, 3]Content-Length: 83

{"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {"capabilities": {}}}Content-Length: 49

{"jsonrpc": "2.0", "id": 5, "method": "shutdown"}Content-Length: 73

{"jsonrpc": "2.0", "id": 6, "method": "textDocument/hover", "params": {}}Content-Length: 36

{"jsonrpc": "2.0", "method": "exit"}