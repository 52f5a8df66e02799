// vitest: `vitest run vitest/`. The first run records tapes/weather-umbrella.tape.jsonl (commit it);
// every run after replays it offline, and fails naming the first differing field if the agent's
// requests change. Re-record just this test: AGENTCTL_MODE=record vitest run -t umbrella.
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { withTape } from 'agentctl';
import { weatherAgent } from '../agent.mjs';

const tapes = fileURLToPath(new URL('../tapes', import.meta.url));

test('says whether to take an umbrella', () =>
  withTape('weather-umbrella', async (session) => {
    const answer = await weatherAgent(session, process.env.WEATHER_CITY);
    expect(answer).toMatch(/umbrella/i);
  }, { dir: tapes }));
