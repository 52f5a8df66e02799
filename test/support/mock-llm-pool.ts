/** Scripted model servers for one test file: `serve(...)` starts one; each is closed after its test. */
import { afterEach } from 'vitest';
import { startMockLlm, type MockLlm } from './mock-llm.js';
import type { Scenario, ScenarioStep } from './scenario.js';

export function useMockLlms(): (scenario: Scenario | ScenarioStep[]) => Promise<MockLlm> {
  const servers: MockLlm[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  return async (scenario) => {
    const server = await startMockLlm(scenario);
    servers.push(server);
    return server;
  };
}
