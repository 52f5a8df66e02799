// node:test: `node --test node-test/`. The first run records tapes/weather-umbrella.tape.jsonl (commit
// it); every run after replays it offline, and fails naming the first differing field if the agent's
// requests change. CI: AGENTCTL_MODE=replay node --test … (never records, never reaches a model).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';
import { withTape } from 'agentctl';
import { weatherAgent } from '../agent.mjs';

const tapes = fileURLToPath(new URL('../tapes', import.meta.url));

test('says whether to take an umbrella', () =>
  withTape('weather-umbrella', async (session) => {
    const answer = await weatherAgent(session, process.env.WEATHER_CITY);
    assert.match(answer, /umbrella/i);
  }, { dir: tapes }));
