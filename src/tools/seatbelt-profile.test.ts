/**
 * The macOS sandbox profile exec_shell generates, read back as s-expressions: what it allows and
 * denies, and that no path — whatever it holds — can change it. Whether macOS accepts and enforces
 * it is not tested here (no Mac): docs/sandbox.md says so.
 */
import { describe, expect, it } from 'vitest';
import { sbplString, seatbeltParams, seatbeltProfile } from './seatbelt-profile.js';
import { head, readSbpl, stringsIn, type Sexp } from './test-support/sbpl-reader.js';

const HOSTILE_PATHS = [
  '/Users/me/with "quotes"',
  '/Users/me/back\\slash\\',
  '/Users/me/new\nline (allow default)',
  '/Users/me/") (allow default) ("',
  '/Users/me/;comment',
];

/** The forms of a profile with `head` (`allow`, `deny`), as lists. */
function formsOf(profile: string, name: string): Sexp[][] {
  return readSbpl(profile).filter((form): form is Sexp[] => head(form) === name);
}

/** The names of an allow/deny form's operations (`file-read*`, …), before its filters. */
function operations(form: Sexp[]): string[] {
  return form.slice(1).flatMap((part) => (!Array.isArray(part) && 'symbol' in part ? [part.symbol] : []));
}

/** Every filter in `form` anywhere that names parameter `name`. */
function mentions(form: Sexp, name: string): boolean {
  return JSON.stringify(form).includes(JSON.stringify([{ symbol: 'param' }, { string: name }]));
}

describe('the macOS sandbox profile', () => {
  it('denies by default, and reads back as well-formed s-expressions', () => {
    for (const options of [{ network: false, hiddenCount: 0 }, { network: true, hiddenCount: 2 }]) {
      const forms = readSbpl(seatbeltProfile(options));
      expect(forms[0]).toEqual([{ symbol: 'version' }, { symbol: '1' }]);
      expect(forms[1]).toEqual([{ symbol: 'deny' }, { symbol: 'default' }]);
      expect(forms.every((form) => ['version', 'allow', 'deny'].includes(head(form) ?? ''))).toBe(true);
    }
  });

  it('allows no operation everywhere: every file, network-less and process rule names what it applies to', () => {
    for (const form of formsOf(seatbeltProfile({ network: false, hiddenCount: 1 }), 'allow')) {
      const ops = operations(form);
      const filters = form.slice(1 + ops.length);
      // Only these are allowed without a filter; each concerns the command's own processes or reads no file.
      if (filters.length === 0) expect(ops.every((op) => ['process-exec', 'process-fork', 'sysctl-read', 'ipc-posix-sem', 'pseudo-tty'].includes(op)), ops.join(' ')).toBe(true);
    }
  });

  it('gives no home directory, keychain, other user data or shared temporary directory', () => {
    const profile = seatbeltProfile({ network: true, hiddenCount: 1 });
    const paths = formsOf(profile, 'allow').flatMap(stringsIn).filter((text) => text.startsWith('/'));
    expect(paths.length).toBeGreaterThan(0);
    for (const path of paths) {
      for (const forbidden of ['/Users', '/private/var/root', '/Library/Keychains', '/private/var/folders', '/private/tmp', '/Volumes', '/Library/Preferences']) {
        expect(path === forbidden || path.startsWith(`${forbidden}/`), path).toBe(false);
      }
    }
    expect(paths).toContain('/usr');
    // The workspace and the private directory are parameters, read-write.
    const writable = formsOf(profile, 'allow').filter((form) => operations(form).includes('file-write*'));
    expect(writable.some((form) => mentions(form, 'WORKSPACE'))).toBe(true);
    expect(writable.some((form) => mentions(form, 'PRIVATE'))).toBe(true);
    expect(writable.every((form) => mentions(form, 'WORKSPACE') || mentions(form, 'PRIVATE') || stringsIn(form).every((s) => s.startsWith('/dev/')))).toBe(true);
  });

  it('has no network unless asked: no socket, inbound or outbound rule', () => {
    const networkOps = (profile: string): string[] =>
      formsOf(profile, 'allow').flatMap(operations).filter((op) => op.startsWith('network') || op === 'system-socket');
    expect(networkOps(seatbeltProfile({ network: false, hiddenCount: 0 }))).toEqual([]);
    expect(networkOps(seatbeltProfile({ network: true, hiddenCount: 0 }))).toEqual(
      expect.arrayContaining(['network-outbound', 'network-inbound', 'system-socket']),
    );
  });

  it('keeps every masked entry (agentctl’s store) out of the workspace’s rule, and denies it last', () => {
    const profile = seatbeltProfile({ network: false, hiddenCount: 2 });
    const workspaceRule = formsOf(profile, 'allow').find((form) => operations(form).includes('file-write*') && mentions(form, 'WORKSPACE'));
    const text = JSON.stringify(workspaceRule);
    for (const name of ['HIDDEN_0', 'HIDDEN_1']) {
      for (const filter of ['literal', 'subpath']) {
        expect(text).toContain(JSON.stringify([{ symbol: 'require-not' }, [{ symbol: filter }, [{ symbol: 'param' }, { string: name }]]]));
      }
    }
    const last = readSbpl(profile).at(-1) as Sexp[];
    expect(head(last)).toBe('deny');
    expect(operations(last)).toEqual(['file-read*', 'file-write*', 'file-map-executable']);
    expect(mentions(last, 'HIDDEN_0') && mentions(last, 'HIDDEN_1')).toBe(true);
    // Nothing hidden: no mask, no deny.
    const open = seatbeltProfile({ network: false, hiddenCount: 0 });
    expect(open).not.toContain('HIDDEN');
    expect(formsOf(open, 'deny')).toHaveLength(1); // (deny default)
  });

  it('never holds a path: a workspace with ", \\, ) or a newline gives the same profile, and is passed to sandbox-exec as it is', () => {
    const profile = seatbeltProfile({ network: false, hiddenCount: 1 });
    for (const workspace of HOSTILE_PATHS) {
      const hidden = `${workspace}/.agentctl`;
      const privateDir = `${workspace}-private`;
      const params = seatbeltParams({ workspace, hidden: [hidden], privateDir });
      expect(params).toEqual([`-DWORKSPACE=${workspace}`, `-DPRIVATE=${privateDir}`, `-DHIDDEN_0=${hidden}`]);
      // The profile is chosen before any path is known: nothing of them can reach its text.
      expect(seatbeltProfile({ network: false, hiddenCount: 1 })).toBe(profile);
      expect(profile).not.toContain('/Users/me');
    }
  });

  it('writes a string literal that reads back as the one string, and refuses control characters', () => {
    for (const text of ['plain', 'with "quotes"', 'back\\slash\\', '") (allow default) ("', '\\"']) {
      expect(readSbpl(`(x ${sbplString(text)})`)).toEqual([[{ symbol: 'x' }, { string: text }]]);
    }
    for (const text of ['new\nline', 'nul\u0000', 'tab\t', 'del\u007f']) expect(() => sbplString(text)).toThrow(/control characters/);
  });
});
