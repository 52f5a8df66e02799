/**
 * The reference MCP server from npm (@modelcontextprotocol/server-everything) in its streamable
 * HTTP mode, started for a test on a free port and stopped by it. The server takes its port from
 * PORT and says on its standard error when it listens; a port taken between choosing it and the
 * server binding it (the server exits saying so) is chosen again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createRequire } from 'node:module';

const script = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-everything/dist/index.js');

export interface EverythingHttp {
  /** Its MCP endpoint: `http://127.0.0.1:<port>/mcp`. */
  url: string;
  port: number;
  /** Stop it (SIGKILL: the test is done with it) and wait until it has exited. */
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

function startOn(port: number): Promise<ChildProcess | undefined> {
  const child = spawn(process.execPath, [script, 'streamableHttp'], { env: { ...process.env, PORT: String(port) }, stdio: ['ignore', 'ignore', 'pipe'] });
  return new Promise((resolve, reject) => {
    let said = '';
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (text: string) => {
      said += text;
      if (said.includes(`listening on port ${port}`)) resolve(child);
    });
    child.once('error', reject);
    child.once('exit', () => (said.includes('already in use') ? resolve(undefined) : reject(new Error(`server-everything exited before it listened: ${said}`))));
  });
}

export async function startEverythingHttp(): Promise<EverythingHttp> {
  for (let attempt = 0; attempt < 5; attempt++) {
    const port = await freePort();
    const child = await startOn(port);
    if (child === undefined) continue;
    const exited = new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) done();
      else child.once('exit', () => done());
    });
    return {
      url: `http://127.0.0.1:${port}/mcp`,
      port,
      stop: async () => {
        child.kill('SIGKILL');
        await exited;
      },
    };
  }
  throw new Error('server-everything found no free port');
}
