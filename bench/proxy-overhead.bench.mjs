// What `agentctl proxy` adds to a streamed call (BENCHMARKS.md § "Proxy overhead"), budget: for one
// stream at a time, the time to the first byte of the answer through the recording proxy is at most
// 2 ms more than straight to the same server at p50, and 10 ms more at p99; the proxy's memory flat in
// the number of calls.
//
// A local OpenAI-compatible server (node:http on 127.0.0.1) answers every POST /v1/chat/completions
// with a streamed chat completion: CHUNKS server-sent events (a role chunk, content chunks, a stop
// chunk with usage), then `data: [DONE]`, each written on its own turn of the event loop, so they
// leave as separate writes as a model's tokens do. In front of it, the real proxy as a user starts
// it: `node bin/agentctl.js proxy --record bench --upstream <server> --store <tmp> --port 0 --json`,
// a child process, ready when its JSON line (the URL) is on standard output. It records every call
// onto the run (each reply synced before the client has its end: src/tape/run-recorder.ts).
//
// Beside it, for context, a second proxy in passthrough mode (`--mode passthrough`: the same HTTP
// plumbing, nothing recorded), so the figure splits into what relaying costs and what recording adds.
//
// The client is node:http with a keep-alive agent (as an SDK keeps its connections), and each call
// is timed from the request's start to the first byte of the body (first byte) and to its end
// (whole answer). Every request is distinct (its question is numbered), as an agent's are.
//   - 1 stream: ONE_CALLS calls each way, direct, recording proxy and passthrough proxy in turn,
//     one at a time. Also each proxy's CPU time (user + system, /proc/<pid>/stat) over these calls,
//     per call: a figure the machine's load moves much less than the latencies.
//   - 50 streams: CONCURRENT workers, each making calls back to back; rounds of CONCURRENT ×
//     PER_WORKER calls, direct and proxied alternately, CONCURRENT_CALLS calls each way.
// Alternating spreads whatever else the machine does over both alike; the figure is the difference
// (proxied − direct) and the ratio, at p50 and p99, within this run.
//
// Memory: the recording proxy's resident set (VmRSS in /proc/<pid>/status) after the warm-up, after
// the 1-stream calls, after the 50-stream calls (its high-water mark), and once RSS_CALLS calls have
// gone through it (more calls are made, one stream, if the measurements did not reach it).
//
// Replay: the proxy is stopped (SIGINT: the run completes), and `agentctl proxy --replay bench`
// serves the recorded run; ONE_CALLS calls, one at a time, alternately straight to the server and
// to the replaying proxy, asking calls the run holds. First byte and whole answer, as above.
//
//   node bench/run.mjs proxy-overhead
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { Agent, createServer, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'agentctl.js');
const CHUNKS = Number(process.env.BENCH_PROXY_CHUNKS ?? 30);
const ONE_CALLS = Number(process.env.BENCH_PROXY_CALLS ?? 600);
const CONCURRENT = Number(process.env.BENCH_PROXY_STREAMS ?? 50);
const CONCURRENT_CALLS = Number(process.env.BENCH_PROXY_CONCURRENT_CALLS ?? 1000);
const PER_WORKER = 2;
const WARMUP = 200;
const RSS_CALLS = Number(process.env.BENCH_PROXY_RSS_CALLS ?? 2000);
const BUDGET = { p50: 2, p99: 10 };
/** Extra flags for the proxy's Node (e.g. BENCH_PROXY_NODE_FLAGS=--cpu-prof). */
const PROXY_FLAGS = (process.env.BENCH_PROXY_NODE_FLAGS ?? '').split(' ').filter((f) => f !== '');

/** The scripted model: a streamed chat completion for every request, its words numbered by the question. */
function startServer() {
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      const asked = JSON.parse(body);
      const id = `chatcmpl-${asked.messages.at(-1).content.replace(/\D/g, '')}`;
      const chunk = (delta, finish, usage) =>
        `data: ${JSON.stringify({
          id, object: 'chat.completion.chunk', created: 1_700_000_000, model: asked.model,
          choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
          ...(usage === undefined ? {} : { usage }),
        })}\n\n`;
      const events = [chunk({ role: 'assistant', content: '' }, null)];
      for (let i = 0; i < CHUNKS - 2; i++) events.push(chunk({ content: ` word${i}` }, null));
      events.push(chunk({}, 'stop', { prompt_tokens: 20, completion_tokens: CHUNKS - 2, total_tokens: 18 + CHUNKS }));
      events.push('data: [DONE]\n\n');
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.flushHeaders();
      let next = 0;
      const send = () => {
        if (res.destroyed) return;
        res.write(events[next++]);
        if (next < events.length) setImmediate(send);
        else res.end();
      };
      send();
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

/** Start `agentctl proxy` with `args`; resolves once it prints its URL, with the child and the URL. */
function startProxy(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...PROXY_FLAGS, BIN, 'proxy', ...args, '--port', '0', '--json'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, OPENAI_API_KEY: 'sk-bench-not-a-key' },
    });
    let out = '';
    let err = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => (err += d));
    child.stdout.setEncoding('utf8');
    const onData = (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line === undefined) return;
      child.stdout.off('data', onData);
      // Keep draining its output (the summary at the end), so it never blocks on a full pipe.
      child.stdout.resume();
      resolve({ child, url: JSON.parse(line).url, stderr: () => err });
    };
    child.stdout.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`agentctl proxy exited ${code} before it was ready: ${err}`)));
  });
}

/** Stop a proxy as a user does (SIGINT) and wait for it to exit; its standard error for context. */
function stopProxy({ child, stderr }) {
  return new Promise((resolve, reject) => {
    child.removeAllListeners('exit');
    child.once('exit', (code) => (code === 0 ? resolve(stderr()) : reject(new Error(`agentctl proxy exited ${code}: ${stderr()}`))));
    child.kill('SIGINT');
  });
}

/** CPU time (user + system) the process has used so far, in ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
}
const CLOCK_TICKS = 100;

function rssKb(pid) {
  const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match === null ? NaN : Number(match[1]);
}

const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENT * 2 });

/** One streamed call to `base` (…/v1); resolves with its first-byte and whole-answer times in ms. */
function call(base, n) {
  const body = JSON.stringify({ model: 'bench-model', stream: true, messages: [{ role: 'user', content: `question ${n}` }] });
  const url = new URL(`${base}/chat/completions`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let first = null;
    let text = '';
    const req = request(url, {
      method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: 'Bearer sk-client' },
    }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (d) => {
        if (first === null) first = performance.now();
        text += d;
      });
      res.on('end', () => {
        const whole = performance.now();
        if (res.statusCode !== 200 || !text.endsWith('data: [DONE]\n\n')) {
          reject(new Error(`call ${n} to ${base}: HTTP ${res.statusCode}: ${text.slice(0, 300)}`));
          return;
        }
        resolve({ first: first - started, whole: whole - started });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

const quantile = (xs, q) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
};

/** `workers` streams at once, each making `perWorker` calls back to back; every call's times. */
async function concurrent(base, workers, perWorker, next) {
  const times = [];
  await Promise.all(Array.from({ length: workers }, async () => {
    for (let i = 0; i < perWorker; i++) times.push(await call(base, next()));
  }));
  return times;
}

const dir = await mkdtemp(join(tmpdir(), 'agentctl-bench-proxy-'));
const server = await startServer();
const upstream = `http://127.0.0.1:${server.address().port}/v1`;
const store = join(dir, 'store');
let proxy;
let passthrough;
try {
  proxy = await startProxy(['--record', 'bench', '--upstream', upstream, '--store', store]);
  passthrough = await startProxy(['--mode', 'passthrough', '--upstream', upstream]);
  let question = 0;
  const next = () => question++;
  let proxied = 0;
  // Warm-up: both paths, one stream and many, before anything is timed.
  for (let i = 0; i < WARMUP / 2; i++) {
    await call(upstream, next());
    await call(proxy.url, next());
  }
  await concurrent(upstream, CONCURRENT, 1, next);
  await concurrent(proxy.url, CONCURRENT, 1, next);
  proxied = WARMUP / 2 + CONCURRENT;
  const rssWarm = { calls: proxied, kb: rssKb(proxy.child.pid) };

  for (let i = 0; i < WARMUP / 2; i++) await call(passthrough.url, next());
  const one = { direct: [], proxy: [] };
  const forward = { direct: one.direct, proxy: [] };
  /** The questions asked through the recording proxy one at a time: the replay asks them again. */
  const oneAsked = [];
  const cpuBefore = { record: cpuMs(proxy.child.pid), passthrough: cpuMs(passthrough.child.pid) };
  for (let i = 0; i < ONE_CALLS; i++) {
    one.direct.push(await call(upstream, next()));
    oneAsked.push(next());
    one.proxy.push(await call(proxy.url, oneAsked.at(-1)));
    forward.proxy.push(await call(passthrough.url, next()));
  }
  const cpu = {
    record: (cpuMs(proxy.child.pid) - cpuBefore.record) / ONE_CALLS,
    passthrough: (cpuMs(passthrough.child.pid) - cpuBefore.passthrough) / ONE_CALLS,
  };
  await stopProxy(passthrough);
  passthrough = undefined;
  proxied += ONE_CALLS;
  const rssOne = { calls: proxied, kb: rssKb(proxy.child.pid) };

  const many = { direct: [], proxy: [] };
  for (let done = 0; done < CONCURRENT_CALLS; done += CONCURRENT * PER_WORKER) {
    many.direct.push(...(await concurrent(upstream, CONCURRENT, PER_WORKER, next)));
    many.proxy.push(...(await concurrent(proxy.url, CONCURRENT, PER_WORKER, next)));
  }
  proxied += many.proxy.length;
  const rssMid = { calls: proxied, kb: rssKb(proxy.child.pid) };
  while (proxied < RSS_CALLS) {
    await call(proxy.url, next());
    proxied++;
  }
  const rssEnd = { calls: proxied, kb: rssKb(proxy.child.pid) };
  const recordLines = (await stopProxy(proxy)).trim().split('\n');
  proxy = undefined;

  // Replay: the recorded run served by a new proxy; it holds every question the proxy was asked.
  proxy = await startProxy(['--replay', 'bench', '--store', store]);
  const replay = { direct: [], proxy: [] };
  const replayCpuBefore = cpuMs(proxy.child.pid);
  for (const n of oneAsked) {
    replay.direct.push(await call(upstream, next()));
    replay.proxy.push(await call(proxy.url, n));
  }
  cpu.replay = (cpuMs(proxy.child.pid) - replayCpuBefore) / oneAsked.length;
  const rssReplay = rssKb(proxy.child.pid);
  const replayLines = (await stopProxy(proxy)).trim().split('\n');
  proxy = undefined;

  report({ one, forward, cpu, many, replay, rss: [rssWarm, rssOne, rssMid, rssEnd], rssReplay, recordLines, replayLines });
} finally {
  if (proxy !== undefined) proxy.child.kill('SIGKILL');
  if (passthrough !== undefined) passthrough.child.kill('SIGKILL');
  agent.destroy();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
}

function report({ one, forward, cpu, many, replay, rss, rssReplay, recordLines, replayLines }) {
  const fmt = (n) => n.toFixed(3);
  const round = (n) => Number(n.toFixed(3));
  const stats = (times, key) => {
    const xs = times.map((t) => t[key]);
    return { p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: Math.max(...xs) };
  };
  const results = [];
  const rows = [];
  const section = (label, variant, keys) => {
    for (const key of keys) {
      const d = stats(variant.direct, key);
      const p = stats(variant.proxy, key);
      const what = key === 'first' ? 'first byte' : 'whole answer';
      rows.push(`  ${label.padEnd(20)} ${what.padEnd(13)} direct p50 ${fmt(d.p50)} p99 ${fmt(d.p99)}   proxy p50 ${fmt(p.p50)} p99 ${fmt(p.p99)}   ` +
        `added p50 ${fmt(p.p50 - d.p50)} ms (×${(p.p50 / d.p50).toFixed(2)})  p99 ${fmt(p.p99 - d.p99)} ms (×${(p.p99 / d.p99).toFixed(2)})`);
      for (const q of ['p50', 'p99']) {
        const budgeted = label === '1 stream, record' && key === 'first';
        results.push({
          name: `${label}, ${what}, added ${q}`,
          value: round(p[q] - d[q]),
          ...(budgeted ? { target: BUDGET[q] } : {}),
          ratio: round(p[q] / d[q]), direct: round(d[q]), proxy: round(p[q]), calls: variant.proxy.length,
        });
      }
    }
  };
  section('1 stream, record', one, ['first', 'whole']);
  section('1 stream, passthrough', forward, ['first', 'whole']);
  section(`${CONCURRENT} streams, record`, many, ['first', 'whole']);
  section('1 stream, replay', replay, ['first', 'whole']);
  console.log(`proxy overhead on a streamed chat completion (${CHUNKS} server-sent events), node ${process.version}; ms`);
  console.log(`  ${one.proxy.length} calls each way one at a time, ${many.proxy.length} each way ${CONCURRENT} at a time, ${replay.proxy.length} replayed`);
  for (const row of rows) console.log(row);
  const [warm, one1, mid, end] = rss;
  console.log(`  proxy CPU per call, 1 stream (user + system): recording ${fmt(cpu.record)} ms, passthrough ${fmt(cpu.passthrough)} ms, replaying ${fmt(cpu.replay)} ms`);
  console.log(`  proxy RSS: ${(warm.kb / 1024).toFixed(1)} MB after ${warm.calls} calls, ${(one1.kb / 1024).toFixed(1)} MB after ${one1.calls} (one at a time), ${(mid.kb / 1024).toFixed(1)} MB after ${mid.calls} (${CONCURRENT} at a time), ${(end.kb / 1024).toFixed(1)} MB after ${end.calls}; replaying ${(rssReplay / 1024).toFixed(1)} MB`);
  console.log(`  ${recordLines.at(-1)}`);
  console.log(`  ${replayLines.at(-1)}`);
  const budget = results.filter((r) => r.target !== undefined);
  const verdict = budget.every((r) => r.value <= r.target) ? 'meets' : 'MISSES';
  console.log(`  budget (1 stream, first byte, added ≤ ${BUDGET.p50} ms p50, ≤ ${BUDGET.p99} ms p99): ${verdict}`);
  console.log(`bench-result ${JSON.stringify({ bench: 'proxy-overhead', unit: 'ms added', higherIsBetter: false, results })}`);
  console.log(`bench-result ${JSON.stringify({
    bench: 'proxy-overhead-memory', unit: 'MB RSS', higherIsBetter: false,
    results: [warm, one1, mid, end].map((r) => ({ name: `proxy after ${r.calls} calls`, value: round(r.kb / 1024) })),
  })}`);
  console.log(`bench-result ${JSON.stringify({
    bench: 'proxy-overhead-cpu', unit: 'ms CPU a call', higherIsBetter: false,
    results: [{ name: 'recording proxy, 1 stream', value: round(cpu.record) }, { name: 'passthrough proxy, 1 stream', value: round(cpu.passthrough) }, { name: 'replaying proxy, 1 stream', value: round(cpu.replay) }],
  })}`);
}

