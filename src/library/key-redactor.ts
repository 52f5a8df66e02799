/**
 * The redactor of a library session: the recorder's own (API keys, secret-named environment values,
 * key-shaped strings, the caller's patterns), which also learns the credentials clients send, so no
 * key is ever written and the same request hashes the same when recorded and when replayed.
 */
import { InvalidOptionError } from '../core/errors.js';
import { createRedactor, secretsFromEnv, type Redactor } from '../core/redact.js';
import { CREDENTIAL_HEADERS } from '../llm/transport/http-reply.js';

export interface KeyRedactor extends Redactor {
  learn(headers: Headers): void;
}

export function keyRedactor(patterns: readonly string[], apiKey?: string | null): KeyRedactor {
  const keys = new Set<string>(apiKey === undefined || apiKey === null ? [] : [apiKey]);
  const build = (): Redactor => {
    try {
      return createRedactor({ secrets: [...keys, ...secretsFromEnv(process.env)], patterns });
    } catch (error) {
      throw new InvalidOptionError((error as Error).message);
    }
  };
  let current = build();
  const redactor = (<T>(value: T): T => current(value)) as KeyRedactor;
  redactor.text = (input) => current.text(input);
  redactor.spans = (input) => current.spans(input);
  redactor.learn = (headers) => {
    for (const name of CREDENTIAL_HEADERS) {
      const value = headers.get(name)?.replace(/^(Bearer|Basic)\s+/i, '').trim();
      if (value === undefined || value.length < 8 || keys.has(value)) continue;
      keys.add(value);
      current = build();
    }
  };
  return redactor;
}
