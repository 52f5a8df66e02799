/**
 * The run's link reaches a wrapper through AGENTCTL_MCP_LINK, or — when an MCP client started the
 * wrapper with a clean environment — through the private directory first on its PATH; a link file
 * others could read, a directory not named as agentctl names it, or a file that is not a loopback
 * URL is not taken; and the directory is gone once the run removes it.
 */
import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { findRunLink, LINK_DIR_PREFIX, MCP_LINK_ENV, publishRunLink } from './run-link.js';

const URL = 'http://127.0.0.1:40123/agentctl/mcp/0123456789abcdef0123456789abcdef';
const made: string[] = [];

afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

/** A directory like the run's, with `text` in its link file of `mode`. */
async function linkDir(text: string, mode: number, prefix = LINK_DIR_PREFIX): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  made.push(dir);
  await writeFile(join(dir, 'link'), text, { mode });
  await chmod(join(dir, 'link'), mode);
  return dir;
}

describe('the run link', () => {
  it('is found in a clean environment through the directory the run put on PATH, and gone once removed', async () => {
    const published = await publishRunLink(URL);
    const env = published.env({ PATH: '/usr/bin', HOME: '/home/x' });
    expect(env[MCP_LINK_ENV]).toBe(URL);
    const clean = { PATH: env['PATH'], HOME: env['HOME'] };
    expect(findRunLink(clean)).toMatchObject({ url: URL });
    expect(env['PATH']?.endsWith(`${delimiter}/usr/bin`)).toBe(true);
    await published.remove();
    expect(findRunLink(clean)).toBeUndefined();
  });

  it('takes AGENTCTL_MCP_LINK first', async () => {
    const dir = await linkDir(URL, 0o600);
    expect(findRunLink({ [MCP_LINK_ENV]: 'http://127.0.0.1:1/other', PATH: dir })).toEqual({ url: 'http://127.0.0.1:1/other', source: `$${MCP_LINK_ENV}` });
    expect(findRunLink({ [MCP_LINK_ENV]: '', PATH: dir })).toEqual({ url: URL, source: join(dir, 'link') });
  });

  it('passes over a link others can read, a directory agentctl did not name, a directory others can enter, and text that is not a loopback URL', async () => {
    expect(findRunLink({ PATH: await linkDir(URL, 0o644) })).toBeUndefined();
    expect(findRunLink({ PATH: await linkDir(URL, 0o600, 'elsewhere-') })).toBeUndefined();
    expect(findRunLink({ PATH: await linkDir('http://example.com:80/agentctl/mcp/x', 0o600) })).toBeUndefined();
    const open = await linkDir(URL, 0o600);
    await chmod(open, 0o755);
    expect(findRunLink({ PATH: open })).toBeUndefined();
    const nested = await linkDir(URL, 0o600);
    await mkdir(join(nested, 'link2'));
    expect(findRunLink({ PATH: [join(nested, 'link2'), nested].join(delimiter) })).toEqual({ url: URL, source: join(nested, 'link') });
  });
});
