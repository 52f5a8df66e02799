/**
 * Test data: secrets of each kind the built-in rules know, shaped as they appear in the wild (all
 * fake), written without looking at the rules' patterns — so a rule made weaker than the secrets it
 * is for fails a test instead of following its samples down.
 */

/** Joined at run time: keys a secret scanner knows are not written whole in the repository. */
const key = (...parts: string[]): string => parts.join('');

/** Bare secrets by kind: each needs no words around it to be one. */
export const SAMPLE_SECRETS: Record<string, string> = {
  'github classic token': 'ghp_1234567890abcdefghijklmnopqrstuvwxyzAB',
  'github fine-grained token': 'github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWX',
  'github oauth token': 'gho_abcdefghijklmnopqrstuvwxyz0123456789',
  'github app token': 'ghs_abcdefghijklmnopqrstuvwxyz0123456789',
  'github user-to-server token': key('ghu_', 'qUkMbXft6rsBCxIDnrIWHUEsKSArNd1iMwHE'),
  'github refresh token': key('ghr_', 'MeCHaYWknVfYMkINdnlm5YROMBuKGGWpTsoHUVfR3nDNBSNLIfSeDAL69uy4eJLyH7zZWOJF'),
  'gitlab token': key('glpat', '-', '0MPJlRZ6hJdxV7BMeGxS'),
  'gitlab token with dashes': key('glpat', '-', 'x8Wm_XHWrd-pm8nRLFJpC0W'),
  'aws access key id': 'AKIAIOSFODNN7EXAMPLE',
  'aws session key id': 'ASIAY34FZKBOKMUTVV7A',
  'slack bot token': 'xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx',
  'slack user token': 'xoxp-123456789012-123456789012-123456789012-abcdefabcdefabcdefabcdefabcdef12',
  'slack workspace token': key('xoxa', '-2-', '881667610598-7588576844502-SMnxLTNdnHIwQZ4jHclp5jWW'),
  'slack refresh token': key('xoxr', '-', '881667610598-k5XB3AVoyCFG8AlIhfKzCJR2'),
  'slack config refresh token': key('xoxe', '-1-', 'My0xLTg4MTY2NzYxMDU5OC03NTg4NTc2ODQ0NTAyLWs1WEIz'),
  'slack legacy token': key('xoxo', '-', '881667610598-7588576844502-1185087924689-2c0cf6b5a80f'),
  'slack session token': key('xoxs', '-', '881667610598-7588576844502-1185087924689-330575579bb686'),
  'slack webhook': key('https://hooks.slack.com', '/services/', 'T06D2F2LRIT/B08W55T4GS4/WHC8j3EZFp6o0YtHH4dy5tDr'),
  'slack workflow webhook': key('https://hooks.slack.com', '/workflows/', 'T0IZYTQFPR3/A0VKTCEHO5K/492830680080644365/PSBOXfsnG25F3tmP1tlyQ0Qa'),
  'slack trigger webhook': key('https://hooks.slack.com', '/triggers/', 'T0O7EM4SSJH/1185087924689/2c0cf6b5a80f330575579bb686e1e4ed'),
  jwt: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
  'unsigned jwt': 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJzdmMtZGVwbG95Iiwic2NvcGUiOiJyZXBvOndyaXRlIiwiaWF0IjoxNzE4MDAwMDAwfQ.',
  'google api key': 'AIzaSyA1234567890abcdefghijklmnopqrstuv',
  'google api key with dashes': key('AIza', 'Sy2VcHjn6YOkLe3ny_irhmNe740cisi-UyU'),
  'stripe secret key': 'sk_live_51HAbCdEfGhIjKlMnOpQrStUvWx',
  'stripe restricted key': 'rk_live_51HAbCdEfGhIjKlMnOpQrStUvWx',
  'stripe test key': key('sk_test_', '51Hq', 'E8TJPZ0tgIfMLwLnk2Tx8PS4CW1497ucT6jsX9uL9GXqp5ou6xNILLN7FYuMSipiNBdP0GjTGgqs4kPSFyDRtIS8nd2kbKD'),
  'stripe prod key': key('rk_prod_', '0DxMLB79xfIddOHNigd72ShE'),
  'anthropic key': key('sk-ant-', 'api03-', 'C7wtGamWVJN6QwoY43nNrC5IdOXeB2viN-eT43m6ixcrivzbJ_UZZGmBv-WK5zhhVPUdAyD24SXb1N_W1d5gKz8wZXNjg', 'AA'),
  'anthropic admin key': key('sk-ant-', 'admin01-', 'kuDai86HNcAXPKGbGFkBRw0IWR8n1kxXM0kCmiwvB6wyBCacj82TBM41xb0ocFx7kGD650vujVEu-5ZGfsYNQvOYmKkvR', 'AA'),
  'openai key': 'sk-proj-AbCdEfGhIjKlMnOpQrSt1234567890',
  'openai legacy key': key('sk-', 'uAgiL4JlZN3penzMoef7', 'T3BlbkFJ', 'ZxXvplA99BEGVvuD2psX'),
  'openai service account key': key('sk-svcacct-', 'eKq_-SDN3aef4gVPw9j7KNpoFfw6JZwehkGXqWnYEvwemQfX2tXP0_023lP9FBTHde2xX8pWtZ'),
  'bearer token': 'Bearer abcDEF123456.ghiJKL789',
  'bearer token in lower case': 'bearer abcDEF123456.ghiJKL789',
  'basic auth': 'BASIC dXNlcjpwYXNzd29yZDEyMw==',
  'basic auth as sent': 'Basic ZGVwbG95OnMzY3IzdC1QYXNzdzByZCE=',
};

/** A sample of one rule: a text as it appears, and what in it is secret. */
export interface RuleSample {
  /** The id of the rule in SECRET_RULES that is for it. */
  rule: string;
  /** The text: the secret with the words a rule needs around it, if any. */
  text: string;
  /** What of the text that rule replaces; absent: all of it. */
  secret?: string;
  /** What of the text other rules replace, besides (an AWS key id next to its secret key). */
  also?: readonly string[];
}

const S = SAMPLE_SECRETS;
const PEM_RSA = [
  '-----BEGIN RSA PRIVATE KEY-----',
  'MIIEowIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyzABCDEFGHIJKL',
  'MNOPQRSTUVWXYZ0123456789abcdefghijklmnopqrstuvwxyz+/ABCDEFGHIJKL',
  '-----END RSA PRIVATE KEY-----',
].join('\n');
const PEM_OPENSSH = [
  '-----BEGIN OPENSSH PRIVATE KEY-----',
  'b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW',
  'duhRp6JsxgL38aAAghVW64kSYWDxDfhsZJteqLfP00QbIXtY74Zl+jjrcoY+TKNu',
  '-----END OPENSSH PRIVATE KEY-----',
].join('\n');
const PGP = [
  '-----BEGIN PGP PRIVATE KEY BLOCK-----',
  '',
  'lQOYBGZ3k1wBCADoEwH+ZB9abuU7ACSii8gWv9eM7gtURzFet3JsFBUE+G9ly/v3',
  'V5sUmKX3i2tdJweduhRp6JsxgL38aAAghVW64kSYWDxDfhsZJteqLfP00QbIXtY7',
  '=k7Qd',
  '-----END PGP PRIVATE KEY BLOCK-----',
].join('\n');
const AWS_SECRET = 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY';
const AWS_SECRET_2 = 'mY20xtUvBfGqWJZJ3CsY7QMI1XM4GMBuQEMMGhUy';
const AWS_SECRET_3 = '8Wkj3ha0HSDwpi2fZ+5FVSROKUkqzyYXZkb2NbYp';
const AWS_SECRET_4 = 'pjreQ80FMu5uZ9zrrpEpOM9K2dKKJ3hxZz52gskm';

/** Bare samples of a rule: each secret as a whole. */
const bare = (rule: string, ...kinds: string[]): RuleSample[] => kinds.map((kind) => ({ rule, text: S[kind] as string }));
/** An AWS secret key in its text, after a key id that the key-id rule replaces too. */
const afterKeyId = (keyId: string, separator: string, secret: string): RuleSample => ({
  rule: 'aws-secret-after-key-id', text: keyId + separator + secret, secret, also: [keyId],
});

/** At least one sample of every rule in SECRET_RULES, one for each alternative a rule has. */
export const RULE_SAMPLES: readonly RuleSample[] = [
  { rule: 'private-key', text: PEM_RSA },
  { rule: 'private-key', text: PEM_OPENSSH },
  { rule: 'private-key', text: PGP },
  ...bare('jwt', 'jwt', 'unsigned jwt'),
  ...bare('github-fine-grained-pat', 'github fine-grained token'),
  ...bare('github-token', 'github classic token', 'github oauth token', 'github user-to-server token', 'github app token', 'github refresh token'),
  ...bare('gitlab-pat', 'gitlab token', 'gitlab token with dashes'),
  ...bare('slack-token', 'slack workspace token', 'slack bot token', 'slack config refresh token', 'slack legacy token', 'slack user token', 'slack refresh token', 'slack session token'),
  // The scheme is not secret: the rule takes the URL from its host.
  ...['slack webhook', 'slack workflow webhook', 'slack trigger webhook'].map((kind) => ({
    rule: 'slack-webhook', text: S[kind] as string, secret: (S[kind] as string).slice('https://'.length),
  })),
  ...bare('stripe-key', 'stripe secret key', 'stripe restricted key', 'stripe test key', 'stripe prod key'),
  ...bare('google-api-key', 'google api key', 'google api key with dashes'),
  ...bare('anthropic-key', 'anthropic key', 'anthropic admin key'),
  ...bare('openai-key', 'openai key', 'openai legacy key', 'openai service account key'),
  afterKeyId('AKIAIOSFODNN7EXAMPLE', ':', AWS_SECRET),
  afterKeyId('ASIA4ARADHLXYM7OJPWD', ',', AWS_SECRET_2),
  afterKeyId('ABIA3LAQM7ULCQPRBD2S', '\t', AWS_SECRET_3),
  { ...afterKeyId('ACCAIYXGTH6BZXWYIMGZ', '", "', AWS_SECRET_4), text: `["ACCAIYXGTH6BZXWYIMGZ", "${AWS_SECRET_4}"]` },
  afterKeyId('A3TX4ARADHLXYM7OJPWD', ' = ', AWS_SECRET),
  { rule: 'aws-secret-named', text: `aws_secret_access_key = ${AWS_SECRET}`, secret: AWS_SECRET },
  { rule: 'aws-secret-named', text: `AWS_SECRET_ACCESS_KEY=${AWS_SECRET_2}`, secret: AWS_SECRET_2 },
  { rule: 'aws-secret-named', text: `{"AccessKeyId": "placeholder", "SecretAccessKey": "${AWS_SECRET_3}"}`, secret: AWS_SECRET_3 },
  { rule: 'aws-secret-named', text: `secret_access_key: '${AWS_SECRET_4}'`, secret: AWS_SECRET_4 },
  ...bare('aws-access-key-id', 'aws access key id', 'aws session key id'),
  { rule: 'aws-access-key-id', text: 'ABIAY34FZKBOKMUTVV7A' },
  { rule: 'aws-access-key-id', text: 'ACCA3LAQM7ULCQPRBD2S' },
  { rule: 'aws-access-key-id', text: 'A3T74ARADHLXYM7OJPWD' },
  ...bare('authorization', 'bearer token', 'bearer token in lower case', 'basic auth', 'basic auth as sent'),
];
