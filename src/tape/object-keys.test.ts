import { describe, expect, it } from 'vitest';
import { forbiddenKey } from './object-keys.js';

/** The line as a tape holds it, and the value JSON.parse makes of it (own `__proto__` keys included). */
const line = (text: string): [string, unknown] => [text, JSON.parse(text)];

describe('forbiddenKey', () => {
  it('names a machinery key in a record agentctl types: config, checkpoint, counters', () => {
    expect(forbiddenKey(...line('{"type":"run_start","config":{"__proto__":{"x":1}}}'))).toBe('config.__proto__');
    expect(forbiddenKey(...line('{"type":"checkpoint","guardrails":{"a":{"prototype":1}}}'))).toBe('guardrails.a.prototype');
    expect(forbiddenKey(...line('{"counters":{"after":{"constructor":1}}}'))).toBe('counters.after.constructor');
    // Spelled with escapes, it is the same key once parsed.
    expect(forbiddenKey(...line('{"config":{"\\u005f_proto__":1}}'))).toBe('config.__proto__');
  });

  it('lets what a client or a model sent hold any key: bodies, request parameters, quoted values', () => {
    const schema = '{"type":"object","properties":{"constructor":{"type":"string"},"prototype":{"type":"string"}}}';
    expect(forbiddenKey(...line(`{"type":"llm_request","params":{"response_format":{"json_schema":{"schema":${schema}}}}}`))).toBeNull();
    expect(forbiddenKey(...line('{"type":"http_exchange","body":{"__proto__":{"a":1}},"response":{"status":200,"body":{"constructor":1}}}'))).toBeNull();
    expect(forbiddenKey(...line('{"type":"divergence","detail":{"path":"p","recorded":{"constructor":1},"replayed":{"__proto__":2}}}'))).toBeNull();
  });

  it("lets what an MCP server said hold any key: a tool's schema, an exchange's reply, a tool result's reply", () => {
    const schema = '{"type":"object","properties":{"constructor":{"type":"string"}}}';
    expect(forbiddenKey(...line(`{"type":"run_start","customTools":[{"name":"x","parameters":${schema}}]}`))).toBeNull();
    expect(forbiddenKey(...line(`{"type":"mcp_exchange","reply":{"result":{"tools":[{"name":"x","inputSchema":${schema}}]}}}`))).toBeNull();
    expect(forbiddenKey(...line('{"type":"tool_result","mcp":{"result":{"structuredContent":{"__proto__":{"prototype":1}}}}}'))).toBeNull();
    // Beside them, agentctl's own records still may not.
    expect(forbiddenKey(...line(`{"type":"run_start","customTools":[{"name":"x","parameters":${schema}}],"config":{"prototype":1}}`))).toBe('config.prototype');
    expect(forbiddenKey(...line('{"type":"tool_result","mcp":{},"constructor":1}'))).toBe('constructor');
  });

  it('a line that spells none of the keys is not walked', () => {
    expect(forbiddenKey('{"a":1}', { a: { constructor: 1 } })).toBeNull();
  });
});
