// A small stdio MCP server for the cases real servers do not show on demand: a server that asks
// the client things, pages its tool list, answers with another protocol version, never answers,
// dies in the middle of a call, or exits before the handshake; it never answers resources/subscribe.
// Run with `node mcp-fake-server.mjs <mode>`; modes: normal, v2024, newest, old-version, exit-at-start, bad-schema, huge-schema, deep-schema,
// odd-keys (a tool whose schema and answer have keys named like JavaScript's object machinery),
// chatty (echo logs a line while it runs and another after its answer), deaf (after answering echo it
// closes its input and lives on), refuse-initialize (answers initialize with an error).
import { closeSync } from 'node:fs';
import { createInterface } from 'node:readline';

const mode = process.argv[2] ?? 'normal';
if (mode === 'exit-at-start') {
  process.stderr.write('fake server: cannot open its database\n');
  process.exit(3);
}
const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const notes = [];
let asking;

const tools = [
  { name: 'echo', description: 'Echo the arguments', inputSchema: { type: 'object', properties: { text: { type: 'string' } } }, annotations: { readOnlyHint: true } },
  { name: 'ask', inputSchema: { type: 'object' } },
  { name: 'hang', title: 'Hang forever', inputSchema: { type: 'object' } },
  { name: 'die', inputSchema: { type: 'object' }, annotations: { destructiveHint: true } },
  { name: 'fail', inputSchema: { type: 'object' }, annotations: { idempotentHint: true } },
  { name: 'notes', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'picture', inputSchema: { type: 'object' } },
  { name: 'pid', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
  { name: 'cwd', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } },
];
if (mode === 'bad-schema') tools.push({ name: 'loose', inputSchema: { type: 'string' } });
if (mode === 'huge-schema') tools.push({ name: 'huge', inputSchema: { type: 'object', description: 'x'.repeat(70_000) } });
// Keys are data: a parameter named `constructor`, an answer keyed by names such as `__proto__` (an own
// key, as JSON.parse makes it) or `toString`.
const ODD = JSON.parse('{"__proto__":{"polluted":true},"constructor":"c","prototype":"p","toString":"t"}');
if (mode === 'odd-keys') {
  tools.unshift({ name: 'lookup', inputSchema: { type: 'object', properties: { constructor: { type: 'string' }, prototype: { type: 'string' } } }, annotations: { readOnlyHint: true } });
}
if (mode === 'deep-schema') {
  let deep = { type: 'object' };
  for (let i = 0; i < 40; i++) deep = { type: 'object', properties: { a: deep } };
  tools.push({ name: 'deep', inputSchema: deep });
}

createInterface({ input: process.stdin }).on('line', (line) => {
  const message = JSON.parse(line);
  if (message.method === undefined) {
    // A reply to one of this server's own requests.
    if (asking !== undefined) {
      asking.replies.push(message);
      if (asking.replies.length === 2) {
        send({ jsonrpc: '2.0', id: asking.id, result: { content: [{ type: 'text', text: JSON.stringify(asking.replies) }] } });
        asking = undefined;
      }
    }
    return;
  }
  if (message.id === undefined) {
    notes.push(message);
    return;
  }
  const answer = (result) => send({ jsonrpc: '2.0', id: message.id, result });
  switch (message.method) {
    case 'initialize': {
      if (mode === 'refuse-initialize') {
        send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'this client is not welcome' } });
        return;
      }
      const version = mode === 'old-version' ? '2023-01-01' : mode === 'v2024' ? '2024-11-05' : mode === 'newest' ? '2025-11-25' : message.params.protocolVersion;
      answer({ protocolVersion: version, capabilities: { tools: {} }, serverInfo: { name: 'fake', version: '1' } });
      return;
    }
    case 'tools/list':
      // Two pages: the first three tools, then the rest.
      if (message.params?.cursor === 'page-2') answer({ tools: tools.slice(3) });
      else answer({ tools: tools.slice(0, 3), nextCursor: 'page-2' });
      return;
    case 'tools/call': {
      const { name, arguments: args } = message.params;
      if (name === 'echo') {
        // chatty: a log line while the call is open, and one after its answer, outside any request.
        if (mode === 'chatty') send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'during' } });
        answer({ content: [{ type: 'text', text: `echo ${JSON.stringify(args)}` }] });
        if (mode === 'chatty') send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'after' } });
        if (mode === 'deaf') {
          // Stops reading its input but lives on, and says so once its input is closed.
          process.stdin.once('close', () => {
            // Node keeps descriptor 0 open past the stream: closed here, so a write to it fails.
            closeSync(0);
            send({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'deaf' } });
          });
          process.stdin.destroy();
          setInterval(() => undefined, 1 << 30);
        }
      }
      else if (name === 'ask') {
        asking = { id: message.id, replies: [] };
        send({ jsonrpc: '2.0', id: 'server-1', method: 'ping' });
        send({ jsonrpc: '2.0', id: 'server-2', method: 'roots/list' });
      } else if (name === 'hang') {
        // Never answers.
      } else if (name === 'die') process.kill(process.pid, 'SIGKILL');
      else if (name === 'fail') send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: 'fail: no such thing' } });
      else if (name === 'notes') answer({ content: [{ type: 'text', text: JSON.stringify(notes) }] });
      else if (name === 'lookup') answer({ content: [{ type: 'text', text: `lookup ${JSON.stringify(args)}` }], structuredContent: { found: ODD, args } });
      else if (name === 'cwd') answer({ content: [{ type: 'text', text: process.cwd() }] });
      else if (name === 'pid') answer({ content: [{ type: 'text', text: String(process.pid) }] });
      else if (name === 'picture') answer({ content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }], isError: true });
      else send({ jsonrpc: '2.0', id: message.id, error: { code: -32602, message: `unknown tool ${name}` } });
      return;
    }
    case 'resources/subscribe':
      // A request other than a tool call that it never answers.
      return;
    default:
      send({ jsonrpc: '2.0', id: message.id, error: { code: -32601, message: `no ${message.method}` } });
  }
});
