/**
 * aimock (@copilotkit/aimock) for the transport tests: an OpenAI-compatible server on 127.0.0.1 that
 * speaks Chat Completions, the Responses API and Anthropic's Messages API (streaming too), where test/support/mock-llm.ts
 * speaks Chat Completions only. Fixtures are matched on each request's content, not its position.
 */
import { LLMock, type FixtureFileResponse, type FixtureMatch } from '@copilotkit/aimock';

export interface AimockFixture {
  match: FixtureMatch;
  response: FixtureFileResponse;
}

export interface Aimock {
  /** Pass as `baseURL` to an OpenAI client, e.g. `http://127.0.0.1:41234/v1`. */
  readonly baseURL: string;
  /** Pass as `baseURL` to an Anthropic client (its paths carry their `/v1`), e.g. `http://127.0.0.1:41234`. */
  readonly root: string;
  /** How many model requests arrived (chat completions, responses and messages). */
  requestCount(): number;
  /** The requests that arrived: path and headers. */
  requests(): { path: string; headers: Record<string, string> }[];
  /** Stop the server (and drop its connections). */
  close(): Promise<void>;
}

/** Start aimock on a free port of 127.0.0.1, answering with `fixtures` (first match wins). */
export async function startAimock(fixtures: readonly AimockFixture[]): Promise<Aimock> {
  const mock = new LLMock({ host: '127.0.0.1', port: 0, logLevel: 'silent' });
  for (const fixture of fixtures) mock.on(fixture.match, fixture.response);
  await mock.start();
  let closed = false;
  return {
    baseURL: `${mock.url}/v1`,
    root: mock.url,
    requestCount: () => mock.getRequests().filter((r) => /\/(chat\/completions|responses|messages)$/.test(r.path)).length,
    requests: () => mock.getRequests().map((r) => ({ path: r.path, headers: r.headers })),
    close: async () => {
      if (closed) return;
      closed = true;
      await mock.stop();
    },
  };
}
