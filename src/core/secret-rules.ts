/**
 * Key-shaped secrets agentctl redacts everywhere, whatever the configuration says. The patterns of
 * the named rules follow gitleaks' published rule set (github.com/gitleaks/gitleaks, config/gitleaks.toml,
 * MIT licence, © Zachary Rice), taken as data and adapted to JavaScript regular expressions; the
 * OpenAI, bearer and AWS-secret rules are agentctl's own. `--redact` adds patterns on top.
 *
 * A rule may redact only one capture group (`group`): the AWS secret rules keep the words that
 * identify the key and replace the key itself.
 */

export interface SecretRule {
  id: string;
  source: string;
  /** Flags besides `g` and `d` (always set). */
  flags?: string;
  /** The capture group that is the secret; absent → the whole match. */
  group?: number;
}

/**
 * Where a key may start: not right after a word character — unless that one follows a backslash.
 * In JSON text an escaped newline, return or tab (`\n`, `\r`, `\t`) ends in a letter, and a key at
 * the start of a line there (a file's content in a tool call's arguments) stands right after one,
 * where `\b` would not let it start. One lookbehind, not `\b` or'd with another: an alternation
 * there makes the rules' quick test (redact.ts) many times slower.
 */
const START = String.raw`(?<!(?<!\\)\w)`;

export const SECRET_RULES: readonly SecretRule[] = [
  // PEM private keys, whole blocks — or from BEGIN to the end of the text when the block was cut.
  {
    id: 'private-key',
    source: '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*$)',
  },
  { id: 'jwt', source: `${START}ey[A-Za-z0-9_-]{17,}\\.ey[A-Za-z0-9/_-]{17,}\\.(?:[A-Za-z0-9/_-]{10,}={0,2})?` },
  { id: 'github-fine-grained-pat', source: `${START}github_pat_[A-Za-z0-9_]{22,255}` },
  { id: 'github-token', source: `${START}gh[pousr]_[A-Za-z0-9]{36,255}` },
  { id: 'gitlab-pat', source: `${START}glpat-[A-Za-z0-9_-]{20,}` },
  { id: 'slack-token', source: `${START}xox[abeoprs]-[A-Za-z0-9-]{10,}` },
  // gitleaks stops at 56 characters, enough to find one; a redactor takes the whole path (a
  // workflow's or a trigger's is longer, and its secret is at its end).
  { id: 'slack-webhook', source: 'hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,}' },
  { id: 'stripe-key', source: `${START}(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}` },
  { id: 'google-api-key', source: `${START}AIza[A-Za-z0-9_-]{35}` },
  { id: 'anthropic-key', source: `${START}sk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{20,}` },
  { id: 'openai-key', source: `${START}sk-[A-Za-z0-9_-]{8,}` },
  // An AWS secret key right after its access key id (as in a credentials line)…
  { id: 'aws-secret-after-key-id', source: String.raw`${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?:[\s,:;|"'=\\]|\\[nrt]){1,10}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, group: 1 },
  // …or named as one (aws_secret_access_key = …, "SecretAccessKey": "…").
  { id: 'aws-secret-named', source: String.raw`secret_?access_?key[\\"'\s]*[:=][\\"'\s]*([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])`, flags: 'i', group: 1 },
  { id: 'aws-access-key-id', source: `${START}(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\\b` },
  // Authorization values, in any case: `Bearer …`, `bearer …`, `Basic …`.
  { id: 'authorization', source: `${START}(?:bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}`, flags: 'i' },
];
