// Starts `lowstate lsp` for SLS files and YAML (Heat) files of the
// workspace; everything else is the server's.
const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

let client;

function activate(context) {
  const cfg = vscode.workspace.getConfiguration('lowstate');
  const command = cfg.get('path') || 'lowstate';
  const server = { command, args: ['lsp'] };
  client = new LanguageClient(
    'lowstate',
    'lowstate',
    { run: server, debug: server },
    {
      documentSelector: [
        { scheme: 'file', language: 'sls' },
        { scheme: 'file', language: 'yaml' },
        { scheme: 'file', pattern: '**/*.jinja' },
      ],
      initializationOptions: {
        config: cfg.get('config') || undefined,
        environments: cfg.get('environments') || [],
      },
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
