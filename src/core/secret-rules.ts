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

export const SECRET_RULES: readonly SecretRule[] = [
  // PEM private keys, whole blocks — or from BEGIN to the end of the text when the block was cut.
  {
    id: 'private-key',
    source: '-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----(?:[\\s\\S]*?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----|[\\s\\S]*$)',
  },
  { id: 'jwt', source: '\\bey[A-Za-z0-9_-]{17,}\\.ey[A-Za-z0-9/_-]{17,}\\.(?:[A-Za-z0-9/_-]{10,}={0,2})?' },
  { id: 'github-fine-grained-pat', source: '\\bgithub_pat_[A-Za-z0-9_]{22,255}' },
  { id: 'github-token', source: '\\bgh[pousr]_[A-Za-z0-9]{36,255}' },
  { id: 'gitlab-pat', source: '\\bglpat-[A-Za-z0-9_-]{20,}' },
  { id: 'slack-token', source: '\\bxox[abeoprs]-[A-Za-z0-9-]{10,}' },
  { id: 'slack-webhook', source: 'hooks\\.slack\\.com/(?:services|workflows)/[A-Za-z0-9+/]{43,56}' },
  { id: 'stripe-key', source: '\\b(?:sk|rk)_(?:test|live|prod)_[A-Za-z0-9]{10,99}' },
  { id: 'google-api-key', source: '\\bAIza[A-Za-z0-9_-]{35}' },
  { id: 'anthropic-key', source: '\\bsk-ant-(?:api|admin)\\d{2}-[A-Za-z0-9_-]{20,}' },
  { id: 'openai-key', source: '\\bsk-[A-Za-z0-9_-]{8,}' },
  // An AWS secret key right after its access key id (as in a credentials line)…
  { id: 'aws-secret-after-key-id', source: '\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}[\\s,:;|"\'=]{1,10}([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])', group: 1 },
  // …or named as one (aws_secret_access_key = …, "SecretAccessKey": "…").
  { id: 'aws-secret-named', source: 'secret_?access_?key["\'\\s]*[:=]\\s*["\']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])', flags: 'i', group: 1 },
  { id: 'aws-access-key-id', source: '\\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\\b' },
  // Authorization values, in any case: `Bearer …`, `bearer …`, `Basic …`.
  { id: 'authorization', source: '\\b(?:bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}', flags: 'i' },
];
