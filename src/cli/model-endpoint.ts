import { UsageError } from '../core/errors.js';

export interface ModelEndpoint {
  baseURL: string;
  apiKey: string;
  /** The base URL as it may be recorded: credentials and query removed. */
  recordable: string;
}

const OPENAI = 'https://api.openai.com/v1';

/**
 * Where the model is: `--base-url`, else `$OPENAI_BASE_URL`, else OpenAI's API when
 * `$OPENAI_API_KEY` is set. With neither there is nothing to talk to: say how to point at one.
 */
export function modelEndpoint(flag: string | undefined, env: NodeJS.ProcessEnv, fallbackBaseUrl?: string): ModelEndpoint {
  const apiKey = env['OPENAI_API_KEY'];
  const baseURL = flag ?? env['OPENAI_BASE_URL'] ?? fallbackBaseUrl ?? (apiKey ? OPENAI : undefined);
  if (baseURL === undefined) {
    throw new UsageError('no model to talk to: OPENAI_API_KEY and OPENAI_BASE_URL are not set', {
      hint: 'set OPENAI_API_KEY for OpenAI, or point at any OpenAI-compatible server: --base-url http://127.0.0.1:11434/v1',
    });
  }
  let url: URL;
  try {
    url = new URL(baseURL);
  } catch {
    throw new UsageError(`--base-url is not a URL: '${baseURL}'`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new UsageError(`--base-url must be http(s): '${baseURL}'`);
  url.username = '';
  url.password = '';
  url.search = '';
  return { baseURL, apiKey: apiKey ?? 'not-needed', recordable: url.toString().replace(/\/$/, '') };
}
