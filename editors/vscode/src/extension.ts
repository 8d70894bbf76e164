// Starts `synclint lsp` for Python files (the path from the setting synclint.path, else synclint on PATH)
// and passes the synclint.* settings to it; the server pulls them again when they change.
import * as vscode from 'vscode';
import { LanguageClient, LanguageClientOptions, ServerOptions } from 'vscode-languageclient/node';

let client: LanguageClient | undefined;

function settings() {
  const c = vscode.workspace.getConfiguration('synclint');
  const out: Record<string, unknown> = { probeReport: c.get<string>('probeReport'), all: c.get<boolean>('all') };
  const base = c.get<string>('rulesBaseUrl');
  if (base) out.rulesBaseUrl = base;
  return out;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const command = vscode.workspace.getConfiguration('synclint').get<string>('path') || 'synclint';
  const serverOptions: ServerOptions = { command, args: ['lsp'] };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'python' }],
    initializationOptions: settings(),
    synchronize: { configurationSection: 'synclint' },
  };
  client = new LanguageClient('synclint', 'synclint', serverOptions, clientOptions);
  context.subscriptions.push(client);
  await client.start();
}

export async function deactivate(): Promise<void> {
  if (client) await client.stop();
}
